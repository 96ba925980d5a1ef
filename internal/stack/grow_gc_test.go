//go:build gc

package stack

import (
	"runtime/debug"
	"testing"
	"unsafe"
)

// frame is what use puts on the stack, well within Ahead.
const frame = Ahead * 3 / 4

// use takes a frame of frame bytes.
//
//go:noinline
func use() byte {
	var b [frame]byte
	return touch(&b)
}

//go:noinline
func touch(b *[frame]byte) byte { return b[len(b)-1] }

// deep puts about 256 bytes on the stack n times, then probes.
//
//go:noinline
func deep(n int, grow bool) (moved, grew bool) {
	var pad [224]byte
	if n > 0 {
		moved, grew = deep(n-1, grow)
		return moved, grew || pad[n%len(pad)] != 0
	}
	return probe(grow)
}

// probe reports whether use moved the goroutine's stack (the runtime
// copies a stack it grows, and a local's address changes with it), after
// Grow if grow.
//
//go:noinline
func probe(grow bool) (moved, grew bool) {
	var x byte
	start := uintptr(unsafe.Pointer(&x))
	if grow {
		Grow()
	}
	before := uintptr(unsafe.Pointer(&x))
	use()
	return uintptr(unsafe.Pointer(&x)) != before, before != start
}

// TestGrow: after Grow, a call whose frame is within Ahead never grows the
// stack, wherever the goroutine's stack ends; without it, the same call
// grows it for some depth, so that the test can fail.
func TestGrow(t *testing.T) {
	// A collection may shrink a stack that uses little of its size, and
	// shrinking moves it too: none runs meanwhile.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	type result struct{ moved, grew bool }
	run := func(n int, grow bool) result {
		c := make(chan result)
		go func() {
			moved, grew := deep(n, grow)
			c <- result{moved, grew}
		}()
		return <-c
	}
	controls, grown := 0, 0
	// 128 levels of about 256 bytes put the probe at every distance from
	// the end of a stack of up to 32 KiB.
	for n := range 128 {
		if r := run(n, true); r.moved {
			t.Fatalf("at depth %d, a frame of %d bytes grew the stack after Grow", n, frame)
		} else if r.grew {
			grown++
		}
		if run(n, false).moved {
			controls++
		}
	}
	if controls == 0 {
		t.Fatalf("without Grow, a frame of %d bytes grew the stack at no depth: the test cannot tell Grow from a no-op", frame)
	}
	if grown == 0 {
		t.Fatal("Grow grew the stack at no depth")
	}
}
