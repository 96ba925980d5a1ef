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
