//go:build unix

package example

import (
	"syscall"
	"time"
)

// ProcessCPUTime returns the process's user+system CPU time so far, or 0
// where it cannot be read. The benchmarks and chunkbench report CPU per
// stream from it.
func ProcessCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
