package grpcfastimpl_test

import (
	"testing"

	"github.com/grpcfast/grpcfast/internal/prototest"
)

// TestHotPathsInlineIntoGenerated: the calls that generated decoders make
// once per nested message, string or recorded array are inlined into them,
// down to the record (an OTLP export makes thousands of each): taking a
// spare costs a slot's decode no call, nor the next message of a slab a
// fresh message's, nor does a string of a message found 7-bit, nor
// recording an array, nor the value of a short varint (ShortVarint).
// TakeSpare and NextSpare are generic, and the compiler inlines no call
// into another package from a generic body: they go through takeSpare and
// nextSlab.
func TestHotPathsInlineIntoGenerated(t *testing.T) {
	prototest.CheckNoCalls(t, "../internal/testprotos/otlp", `GrpcfastDecode$`,
		`.*grpcfastimpl\.(TakeSpare|takeSpare|NextSpare|nextSlab|Unswept|Sweep|CheckUTF8|String|ShortVarint|LogCleared|LogBytes|LogScalars)\b.*`,
		`.*own\.\(\*Record\)\.(TakeSpare|LogArray)`, `.*decode\.\(\*Slabs\)\.Next\b.*`,
		`.*decode\.\(\*Decoding\)\.(CheckUTF8|String|Checks)`)
}
