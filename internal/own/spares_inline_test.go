package own

import (
	"testing"

	"github.com/grpcfast/grpcfast/internal/prototest"
)

// TestHotPathsInline: what a generated decoder calls once per nested
// message (TakeSpare, through grpcfastimpl.Spare) and once per array it
// records (LogArray, through grpcfastimpl.LogCleared and the others) inline
// into the caller. A change that makes one of them too costly for the
// compiler's budget fails here, not only in a profile.
func TestHotPathsInline(t *testing.T) {
	prototest.CheckInlined(t, `\(\*Record\)\.TakeSpare`, `\(\*Record\)\.LogArray`)
}
