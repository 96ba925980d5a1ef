package grpcfastbench

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU returns the calling thread's CPU time so far
// (CLOCK_THREAD_CPUTIME_ID), and false where it cannot be read.
func threadCPU() (time.Duration, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
