package own

import (
	"testing"
	"unsafe"
)

// What a decode takes (TakeSpare) or adds (Adopt) is reset by the next
// Recycle and taken again by the next decode, in the same order; a Recycle
// keeps no more spares of a kind than twice what the last decode took and
// 16 more, or what the decode before took, and clears what it lets go of.
func TestSpareRecycle(t *testing.T) {
	if Quarantine {
		t.Skip("quarantine builds keep no spares")
	}
	k := NewSpareKind()
	vals := make([]int, 100)
	p := func(i int) unsafe.Pointer { return unsafe.Pointer(&vals[i]) }
	var o Record
	if got := o.TakeSpare(k); got != nil {
		t.Fatalf("an empty record gave %p", got)
	}
	for i := range vals {
		vals[i] = i + 1
		o.Adopt(k, p(i), Ops[int]{})
	}
	o.Recycle(false)
	for i, v := range vals {
		if v != 0 {
			t.Fatalf("element %d is %d after Recycle, want it reset", i, v)
		}
	}
	take := func(n int) {
		t.Helper()
		for i := range n {
			if got := o.TakeSpare(k); got != p(i) {
				t.Fatalf("take %d: %p, want %p, in the order of the decode before", i, got, p(i))
			}
		}
		vals[n-1] = 7
	}
	take(10)
	o.Recycle(false) // took 10, the decode before 100: all kept
	if vals[9] != 0 {
		t.Fatal("a spare taken was not reset")
	}
	if n := len(o.spares[k].p); n != 100 {
		t.Fatalf("%d spares after taking 10 of 100 once, want 100", n)
	}
	take(10)
	o.Recycle(false) // took 10 twice: 2*10+16 kept
	l := o.spares[k]
	if len(l.p) != 36 || l.u != 0 {
		t.Fatalf("%d spares (%d taken) after taking 10 twice, want 36 (0)", len(l.p), l.u)
	}
	for i, e := range l.p[:cap(l.p)][36:] {
		if e != nil {
			t.Errorf("the array of spares still points to %p beyond its length, at %d", e, i+36)
		}
	}
	if got := o.TakeSpare(k + 1000); got != nil {
		t.Fatalf("a kind with no list gave %p", got)
	}
	var nilRecord *Record
	if got := nilRecord.TakeSpare(k); got != nil {
		t.Fatalf("a nil record gave %p", got)
	}
	o.Disown()
	if got := o.TakeSpare(k); got != nil {
		t.Fatalf("a spare came back after Disown: %p", got)
	}
}

// Once its lists have grown, taking and recycling spares allocates nothing.
func TestSparesAllocs(t *testing.T) {
	if Quarantine {
		t.Skip("quarantine builds keep no spares")
	}
	k := NewSpareKind()
	vals := make([]int, 64)
	var o Record
	for i := range vals {
		o.Adopt(k, unsafe.Pointer(&vals[i]), Ops[int]{})
	}
	o.Recycle(false)
	cycle := func() {
		for range vals {
			if o.TakeSpare(k) == nil {
				t.Fatal("a spare is missing")
			}
		}
		o.Recycle(false)
	}
	if n := testing.AllocsPerRun(100, cycle); n != 0 {
		t.Errorf("%v allocations per cycle of 64 spares, want 0", n)
	}
}
