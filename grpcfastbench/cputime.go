package grpcfastbench

import (
	"time"

	"github.com/grpcfast/grpcfast/internal/childproc"
)

// CPUTime returns the process's user+system CPU time so far (getrusage), or
// 0 where it cannot be read.
func CPUTime() time.Duration { return childproc.CPUTime() }
