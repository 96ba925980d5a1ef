package grpcfastbench

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// CPU placement (-grpcfast.servercpus, -grpcfast.clientcpus). When the
// client and the server share every core, the scheduler moves each process's
// threads from core to core, and the client's work runs between the
// server's on the same core: the server's CPU per op then counts caches
// refilled after each move, and its figures vary from run to run. Pinned to
// cores of their own, each process keeps its caches, and the figures are
// the server's work alone. The pinning is of every thread of the process
// (sched_setaffinity), which the threads it starts later inherit.

// cpusFlag is a list of CPUs in the kernel's format: numbers and ranges
// separated by commas, such as 1 or 2-3,6.
type cpusFlag struct{ p *[]int }

func (f cpusFlag) String() string {
	if f.p == nil {
		return ""
	}
	return formatCPUs(*f.p)
}

func (f cpusFlag) Set(s string) error {
	cpus, err := parseCPUs(s)
	if err != nil {
		return err
	}
	*f.p = cpus
	return nil
}

// maxCPU is the highest CPU number a list may name: what a sched_setaffinity
// set of the usual size holds.
const maxCPU = 1023

var errCPUs = errors.New("want CPU numbers from 0 to " + strconv.Itoa(maxCPU) + " and ranges of them separated by commas, such as 1 or 2-3,6")

// parseCPUs parses a list such as 2-3,6 into its CPUs, sorted; a CPU named
// twice is an error.
func parseCPUs(s string) ([]int, error) {
	seen := map[int]bool{}
	for _, item := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(item, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 || a > maxCPU {
			return nil, errCPUs
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a || b > maxCPU {
				return nil, errCPUs
			}
		}
		for c := a; c <= b; c++ {
			if seen[c] {
				return nil, fmt.Errorf("CPU %d is in the list twice", c)
			}
			seen[c] = true
		}
	}
	return slices.Sorted(maps.Keys(seen)), nil
}

// formatCPUs writes sorted CPUs in the kernel's format, runs as ranges.
func formatCPUs(cpus []int) string {
	var parts []string
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, strconv.Itoa(cpus[i]))
		} else {
			parts = append(parts, strconv.Itoa(cpus[i])+"-"+strconv.Itoa(cpus[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// startCPUs are the CPUs this process could run on when it started, before
// -clientcpus pinned it.
var startCPUs, startCPUsErr = allowedCPUs()

// checkCPUs reports CPUs of the flag named that this process could not run
// on when it started, or that pinning cannot work here.
func checkCPUs(name string, cpus []int) error {
	if len(cpus) == 0 {
		return nil
	}
	allowed, err := startCPUs, startCPUsErr
	if err != nil {
		return fmt.Errorf("-%s%s=%s: %v", FlagPrefix, name, formatCPUs(cpus), err)
	}
	for _, c := range cpus {
		if !slices.Contains(allowed, c) {
			return fmt.Errorf("-%s%s=%s: this process may not run on CPU %d (it may on %s)",
				FlagPrefix, name, formatCPUs(cpus), c, formatCPUs(allowed))
		}
	}
	return nil
}

// pin pins this process to cpus, the value of the flag named: the server
// process to -servercpus, the benchmark to -clientcpus at each of its
// benchmarks (again: the same threads keep the same CPUs).
func pin(name string, cpus []int) error {
	if err := pinProcess(cpus); err != nil {
		return fmt.Errorf("-%s%s=%s: %v", FlagPrefix, name, formatCPUs(cpus), err)
	}
	return nil
}
