//go:build !race

package decode

// race reports whether the race detector is on (slabs_race_test.go).
const race = false
