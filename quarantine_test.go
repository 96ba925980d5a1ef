//go:build grpcfast_checked

package grpcfast_test

// quarantine reports whether memory taken back is poisoned and never reused
// (the grpcfast_checked build tag).
const quarantine = true
