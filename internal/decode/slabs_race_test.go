//go:build race

package decode

// race reports whether the race detector is on: it turns off the
// compiler's allocation of append(x, make([]T, n)...) in one piece, so that
// the tests that count allocations skip their counts.
const race = true
