package codec_test

import (
	"testing"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
)

func TestPoolClasses(t *testing.T) {
	p := grpcfast.NewBufferPool()
	for _, tc := range []struct{ n, cap int }{
		{0, 256}, {1, 256}, {256, 256}, {257, 288}, {1024, 1024}, {1025, 1152},
		{16384, 16384}, {16388, 18432}, {16392, 18432}, {1 << 20, 1 << 20},
		{1<<20 + 4, 1<<20 + 1<<17}, {64 << 20, 64 << 20}, {64<<20 + 1, 64<<20 + 1},
	} {
		b := p.Get(tc.n)
		if len(*b) != tc.n || cap(*b) != tc.cap {
			t.Errorf("Get(%d): len %d cap %d, want cap %d", tc.n, len(*b), cap(*b), tc.cap)
		}
	}
	// Get does not clear memory, and a buffer comes back from its class (a
	// sync.Pool may drop it, so try a few times).
	reused := false
	for range 10 {
		b := p.Get(5000)
		(*b)[0] = 0x77
		p.Put(b)
		b2 := p.Get(4900)
		if &(*b2)[0] == &(*b)[0] {
			reused = true
			if (*b2)[0] != 0x77 {
				t.Fatal("Get cleared the buffer")
			}
			break
		}
	}
	if !reused && !grpcfasttest.Race {
		t.Error("a buffer put back was never reused")
	}
	// Foreign capacities go to the largest class not above them: a buffer
	// of capacity 20000 comes back for 18432 bytes (its class), never for
	// 20480 (the next one). A sync.Pool may drop what it is given, so try
	// a few times.
	foreign := false
	for range 10 {
		b := make([]byte, 10, 20000)
		p.Put(&b)
		if got := p.Get(18432); &(*got)[:1][0] == &b[:1][0] {
			if len(*got) != 18432 || cap(*got) != 20000 {
				t.Fatalf("foreign buffer came back with len %d cap %d", len(*got), cap(*got))
			}
			foreign = true
			break
		}
	}
	if !foreign && !grpcfasttest.Race {
		t.Error("a buffer of foreign capacity was never reused for its class")
	}
	b := make([]byte, 10, 20000)
	p.Put(&b)
	for range 10 {
		if got := p.Get(20480); cap(*got) < 20480 {
			t.Fatalf("Get(20480) returned a buffer of cap %d from the class below", cap(*got))
		}
	}
	p.Put(&[]byte{}) // too small: dropped
	p.Put(nil)
}
