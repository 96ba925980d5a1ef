//go:build race

package example_test

const raceEnabled = true
