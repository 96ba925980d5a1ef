//go:build race

package grpcfast_test

// raceEnabled reports whether the race detector is on. It makes sync.Pool
// drop a random share of the items put into it, so allocation counts and
// buffer reuse cannot be asserted.
const raceEnabled = true
