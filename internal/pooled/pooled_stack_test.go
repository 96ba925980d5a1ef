//go:build gc

package pooled

import (
	"context"
	"runtime/debug"
	"testing"
	"unsafe"

	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/grpcfast/grpcfast/internal/stack"
)

// probeFrame, with the frames of the dec function that calls it, fits in
// the room stack.Grow leaves below Handle's frame; without Grow it grows
// the stack at some depths, with or without the race detector.
const probeFrame = stack.Ahead * 3 / 4

//go:noinline
func probeUse() byte {
	var b [probeFrame]byte
	return probeTouch(&b)
}

//go:noinline
func probeTouch(b *[probeFrame]byte) byte { return b[len(b)-1] }

// probeDecode is a dec function that reports in *moved whether a frame of
// probeFrame bytes, called from it, moved the stack (grew it).
func probeDecode(moved *bool) func(any) error {
	return func(any) error {
		var x byte
		before := uintptr(unsafe.Pointer(&x))
		probeUse()
		*moved = uintptr(unsafe.Pointer(&x)) != before
		return nil
	}
}

// atDepth calls f below n frames of about 256 bytes.
func atDepth(n int, f func()) {
	var pad [224]byte
	if n > 0 {
		atDepth(n-1, f)
		pad[n%len(pad)]++
		return
	}
	f()
}

// TestHandleGrowsStackFirst: a unary call's goroutine starts on a small
// stack, and a copy of it costs per frame; Handle grows it at its top, so
// that the decode gRPC calls a dozen frames down (dec) runs without
// growing it again, at every depth Handle is called from.
func TestHandleGrowsStackFirst(t *testing.T) {
	// A collection may shrink a stack that uses little of its size, and
	// shrinking moves it too: none runs meanwhile.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	h := New("/grpcfast.test.S/M", func(any, context.Context, *wrapperspb.StringValue) (any, error) {
		return nil, nil
	}, Config{})
	run := func(n int, handle bool) bool {
		var moved bool
		done := make(chan struct{})
		go func() {
			defer close(done)
			dec := probeDecode(&moved)
			atDepth(n, func() {
				if !handle {
					_ = dec(nil)
					return
				}
				if _, err := h.Handle(nil, context.Background(), dec, nil); err != nil {
					t.Errorf("Handle: %v", err)
				}
			})
		}()
		<-done
		return moved
	}
	controls := 0
	// 128 levels of about 256 bytes put Handle at every distance from the
	// end of a stack of up to 32 KiB.
	for n := range 128 {
		if run(n, true) {
			t.Fatalf("at depth %d, a frame of %d bytes in the decode grew the stack after Handle began", n, probeFrame)
		}
		if run(n, false) {
			controls++
		}
	}
	if controls == 0 {
		t.Fatalf("without Handle, a frame of %d bytes grew the stack at no depth: the test cannot tell", probeFrame)
	}
}
