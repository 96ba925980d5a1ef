package decode

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/grpcfast/grpcfast/internal/guardpage"
)

// TestValidUTF8 checks the codec's UTF-8 check against utf8.Valid for
// strings of every length up to 40 with an invalid or multi-byte sequence
// at every position.
func TestValidUTF8(t *testing.T) {
	var sizes []int
	for n := range 41 {
		sizes = append(sizes, n)
	}
	sizes = append(sizes, 120, 127, 128, 129, 136, 300) // around the switch to utf8.Valid
	for _, n := range sizes {
		for i := -1; i < n; i++ {
			for _, ins := range []string{"\xff", "\xc3\xa9", "\xe2\x82", "\xf0\x9f\x98\x80", "\x80"} {
				b := []byte(strings.Repeat("a", n))
				if i >= 0 {
					b = append(b[:i], append([]byte(ins), b[i:]...)...)
				}
				if got, want := ValidUTF8(b), utf8.Valid(b); got != want {
					t.Fatalf("ValidUTF8(%q) = %v, want %v", b, got, want)
				}
			}
		}
	}
}

// TestASCIIPrefix checks ASCIIPrefix against a byte-by-byte loop for inputs
// of every length up to 80 with a byte of 0x80 or more at every position, or
// none: across the 32-byte and 8-byte steps, the overlapping last 8 bytes
// and the 4-byte step of short inputs.
func TestASCIIPrefix(t *testing.T) {
	want := func(b []byte) int {
		for i, c := range b {
			if c >= 0x80 {
				return i
			}
		}
		return len(b)
	}
	for n := range 81 {
		for i := -1; i < n; i++ {
			for _, hi := range []byte{0x80, 0xff, 0xc3} {
				b := []byte(strings.Repeat("\x7f", n))
				if i >= 0 {
					b[i] = hi
					if i+1 < n {
						b[n-1] = hi // a second one, after: the first counts
					}
				}
				if got := ASCIIPrefix(b); got != want(b) {
					t.Fatalf("ASCIIPrefix(%q) = %d, want %d", b, got, want(b))
				}
			}
		}
	}
}

// TestShortASCII checks shortASCII against a byte-by-byte loop for inputs of
// every length up to 70 with a byte of 0x80 or more at every position, or
// none, each placed where a page that faults when read begins, so that a
// read past the input fails the test: across its overlapping words, half
// words and bytes, and false for 64 bytes or more, which it does not read.
func TestShortASCII(t *testing.T) {
	for n := range 71 {
		for i := -1; i < n; i++ {
			for _, hi := range []byte{0x80, 0xff} {
				b := []byte(strings.Repeat("\x7f", n))
				if i >= 0 {
					b[i] = hi
				}
				want := n < wholeSweep && i < 0
				what := fmt.Sprintf("shortASCII of %d bytes, 0x%x at %d", n, hi, i)
				guardpage.Check(t, what, [][]byte{b}, func(in [][]byte) {
					if got := shortASCII(in[0]); got != want {
						t.Fatalf("%s = %v, want %v", what, got, want)
					}
				})
			}
		}
	}
}

// TestSweep checks what Decoding.Sweep returns for inputs of every length
// up to 100, with a byte of 0x80 or more at every position or none: the
// twin that checks nothing and 0 for a 7-bit input, the state itself and
// the length from that byte on otherwise, whether or not the input was
// read whole first (shorter than 64 bytes); and, with the check off, the
// state itself and 0.
func TestSweep(t *testing.T) {
	var ds Decodings
	st := ds.Init(nil, false, false)
	for n := range 101 {
		for i := -1; i < n; i++ {
			b := []byte(strings.Repeat("a", n))
			if i >= 0 {
				b[i] = 0xc3
			}
			got, left := st.Sweep(b)
			switch {
			case i < 0 && (got == st || got.Checks() || left != 0):
				t.Fatalf("Sweep of %d 7-bit bytes = %p (checks %v), %d; want the twin that checks nothing, 0", n, got, got.Checks(), left)
			case i >= 0 && (got != st || left != n-i):
				t.Fatalf("Sweep of %d bytes, 0xc3 at %d = %p, %d; want the state itself, %d", n, i, got, left, n-i)
			}
		}
	}
	off := ds.Init(nil, false, true)
	if got, left := off.Sweep([]byte("\xff")); got != off || left != 0 {
		t.Fatalf("Sweep with the check off = %p, %d; want the state itself, 0", got, left)
	}
}

// TestValidUTF8Short checks ValidUTF8 against utf8.Valid for every input of
// up to 2 bytes, and every 3 bytes from a set of bytes at the edges of
// UTF-8's ranges: short inputs are checked for ASCII byte by byte (ORed),
// and bytes that OR to exactly 0x80 ("\x80", "\x00\x80") are not ASCII.
func TestValidUTF8Short(t *testing.T) {
	check := func(b []byte) {
		if got, want := ValidUTF8(b), utf8.Valid(b); got != want {
			t.Fatalf("ValidUTF8(%q) = %v, want %v", b, got, want)
		}
	}
	check(nil)
	for i := range 1 << 16 {
		check([]byte{byte(i)})
		check([]byte{byte(i), byte(i >> 8)})
	}
	edges := []byte{0x00, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff}
	for _, a := range edges {
		for _, b := range edges {
			for _, c := range edges {
				check([]byte{a, b, c})
			}
		}
	}
}
