package decode

import (
	"testing"

	"github.com/grpcfast/grpcfast/internal/prototest"
)

// TestHotPathsInline: the calls that generated decoders make once a field
// inline into them, so that a view, a 7-bit input or a check turned off
// costs no call; copies go through the functions marked go:noinline beside
// them. A change that makes one of them too costly for the compiler's
// budget fails here, not only in a profile.
func TestHotPathsInline(t *testing.T) {
	prototest.CheckInlined(t,
		`\(\*Decoding\)\.String`, `\(\*Decoding\)\.Bytes`, `\(\*Decoding\)\.BytesPresent`,
		`\(\*Decoding\)\.CheckUTF8`, `\(\*Decoding\)\.Checks`, `\(\*Chunks\)\.copy`,
		`\(\*Slabs\)\.Next`)
}
