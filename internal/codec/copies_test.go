package codec

import (
	"bytes"
	"runtime"
	"testing"
	"unsafe"

	"google.golang.org/grpc/mem"

	"github.com/grpcfast/grpcfast/internal/own"
)

// pieces returns b in buffers of at most 16 KiB, as gRPC hands over a
// message larger than an HTTP/2 frame.
func pieces(b []byte) mem.BufferSlice {
	var d mem.BufferSlice
	for len(b) > 16384 {
		d = append(d, mem.SliceBuffer(b[:16384]))
		b = b[16384:]
	}
	return append(d, mem.SliceBuffer(b))
}

// collectUntil runs collections, letting finalizers run between them, until
// done reports true; false after 1000.
func collectUntil(done func() bool) bool {
	for range 1000 {
		runtime.GC()
		runtime.Gosched()
		if done() {
			return true
		}
	}
	return false
}

// waitFinalized runs collections until every copy that nothing refers to
// any more has been given to the free list by its finalizer (those of the
// tests before too), and fails t if some never are.
func waitFinalized(t *testing.T) {
	t.Helper()
	if !collectUntil(func() bool { return copies.pending.Load() == 0 }) {
		t.Fatalf("%d bytes of unreferenced copies still wait for their finalizer", copies.pending.Load())
	}
}

func freeArrays(k int) int {
	copies.mu.Lock()
	defer copies.mu.Unlock()
	return len(copies.free[k])
}

// TestOwnedCopyRecycled: the array of a copy that nothing refers to any
// more is made the next copy of its size class, and one that a view still
// refers to never is: the view's bytes stay as they were through
// collections and later copies of other input.
func TestOwnedCopyRecycled(t *testing.T) {
	if own.Quarantine {
		t.Skip("quarantine builds never recycle")
	}
	in := bytes.Repeat([]byte("kept"), 12000) // 48000 bytes
	k := classOf(uint(len(in)-1)) + 1
	// Start from an empty free list of class k, with no array of an
	// earlier test (or an earlier -count) waiting for its finalizer.
	waitFinalized(t)
	for copies.take(k) != nil {
	}
	kept := ownedCopy(pieces(in))
	if len(kept) != len(in) || cap(kept) != classSize(k) || !bytes.Equal(kept, in) {
		t.Fatalf("copy of %d bytes: len %d cap %d, equal %v", len(in), len(kept), cap(kept), bytes.Equal(kept, in))
	}
	view := unsafe.String(&kept[100], 200)                    // as a decoded string
	keptAt := uintptr(unsafe.Pointer(unsafe.SliceData(kept))) // not a pointer: the view alone keeps it
	kept = nil

	dropped := ownedCopy(pieces(bytes.Repeat([]byte("gone"), 12000)))
	droppedAt := uintptr(unsafe.Pointer(unsafe.SliceData(dropped)))
	dropped = nil
	if !collectUntil(func() bool { return freeArrays(k) > 0 }) {
		t.Fatal("an unreferenced copy's array never reached the free list")
	}
	other := bytes.Repeat([]byte("next"), 12000)
	for i := range 50 {
		next := ownedCopy(pieces(other))
		if !bytes.Equal(next, other) {
			t.Fatal("a recycled copy does not hold its input")
		}
		if at := uintptr(unsafe.Pointer(unsafe.SliceData(next))); at == keptAt {
			t.Fatalf("copy %d was made in the array that a view still refers to", i)
		} else if i == 0 && at != droppedAt {
			t.Errorf("the first copy after the collection is in a new array, not the unreferenced one")
		}
		runtime.GC()
		runtime.Gosched()
	}
	if want := string(in[100:300]); view != want {
		t.Fatalf("a view of a kept copy changed: %q, want %q", view[:16], want[:16])
	}
	runtime.KeepAlive(view)
}

// TestOwnedCopyBounds: copies outside recycleMin..recycleMax, and all
// copies while too many wait for their finalizer, are new arrays of their
// exact size; the free list holds at most recycleFree bytes.
func TestOwnedCopyBounds(t *testing.T) {
	// Every finalizer of the tests before has run: pending changes only here.
	waitFinalized(t)
	plain := func(n int) bool { // made without a finalizer
		before := copies.pending.Load()
		b := ownedCopy(pieces(make([]byte, n)))
		return len(b) == n && copies.pending.Load() == before
	}
	for _, n := range []int{0, 1, recycleMin - 1, recycleMax + 1} {
		if !plain(n) {
			t.Errorf("a copy of %d bytes was given a finalizer, want a plain array", n)
		}
	}
	if !own.Quarantine && plain(recycleMin) {
		t.Errorf("a copy of %d bytes was not given a finalizer", recycleMin)
	}
	copies.pending.Add(recyclePending + 1)
	ok := plain(recycleMin)
	copies.pending.Add(-(recyclePending + 1))
	if !ok {
		t.Errorf("a copy made while %d bytes wait for their finalizer was given one", recyclePending+1)
	}
	for range 3 * recycleFree / recycleMax {
		ownedCopy(pieces(make([]byte, recycleMax)))
	}
	collectUntil(func() bool { return copies.pending.Load() == 0 })
	copies.mu.Lock()
	defer copies.mu.Unlock()
	if copies.bytes > recycleFree {
		t.Errorf("the free list holds %d bytes, more than %d", copies.bytes, recycleFree)
	}
}

