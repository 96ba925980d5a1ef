package grpcfastbench

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// allowedCPUs returns the CPUs the calling thread may run on, sorted.
func allowedCPUs() ([]int, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil, err
	}
	var cpus []int
	for c := 0; c <= maxCPU; c++ {
		if set.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	return cpus, nil
}

// pinProcess lets every thread of the process run on cpus only. A thread
// started meanwhile by one not yet pinned may have missed it: the threads
// are listed again until a pass finds none it has not pinned.
func pinProcess(cpus []int) error {
	var set unix.CPUSet
	for _, c := range cpus {
		set.Set(c)
	}
	pinned := map[int]bool{}
	for {
		tasks, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return err
		}
		added := false
		for _, t := range tasks {
			tid, err := strconv.Atoi(t.Name())
			if err != nil || pinned[tid] {
				continue
			}
			if err := unix.SchedSetaffinity(tid, &set); err != nil && err != unix.ESRCH { // ESRCH: the thread has exited
				return err
			}
			pinned[tid], added = true, true
		}
		if !added {
			return nil
		}
	}
}
