//go:build !race

package example_test

const raceEnabled = false
