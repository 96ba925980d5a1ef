package decode

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/grpcfast/grpcfast/internal/own"
)

type slabbed struct {
	a, b int64
	s    string
}

// slabbed56 has the size of an OTLP AnyValue, and pointers: 32 of them and
// the malloc header (1,800 bytes) take the allocator's 2,048, where 36 fit.
type slabbed56 [7]*int64

var _ [56]byte = [unsafe.Sizeof(slabbed56{})]byte{}

// Take hands out zero messages of one kind in arrays of 1, 2, 4 ... up to
// MaxSlab, each filled up to what the allocator gives it, so that a
// message kept holds at most MaxSlabFilled-1 others alive, and a full slab
// takes the memory that MaxSlab messages take: the messages of one array
// are adjacent, each handed out once, and zero.
func TestSlabsSizes(t *testing.T) {
	t.Run("32 bytes", func(t *testing.T) {
		// 32 of 32 bytes and the header take 1,152 bytes, where 35 fit:
		// 200 messages take 10 arrays (1, 2, 4, 8, 16, then 5 of 35),
		// where arrays of 32 would have taken 11.
		testSlabSizes[slabbed](t, 200, []int{1, 2, 4, 8, 16, 35, 35, 35, 35, 35}, 32+64+128+256+512+5*1152)
	})
	t.Run("56 bytes", func(t *testing.T) {
		// 18 of 56 bytes fill the 1,024 bytes of 16 and the header, 36
		// the 2,048 of 32: 200 messages take 10 arrays (1, 2, 4, 8, 18,
		// then 5 of 36) and 12,112 bytes, where arrays of 16 and 32 would
		// have taken 11 arrays and 14,160 bytes.
		testSlabSizes[slabbed56](t, 200, []int{1, 2, 4, 8, 18, 36, 36, 36, 36, 36}, 64+112+224+448+1024+5*2048)
	})
}

// testSlabSizes takes n messages of a new kind, and checks that they come
// in arrays of the lengths given (the last one possibly not all handed
// out), adjacent within one, in that many allocations of bytes in all.
func testSlabSizes[T comparable](t *testing.T, n int, arrays []int, bytes uint64) {
	k := own.NewSpareKind()
	var s Slabs
	got := make([]*T, n)
	take := func() {
		s = Slabs{}
		for i := range got {
			got[i] = Take[T](&s, k)
		}
	}
	if allocs := testing.AllocsPerRun(5, take); !race && int(allocs) != len(arrays) {
		t.Errorf("%d messages: %v allocations, want %d", n, allocs, len(arrays))
	}
	if b := allocatedBytes(take); !race && b != bytes {
		t.Errorf("%d messages: %d bytes allocated, want %d", n, b, bytes)
	}
	size := unsafe.Sizeof(*new(T))
	first := 0
	for _, l := range arrays {
		for i := first + 1; i < min(first+l, n); i++ {
			if uintptr(unsafe.Pointer(got[i]))-uintptr(unsafe.Pointer(got[i-1])) != size {
				t.Fatalf("messages %d and %d, of one array, are not adjacent", i-1, i)
			}
		}
		if first+l < n && uintptr(unsafe.Pointer(got[first+l]))-uintptr(unsafe.Pointer(got[first+l-1])) == size {
			t.Fatalf("message %d, the first of an array, follows the one before it: the array before holds more than %d", first+l, l)
		}
		first += l
	}
	seen := map[*T]bool{}
	var zero T
	for i, p := range got {
		if seen[p] || *p != zero {
			t.Fatalf("message %d: handed out twice, or not zero", i)
		}
		seen[p] = true
	}
}

