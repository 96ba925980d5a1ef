package grpcfasttest

import (
	"bytes"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"google.golang.org/grpc/mem"

	"github.com/grpcfast/grpcfast/internal/own"
	"github.com/grpcfast/grpcfast/internal/reuse"
)

// Pool is the tests' one mem.BufferPool, configured for what each test
// audits. It takes buffers from inner or, when inner is nil, makes a new one
// for every Get and never reuses one, so that a buffer it poisons stays
// Poisoned. It keeps track of every buffer out (by its pointer, and by its
// array for views), records every misuse, and counts what goes through it.
type Pool struct {
	Name   string
	inner  mem.BufferPool
	junk   bool // fill what Get hands out with 0x5a: the codec must overwrite what it uses
	poison bool // overwrite what Put gets with 0xa5: a read after free sees garbage
	keep   bool // keep a copy of every buffer Put gets, as it came back (puts)
	minCap int  // the capacity of a new buffer, at least
	// transport: the pool of gRPC's receive buffers, which mem wraps in a
	// SliceBuffer, never given back, when at most 1 KiB: those are not
	// tracked.
	transport bool

	mu            sync.Mutex
	out           map[*[]byte]int  // handed out and not back: the length asked for
	back          map[*[]byte]bool // given back, and not handed out again
	arrays        map[*byte]bool   // the arrays of the buffers out
	poisonedAtPut map[*byte]bool   // whether it held checked builds' poison when it came back
	Puts          [][]byte         // with keep
	gets, big     int              // Gets, and Gets of 16 KiB or more
	errs          []string

	// Buffers above 1 KiB, the only ones that gRPC gives back to a pool
	// (smaller ones become SliceBuffers); dropped is reuse.Dropped when the
	// pool was made.
	LargeGets, largePuts atomic.Int64
	dropped              int64
}

var (
	junkPattern   = bytes.Repeat([]byte{0x5a}, 4096) // what a new buffer holds
	poisonPattern = bytes.Repeat([]byte{0xa5}, 4096) // what a freed buffer holds
)

func fillWith(b, pat []byte) {
	for len(b) > 0 {
		b = b[copy(b, pat):]
	}
}

func newTestPool(p *Pool) *Pool {
	p.out = map[*[]byte]int{}
	p.back = map[*[]byte]bool{}
	p.arrays = map[*byte]bool{}
	p.poisonedAtPut = map[*byte]bool{}
	p.dropped = reuse.Dropped.Load()
	return p
}

// NewAuditPool never reuses a buffer, fills new ones with junk and poisons
// what comes back: a read of a freed buffer sends garbage.
func NewAuditPool(name string) *Pool {
	return newTestPool(&Pool{Name: name, junk: true, poison: true})
}

// NewPoisonPool is an audit pool whose buffers have a capacity above mem's
// pooling threshold, so that mem.NewBuffer returns every one of them.
func NewPoisonPool() *Pool {
	return newTestPool(&Pool{Name: "poison pool", junk: true, poison: true, minCap: 2048})
}

// NewCountingPool wraps inner, recording every buffer taken and not yet
// returned, and misuse.
func NewCountingPool(inner mem.BufferPool) *Pool {
	return newTestPool(&Pool{Name: "counting pool", inner: inner})
}

// NewBalancePool wraps inner, a transport's pool, to count what comes back
// (unreturned).
func NewBalancePool(name string, inner mem.BufferPool) *Pool {
	return newTestPool(&Pool{Name: name, inner: inner})
}

// NewTrackingPool knows which of its buffers are out (isOut), and whether
// each came back poisoned (poisonedAtPut).
func NewTrackingPool() *Pool {
	return newTestPool(&Pool{Name: "tracking pool", transport: true})
}

// NewRecordingPool wraps inner and keeps a copy of what comes back (puts).
func NewRecordingPool(inner mem.BufferPool) *Pool {
	return newTestPool(&Pool{Name: "recording pool", inner: inner, keep: true})
}

