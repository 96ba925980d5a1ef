package decode

import (
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// RunUpTo's path for a tag of one byte and the bytes wire type counts what
// its general path counts.
func TestRunBytes(t *testing.T) {
	const tag = 6<<3 | 2
	general := func(b []byte, limit int) int {
		n := 0
		for len(b) > 0 && n < limit {
			num, typ, i := protowire.ConsumeTag(b)
			if i < 0 || protowire.EncodeTag(num, typ) != tag || b[0] != tag {
				return n
			}
			_, j := protowire.ConsumeBytes(b[i:])
			if j < 0 {
				return n
			}
			b = b[i+j:]
			n++
		}
		return n
	}
	for name, b := range runInputs() {
		in := append([]byte{tag}, b...)
		for _, limit := range []int{0, 1, 2, MaxRun} {
			if got, want := RunUpTo(tag, in, limit), general(in, limit); got != want {
				t.Errorf("%s, limit %d: RunUpTo = %d, want %d", name, limit, got, want)
			}
		}
	}
}