// TestDropFreeCopies: DropFreeCopies waits for the finalizers of copies that
// nothing refers to any more, then empties the free list, which they had
// filled.
func TestDropFreeCopies(t *testing.T) {
	if own.Quarantine {
		t.Skip("quarantine builds never recycle")
	}
	waitFinalized(t)
	in := bytes.Repeat([]byte("drop"), 12000) // 48000 bytes
	for range 3 {
		if b := ownedCopy(pieces(in)); !bytes.Equal(b, in) {
			t.Fatal("a copy does not hold its input")
		}
	}
	if copies.pending.Load() == 0 {
		t.Fatal("the copies were made without a finalizer")
	}
	DropFreeCopies()
	if n := copies.pending.Load(); n != 0 {
		t.Errorf("%d bytes of unreferenced copies still wait for their finalizer", n)
	}
	copies.mu.Lock()
	defer copies.mu.Unlock()
	for c, l := range copies.free {
		if len(l) != 0 {
			t.Errorf("the free list holds %d arrays of class %d", len(l), c)
		}
	}
	if copies.bytes != 0 {
		t.Errorf("the free list counts %d bytes, want 0", copies.bytes)
	}
}

// TestFreeCopiesTrim: trim lets go of the oldest free arrays of a class
// that no take reached through two intervals between trims in a row, and
// keeps those that a take reached (the list fell below them) in either,
// and those that came back since the last trim; bytes counts what stays.
func TestFreeCopiesTrim(t *testing.T) {
	const c = 10
	size := classSize(c)
	var a copyArrays
	arrays := make([][]byte, 3)
	put := func(b []byte) { a.pending.Add(int64(size)); a.put(c, unsafe.SliceData(b)) }
	for i := range arrays {
		arrays[i] = make([]byte, size)
		put(arrays[i]) // arrays[0] the oldest
	}
	held := func(want ...int) {
		t.Helper()
		l := a.free[c]
		if len(l) != len(want) || a.bytes != len(want)*size {
			t.Fatalf("the list holds %d arrays (%d bytes), want %d", len(l), a.bytes, len(want))
		}
		for i, w := range want {
			if unsafe.SliceData(l[i]) != unsafe.SliceData(arrays[w]) {
				t.Fatalf("array %d of the list is not arrays[%d]", i, w)
			}
		}
	}
	a.trim() // they came back since the last trim: kept
	held(0, 1, 2)
	b := a.take(c) // arrays[2], then back
	put(b)
	a.trim() // 0 and 1 untaken since the last trim, but not before: kept
	held(0, 1, 2)
	put(a.take(c))
	a.trim() // 0 and 1 untaken through two intervals: let go
	held(2)
	a.trim() // 2 was taken in the interval before the last trim
	held(2)
	a.trim() // untaken through two intervals
	held()
}

// TestFreeCopiesTrimmedAfterCollections: arrays that come back to the free
// list and that no copy takes are let go after a few collections (reuse
// calls trim after each), so that an idle server keeps none.
func TestFreeCopiesTrimmedAfterCollections(t *testing.T) {
	if own.Quarantine {
		t.Skip("quarantine builds never recycle")
	}
	waitFinalized(t)
	in := bytes.Repeat([]byte("trim"), 12000) // 48000 bytes
	k := classOf(uint(len(in)-1)) + 1
	for range 3 {
		ownedCopy(pieces(in))
	}
	if !collectUntil(func() bool { return freeArrays(k) > 0 }) {
		t.Fatal("an unreferenced copy's array never reached the free list")
	}
	n := 0
	if !collectUntil(func() bool { n++; return freeArrays(k) == 0 }) {
		t.Fatalf("the free list still holds %d arrays of class %d after 1000 collections", freeArrays(k), k)
	}
	if n < 2 {
		t.Errorf("the free list was emptied %d collection after an array came back, want 2 or more", n)
	}
}