// allocatedBytes returns the bytes that f allocates, with one processor so
// that nothing else allocates meanwhile.
func allocatedBytes(f func()) uint64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
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
	if s.kinds() != slabKinds {
		t.Fatalf("%d kinds in slabs, want %d", s.kinds(), slabKinds)
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

// drop leaves nothing of the decode in the slabs: no entry of the table,
// also one that a kind took after a collision in it (wrapping around its
// end), no pointer chunk, no string chunk or string seen.
func TestSlabsDropKeepsNothing(t *testing.T) {
	var s Slabs
	s.left = 1 << 20
	last := own.NewSpareKind()
	for int(last)&(len(s.e)-1) != len(s.e)-1 {
		last = own.NewSpareKind()
	}
	kinds := []own.SpareKind{last}
	for len(kinds) < slabKinds+3 {
		k := own.NewSpareKind()
		if len(kinds) < 3 {
			// The table's last entry is taken: these wrap to its start.
			for int(k)&(len(s.e)-1) != len(s.e)-1 {
				k = own.NewSpareKind()
			}
		}
		kinds = append(kinds, k)
	}
	for _, k := range kinds {
		for range 3 {
			Take[slabbed](&s, k)
		}
	}
	if s.kinds() != slabKinds || s.e[0].kind == 0 || s.e[len(s.e)-1].kind == 0 {
		t.Fatalf("setup: %d kinds in slabs, first entry %d, last %d", s.kinds(), s.e[0].kind, s.e[len(s.e)-1].kind)
	}
	s.Pointers(4)
	// Strings seen in entries of every word of inSeen, which drop skips
	// only where none is filled.
	for i := range 4 * seenSize {
		s.copyString(fmt.Appendf(nil, "string %d", i))
	}
	for i, w := range s.inSeen {
		if w == 0 {
			t.Fatalf("setup: no string seen in entries %d to %d", i*64, i*64+63)
		}
	}
	s.drop()
	s.left = 0
	for i, e := range s.e {
		if e != (slab{}) {
			t.Errorf("entry %d after drop: %+v", i, e)
		}
	}
	seen := 0
	for _, v := range s.seen {
		if v != "" {
			seen++
		}
	}
	if !reflect.DeepEqual(s, Slabs{}) {
		t.Errorf("slabs after drop: %d kinds, filled %#x, %d pointers, %d bytes of chunk, %d strings seen",
			s.kinds(), s.filled, len(s.ptrs), len(s.chunk), seen)
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
	if st.Slabs.kinds() != 0 {
		t.Fatalf("the next decode's slabs hold %d kinds, want none", st.Slabs.kinds())
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
		// 100,000 bytes in chunks of 100 (the first value), 200, ... up to
		// 4096 bytes.
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

// skipFirst copies the seenFirst strings that a decode copies without
// looking for them, distinct values of two bytes, so that the next value is
// looked for.
func skipFirst(st *Decoding) {
	for i := range seenFirst {
		st.String([]byte{'w', byte('0' + i)})
	}
}

// A decode's first seenFirst strings are copied without a lookup: equal
// ones among them are two copies, and none is found later; the next value
// is looked for, and the one after it equal to it shares its copy. In a
// slot's decode with chunks too.
func TestFreshStringsFirst(t *testing.T) {
	data := func(s string) unsafe.Pointer { return unsafe.Pointer(unsafe.StringData(s)) }
	f, st := GetFresh(1<<20, false)
	a, b := st.String([]byte("service.name")), st.String([]byte("service.name"))
	if data(a) == data(b) {
		t.Error("the first two strings of a decode share a copy")
	}
	for i := range seenFirst - 2 {
		st.String([]byte{'w', byte('0' + i)})
	}
	if c := st.String([]byte("service.name")); data(c) == data(a) || data(c) == data(b) {
		t.Error("the first string looked for found one of those copied before")
	} else if d := st.String([]byte("service.name")); data(d) != data(c) {
		t.Error("after the first seenFirst strings, an equal value did not share its copy")
	}
	PutFresh(f)

	ds := new(Decodings).Init(nil, false, false)
	strs := ChunkStrings(ds, 1024)
	if a, b := ds.String([]byte("label")), ds.String([]byte("label")); data(a) == data(b) {
		t.Error("a slot's first two strings share a copy")
	}
	EndStrings(ds, strs)
	f, _ = GetFresh(1<<20, false)
	if f.slabs.paused != seenFirst {
		t.Errorf("a decode taken from the pool after one ended: paused %d, want %d", f.slabs.paused, seenFirst)
	}
	PutFresh(f)
}

// Equal strings of one decode into a fresh message share one copy (an OTLP
// export's attribute keys), once its first seenFirst strings are copied;
// bytes values, which can be changed, never do, nor does a string of the
// next decode.
func TestFreshStringsShared(t *testing.T) {
	data := func(s string) unsafe.Pointer { return unsafe.Pointer(unsafe.StringData(s)) }
	f, st := GetFresh(1<<20, false)
	skipFirst(st)
	keys := []string{"service.name", "http.method", "kv", "ab", "abc", "abcd", "0123457", strings.Repeat("x", MaxChunked)}
	// Values whose entries collide replace each other (TestFreshStringsCollide).
	at := map[uint]string{}
	for _, k := range keys {
		if other, ok := at[seenAt([]byte(k))]; ok {
			t.Fatalf("the test's values %q and %q have one entry: change one", k, other)
		}
		at[seenAt([]byte(k))] = k
	}
	first := map[string]string{}
	for round := range 20 {
		for _, k := range keys {
			got := st.String([]byte(k))
			if got != k {
				t.Fatalf("round %d: decoded %q, want %q", round, got, k)
			}
			if round == 0 {
				first[k] = got
			} else if data(got) != data(first[k]) {
				t.Fatalf("round %d: %q is a new copy, not the decode's first", round, k)
			}
		}
	}
	for _, k := range keys {
		b1, b2 := st.BytesPresent([]byte(k)), st.Bytes(nil, []byte(k))
		if unsafe.Pointer(unsafe.SliceData(b1)) == data(first[k]) || unsafe.Pointer(unsafe.SliceData(b2)) == data(first[k]) ||
			unsafe.SliceData(b1) == unsafe.SliceData(b2) {
			t.Fatalf("a bytes value %q shares another value's copy", k)
		}
		b1[0]++
		if first[k] != k {
			t.Fatalf("changing a bytes value changed the string %q", first[k])
		}
	}
	// A string of one byte takes no room in a chunk.
	if filled := st.Slabs.filled; st.String([]byte("k")) != "k" || st.Slabs.filled != filled {
		t.Fatal("a string of one byte was copied into the chunk")
	}
	PutFresh(f)
	for i, v := range f.slabs.seen {
		if v != "" {
			t.Fatalf("entry %d still holds %q after the decode: its chunk stays alive", i, v)
		}
	}
	f, st = GetFresh(1<<20, false)
	defer PutFresh(f)
	for _, k := range keys {
		if got := st.String([]byte(k)); data(got) == data(first[k]) {
			t.Fatalf("the next decode handed out the last one's copy of %q", k)
		}
	}
}

// Values whose entries collide are each decoded as they are: 5,000 values,
// of random lengths and bytes, some of them twice, against 256 entries.
func TestFreshStringsCollide(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	f, st := GetFresh(1<<22, false)
	defer PutFresh(f)
	var vals []string
	for range 5000 {
		if len(vals) > 0 && r.IntN(3) == 0 {
			vals = append(vals, vals[r.IntN(len(vals))])
			continue
		}
		b := make([]byte, 1+r.IntN(MaxChunked))
		for i := range b {
			b[i] = byte(r.IntN(4)) // few bytes: many values equal in their first and last 8
		}
		vals = append(vals, string(b))
	}
	for i, v := range vals {
		if got := st.String([]byte(v)); got != v {
			t.Fatalf("value %d: decoded %q, want %q", i, got, v)
		}
	}
}

// A value that has the entry, the length and the first and last 8 bytes of
// one copied before, and differs from it in one byte anywhere else, is
// decoded as it is, and an equal one shares its copy: every length up to
// 80, every byte changed, so that copied's comparison in words (8 to 32
// bytes) and in full (more) each meets a difference in each of its words.
func TestFreshStringsDifferInOneByte(t *testing.T) {
	data := func(s string) unsafe.Pointer { return unsafe.Pointer(unsafe.StringData(s)) }
	f, st := GetFresh(1<<22, false)
	defer PutFresh(f)
	for n := 2; n <= 80; n++ {
		base := make([]byte, n)
		for i := range base {
			base[i] = 'a' + byte(i%26)
		}
		for i := range n {
			other := bytes.Clone(base)
			other[i] ^= 0x20
			first := st.String(base)
			if got := st.String(other); got != string(other) {
				t.Fatalf("%d bytes, byte %d changed: decoded %q, want %q", n, i, got, other)
			}
			if got := st.String(bytes.Clone(other)); got != string(other) {
				t.Fatalf("%d bytes, byte %d changed, again: decoded %q, want %q", n, i, got, other)
			} else if data(got) == data(first) {
				t.Fatalf("%d bytes, byte %d changed: shares the copy of the value before", n, i)
			}
			if got := st.String(base); got != string(base) {
				t.Fatalf("%d bytes, after byte %d changed: decoded %q, want %q", n, i, got, base)
			}
		}
		// An equal value, in another array, shares the copy.
		a := st.String(base)
		if b := st.String(bytes.Clone(base)); data(a) != data(b) {
			t.Fatalf("%d bytes: an equal value did not share its copy", n)
		}
	}
}

// Values of one length and entry that differ in two bytes at their start,
// or at their end, are each decoded as they are: copied compares every
// word, the first and the last ones too, whose bytes give the entry.
func TestFreshStringsSameEntry(t *testing.T) {
	f, st := GetFresh(1<<22, false)
	defer PutFresh(f)
	for _, n := range []int{8, 12, 16, 17, 24, 32, 33, 48} {
		for _, at := range []int{0, n - 2} { // the two bytes that differ
			a := bytes.Repeat([]byte{'k'}, n)
			b := bytes.Clone(a)
			for v := 0; seenAt(b) != seenAt(a) || bytes.Equal(a, b); v++ {
				if v == 1<<16 {
					t.Fatalf("%d bytes: no value of the same entry found", n)
				}
				b[at], b[at+1] = byte(v), byte(v>>8)
			}
			for range 3 {
				for _, v := range [][]byte{a, b} {
					if got := st.String(v); got != string(v) {
						t.Fatalf("%d bytes: decoded %q, want %q (same entry)", n, got, v)
					}
				}
			}
		}
	}
}

// A decode pauses its lookups of equal strings for seenPause values once
// fewer than seenWindow/seenHits of seenWindow lookups found one, as among
// distinct values, and keeps looking where as many did; after the pause, it
// looks again.
func TestFreshStringsPause(t *testing.T) {
	data := func(s string) unsafe.Pointer { return unsafe.Pointer(unsafe.StringData(s)) }
	// distinct returns the i-th of values that differ from each other and
	// would not replace "again" in seen.
	var distinct []string
	for d := 0; len(distinct) < seenWindow+seenPause; d++ {
		if v := fmt.Sprintf("distinct %d", d); seenAt([]byte(v)) != seenAt([]byte("again")) {
			distinct = append(distinct, v)
		}
	}
	for _, repeats := range []int{seenWindow/seenHits - 1, seenWindow / seenHits} {
		f, st := GetFresh(1<<20, false)
		skipFirst(st)
		// One window: repeats values seen before, the rest distinct.
		a := st.String([]byte("again"))
		for i := range seenWindow - 1 {
			v := "again"
			if i >= repeats {
				v = distinct[i]
			}
			st.String([]byte(v))
		}
		paused := repeats < seenWindow/seenHits
		if b := st.String([]byte("again")); (data(a) == data(b)) == paused {
			t.Errorf("%d of %d found: the next equal value shared its copy %v, want %v", repeats, seenWindow, !paused, !paused)
		}
		if paused {
			// The pause's last value, then a lookup again.
			for _, v := range distinct[seenWindow : seenWindow+seenPause-2] {
				st.String([]byte(v))
			}
			if b := st.String([]byte("again")); data(a) == data(b) {
				t.Errorf("the pause's last value shared its copy")
			}
			c := st.String([]byte("again"))
			if d := st.String([]byte("again")); data(c) != data(d) {
				t.Errorf("after the pause, an equal value did not share its copy")
			}
		}
		PutFresh(f)
	}
}

// Equal strings cost one copy once the first seenFirst strings are copied,
// and those at most one more: 1,000 values cycling over 10 keys of 15 bytes
// copy (seenFirst+10)x15 = 210 bytes (the first 4 keys without a lookup,
// then each key once), in three chunks (MinChunk, then twice the last).
func TestFreshStringsAllocs(t *testing.T) {
	var keys [10][]byte
	for i := range keys {
		keys[i] = fmt.Appendf(nil, "attribute.key.%d", i)
	}
	const size = 1 << 20
	allocs := testing.AllocsPerRun(10, func() {
		f, st := GetFresh(size, false)
		for i := range 1000 {
			st.String(keys[i%len(keys)])
		}
		if copied, want := size-st.Slabs.left, (seenFirst+len(keys))*len(keys[0]); copied != want {
			t.Fatalf("%d bytes copied, want %d", copied, want)
		}
		PutFresh(f)
	})
	if allocs != 3 {
		t.Errorf("1,000 values of 10 keys: %v allocations, want 3", allocs)
	}
}

// A slot's decode without views copies its strings as a fresh one does,
// once ChunkStrings gave it chunks (its 7-bit twin too), and after
// EndStrings allocates each again; the chunks keep nothing of the decode.
func TestChunkStrings(t *testing.T) {
	data := func(s string) unsafe.Pointer { return unsafe.Pointer(unsafe.StringData(s)) }
	st := new(Decodings).Init(nil, false, false)
	if a, b := st.String([]byte("label")), st.String([]byte("label")); data(a) == data(b) {
		t.Fatal("without chunks, two values share one copy")
	}
	strs := ChunkStrings(st, 1024)
	skipFirst(st)
	twin, _ := st.Sweep([]byte("ascii"))
	a, b := st.String([]byte("label")), twin.String([]byte("label"))
	if data(a) != data(b) || data(a) != unsafe.Pointer(&strs.chunk[strs.filled-len("label")]) {
		t.Fatal("with chunks, equal values of the state and its twin are not one copy in the chunk")
	}
	if st.Slabs != nil {
		t.Fatal("a slot's state got slabs for its nested messages")
	}
	EndStrings(st, strs)
	if c := st.String([]byte("label")); data(c) == data(a) || twin.String([]byte("label")) == "" {
		t.Fatal("after EndStrings, a value shared the decode's copy")
	}
	if strs.chunk != nil || strs.seen != ([seenSize]string{}) {
		t.Fatal("the chunks given back still hold the decode's strings")
	}
}

// Pointers hands out zero slots, each once, side by side in chunks of 16,
// 32, then MaxPointers at most: a run that does not fit in what is left of
// a chunk starts a new one (the rest unused), so no run spans two chunks
// and a slice of a run's slots, of capacity n, reaches no other run's.
func TestPointers(t *testing.T) {
	f, _ := GetFresh(1<<20, false)
	defer PutFresh(f)
	s := &f.slabs
	type run struct {
		p unsafe.Pointer
		n int
	}
	var runs []run
	chunks := map[unsafe.Pointer]int{} // a chunk's first slot: its length
	for i := range 200 {
		n := 1 + i*7%MaxCarved
		before := s.ptrs
		p := s.Pointers(n)
		if len(s.ptrs) > MaxPointers {
			t.Fatalf("run %d of %d: a chunk of %d pointers, want at most %d", i, n, len(s.ptrs), MaxPointers)
		}
		if unsafe.SliceData(before) != unsafe.SliceData(s.ptrs) {
			chunks[unsafe.Pointer(unsafe.SliceData(s.ptrs))] = len(s.ptrs)
			if want := min(max(2*len(before), 16), MaxPointers); len(s.ptrs) != want {
				t.Errorf("run %d: a new chunk of %d pointers after one of %d, want %d", i, len(s.ptrs), len(before), want)
			}
		}
		slots := unsafe.Slice((*unsafe.Pointer)(p), n)
		for j, v := range slots {
			if v != nil {
				t.Fatalf("run %d: slot %d handed out holds %p", i, j, v)
			}
			slots[j] = unsafe.Pointer(&runs) // marks it handed out
		}
		// Within one chunk, from its first slot.
		first := uintptr(unsafe.Pointer(unsafe.SliceData(s.ptrs)))
		if uintptr(p) < first || uintptr(p)+uintptr(n)*8 > first+uintptr(len(s.ptrs))*8 {
			t.Fatalf("run %d of %d: slots outside the current chunk", i, n)
		}
		runs = append(runs, run{p, n})
	}
	if len(chunks) < 3 {
		t.Errorf("200 runs took %d chunks, want more", len(chunks))
	}
	// No two runs share a slot.
	for i := 1; i < len(runs); i++ {
		a, b := runs[i-1], runs[i]
		if uintptr(a.p) < uintptr(b.p)+uintptr(b.n)*8 && uintptr(b.p) < uintptr(a.p)+uintptr(a.n)*8 {
			t.Fatalf("runs %d and %d overlap", i-1, i)
		}
	}
	s.drop()
	if s.ptrs != nil || s.pfilled != 0 {
		t.Error("drop kept the pointer chunk")
	}
	// A small input: a chunk no larger than what it could use, and never
	// smaller than the run.
	for _, c := range []struct{ size, n, want int }{{10, 1, 5}, {10, 7, 7}, {3, 1, 1}, {40, 3, 16}} {
		f, _ := GetFresh(c.size, false)
		f.slabs.Pointers(c.n)
		if got := len(f.slabs.ptrs); got != c.want {
			t.Errorf("input of %d bytes, a run of %d: a chunk of %d pointers, want %d", c.size, c.n, got, c.want)
		}
		PutFresh(f)
	}
}
