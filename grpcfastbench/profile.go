package grpcfastbench

import (
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
)

// profile writes the CPU and allocation profiles of one sub-benchmark.
type profile struct {
	cpu  *os.File
	base string // file prefix; "" when not profiling
}

// startProfile starts a CPU profile into dir/NAME.cpu.pprof and writes the
// allocations so far into dir/NAME.allocs-before.pprof, where NAME is the
// sub-benchmark's service, method and path with "/" replaced by "_"
// (ChunkService_Put_codec=grpcfast). stop writes
// dir/NAME.allocs.pprof; the allocations of the sub-benchmark alone are the
// difference:
//
//	go tool pprof -sample_index=alloc_space -base NAME.allocs-before.pprof NAME.allocs.pprof
//
// The benchmark framework calls a sub-benchmark several times with growing
// b.N; the files are those of the last call, the one it reports.
func startProfile(benchName, dir string) (*profile, error) {
	if dir == "" {
		return &profile{}, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, errorf("-%sprofile: %v", FlagPrefix, err)
	}
	name := strings.NewReplacer("/", "_", " ", "_").Replace(benchName)
	p := &profile{base: filepath.Join(dir, name)}
	if err := writeAllocs(p.base + ".allocs-before.pprof"); err != nil {
		return nil, err
	}
	f, err := os.Create(p.base + ".cpu.pprof")
	if err != nil {
		return nil, errorf("-%sprofile: %v", FlagPrefix, err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, errorf("-%sprofile: %v (is go test's -cpuprofile on too? use one of them)", FlagPrefix, err)
	}
	p.cpu = f
	return p, nil
}

func (p *profile) stop() error {
	if p.base == "" {
		return nil
	}
	pprof.StopCPUProfile()
	if err := p.cpu.Close(); err != nil {
		return errorf("-%sprofile: %v", FlagPrefix, err)
	}
	return writeAllocs(p.base + ".allocs.pprof")
}

// writeAllocs writes the allocation profile as of a garbage collection run
// now, so that it includes every allocation so far.
func writeAllocs(file string) error {
	runtime.GC()
	f, err := os.Create(file)
	if err != nil {
		return errorf("-%sprofile: %v", FlagPrefix, err)
	}
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return errorf("-%sprofile: %v", FlagPrefix, err)
	}
	if err := f.Close(); err != nil {
		return errorf("-%sprofile: %v", FlagPrefix, err)
	}
	return nil
}