func (p *Pool) Get(n int) *[]byte {
	var b *[]byte
	if p.inner != nil {
		b = p.inner.Get(n)
	} else {
		s := make([]byte, n, max(n, p.minCap))
		b = &s
	}
	if p.junk {
		fillWith(*b, junkPattern)
	}
	if cap(*b) > 1024 {
		p.LargeGets.Add(1)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.gets++
	if n >= 16<<10 {
		p.big++
	}
	if len(*b) != n {
		p.errs = append(p.errs, fmt.Sprintf("Get(%d) returned length %d", n, len(*b)))
	}
	if p.transport && mem.IsBelowBufferPoolingThreshold(n) {
		return b
	}
	if _, dup := p.out[b]; dup {
		p.errs = append(p.errs, fmt.Sprintf("Get(%d) returned a buffer that is still out", n))
	}
	p.out[b] = n
	delete(p.back, b)
	p.arrays[unsafe.SliceData(*b)] = true
	return b
}

func (p *Pool) Put(b *[]byte) {
	if cap(*b) > 1024 {
		p.largePuts.Add(1)
	}
	p.mu.Lock()
	if n, ok := p.out[b]; ok {
		delete(p.out, b)
		p.back[b] = true
		if p.inner == nil && p.minCap == 0 && cap(*b) != n {
			p.errs = append(p.errs, fmt.Sprintf("buffer of %d bytes came back with capacity %d", n, cap(*b)))
		}
	} else if p.back[b] {
		p.errs = append(p.errs, fmt.Sprintf("buffer (cap %d) put back twice", cap(*b)))
	} else {
		p.errs = append(p.errs, fmt.Sprintf("Put of a buffer (cap %d) that the pool did not hand out", cap(*b)))
	}
	a := unsafe.SliceData(*b)
	delete(p.arrays, a)
	p.poisonedAtPut[a] = bytes.Contains(*b, []byte{0xDE, 0xAD, 0xBE, 0xEF, 0xDE, 0xAD, 0xBE, 0xEF})
	if p.keep {
		p.Puts = append(p.Puts, bytes.Clone((*b)[:cap(*b)]))
	}
	p.mu.Unlock()
	if p.poison {
		fillWith((*b)[:cap(*b)], poisonPattern)
	}
	if p.inner != nil {
		p.inner.Put(b)
	}
}

// Counts returns the number of Gets and of buffers out.
func (p *Pool) Counts() (gets, out int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.gets, len(p.out)
}

// NumOut returns the number of buffers out.
func (p *Pool) NumOut() int {
	_, out := p.Counts()
	return out
}

// IsOut reports whether the buffer that starts at d is out of the pool.
func (p *Pool) IsOut(d []byte) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.arrays[unsafe.SliceData(d)]
}

// Unreturned returns how many buffers above 1 KiB have not come back, less
// those that views of messages handed over by Take keep since the pool was
// made: those go to the garbage collector with the message, never back to
// the pool (one per view at most).
func (p *Pool) Unreturned() int64 {
	return p.LargeGets.Load() - p.largePuts.Load() - (reuse.Dropped.Load() - p.dropped)
}

// Check fails t with the pool's misuse and the buffers still out. A
// grpcfast_checked build gives no buffer back (own.Quarantine: poisoned,
// never reused), so there it checks the misuse alone.
func (p *Pool) Check(t testing.TB, what string) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, e := range p.errs {
		t.Errorf("%s: %s: %s", what, p.Name, e)
	}
	p.errs = nil
	if len(p.out) != 0 && !own.Quarantine {
		var sizes []int
		for _, n := range p.out {
			sizes = append(sizes, n)
		}
		sort.Ints(sizes)
		t.Errorf("%s: %s: %d of %d buffers not returned (sizes %v)", what, p.Name, len(p.out), p.gets, sizes)
		clear(p.out)
	}
}

// Gets returns the number of Gets, and of Gets of 16 KiB or more.
func (p *Pool) Gets() (gets, big int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.gets, p.big
}

// PoisonedAtPut reports whether the buffer whose array starts at a held
// checked builds' poison when it came back.
func (p *Pool) PoisonedAtPut(a *byte) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.poisonedAtPut[a]
}
