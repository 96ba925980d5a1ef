//go:build !linux

package grpcfastbench

import "errors"

var errNoPinning = errors.New("pinning to CPUs needs Linux (sched_setaffinity)")

func allowedCPUs() ([]int, error) { return nil, errNoPinning }

func pinProcess([]int) error { return errNoPinning }
