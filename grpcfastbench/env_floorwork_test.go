package grpcfastbench

import (
	"runtime"
	"slices"
	"testing"
	"time"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast/internal/codec"
	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"github.com/grpcfast/grpcfast/internal/own"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
)

// TestFloorWork: with -grpcfast.floorwork=D, the server of codec=floor
// spends at least D on each message it receives, and decodes nothing still;
// its client, and every other path's server, spend nothing more. Without
// the flag the floor's server runs the floor's codec itself.
func TestFloorWork(t *testing.T) {
	const work = 20 * time.Millisecond
	for _, d := range []time.Duration{0, work} {
		floor := floorOf(t, &config{floor: true, floorWork: d})
		if _, ok := floor.codec.(floorCodec); !ok {
			t.Fatalf("floorwork %v: the floor's client runs %T, want floorCodec", d, floor.codec)
		}
		server := floor.serverCodec()
		if d == 0 {
			if server != floor.codec {
				t.Errorf("no floorwork: the floor's server runs %T, want the floor's codec", server)
			}
			continue
		}
		if server.Name() != floor.codec.Name() {
			t.Errorf("floorwork %v: the server's codec is named %q, want %q", d, server.Name(), floor.codec.Name())
		}
		msg := new(kinds.Rich)
		start := time.Now()
		if err := server.Unmarshal(mem.BufferSlice{mem.SliceBuffer([]byte{8, 1})}, msg); err != nil {
			t.Fatal(err)
		}
		if took := time.Since(start); took < d {
			t.Errorf("floorwork %v: the server's Unmarshal took %v", d, took)
		}
		if proto.Size(msg) != 0 {
			t.Errorf("floorwork %v: the server decoded %d bytes; the floor decodes nothing", d, proto.Size(msg))
		}
	}
}

// floorOf returns the path codec=floor of cfg's paths, and fails t where
// another path's server runs other than its own codec: the floor's work
// (-floorwork, -floorcopy) is the floor's server's alone.
func floorOf(t *testing.T, cfg *config) *path {
	t.Helper()
	var floor *path
	for _, p := range newPaths(cfg) {
		if p.name == PathFloor {
			floor = p
		} else if p.codec != nil && p.serverCodec() != p.codec {
			t.Errorf("floorwork %v, floorcopy %v: codec=%s's server runs %T, want its own codec", cfg.floorWork, cfg.floorCopy, p.name, p.serverCodec())
		}
	}
	if floor == nil {
		t.Fatalf("floorwork %v, floorcopy %v: no codec=floor", cfg.floorWork, cfg.floorCopy)
	}
	return floor
}

// TestFloorCopy: with -grpcfast.floorcopy, the server of codec=floor makes
// the owned copy of each message it receives (the copy that pooled with one
// copy decodes from, whose array waits for the collector), and decodes
// nothing still; without it, the floor's server makes none.
func TestFloorCopy(t *testing.T) {
	if own.Quarantine {
		t.Skip("a checked build's owned copies are new arrays, never reused, with no finalizer to wait for: none is ever pending")
	}
	wire, err := proto.Marshal(grpcfasttest.StringsMessage(16 << 10))
	if err != nil {
		t.Fatal(err)
	}
	for _, copies := range []bool{false, true} {
		floor := floorOf(t, &config{floor: true, floorCopy: copies})
		server := floor.serverCodec()
		codec.DropFreeCopies() // runs the finalizers of earlier copies
		if n := codec.PendingCopies(); n != 0 {
			t.Fatalf("%d bytes of earlier copies still pending", n)
		}
		msg := new(kinds.Rich)
		if err := server.Unmarshal(mem.BufferSlice{mem.SliceBuffer(wire)}, msg); err != nil {
			t.Fatal(err)
		}
		pending := codec.PendingCopies()
		if copied := pending >= int64(len(wire)); copied != copies {
			t.Errorf("floorcopy %v: after the server's Unmarshal of %d bytes, %d bytes of copies pending", copies, len(wire), pending)
		}
		if proto.Size(msg) != 0 {
			t.Errorf("floorcopy %v: the server decoded %d bytes; the floor decodes nothing", copies, proto.Size(msg))
		}
	}
}

