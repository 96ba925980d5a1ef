package codec

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/grpcfast/grpcfast/internal/own"
)

// TestScratchRegions: a codec with the default pool copies a message of up
// to a region's size into a region outside the heap, reuses the regions it
// mapped, maps at most GOMAXPROCS of them, and takes its scratch from the
// pool beyond that, for a larger message, or with a pool of its own; a
// region given back is poisoned in checked builds.
func TestScratchRegions(t *testing.T) {
	if mapRegion(1) == nil {
		t.Skip("no regions outside the heap on this system")
	}
	c := &Codec{Pool: DefaultPool}
	procs := runtime.GOMAXPROCS(0)
	var taken []scratch
	defer func() {
		for _, s := range taken {
			c.giveScratch(s)
		}
	}()
	for range procs + 1 {
		s := c.takeScratch(1000)
		if len(s.b) != 1000 {
			t.Fatalf("scratch of %d bytes, want 1000", len(s.b))
		}
		taken = append(taken, s)
	}
	regions := 0
	for _, s := range taken {
		if s.region {
			regions++
		}
	}
	// Other tests of the package may hold regions now: at most GOMAXPROCS
	// are mapped, so with procs+1 taken at once, one at least is the pool's.
	if regions == 0 || regions > procs {
		t.Fatalf("%d of %d scratch buffers taken at once were regions, want 1 to GOMAXPROCS (%d)", regions, len(taken), procs)
	}
	if scratchRegions.mapped > procs {
		t.Fatalf("%d regions mapped, more than GOMAXPROCS (%d)", scratchRegions.mapped, procs)
	}

	first := taken[0]
	if !first.region {
		t.Fatal("the first scratch buffer taken is not a region")
	}
	copy(first.b, bytes.Repeat([]byte{0x5a}, len(first.b)))
	for _, s := range taken {
		c.giveScratch(s)
	}
	taken = nil
	if own.Checked && !bytes.Equal(first.b[:4], []byte{0xDE, 0xAD, 0xBE, 0xEF}) {
		t.Fatalf("a region given back in a checked build begins % x, want the poison", first.b[:4])
	}

	mapped := scratchRegions.mapped
	for range 100 {
		s := c.takeScratch(scratchRegionSize)
		if !s.region {
			t.Fatal("a message of a region's size, with every region free, was copied into the pool's buffer")
		}
		c.giveScratch(s)
	}
	if scratchRegions.mapped != mapped {
		t.Fatalf("100 decodes one at a time mapped %d more regions, want none", scratchRegions.mapped-mapped)
	}

	if s := c.takeScratch(scratchRegionSize + 1); s.region {
		t.Fatal("a message larger than a region was copied into one")
	} else {
		c.giveScratch(s)
	}
	mine := &Codec{Pool: NewBufferPool()}
	if s := mine.takeScratch(1000); s.region {
		t.Fatal("a codec with a pool of its own copied into a region")
	} else {
		mine.giveScratch(s)
	}
}
