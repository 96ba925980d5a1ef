package decode

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/grpcfast/grpcfast/internal/guardpage"
	"google.golang.org/protobuf/encoding/protowire"
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

// copyRun writes 16 bytes at once only where the chunk has room for all 16:
// a value of n <= 16 bytes copied into a chunk (guarded: a write past its
// end faults) with room for it and fewer than 16 bytes more, with more than
// 16 bytes of input left, so that only the room stands in the way of the
// 16-byte write: every room from 2 to 31 and every value that fits.
func TestStringRunGuardedRoom(t *testing.T) {
	if !guardpage.Guarded {
		t.Skip("no guard pages on this system")
	}
	const tag = 6<<3 | 2
	for room := 2; room < 32; room++ {
		for n := 2; n <= min(room, 16); n++ {
			val := strings.Repeat("v", n)
			b := protowire.AppendString(nil, val)
			b = protowire.AppendString(append(b, tag), strings.Repeat("t", 20)) // more than 16 bytes left
			for _, mode := range []string{"fresh", "slot"} {
				what := fmt.Sprintf("a value of %d bytes, a chunk with room for %d, %s", n, room, mode)
				st := runState(t, mode, len(b))
				want, wantRest, wantDone := stringRunRef(make([]string, 0, 2), bytes.Clone(b), tag)
				guardpage.Check(t, what, [][]byte{b, make([]byte, room)}, func(in [][]byte) {
					st.strs.chunk, st.strs.filled = in[1], 0
					got, rest, done := st.StringRun(make([]string, 0, 2), in[0], tag)
					if !slices.Equal(got, want) || !bytes.Equal(rest, wantRest) || done != wantDone {
						t.Fatalf("%s: StringRun = %q, rest %x, done %v; want %q, %x, %v", what, got, rest, done, want, wantRest, wantDone)
					}
				})
			}
		}
	}
}
