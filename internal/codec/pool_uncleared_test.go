package codec

import (
	"bytes"
	"testing"
)

// TestUncleared: uncleared gives an empty slice over a new array of at
// least the size asked, small and large (above the runtime's 32 KiB of
// small objects), in one allocation; two arrays never share a byte, and
// every byte can be written and read back.
func TestUncleared(t *testing.T) {
	for _, n := range []int{1, 255, 4096, 18432, 32768, 32769, 45056, 1 << 20} {
		a, b := uncleared(n), uncleared(n)
		if len(a) != 0 || cap(a) < n || len(b) != 0 || cap(b) < n {
			t.Fatalf("uncleared(%d): len %d cap %d and len %d cap %d, want len 0 and cap >= %d", n, len(a), cap(a), len(b), cap(b), n)
		}
		a = append(a, bytes.Repeat([]byte{'a'}, cap(a))...)
		b = append(b, bytes.Repeat([]byte{'b'}, cap(b))...)
		if bytes.Count(a, []byte{'a'}) != cap(a) || bytes.Count(b, []byte{'b'}) != cap(b) {
			t.Fatalf("uncleared(%d): two arrays share bytes", n)
		}
		if allocs := testing.AllocsPerRun(20, func() { sink = uncleared(n) }); allocs != 1 {
			t.Errorf("uncleared(%d) made %v allocations, want 1 (the array)", n, allocs)
		}
	}
}

var sink []byte
