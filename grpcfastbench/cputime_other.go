//go:build !linux

package grpcfastbench

import "time"

// threadCPU reports that a thread's CPU time cannot be read here: spin
// then counts wall time.
func threadCPU() (time.Duration, bool) { return 0, false }
