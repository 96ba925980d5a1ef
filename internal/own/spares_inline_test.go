package own

import (
	"testing"

	"github.com/grpcfast/grpcfast/internal/prototest"
)

// TestHotPathsInline: what a generated decoder calls once per nested
// message (TakeSpare, through grpcfastimpl.TakeSpare) and once per array
// it records (LogArray, through grpcfastimpl.LogCleared and the others)
// can be inlined; grpcfastimpl's TestHotPathsInlineIntoGenerated checks
// that they are, into generated code. A change that makes one of them too
// costly for the compiler's budget fails here, not only in a profile.
func TestHotPathsInline(t *testing.T) {
	prototest.CheckInlined(t, `\(\*Record\)\.TakeSpare`, `\(\*Record\)\.LogArray`)
}