// TestFloorWorkNeedsFloor: -grpcfast.floorwork or -grpcfast.floorcopy
// without -grpcfast.floor is an error that names both.
func TestFloorWorkNeedsFloor(t *testing.T) {
	for _, tc := range []struct {
		set  func(*config)
		want string
	}{
		{func(c *config) { c.floorWork = time.Microsecond }, "-grpcfast.floorwork needs -grpcfast.floor: it is the work of the floor's server"},
		{func(c *config) { c.floorCopy = true }, "-grpcfast.floorcopy needs -grpcfast.floor: it is the work of the floor's server"},
	} {
		c := flags
		tc.set(&c)
		if err := c.check(); err == nil || err.Error() != tc.want {
			t.Errorf("check: %v, want %q", err, tc.want)
		}
		c.floor = true
		if err := c.check(); err != nil {
			t.Errorf("with -grpcfast.floor: %v", err)
		}
	}
}

// TestSpinSpendsCPU: spin keeps its thread on the CPU for the time asked,
// measured by the thread's own CPU clock where it can be read (a thread
// taken off the CPU meanwhile spins for longer).
func TestSpinSpendsCPU(t *testing.T) {
	const d = 20 * time.Millisecond
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before, ok := threadCPU()
	start := time.Now()
	spin(d)
	if took := time.Since(start); took < d {
		t.Errorf("spin(%v) returned after %v", d, took)
	}
	if !ok {
		t.Skip("no thread CPU clock here: spin counts wall time")
	}
	after, _ := threadCPU()
	if used := after - before; used < d {
		t.Errorf("spin(%v) used %v of its thread's CPU", d, used)
	}
}

// TestSpinCostsItsWork: spin(d) costs its thread d of CPU time, not d and
// the reads of the thread's clock on top: where a read is a system call
// (clock_gettime of CLOCK_THREAD_CPUTIME_ID has no vDSO path), two reads
// around a short work made -floorwork=5us cost 8 µs (3 µs of them with a
// work of 1 ns). Each call is measured with two reads of the test's own, so
// its figure is spin's cost and one read more (the test's reads' halves
// inside it); the median of many calls keeps out the odd interrupt.
func TestSpinCostsItsWork(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if _, ok := threadCPU(); !ok {
		t.Skip("no thread CPU clock here: spin counts wall time")
	}
	read := readCost()
	const d = 10 * time.Microsecond
	costs := make([]time.Duration, 301)
	for i := range costs {
		before, _ := threadCPU()
		spin(d)
		after, _ := threadCPU()
		costs[i] = after - before
	}
	slices.Sort(costs)
	median := costs[len(costs)/2]
	if want := d + 2*read; median > want {
		t.Errorf("spin(%v) cost %v of its thread's CPU, the median of %d calls (a read of the clock: %v), want at most %v", d, median, len(costs), read, want)
	}
	if median < d {
		t.Errorf("spin(%v) cost %v of its thread's CPU, the median of %d calls", d, median, len(costs))
	}
}

// TestFloorWorkLine: with a work, the results start with a configuration
// line that names it, which keeps benchstat from mixing the floor's results
// of different works; without one, or without the floor, there is none.
func TestFloorWorkLine(t *testing.T) {
	for _, tc := range []struct {
		c    config
		want string
	}{
		{config{floor: true, floorWork: 5 * time.Microsecond}, "floorwork: 5µs"},
		{config{floor: true, floorCopy: true}, "floorwork: copy"},
		{config{floor: true, floorCopy: true, floorWork: 5 * time.Microsecond}, "floorwork: copy+5µs"},
		{config{floor: true}, ""},
		{config{floorWork: time.Millisecond}, ""},
		{config{floorCopy: true}, ""},
	} {
		if got := floorWorkLine(&tc.c); got != tc.want {
			t.Errorf("floor %v, floorwork %v: %q, want %q", tc.c.floor, tc.c.floorWork, got, tc.want)
		}
	}
}
