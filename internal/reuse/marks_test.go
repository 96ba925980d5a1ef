package reuse_test

import (
	"testing"

	"github.com/grpcfast/grpcfast/internal/reuse"
)

// TestTakeDecodedRemovesTheMark: once the slot has read the codec's mark,
// the message's unknown fields are nil again, as after the standard codec's
// decode: no empty slice pointing at the codec's own array reaches the
// caller (who might compare it, or hand the message to code that looks at
// it).
func TestTakeDecodedRemovesTheMark(t *testing.T) {
	for _, tc := range []struct {
		name   string
		set    func(*[]byte)
		copied bool
	}{{"SetDecoded", reuse.SetDecoded, false}, {"SetDecodedCopy", reuse.SetDecodedCopy, true}} {
		var uf []byte
		tc.set(&uf)
		ok, copied := reuse.TakeDecoded(&uf)
		if !ok || copied != tc.copied {
			t.Errorf("%s: TakeDecoded = %v, %v, want true, %v", tc.name, ok, copied, tc.copied)
		}
		if uf != nil {
			t.Errorf("%s: the unknown fields are %p (len %d, cap %d) after TakeDecoded, want nil", tc.name, uf, len(uf), cap(uf))
		}
		if ok, _ := reuse.TakeDecoded(&uf); ok {
			t.Errorf("%s: a second TakeDecoded found the mark again", tc.name)
		}
	}
	// Unknown fields that a decode left are not a mark, and stay.
	uf := []byte{8, 1}
	reuse.SetDecoded(&uf)
	if ok, _ := reuse.TakeDecoded(&uf); ok || len(uf) != 2 {
		t.Errorf("unknown fields %x were taken for a mark", uf)
	}
}
