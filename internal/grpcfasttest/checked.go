package grpcfasttest

import (
	"testing"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/internal/own"
)

// Checked builds, the race detector and allocation counts.

var Deadbeef = []byte{0xDE, 0xAD, 0xBE, 0xEF}

// Poisoned reports whether b is the poison pattern, at least 4 bytes of it.
func Poisoned(b []byte) bool {
	if len(b) < 4 {
		return false
	}
	for i := range b {
		if b[i] != Deadbeef[i%4] {
			return false
		}
	}
	return true
}

func NeedChecked(t *testing.T) {
	t.Helper()
	if !grpcfast.Checked {
		t.Skip("not a checked build: run with -race or -tags grpcfast_checked")
	}
}

func SkipIfRace(t *testing.T) {
	if Race {
		t.Skip("the race detector makes sync.Pool drop items at random")
	}
}

// SkipInCheckedBuild skips t in a grpcfast_checked build (own.Quarantine),
// saying why t cannot hold there: in that build memory taken back is
// Poisoned and never reused, so that a message keeps none of its memory, a
// receiver or a pool hands out new memory every time, and every decode
// allocates what a reused message would have kept. make test-checked runs
// every other test of the module in that build.
func SkipInCheckedBuild(t testing.TB, why string) {
	t.Helper()
	if own.Quarantine {
		t.Skip("cannot hold in a grpcfast_checked build, which poisons memory taken back and never reuses it: " + why)
	}
}
