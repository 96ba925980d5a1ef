package codec

import (
	"bytes"
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"google.golang.org/grpc/mem"

	"github.com/grpcfast/grpcfast/internal/own"
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
// free arrays, a finalizer per copy, and an array's size rounded up to a
// power of two (so a kept string keeps at most twice its message's size
// alive, where it kept the message's size). The collector finalizes an
// array one collection after it finds it unreachable; arrays that the free
// list has no room for are then dropped and freed at the next. If the
// process's finalizers stop running (a finalizer that blocks), at most
// recyclePending bytes of arrays wait for them; copies are then made as
// before, without a finalizer.
const (
	recycleMin     = 4 << 10  // smaller copies: a finalizer would cost more than the allocation
	recycleMax     = 4 << 20  // larger copies: made as before
	recycleFree    = 4 << 20  // bytes of free arrays kept at most
	recyclePending = 64 << 20 // bytes of arrays with a finalizer not yet run, at most
)

// copyArrays is the free list of arrays: free[k] holds arrays of 1<<k bytes.
type copyArrays struct {
	mu      sync.Mutex
	free    [bits.UintSize][][]byte
	bytes   int          // in free
	pending atomic.Int64 // bytes of arrays whose finalizer has not run
}

var copies copyArrays

// ownedCopy returns data's bytes in an array that nothing else refers to:
// a new one, or one that the collector found unreferenced (copies). It is
// never written into again by the codec once returned.
func ownedCopy(data mem.BufferSlice) []byte {
	n := data.Len()
	if n < recycleMin || n > recycleMax || own.Quarantine {
		return joined(data)
	}
	k := bits.Len(uint(n - 1)) // 1<<k >= n > 1<<(k-1)
	b := copies.take(k)
	if b == nil {
		if copies.pending.Load() > recyclePending {
			return joined(data)
		}
		b = make([]byte, 0, 1<<k)
	}
	for _, buf := range data {
		b = append(b, buf.ReadOnlyData()...)
	}
	copies.pending.Add(1 << k)
	runtime.SetFinalizer(unsafe.SliceData(b), finalizers[k])
	return b
}

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

// take returns a free array of 1<<k bytes, empty, or nil.
func (c *copyArrays) take(k int) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	l := c.free[k]
	if len(l) == 0 {
		return nil
	}
	b := l[len(l)-1]
	l[len(l)-1] = nil
	c.free[k] = l[:len(l)-1]
	c.bytes -= cap(b)
	return b[:0]
}

// put is the finalizer of an array of 1<<k bytes at p, which the collector
// found unreferenced: it is kept for a copy of its size class if the free
// list has room, and otherwise dropped (freed by a later collection).
func (c *copyArrays) put(k int, p *byte) {
	c.pending.Add(-1 << k)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bytes+1<<k > recycleFree {
		return
	}
	c.free[k] = append(c.free[k], unsafe.Slice(p, 1<<k))
	c.bytes += 1 << k
}

// finalizers holds the finalizer of each size class, made once.
var finalizers = func() (f [bits.UintSize]func(*byte)) {
	for k := range f {
		f[k] = func(p *byte) { copies.put(k, p) }
	}
	return f
}()
