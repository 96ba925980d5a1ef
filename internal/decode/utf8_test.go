package decode

import (
	"strings"
	"testing"
	"unicode/utf8"
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
