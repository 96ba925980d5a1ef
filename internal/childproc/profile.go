package childproc

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// Profile is a CPU profile being written into BASE.cpu.pprof, between two
// allocation profiles: BASE.allocs-before.pprof, written by StartProfile,
// and BASE.allocs.pprof, written by Stop. The allocations made in between
// are the difference:
//
//	go tool pprof -sample_index=alloc_space -base BASE.allocs-before.pprof BASE.allocs.pprof
type Profile struct {
	cpu  *os.File
	base string
}

// StartProfile writes the allocations so far into BASE.allocs-before.pprof
// and starts a CPU profile into BASE.cpu.pprof. A process has one CPU
// profile at a time: it fails if another runs (go test's -cpuprofile).
func StartProfile(base string) (*Profile, error) {
	if err := writeAllocs(base + ".allocs-before.pprof"); err != nil {
		return nil, err
	}
	f, err := os.Create(base + ".cpu.pprof")
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("%v (is go test's -cpuprofile on too? use one of them)", err)
	}
	return &Profile{cpu: f, base: base}, nil
}

// Stop ends the CPU profile and writes BASE.allocs.pprof.
func (p *Profile) Stop() error {
	pprof.StopCPUProfile()
	if err := p.cpu.Close(); err != nil {
		return err
	}
	return writeAllocs(p.base + ".allocs.pprof")
}

// writeAllocs writes the allocation profile as of a garbage collection run
// now, so that it includes every allocation so far.
func writeAllocs(file string) error {
	runtime.GC()
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
