package grpcfastbench

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/grpcfast/grpcfast/internal/childproc"
)

// profile writes the CPU and allocation profiles of one sub-benchmark.
type profile struct {
	p    *childproc.Profile
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
// With the server in its own process, the server writes the same three
// files of its own, named NAME.server.cpu.pprof and so on (serverBase).
// The benchmark framework calls a sub-benchmark several times with growing
// b.N; the files are those of the last call, the one it reports.
func startProfile(benchName, dir string) (*profile, error) {
	if dir == "" {
		return &profile{}, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, errorf("-%sprofile: %v", FlagPrefix, err)
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, errorf("-%sprofile: %v", FlagPrefix, err)
	}
	name := strings.NewReplacer("/", "_", " ", "_").Replace(benchName)
	base := filepath.Join(dir, name)
	p, err := childproc.StartProfile(base)
	if err != nil {
		return nil, errorf("-%sprofile: %v", FlagPrefix, err)
	}
	return &profile{p: p, base: base}, nil
}

// serverBase is the prefix of the server process's files: absolute, as the
// server process writes them; "" when not profiling.
func (p *profile) serverBase() string {
	if p.base == "" {
		return ""
	}
	return p.base + ".server"
}

func (p *profile) stop() error {
	if p.p == nil {
		return nil
	}
	if err := p.p.Stop(); err != nil {
		return errorf("-%sprofile: %v", FlagPrefix, err)
	}
	return nil
}
