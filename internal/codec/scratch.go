package codec

import (
	"runtime"
	"sync"

	"github.com/grpcfast/grpcfast/internal/own"
)

// A decode copies a message that arrived in several transport buffers (any
// message above 16 KiB) into one scratch buffer, decodes it there and gives
// the buffer back before it returns: its strings and bytes are copies, so
// nothing refers to the buffer afterwards (decodeGenerated,
// decodePiecesCopy, gather).
//
// A buffer from the pool is part of the Go heap, and the garbage collector
// counts it as live while the decode uses it or the pool holds it: on the
// OTLP replay, four buffers of 48 KiB, 0.2 MB of a server's 1.3 MB live
// heap. A process whose heap is small (the collector's least goal is 4 MB)
// then collects as often as the room between its live heap and the goal
// allows, so those buffers made the server collect about 9% more often
// (docs/measurements.md, "Scratch buffers outside the heap"). Where the
// system allows, a codec with the default pool takes its scratch buffers
// from regions mapped outside the heap instead: at most one per thread
// that runs Go code (GOMAXPROCS, when a region is mapped), of
// scratchRegionSize bytes each, mapped once and never unmapped, reused by
// every decode. A message larger than a region, or a decode that finds
// every region taken, uses the pool as before.
//
// A region's pages stay resident once a decode has written them: at most
// GOMAXPROCS times scratchRegionSize bytes, for a process that receives
// messages that large on every thread at once.

// scratchRegionSize is the size of each region: the largest message copied
// into one.
const scratchRegionSize = 1 << 20

// scratchRegions holds the regions mapped so far, those not in use in free.
var scratchRegions struct {
	mu     sync.Mutex
	free   [][]byte
	mapped int
	// off stops mapping, once mapping failed.
	off bool
}

// scratch is a buffer that a decode copies a message into: a region's, or
// the pool's (p).
type scratch struct {
	b      []byte
	p      *[]byte
	region bool
}

// takeScratch returns a scratch buffer of length n: a region's where the
// codec uses the default pool, n fits in one and one is free or can be
// mapped, the pool's otherwise. giveScratch gives it back.
func (c *Codec) takeScratch(n int) scratch {
	if n <= scratchRegionSize && c.Pool == DefaultPool {
		if r := takeRegion(); r != nil {
			return scratch{b: r[:n], region: true}
		}
	}
	p := c.Pool.Get(n)
	return scratch{b: (*p)[:n], p: p}
}

// giveScratch gives s back, poisoned first in checked builds. Nothing may
// refer to its bytes afterwards.
func (c *Codec) giveScratch(s scratch) {
	if !s.region {
		c.putBuf(s.p)
		return
	}
	own.PoisonBytes(s.b)
	giveRegion(s.b[:scratchRegionSize:scratchRegionSize])
}

// takeRegion returns a free region, or maps a new one where fewer than
// GOMAXPROCS are mapped; nil where neither can be had.
func takeRegion() []byte {
	rs := &scratchRegions
	rs.mu.Lock()
	if k := len(rs.free); k > 0 {
		r := rs.free[k-1]
		rs.free[k-1] = nil
		rs.free = rs.free[:k-1]
		rs.mu.Unlock()
		return r
	}
	if rs.off || rs.mapped >= runtime.GOMAXPROCS(0) {
		rs.mu.Unlock()
		return nil
	}
	rs.mapped++
	rs.mu.Unlock()
	r := mapRegion(scratchRegionSize)
	if r == nil {
		rs.mu.Lock()
		rs.mapped--
		rs.off = true
		rs.mu.Unlock()
	}
	return r
}

// giveRegion puts r, a region that takeRegion returned, back among the free
// ones.
func giveRegion(r []byte) {
	rs := &scratchRegions
	rs.mu.Lock()
	rs.free = append(rs.free, r)
	rs.mu.Unlock()
}
