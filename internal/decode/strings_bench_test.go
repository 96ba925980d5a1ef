package decode

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// BenchmarkStringRun: StringRun over 16 KiB of a repeated string field,
// as views of the input (viewRun) and copied into a fresh decode's chunks
// (copyRun), in shapes of lengths that their loops for values of one
// length take (equal) or do not (mixed), and between: runs of two (pairs),
// random lengths of a narrow range (random). Decoding one string cannot
// start before the last one's length is read, except where the lengths
// repeat.
func BenchmarkStringRun(b *testing.B) {
	const tag = 6<<3 | 2
	r := rand.New(rand.NewPCG(1, 2))
	for _, shape := range []string{"equal8", "equal36", "mixed4to20", "pairs", "random8or9", "random7to9"} {
		var in []byte
		n := 0
		for len(in) < 16384 {
			var v string
			switch shape {
			case "equal8": // the strings of grpcfasttest.StringsMessage
				v = fmt.Sprintf("tag-%04d", n%10000)
			case "equal36": // UUIDs, say
				v = fmt.Sprintf("%036d", n)
			case "mixed4to20":
				v = fmt.Sprintf("%0*d", 4+r.IntN(17), n)
			case "pairs":
				v = fmt.Sprintf("%0*d", 6+(n/2)%2*4, n)
			case "random8or9":
				v = fmt.Sprintf("%0*d", 8+r.IntN(2), n)
			case "random7to9":
				v = fmt.Sprintf("%0*d", 7+r.IntN(3), n)
			}
			in = protowire.AppendString(protowire.AppendTag(in, 6, protowire.BytesType), v)
			n++
		}
		in = in[1:] // as a generated decoder calls it: at the first length
		dst := make([]string, 0, n)
		b.Run("mode=views/shape="+shape, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			for range b.N {
				if d, rest, done := viewRun(dst[:0], in, tag); len(d) != n || len(rest) != 0 || !done {
					b.Fatalf("viewRun took %d of %d values, left %d bytes, done %v", len(d), n, len(rest), done)
				}
			}
		})
		b.Run("mode=fresh/shape="+shape, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for range b.N {
				f, st := GetFresh(len(in), false)
				// The run stops where a chunk is full, as a generated
				// decoder's loop calls it again.
				d, rest := dst[:0], in
				for len(rest) > 0 {
					var done bool
					if d, rest, done = st.StringRun(d, rest, tag); done || len(d) == 0 {
						break
					}
				}
				if len(d) != n || len(rest) != 0 {
					b.Fatalf("StringRun took %d of %d values, left %d bytes", len(d), n, len(rest))
				}
				PutFresh(f)
			}
		})
	}
}
