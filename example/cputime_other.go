//go:build !unix

package example

import "time"

// ProcessCPUTime returns 0: CPU time is not measured on this system.
func ProcessCPUTime() time.Duration { return 0 }
