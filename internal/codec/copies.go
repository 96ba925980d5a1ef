package codec

import (
	"bytes"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"google.golang.org/grpc/mem"

	"github.com/grpcfast/grpcfast/internal/own"
	"github.com/grpcfast/grpcfast/internal/reuse"
)

// The arrays of owned copies (decodeCopy). The strings and bytes fields of a
// message decoded into its owned copy are views of it, and a caller may keep
// any of them for as long as it likes, so the codec never takes an array
// back itself: the garbage collector does. A copy of at least recycleMin
// bytes gets a finalizer, which runs once the collector has found that
// nothing refers to the array any more (no string, no bytes field, no
// message kept with KeepRequest); the finalizer gives the array to a free
// list, and the next copy of its size class is made in it instead of in a
// new array. A string can never see its bytes change: while it exists, its
// array is reachable and its finalizer does not run.
//
// What this saves is the collector's work, not a copy: a server that
// receives 45 KB exports allocates 45 KB less per export, so it collects
// several times less often. What it costs: at most recycleFree bytes of
// free arrays, a finalizer per copy, and an array's size rounded up to its
// size class, those of the buffer pool (pool.go: an eighth of a power of
// two), so that a kept string keeps at most 1.125 times its message's size
// alive, where it kept the message's size. The collector finalizes an
// array one collection after it finds it unreachable; arrays that the free
// list has no room for are then dropped and freed at the next. If the
// process's finalizers stop running (a finalizer that blocks), at most
// recyclePending bytes of arrays wait for them; copies are then made as
// before, without a finalizer.
//
// The arrays that the copies between two collections use come back
// together, after the second: a server that copies 45 KB exports between
// collections every few milliseconds needs several MB of free arrays, or
// it makes the rest new, and those new arrays make it collect more often
// (docs/measurements.md, "The collector's pace"). So the free list may hold
// up to recycleFree bytes, but only what the copies use: after each
// collection, the arrays of each size class that stayed in the list,
// untaken, since the collection before the last (those at its bottom that
// it held through both intervals: low, stale) are let go (trim). Free
// arrays are live heap, and a free list that nothing takes from is empty
// three collections later; an array that has just come back is never let
// go at the next collection.
const (
	recycleMin     = 4 << 10  // smaller copies: a finalizer would cost more than the allocation
	recycleMax     = 4 << 20  // larger copies: made as before
	recycleFree    = 16 << 20 // bytes of free arrays kept at most
	recyclePending = 64 << 20 // bytes of arrays with a finalizer not yet run, at most
)

// copyArrays is the free list of arrays: free[c] holds arrays of
// classSize(c) bytes (the size classes of the buffer pool, pool.go).
type copyArrays struct {
	mu      sync.Mutex
	free    [poolNumClasses][][]byte // each list's oldest array first; take takes the last
	low     [poolNumClasses]int      // the fewest arrays each list held since the last trim
	stale   [poolNumClasses]int      // of its oldest, how many the last trim found untaken since the one before, and kept
	bytes   int                      // in free
	pending atomic.Int64             // bytes of arrays whose finalizer has not run
}

var copies copyArrays

func init() { reuse.AfterEachCollection(func(uint32) { copies.trim() }) }

// ownedCopy returns data's bytes in an array that nothing else refers to:
// a new one, or one that the collector found unreferenced (copies). It is
// never written into again by the codec once returned.
func ownedCopy(data mem.BufferSlice) []byte {
	b, c := ownedArray(data.Len())
	if b == nil {
		return joined(data)
	}
	for _, buf := range data {
		b = append(b, buf.ReadOnlyData()...)
	}
	return owned(b, c)
}

// ownedPiece is ownedCopy of p, a piece of a decode's input whose strings
// become views of the copy (decode.Pieces).
func ownedPiece(p []byte) []byte {
	b, c := ownedArray(len(p))
	if b == nil {
		return append(make([]byte, 0, len(p)), p...)
	}
	return owned(append(b, p...), c)
}

