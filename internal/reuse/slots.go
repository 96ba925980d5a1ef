package reuse

import (
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/grpcfast/grpcfast/internal/own"
)

// Slots is the pool of spare, prepared slots of one message type M, shared
// by every receiver and pooled handler of that type (SlotsOf).
//
// A sync.Pool alone loses slots to garbage collections: a collection moves
// what it holds to its victim cache, and the victim's private entry of a
// processor (P) is read only by a Get on that P. A slot given back on one P
// and wanted next on another is then dropped, and its owner decodes into a
// new one, allocating its whole message tree again: on two cores, about
// every other collection for a server that handles one call at a time
// (TestPoolKeepsSlotsAcrossGC). So the last slots given back wait in a few
// entries that every P reads (hot), and only the others in the sync.Pool.
// A hot slot that no Get takes is let go after two or three collections,
// as the sync.Pool lets go of its own after two (TestPoolReleasesIdleSlots).
type Slots[M any] struct {
	hot  [hotSlots]hotSlot[M]
	cold sync.Pool // of *Slot[M]
}

// hotSlots is how many slots of a type wait outside the sync.Pool: enough
// for the calls that a lightly loaded server or client has in flight at
// once; under more, the rest go to the sync.Pool, which loses at most one
// per P to a collection.
const hotSlots = 4

// hotSlot is one entry of Slots.hot, alone on its cache line.
type hotSlot[M any] struct {
	p atomic.Pointer[Slot[M]]
	_ [56]byte
}

// slotsByType holds the Slots of each message type: reflect.Type of M →
// *Slots[M].
var slotsByType sync.Map

// SlotsOf returns the spare, prepared slots of message type M.
func SlotsOf[M any]() *Slots[M] {
	t := reflect.TypeFor[M]()
	if p, ok := slotsByType.Load(t); ok {
		return p.(*Slots[M])
	}
	p, loaded := slotsByType.LoadOrStore(t, new(Slots[M]))
	if !loaded {
		ageing.add(p.(*Slots[M]))
	}
	return p.(*Slots[M])
}

// Get returns a prepared slot from ss, or a new one.
func (ss *Slots[M]) Get() *Slot[M] {
	s := ss.get()
	s.Unpoison()
	return s
}

func (ss *Slots[M]) get() *Slot[M] {
	for i := range ss.hot {
		h := &ss.hot[i].p
		if h.Load() != nil {
			if s := h.Swap(nil); s != nil {
				return s
			}
		}
	}
	if s, ok := ss.cold.Get().(*Slot[M]); ok {
		return s
	}
	s := New[M]()
	s.Prepare()
	return s
}

// Put prepares s and gives it to ss, poisoned in checked builds until a
// Get takes it (Slot.Poison). In quarantine builds it is dropped
// instead, once poisoned (its message's fields too: own.PoisonFields), so
// that the poison stays visible to whatever still holds it.
func (ss *Slots[M]) Put(s *Slot[M]) {
	s.Prepare()
	if own.Quarantine {
		own.PoisonFields(s.Msg)
		return
	}
	s.Poison()
	s.given.Store(gcCycles.Load())
	for i := range ss.hot {
		h := &ss.hot[i].p
		if h.Load() == nil && h.CompareAndSwap(nil, s) {
			return
		}
	}
	ss.cold.Put(s)
}

// age lets go of the hot slots that no Get took since they were given
// back, when cycle (the collections counted so far) is three past the
// count they were given at: two collections or more, since afterGC may
// count one that happened before the slot was given back, late. A slot
// taken and given back again meanwhile may be let go too, which costs that
// slot and nothing else.
func (ss *Slots[M]) age(cycle uint32) {
	for i := range ss.hot {
		h := &ss.hot[i].p
		if s := h.Load(); s != nil && cycle-s.given.Load() >= 3 {
			h.CompareAndSwap(s, nil)
		}
	}
}

// gcCycles counts the garbage collections that the process has finished,
// as far as a finalizer has seen them (afterGC).
var gcCycles atomic.Uint32

// ageing is every Slots, aged after each collection, and every function
// given to AfterEachCollection.
var ageing agedPools

type agedPools struct {
	mu    sync.Mutex
	pools []interface{ age(cycle uint32) }
}

func (a *agedPools) add(p interface{ age(cycle uint32) }) {
	a.mu.Lock()
	a.pools = append(a.pools, p)
	a.mu.Unlock()
}

// AfterEachCollection has f called after each garbage collection, as the
// hot slots are aged (afterGC): from the finalizer goroutine, with the
// collections counted so far. f must be quick and never block, as every
// finalizer of the process waits for it.
func AfterEachCollection(f func(cycle uint32)) { ageing.add(ageFunc(f)) }

type ageFunc func(cycle uint32)

func (f ageFunc) age(cycle uint32) { f(cycle) }

// gcSentinel is an object that nothing refers to, whose finalizer runs
// after the collection that finds it: afterGC. It holds a pointer, so that
// it is never one of the tiny allocations that share a block (and whose
// finalizers may never run).
type gcSentinel struct{ _ *byte }

func init() { watchGC() }

func watchGC() { runtime.SetFinalizer(new(gcSentinel), afterGC) }

// afterGC counts a collection, ages every pool's hot slots, and watches for
// the next collection.
func afterGC(*gcSentinel) {
	cycle := gcCycles.Add(1)
	ageing.mu.Lock()
	pools := ageing.pools
	ageing.mu.Unlock()
	for _, p := range pools {
		p.age(cycle)
	}
	watchGC()
}
