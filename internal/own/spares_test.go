package own

import (
	"testing"
	"unsafe"
)

// The spare lists hand back the last spare given first, the spares of the
// reset before once the last one's are used up, and nothing older: a
// DropSpares lets go of (and clears) what two generations left unused.
func TestSpareGenerations(t *testing.T) {
	if Quarantine {
		t.Skip("quarantine builds keep no spares")
	}
	k := NewSpareKind()
	vals := make([]int, 4)
	p := func(i int) unsafe.Pointer { return unsafe.Pointer(&vals[i]) }
	var o Record
	o.PutSpare(k, p(0))
	o.PutSpare(k, p(1))
	if got := o.TakeSpare(k); got != p(1) {
		t.Fatalf("first take: %p, want the last spare given, %p", got, p(1))
	}
	o.DropSpares() // p(0), unused, waits one more generation
	o.PutSpare(k, p(2))
	for i, want := range []unsafe.Pointer{p(2), p(0), nil} {
		if got := o.TakeSpare(k); got != want {
			t.Fatalf("take %d after a new generation: %p, want %p", i, got, want)
		}
	}
	o.PutSpare(k, p(3))
	o.DropSpares()
	o.DropSpares() // p(3) is two generations old: let go
	if got := o.TakeSpare(k); got != nil {
		t.Fatalf("a spare two generations old came back: %p", got)
	}
	for _, l := range append(o.spares, o.older...) {
		for i, e := range l.p {
			if e != nil {
				t.Errorf("an array of spares still points to %p at %d after two DropSpares", e, i)
			}
		}
	}
	if got := o.TakeSpare(k + 1000); got != nil {
		t.Fatalf("a kind with no list gave %p", got)
	}
	var nilRecord *Record
	if got := nilRecord.TakeSpare(k); got != nil {
		t.Fatalf("a nil record gave %p", got)
	}
}

// Once its lists have grown, giving and taking spares allocates nothing.
func TestSparesAllocs(t *testing.T) {
	if Quarantine {
		t.Skip("quarantine builds keep no spares")
	}
	k := NewSpareKind()
	vals := make([]int, 64)
	var o Record
	cycle := func() {
		for i := range vals {
			o.PutSpare(k, unsafe.Pointer(&vals[i]))
		}
		for range vals {
			if o.TakeSpare(k) == nil {
				t.Fatal("a spare given is missing")
			}
		}
		o.DropSpares()
	}
	cycle()
	cycle()
	if n := testing.AllocsPerRun(100, cycle); n != 0 {
		t.Errorf("%v allocations per cycle of 64 spares, want 0", n)
	}
}
