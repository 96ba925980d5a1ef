package grpcfastbench

import (
	"slices"
	"testing"
)

// TestSkipLines checks what Run says about the paths it skips: one line per
// reason (and set of paths), naming the methods, and only for the methods
// and paths that the -bench filter selects. Before, it printed one line per
// skipped path and method of the service, selected or not (156 lines on a
// filtered run over Temporal's WorkflowService).
func TestSkipLines(t *testing.T) {
	methods := []string{"A", "B", "C", "D", "E", "F", "G", "H", "I", "J"}
	paths := []string{PathProto, PathVtproto, PathGrpcfast, PathPooled, PathPooledCopy}
	why := func(p, m int) string {
		switch {
		case paths[p] == PathVtproto && (methods[m] == "C" || methods[m] == "D"):
			return "its messages have no vtprotobuf methods"
		case paths[p] == PathPooledCopy:
			return "its request type has no UnmarshalVTUnsafe (vtprotobuf's unmarshal_unsafe feature)"
		case paths[p] == PathPooled && methods[m] == "D":
			return "its request type has no grpcfast methods: not pooled"
		}
		return ""
	}
	all := func(m, p int) bool { return true }
	notD := func(m, p int) bool { return methods[m] != "D" }
	for _, tc := range []struct {
		name     string
		selected func(m, p int) bool
		want     []string
	}{
		{"every method", all, []string{
			"no codec=grpcfast-pooled-copy for 10 methods of s.S (A, B, C, D, E, F, G, H and 2 more): its request type has no UnmarshalVTUnsafe (vtprotobuf's unmarshal_unsafe feature)",
			"no codec=vtproto for 2 methods of s.S (C, D): its messages have no vtprotobuf methods",
			"no codec=grpcfast-pooled for s.S/D: its request type has no grpcfast methods: not pooled",
		}},
		{"D filtered out", notD, []string{
			"no codec=grpcfast-pooled-copy for 9 methods of s.S (A, B, C, E, F, G, H, I and 1 more): its request type has no UnmarshalVTUnsafe (vtprotobuf's unmarshal_unsafe feature)",
			"no codec=vtproto for s.S/C: its messages have no vtprotobuf methods",
		}},
		{"only codec=grpcfast", func(m, p int) bool { return paths[p] == PathGrpcfast }, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := skipLines("s.S", methods, paths, why, tc.selected)
			if !slices.Equal(got, tc.want) {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

// TestBenchSelects checks that the -bench filter is read as go test reads
// it: one regexp per level of sub-benchmark, split at slashes outside
// brackets and parentheses, each unanchored, and levels past the pattern's
// selected.
func TestBenchSelects(t *testing.T) {
	names := []string{"BenchmarkGrpcfast_ChunkService", "Put", "codec=grpcfast-pooled"}
	for _, tc := range []struct {
		pattern string
		want    bool
	}{
		{"", true},
		{".", true},
		{"Grpcfast", true},
		{"Other", false},
		{"Grpcfast/Put", true},
		{"Grpcfast/^Get$", false},
		{"Grpcfast/(Put|Get)/codec=grpcfast$", false},
		{"Grpcfast/(Put|Get)/codec=grpcfast-", true},
		{"Grpcfast/[P/]ut", true},
		{"Grpcfast/Put/codec=proto", false},
	} {
		if got := benchSelects(tc.pattern, names...); got != tc.want {
			t.Errorf("benchSelects(%q, %q) = %v, want %v", tc.pattern, names, got, tc.want)
		}
	}
}
