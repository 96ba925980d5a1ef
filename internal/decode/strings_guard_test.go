package decode

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/grpcfast/grpcfast/internal/guardpage"
)

// StringRun reads nothing past its input: every input of runInputs, and
// every prefix of each, placed where a page that faults when read begins
// (guardpage.Check), gives what stringRunRef gives, in every mode and with
// any room; a read past the end fails the test instead of reading what
// follows the slice on the heap.
func TestStringRunGuarded(t *testing.T) {
	if !guardpage.Guarded {
		t.Skip("no guard pages on this system")
	}
	const tag = 6<<3 | 2
	for name, whole := range runInputs() {
		for cut := len(whole); cut >= 0; cut-- {
			b := whole[:cut]
			for _, room := range []int{0, 1, 3, 100} {
				for _, mode := range []string{"views", "fresh", "slot"} {
					what := fmt.Sprintf("%s, first %d bytes, room %d, %s", name, cut, room, mode)
					st := runState(t, mode, len(b))
					want, wantRest, wantDone := stringRunRef(make([]string, 1, 1+room), bytes.Clone(b), tag)
					guardpage.Check(t, what, [][]byte{b}, func(in [][]byte) {
						got, rest, done := st.StringRun(make([]string, 1, 1+room), in[0], tag)
						if !slices.Equal(got, want) || !bytes.Equal(rest, wantRest) || done != wantDone {
							t.Fatalf("%s: StringRun = %q, rest %x, done %v; want %q, %x, %v", what, got, rest, done, want, wantRest, wantDone)
						}
					})
				}
			}
		}
	}
}
