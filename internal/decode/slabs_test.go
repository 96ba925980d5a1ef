package decode

import (
	"bytes"
	"testing"
	"unsafe"

	"github.com/grpcfast/grpcfast/internal/own"
)

type slabbed struct {
	a, b int64
	s    string
}

// Take hands out zero messages of one kind in arrays of 1, 2, 4 ... up to
// MaxSlab, so that a message kept holds at most MaxSlab-1 others alive:
// 200 messages take 11 arrays (1, 2, 4, 8, 16, then 6 of 32), and the
// messages of one array are adjacent.
func TestSlabsSizes(t *testing.T) {
	k := own.NewSpareKind()
	var s Slabs
	var got [200]*slabbed
	allocs := testing.AllocsPerRun(5, func() {
		s = Slabs{}
		for i := range got {
			got[i] = Take[slabbed](&s, k)
		}
	})
	if allocs != 11 {
		t.Errorf("200 messages: %v allocations, want 11", allocs)
	}
	size := unsafe.Sizeof(slabbed{})
	for _, array := range [][2]int{{1, 3}, {3, 7}, {7, 15}, {15, 31}, {31, 63}, {63, 95}, {159, 191}} {
		for i := array[0] + 1; i < array[1]; i++ {
			if uintptr(unsafe.Pointer(got[i]))-uintptr(unsafe.Pointer(got[i-1])) != size {
				t.Fatalf("messages %d and %d, of one array, are not adjacent", i-1, i)
			}
		}
	}
	seen := map[*slabbed]bool{}
	for i, p := range got {
		if seen[p] || *p != (slabbed{}) {
			t.Fatalf("message %d: handed out twice, or not zero", i)
		}
		seen[p] = true
	}
}

// Kinds have slabs of their own, up to slabKinds of them in one decode;
// messages of further kinds are allocated one by one.
func TestSlabsKinds(t *testing.T) {
	var s Slabs
	var kinds []own.SpareKind
	for range slabKinds + 5 {
		kinds = append(kinds, own.NewSpareKind())
	}
	first := map[own.SpareKind]*slabbed{}
	for _, k := range kinds {
		first[k] = Take[slabbed](&s, k)
	}
	if s.used != slabKinds {
		t.Fatalf("%d kinds in slabs, want %d", s.used, slabKinds)
	}
	for i, k := range kinds {
		second := Take[slabbed](&s, k)
		inSlab := i < slabKinds
		// A kind's second message starts its array of 2; a kind without
		// slabs gets a message of its own each time: never the first's.
		if second == first[k] {
			t.Fatalf("kind %d: the same message twice", i)
		}
		third := Take[slabbed](&s, k)
		adjacent := uintptr(unsafe.Pointer(third))-uintptr(unsafe.Pointer(second)) == unsafe.Sizeof(slabbed{})
		if inSlab && !adjacent {
			t.Errorf("kind %d (in slabs): second and third messages not in one array", i)
		}
	}
}

// A decode takes its slabs empty: nothing of an earlier decode is handed
// out again.
func TestFreshSlabsPerDecode(t *testing.T) {
	k := own.NewSpareKind()
	f, st := GetFresh(1024, false)
	if twin, _ := st.Sweep([]byte("ascii")); st.Slabs == nil || twin == st || twin.Slabs != st.Slabs {
		t.Fatal("a fresh state and its 7-bit twin do not share the decode's slabs")
	}
	before := map[*slabbed]bool{}
	for range 10 {
		before[Take[slabbed](st.Slabs, k)] = true
	}
	PutFresh(f)
	f, st = GetFresh(1024, false)
	defer PutFresh(f)
	if st.Slabs.used != 0 {
		t.Fatalf("the next decode's slabs hold %d kinds, want none", st.Slabs.used)
	}
	for range 10 {
		if before[Take[slabbed](st.Slabs, k)] {
			t.Fatal("the next decode got a message of the last one")
		}
	}
}

// A decode into a fresh message copies its short strings and bytes into
// chunks of at most MaxChunk bytes, none larger than its input, each value
// with no capacity beyond it; longer values, and the values of the next
// decode, are allocated apart.
func TestFreshChunks(t *testing.T) {
	chunkOf := func(b []byte) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(b)) }
	t.Run("short input", func(t *testing.T) {
		f, st := GetFresh(40, false)
		defer PutFresh(f)
		a := st.BytesPresent([]byte("0123456789"))
		b := st.String([]byte("abcdefghij"))
		if len(st.Slabs.chunk) != 40 {
			t.Fatalf("a decode of 40 bytes took a chunk of %d", len(st.Slabs.chunk))
		}
		if uintptr(unsafe.Pointer(unsafe.StringData(b)))-uintptr(chunkOf(a)) != 10 {
			t.Fatal("two short values of one decode are not side by side in its chunk")
		}
		if cap(a) != len(a) {
			t.Fatalf("a value has capacity %d beyond its length %d", cap(a), len(a))
		}
		a = append(a, 'x')
		a[0] = 'y'
		if b != "abcdefghij" {
			t.Fatalf("appending to and writing a bytes value changed its neighbour: %q", b)
		}
	})
	t.Run("field sent twice", func(t *testing.T) {
		// A singular bytes field sent twice: the second value is copied
		// over the first, within the first's piece of the chunk.
		f, st := GetFresh(64, false)
		defer PutFresh(f)
		field := st.Bytes(nil, []byte("0123456789abcdef"))
		next := st.String([]byte("neighbour"))
		field = st.Bytes(field, []byte("XYZ"))
		if string(field) != "XYZ" || cap(field) != 16 {
			t.Fatalf("the second value is %q with capacity %d, want \"XYZ\" in the first's 16 bytes", field, cap(field))
		}
		field = append(field[:cap(field)], '!')
		field[15] = '?'
		if next != "neighbour" {
			t.Fatalf("writing and appending past the field's piece changed its neighbour: %q", next)
		}
	})
	t.Run("long input", func(t *testing.T) {
		f, st := GetFresh(1<<20, false)
		v := make([]byte, 100)
		seen := map[unsafe.Pointer]bool{}
		for i := range 1000 {
			v[0] = byte(i)
			got := st.BytesPresent(v)
			if !bytes.Equal(got, v) {
				t.Fatal("a copied value differs from the input")
			}
			if c := len(st.Slabs.chunk); c > MaxChunk {
				t.Fatalf("a chunk of %d bytes, want at most %d", c, MaxChunk)
			}
			seen[unsafe.Pointer(unsafe.SliceData(st.Slabs.chunk))] = true
		}
		// 100,000 bytes in chunks of 256, 512, ... up to 4096 bytes.
		if n := len(seen); n < 100000/MaxChunk || n > 100000/MaxChunk+8 {
			t.Fatalf("1000 values of 100 bytes in %d chunks, want about %d", n, 100000/MaxChunk)
		}
		long := st.BytesPresent(make([]byte, MaxChunked+1))
		if seen[chunkOf(long)] || chunkOf(long) == unsafe.Pointer(unsafe.SliceData(st.Slabs.chunk)) {
			t.Fatal("a value longer than MaxChunked was copied into a chunk")
		}
		last := st.String([]byte("last"))
		PutFresh(f)
		f, st = GetFresh(1<<20, false)
		defer PutFresh(f)
		next := st.String([]byte("next"))
		if st.Slabs.chunk == nil || uintptr(unsafe.Pointer(unsafe.StringData(next)))-uintptr(unsafe.Pointer(unsafe.StringData(last))) == 4 {
			t.Fatal("the next decode copied into the last one's chunk")
		}
	})
}
