package reuse_test

import (
	"runtime"
	"testing"

	"github.com/grpcfast/grpcfast/internal/own"
	"github.com/grpcfast/grpcfast/internal/reuse"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
)

// TestPoolKeepsSlotsAcrossGC: a slot given back to the pool is found by
// the next Get after a garbage collection, whichever processor (P) the
// goroutine that gets it runs on. A sync.Pool alone loses it whenever the
// Put and the Get run on different Ps: the collection moves the slot to
// the victim cache, whose private entry only its own P reads. A pooled
// handler or receiver then builds its whole message tree again, once every
// other collection or so on two cores.
func TestPoolKeepsSlotsAcrossGC(t *testing.T) {
	if own.Quarantine {
		t.Skip("quarantine builds drop every slot given back")
	}
	p := reuse.SlotsOf[kinds.Rich]()
	s := p.Get()
	for i := range 100 {
		p.Put(s)
		runtime.GC()
		got := make(chan *reuse.Slot[kinds.Rich])
		go func() { got <- p.Get() }() // on any P
		if g := <-got; g != s {
			t.Fatalf("Get after Put and a garbage collection (round %d, GOMAXPROCS=%d) returned a new slot, not the one given back", i, runtime.GOMAXPROCS(0))
		}
	}
}

// TestPoolReleasesIdleSlots: a slot that no Get takes is let go after a few
// garbage collections, as a sync.Pool lets go of what it holds, so that a
// process that stops receiving a type does not keep its slots for good.
func TestPoolReleasesIdleSlots(t *testing.T) {
	p := reuse.SlotsOf[kinds.Summary]()
	s := p.Get()
	released := make(chan struct{})
	runtime.SetFinalizer(s, func(*reuse.Slot[kinds.Summary]) { close(released) })
	p.Put(s)
	s = nil
	for range 1000 {
		runtime.GC()
		select {
		case <-released:
			return
		default:
			runtime.Gosched() // let the finalizers of the collection run
		}
	}
	t.Fatal("a slot given back and never taken was still held after 1000 garbage collections")
}

// TestPoolGivesASlotOnce: a slot given back is handed to one Get only:
// two Gets with no Put between return two slots, or two calls would
// decode into one message.
func TestPoolGivesASlotOnce(t *testing.T) {
	if own.Quarantine {
		t.Skip("quarantine builds drop every slot given back")
	}
	p := reuse.SlotsOf[kinds.Inner]()
	s := p.Get()
	p.Put(s)
	a, b := p.Get(), p.Get()
	if a == b {
		t.Fatal("two Gets returned the same slot")
	}
	p.Put(a)
	p.Put(b)
}