// ownedArray returns an empty array of size class c with room for n bytes,
// from the free list or new, or nil where a copy of n bytes is made as
// before, without a finalizer: outside recycleMin..recycleMax, in a checked
// build, or while too many finalizers wait.
func ownedArray(n int) ([]byte, int) {
	if n < recycleMin || n > recycleMax || own.Quarantine {
		return nil, 0
	}
	c := classOf(uint(n-1)) + 1 // the smallest size class of the buffer pool (pool.go) that holds n
	b := copies.take(c)
	if b == nil {
		if copies.pending.Load() > recyclePending {
			return nil, 0
		}
		b = uncleared(classSize(c))[:0:classSize(c)] // every byte up to n is written by the caller
	}
	return b, c
}

// owned gives b, an array of class c that ownedArray returned, filled, its
// finalizer: the collector gives it back to the free list once nothing
// refers to it.
func owned(b []byte, c int) []byte {
	copies.pending.Add(int64(cap(b)))
	runtime.SetFinalizer(unsafe.SliceData(b), finalizers[c])
	return b
}

// OwnedCopy is ownedCopy, for the benchmarks' floor (grpcfastbench,
// -grpcfast.floorcopy): a server that makes the copy that pooled with one
// copy decodes from, and decodes nothing.
func OwnedCopy(data mem.BufferSlice) []byte { return ownedCopy(data) }

// PendingCopies returns the bytes of the arrays of owned copies that the
// collector has not yet found unreferenced (their finalizers not run).
func PendingCopies() int64 { return copies.pending.Load() }

// joined returns data's bytes in one new array, made by bytes.Join without
// clearing it first, as make would, since every byte is written.
func joined(data mem.BufferSlice) []byte {
	var stack [8][]byte
	parts := stack[:0]
	for _, buf := range data {
		parts = append(parts, buf.ReadOnlyData())
	}
	return bytes.Join(parts, nil)
}

// take returns a free array of class c, empty, or nil.
func (a *copyArrays) take(c int) []byte {
	a.mu.Lock()
	defer a.mu.Unlock()
	l := a.free[c]
	if len(l) == 0 {
		return nil
	}
	b := l[len(l)-1]
	l[len(l)-1] = nil
	a.free[c] = l[:len(l)-1]
	a.low[c] = min(a.low[c], len(l)-1)
	a.bytes -= cap(b)
	return b[:0]
}

// trim lets go of the arrays that stayed in the free list, untaken, since
// the trim before the last: of each class, its oldest arrays, as many as
// the list held untaken both through the interval before the last trim
// (stale) and since (low, the fewest it held). Those of the interval
// since the last trim alone are kept until the next. reuse calls it after
// each collection.
func (a *copyArrays) trim() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for c := range a.free {
		l := a.free[c]
		n := min(a.low[c], a.stale[c])
		if n > 0 {
			a.bytes -= n * classSize(c)
			k := copy(l, l[n:])
			clear(l[k:])
			l = l[:k]
			a.free[c] = l
		}
		a.stale[c] = a.low[c] - n
		a.low[c] = len(l)
	}
}

// put is the finalizer of an array of class c at p, which the collector
// found unreferenced: it is kept for a copy of its class if the free list
// has room, and otherwise dropped (freed by a later collection).
func (a *copyArrays) put(c int, p *byte) {
	size := classSize(c)
	a.pending.Add(-int64(size))
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.bytes+size > recycleFree {
		return
	}
	a.free[c] = append(a.free[c], unsafe.Slice(p, size))
	a.bytes += size
}

// DropFreeCopies empties the free list, once the collector has found the
// arrays that nothing refers to any more and their finalizers have put them
// there (up to 100 collections; what still waits then stays pending). The
// free list is live heap, up to recycleFree bytes, and a larger live heap
// makes the collector run less often: a benchmark that measures receive
// paths one after the other in one process calls it after a path that made
// owned copies, so that the paths after it are measured on the heap they
// make themselves. Nothing else calls it.
func DropFreeCopies() {
	for range 100 {
		if copies.pending.Load() == 0 {
			break
		}
		runtime.GC()
		runtime.Gosched()
	}
	copies.mu.Lock()
	defer copies.mu.Unlock()
	copies.free = [poolNumClasses][][]byte{}
	copies.low = [poolNumClasses]int{}
	copies.stale = [poolNumClasses]int{}
	copies.bytes = 0
}

// finalizers holds the finalizer of each size class, made once.
var finalizers = func() (f [poolNumClasses]func(*byte)) {
	for c := range f {
		f[c] = func(p *byte) { copies.put(c, p) }
	}
	return f
}()
