package grpcfastimpl_test

import (
	"testing"
	"unsafe"

	"github.com/grpcfast/grpcfast/grpcfastimpl"
	"github.com/grpcfast/grpcfast/internal/decode"
)

type spared struct {
	a, b int64
	s    *int64
}

// In a decode into a fresh message, NextSpare hands out the messages of a
// kind's slab side by side, and nil where the slab has none left or the
// decode has no slabs; NewSpare then starts the next slab. Code generated
// before NextSpare calls NewSpare alone: it hands out the same messages,
// side by side in the same slabs. Every message is zero, and none twice.
func TestSpareSlabs(t *testing.T) {
	k := grpcfastimpl.NewSpareKind()
	size := unsafe.Sizeof(spared{})
	for _, how := range []string{"NextSpare", "NewSpare alone"} {
		f, d := decode.GetFresh(1<<16, false)
		seen := map[*spared]bool{}
		var last *spared
		adjacent, calls := 0, 0
		for range 200 {
			var p *spared
			if how == "NextSpare" {
				p = grpcfastimpl.NextSpare[spared](d, k)
			}
			if p == nil {
				p = grpcfastimpl.NewSpare[spared](d, k)
				calls++
			}
			if p == nil || seen[p] || *p != (spared{}) {
				t.Fatalf("%s: %p handed out twice, or not zero", how, p)
			}
			seen[p] = true
			if last != nil && uintptr(unsafe.Pointer(p))-uintptr(unsafe.Pointer(last)) == size {
				adjacent++
			}
			last = p
			p.a = 1
		}
		decode.PutFresh(f)
		// Slabs of 1, 2, 4, ... up to MaxSlab: all but the first of each
		// follow the one before.
		if adjacent < 200-20 {
			t.Errorf("%s: %d of 200 messages next to the one before, want most", how, adjacent)
		}
		if how == "NextSpare" && calls > 20 {
			t.Errorf("NextSpare: NewSpare called %d times for 200 messages, want once a slab", calls)
		}
	}
	// A decode without slabs (a slot's) takes nothing from NextSpare.
	if p := grpcfastimpl.NextSpare[spared](&grpcfastimpl.Decoding{}, k); p != nil {
		t.Errorf("NextSpare without slabs: %p, want nil", p)
	}
}
