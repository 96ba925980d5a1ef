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
// follows the slice on the heap. Where it copies (fresh, slot), the decode's
// chunk is guarded too, and of a few sizes, some shorter than the 16 bytes
// copyRun writes at once: a write past its end fails the test as well.
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
					chunks := []int{-1} // the mode's own chunk
					if mode != "views" && room > 0 {
						chunks = append(chunks, 9, 16, 23)
					}
					for _, chunk := range chunks {
						what := fmt.Sprintf("%s, first %d bytes, room %d, %s, chunk %d", name, cut, room, mode, chunk)
						st := runState(t, mode, len(b))
						want, wantRest, wantDone := stringRunRef(make([]string, 1, 1+room), bytes.Clone(b), tag)
						guardpage.Check(t, what, [][]byte{b, make([]byte, max(chunk, 0))}, func(in [][]byte) {
							if chunk >= 0 {
								st.strs.chunk, st.strs.filled = in[1], 0
							}
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
}
