package grpcfastimpl_test

import (
	"testing"
	"unsafe"

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
	// Room for the element and the 100 after it, rounded up to the
	// allocator's size class as append rounds it (101 ints: 808 bytes, in
	// the class of 896).
	s := grpcfastimpl.Grow([]int(nil), tag, run)
	if len(s) != 0 || cap(s) < 101 || cap(s) > 112 {
		t.Errorf("Grow before a run of 100: len %d cap %d, want 0 and 101 to 112", len(s), cap(s))
	}
	// The new array holds the elements and zeros beyond them, never what
	// the old one held past its length.
	old := make([]*int, 3, 4)
	x := 7
	old[:4][3] = &x
	g := grpcfastimpl.GrowBy(old[:3], 5)
	if len(g) != 3 || cap(g) < 8 || g[:cap(g)][3] != nil {
		t.Errorf("GrowBy of a slice with an element past its length: len %d cap %d, element 3 %v; want 3, at least 8, nil", len(g), cap(g), g[:cap(g)][3])
	}
}

// A long run of one field sizes it from what it already holds: 100,000
// strings in one run take a few arrays, each about twice the last, where
// growing by a quarter past 1024 (append's step) took about 20.
func TestGrowLongRun(t *testing.T) {
	const n = 100000
	const tag = 9<<3 | 2
	var b []byte
	for range n {
		b = protowire.AppendString(protowire.AppendTag(b, 9, protowire.BytesType), "tag")
	}
	var s []string
	arrays := 0
	for rest := b; len(rest) > 0; {
		_, _, k := protowire.ConsumeTag(rest)
		v, m := protowire.ConsumeString(rest[k:])
		rest = rest[k+m:]
		if len(s) == cap(s) {
			s = grpcfastimpl.Grow(s, tag, rest)
			arrays++
		}
		s = append(s, v)
	}
	if len(s) != n || arrays > 8 {
		t.Errorf("%d elements in one run: %d arrays, cap %d; want %d elements in at most 8 arrays", len(s), arrays, cap(s), n)
	}
	if cap(s) > 2*n {
		t.Errorf("%d elements in one run: cap %d, want at most %d", n, cap(s), 2*n)
	}
}

type chunked struct{ a, b int64 }

// The elements that AppendMessage allocates ahead for a fresh message come
// in chunks of at most 1+MaxRun, so that an element kept keeps at most that
// many siblings alive: a run of 3000 after 3000 elements takes 3 chunks and
// the new array of pointers.
func TestAppendMessageChunks(t *testing.T) {
	const tag = 9<<3 | 2
	var rest []byte
	for range 2999 {
		rest = protowire.AppendBytes(protowire.AppendTag(rest, 9, protowire.BytesType), nil)
	}
	full := make([]*chunked, 3000)
	var got []*chunked
	allocs := testing.AllocsPerRun(20, func() {
		got = grpcfastimpl.AppendMessage(full, &grpcfastimpl.Decoding{}, tag, rest)
	})
	if allocs != 4 {
		t.Errorf("AppendMessage ahead of 3000 elements: %v allocations, want 4 (3 chunks, 1 array)", allocs)
	}
	all := got[len(got)-1 : len(got)-1+3000]
	for i, e := range all {
		if e == nil {
			t.Fatalf("element %d ahead is nil", i)
		}
	}
	// Within a chunk the elements are adjacent; across its end they are not.
	size := unsafe.Sizeof(chunked{})
	adjacent := func(i int) bool {
		return uintptr(unsafe.Pointer(all[i+1]))-uintptr(unsafe.Pointer(all[i])) == size
	}
	if !adjacent(0) || !adjacent(decode.MaxRun-1) || adjacent(decode.MaxRun) {
		t.Errorf("chunk bounds: 0-1 adjacent %v, %d-%d adjacent %v, %d-%d adjacent %v; want true, true, false",
			adjacent(0), decode.MaxRun-1, decode.MaxRun, adjacent(decode.MaxRun-1), decode.MaxRun, decode.MaxRun+1, adjacent(decode.MaxRun))
	}
}

// In a decode into a fresh message, a field's first run of at most
// MaxCarved elements has its pointers beside other fields' in the decode's
// pointer chunk, of capacity exactly the run: appending to one field (as a
// handler may) copies it and leaves the next field's elements as they were.
// A longer run has an array of its own. Every element ahead is allocated.
func TestAppendMessageCarved(t *testing.T) {
	const tag = 9<<3 | 2
	runOf := func(n int) []byte { // the n-1 elements after the one just read
		var b []byte
		for range n - 1 {
			b = protowire.AppendBytes(protowire.AppendTag(b, 9, protowire.BytesType), nil)
		}
		return b
	}
	f, d := decode.GetFresh(1<<16, false)
	defer decode.PutFresh(f)
	fill := func(n int) []*chunked {
		s := grpcfastimpl.AppendMessage([]*chunked(nil), d, tag, runOf(n))
		if len(s) != 1 || cap(s) < n {
			t.Fatalf("a run of %d: len %d cap %d, want 1 and at least %d", n, len(s), cap(s), n)
		}
		s = s[:n]
		for i, e := range s {
			if e == nil {
				t.Fatalf("a run of %d: element %d is nil", n, i)
			}
			e.a = int64(n*1000 + i)
		}
		return s
	}
	a, b := fill(7), fill(5)
	if cap(a) != 7 || cap(b) != 5 {
		t.Errorf("capacities %d and %d, want 7 and 5", cap(a), cap(b))
	}
	if uintptr(unsafe.Pointer(&b[0]))-uintptr(unsafe.Pointer(&a[0])) != 7*unsafe.Sizeof(a[0]) {
		t.Errorf("two short runs not side by side: %p, %p", &a[0], &b[0])
	}
	bAt := b[0]
	a = append(a, &chunked{a: -1})
	if b[0] != bAt || b[0].a != 5000 || len(a) != 8 {
		t.Fatalf("appending to one field changed the next: %p (%d), want %p", b[0], b[0].a, bAt)
	}
	if c := fill(decode.MaxCarved); cap(c) != decode.MaxCarved {
		t.Errorf("a run of %d: capacity %d", decode.MaxCarved, cap(c))
	}
	// A longer run: its pointers in an array of their own, not a chunk's
	// (which holds MaxPointers at most), with room beyond the run as
	// GrowBy gives it.
	if long := fill(decode.MaxCarved + 1); cap(long) == decode.MaxCarved+1 {
		t.Errorf("a run of %d: capacity %d, want append's rounding (an array of its own)", decode.MaxCarved+1, cap(long))
	}
	// A decode without slabs (a slot's) never takes from a chunk.
	if s := grpcfastimpl.AppendMessage([]*chunked(nil), &grpcfastimpl.Decoding{}, tag, runOf(3)); cap(s) < 3 || s[0] == nil {
		t.Errorf("without slabs: cap %d, first %v", cap(s), s[0])
	}
}
