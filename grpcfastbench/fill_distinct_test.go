package grpcfastbench

import (
	"testing"
	"unicode/utf8"
)

// distinct gives copy n of a string the digits of n in base 36 in its last
// bytes, up to 4 of those below 0x80: of the same length, valid UTF-8, each
// copy different.
func TestDistinct(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"name", 1, "0001"},
		{"attribute", 36*36 + 35, "attri010z"},
		{"ab", 37, "11"},
		{"día", 5, "dí5"}, // one byte below 0x80 at the end
		{"日本", 1, "日本"},   // none
		{"", 1, ""},
	} {
		if got := distinct(tc.s, tc.n); got != tc.want {
			t.Errorf("distinct(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
	seen := map[string]bool{}
	for n := 1; n < 5000; n++ {
		v := distinct("clé.name", n)
		if seen[v] || len(v) != len("clé.name") || !utf8.ValidString(v) {
			t.Fatalf("copy %d: %q, a value seen before, or of another length, or not UTF-8", n, v)
		}
		seen[v] = true
	}
}
