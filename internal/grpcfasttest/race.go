//go:build race

package grpcfasttest

// Race reports whether the race detector is on. It makes sync.Pool
// drop a random share of the items put into it, so allocation counts and
// buffer reuse cannot be asserted.
const Race = true
