package grpcfastbench

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
)

// orderLog records, in order, the path of every codec call of a run.
type orderLog struct {
	mu    sync.Mutex
	paths []string
}

func (l *orderLog) add(path string) {
	l.mu.Lock()
	l.paths = append(l.paths, path)
	l.mu.Unlock()
}

// runs returns the paths in the order they ran, each run of calls of one
// path once.
func (l *orderLog) runs() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Compact(slices.Clone(l.paths))
}

type loggedCodec struct {
	encoding.CodecV2
	path string
	log  *orderLog
}

func (c loggedCodec) Marshal(v any) (mem.BufferSlice, error) {
	c.log.add(c.path)
	return c.CodecV2.Marshal(v)
}

type loggedCodecV1 struct {
	encoding.Codec
	path string
	log  *orderLog
}

func (c loggedCodecV1) Marshal(v any) ([]byte, error) {
	c.log.add(c.path)
	return c.Codec.Marshal(v)
}

// TestRoundsInterleavePaths: with -grpcfast.rounds=3, a method runs every
// path once in round 1, then every path in round 2, then in round 3, and
// not each path three times in a row; with the default, every path once.
func TestRoundsInterleavePaths(t *testing.T) {
	var want []string
	for _, p := range newPaths(&config{}) {
		want = append(want, p.name)
	}
	for _, rounds := range []int{1, 3} {
		log := new(orderLog)
		wrapCodec = func(path string, c encoding.CodecV2) encoding.CodecV2 {
			return loggedCodec{c, path, log}
		}
		wrapCodecV1 = func(path string, c encoding.Codec) encoding.Codec {
			return loggedCodecV1{c, path, log}
		}
		t.Cleanup(func() { wrapCodec, wrapCodecV1 = nil, nil })
		var failed bool
		withFlags(t, func(c *config) { c.rounds, c.batch = rounds, 0 }, func() {
			testing.Benchmark(func(b *testing.B) {
				Run(b, "grpcfast.testdata.kinds.Kinds", kindsMethods()[0]) // Unary: every path
				failed = b.Failed()
			})
		})
		if failed {
			t.Fatalf("rounds=%d: the benchmark failed", rounds)
		}
		var all []string
		for range rounds {
			all = append(all, want...)
		}
		if got := log.runs(); !slices.Equal(got, all) {
			t.Errorf("rounds=%d: the paths ran in the order\n\t%s\nwant\n\t%s", rounds, strings.Join(got, " "), strings.Join(all, " "))
		}
	}
}

// TestLoadsNames: the sub-benchmark levels of each combination of
// -grpcfast.conns, -grpcfast.streams and -grpcfast.rounds, in the order they
// run: a level only for a flag with several values, the round innermost.
func TestLoadsNames(t *testing.T) {
	for _, tc := range []struct {
		conns, streams []int
		rounds         int
		want           []string
	}{
		{[]int{1}, []int{1}, 1, []string{""}},
		{[]int{1}, []int{1}, 2, []string{"round=1", "round=2"}},
		{[]int{1}, []int{1, 8}, 2, []string{"streams=1/round=1", "streams=1/round=2", "streams=8/round=1", "streams=8/round=2"}},
		{[]int{1, 4}, []int{8}, 1, []string{"conns=1", "conns=4"}},
	} {
		var got []string
		for _, l := range loads(&config{conns: tc.conns, streams: tc.streams, rounds: tc.rounds}) {
			got = append(got, l.name)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("conns %v, streams %v, rounds %d: %q, want %q", tc.conns, tc.streams, tc.rounds, got, tc.want)
		}
	}
}
