// Package guardpage runs a test's code on input placed at the very end of
// readable memory, just before a page that faults when read, so that code
// that reads one byte past its input fails the test, where on the heap it
// would read whatever the allocator left after the slice and pass. Imported
// by _test.go files only.
package guardpage

import (
	"runtime"
	"runtime/debug"
	"testing"
)

// Check calls f with a copy of each of pieces that ends where a page that
// faults when read begins (an empty piece's data pointer is that page's
// first byte), each with no capacity beyond its length, and fails tb,
// naming what, if f faults (debug.SetPanicOnFault) or panics. The copies
// are unmapped when f returns: nothing may keep a view of them, and f
// compares what it decoded before it returns. Where the system has no
// guard pages (Guarded is false), the copies are on the heap and a read
// past their end is not caught.
func Check(tb testing.TB, what string, pieces [][]byte, f func(in [][]byte)) {
	tb.Helper()
	in := make([][]byte, len(pieces))
	for i, b := range pieces {
		p, unmap, err := atEnd(b)
		if err != nil {
			tb.Fatalf("%s: guardpage: %v", what, err)
		}
		defer func() {
			if err := unmap(); err != nil {
				tb.Errorf("%s: guardpage: %v", what, err)
			}
		}()
		in[i] = p
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		if e, ok := r.(interface{ Addr() uintptr }); ok {
			tb.Fatalf("%s: faulted at %#x (%v)", what, e.Addr(), r)
		}
		if e, ok := r.(runtime.Error); ok {
			tb.Fatalf("%s: %v", what, e)
		}
		tb.Fatalf("%s: panicked: %v", what, r)
	}()
	f(in)
}
