package grpcfastimpl_test

import (
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/grpcfast/grpcfast/grpcfastimpl"
	"github.com/grpcfast/grpcfast/internal/decode"
)

// A field whose elements do not follow each other grows as append grows
// it, by a factor (2 for short slices, 1.25 for long ones): n elements cost
// O(log n) arrays, never one per element.
func TestGrowGeometric(t *testing.T) {
	const tag = 9<<3 | 2
	other := protowire.AppendString(protowire.AppendTag(nil, 6, protowire.BytesType), "x")
	var s []int
	arrays := 0
	for i := range 1 << 16 {
		if len(s) == cap(s) {
			old := cap(s)
			s = grpcfastimpl.Grow(s, tag, other)
			arrays++
			if old > 0 && cap(s) < old+old/4 {
				t.Fatalf("a full slice of %d grew to %d, want at least 1.25 times", old, cap(s))
			}
		}
		s = append(s, i)
	}
	if arrays > 40 {
		t.Errorf("65536 elements, apart: %d arrays", arrays)
	}
	for i, v := range s {
		if v != i {
			t.Fatalf("element %d is %d", i, v)
		}
	}
}

// A run of elements sizes the field in one step; a run that ends in
// something malformed counts the elements before it.
func TestGrowRun(t *testing.T) {
	const tag = 9<<3 | 2
	var run []byte
	for range 100 {
		run = protowire.AppendBytes(protowire.AppendTag(run, 9, protowire.BytesType), []byte("ab"))
	}
	cases := []struct {
		name string
		tag  uint64
		b    []byte
		want int
	}{
		{"run", tag, run, 100},
		{"run then another field", tag, append(run, 6<<3|2, 0), 100},
		{"cut short", tag, run[:len(run)-1], 99},
		{"length past the end", tag, append(run, 9<<3|2, 5, 'a'), 100},
		{"overlong length", tag, append(run, 9<<3|2, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01), 100},
		{"varints", 5 << 3, []byte{5 << 3, 0x80, 0x01, 5 << 3, 1, 5 << 3, 0x80}, 2},
		{"overlong varint", 5 << 3, append([]byte{5 << 3, 1, 5 << 3}, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01), 1},
		{"fixed32", 5<<3 | 5, []byte{5<<3 | 5, 1, 2, 3, 4, 5<<3 | 5, 1, 2, 3}, 1},
		{"fixed64", 5<<3 | 1, []byte{5<<3 | 1, 1, 2, 3, 4, 5, 6, 7, 8}, 1},
		{"group", 5<<3 | 3, []byte{5<<3 | 3, 5<<3 | 4}, 0},
		{"two-byte tag", 20<<3 | 2, []byte{0xa2, 0x01, 0, 0xa2, 0x01, 1, 'x', 0xa2}, 2},
		{"empty", tag, nil, 0},
	}
	for _, tc := range cases {
		if got := decode.Run(tc.tag, tc.b); got != tc.want {
			t.Errorf("%s: Run = %d, want %d", tc.name, got, tc.want)
		}
	}
	var long []byte
	for range 3000 {
		long = append(long, 9<<3|2, 0)
	}
	if got := decode.Run(tag, long); got != decode.MaxRun {
		t.Errorf("a run of 3000: Run = %d, want MaxRun (%d)", got, decode.MaxRun)
	}
	s := grpcfastimpl.Grow([]int(nil), tag, run)
	if len(s) != 0 || cap(s) != 101 {
		t.Errorf("Grow before a run of 100: len %d cap %d, want 0 and 101", len(s), cap(s))
	}
}
