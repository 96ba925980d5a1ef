package own

import (
	"bytes"
	"math"
	"reflect"
	"testing"
	"unicode/utf8"
	"unsafe"
)

// poisonMsg has a field of each kind that a generated message or oneof
// wrapper holds.
type poisonMsg struct {
	state  int
	Name   string
	Data   []byte
	I32    int32
	I64    int64
	U32    uint32
	F64    float64
	Flag   bool
	Opt    *int32
	OptS   *string
	Child  *poisonMsg
	Words  []string
	Counts map[string]int
	Choice any
}

// The poison's string is not valid UTF-8: a message that holds it fails to
// encode through gRPC's standard codec and to decode through any that
// checks, the grpcfast codec included.
func TestPoisonStringInvalidUTF8(t *testing.T) {
	if utf8.ValidString(PoisonString) {
		t.Fatalf("PoisonString %q is valid UTF-8", PoisonString)
	}
	if !bytes.Equal([]byte(PoisonString), poison[:]) {
		t.Fatalf("PoisonString %x, want the byte pattern %x", PoisonString, poison)
	}
}

// PoisonFields sets, in quarantine builds only, the exported fields that
// hold a value of their own to the pattern, a message field to a new
// message of poisoned fields (one level: no endless tree of a recursive
// type), and leaves those that point into other memory (repeated fields,
// maps, oneofs) and the unexported ones as they are.
func TestPoisonFields(t *testing.T) {
	m := &poisonMsg{state: 7}
	PoisonFields(m)
	PoisonFields((*poisonMsg)(nil)) // nothing to poison
	PoisonFields(poisonMsg{})       // not a pointer: nothing
	if !Quarantine {
		if !reflect.DeepEqual(*m, poisonMsg{state: 7}) {
			t.Fatalf("outside quarantine builds: %+v, want the message as it was", *m)
		}
		return
	}
	u := uint64(pattern)
	switch {
	case m.Name != PoisonString:
		t.Errorf("string %q, want %q", m.Name, PoisonString)
	case !bytes.Equal(m.Data, poison[:]):
		t.Errorf("bytes %x, want %x", m.Data, poison)
	case m.I32 != int32(u) || m.I64 != int64(u) || m.U32 != uint32(u):
		t.Errorf("numbers %x %x %x, want the pattern", m.I32, m.I64, m.U32)
	case math.Float64bits(m.F64) != pattern:
		t.Errorf("float %v, want the pattern's bits", m.F64)
	case !m.Flag:
		t.Error("bool false, want true")
	case m.Opt == nil || *m.Opt != int32(u) || m.OptS == nil || *m.OptS != PoisonString:
		t.Errorf("optional fields %v %v, want pointers to the pattern", m.Opt, m.OptS)
	case m.Child == nil || m.Child.Name != PoisonString || m.Child.Child != nil:
		t.Errorf("message field %+v, want a new message of poisoned fields, whose own message field stays nil", m.Child)
	case m.Words != nil || m.Counts != nil || m.Choice != nil:
		t.Errorf("repeated, map and oneof fields %v %v %v, want them left nil", m.Words, m.Counts, m.Choice)
	case m.state != 7:
		t.Errorf("unexported field %d, want it left 7", m.state)
	}
}

// KeepCleared replaces the elements of a repeated string, bytes, bool or
// message field with the pattern in quarantine builds, where the array is
// never reused and stays in the field; elsewhere it clears them and puts
// the array back, empty.
func TestKeepClearedPoisons(t *testing.T) {
	words := []string{"a", "b"}
	blobs := [][]byte{{1}, {2}}
	flags := []bool{false, false}
	msgs := []*poisonMsg{{Name: "a"}, {Name: "b"}}
	keep := func(field, p unsafe.Pointer, n int, k Keeper) { k.Keep(field, p, n) }
	kw, kb, kf, km := words, blobs, flags, msgs
	keep(unsafe.Pointer(&kw), unsafe.Pointer(&words[0]), len(words), KeepCleared[string]{})
	keep(unsafe.Pointer(&kb), unsafe.Pointer(&blobs[0]), len(blobs), KeepCleared[[]byte]{})
	keep(unsafe.Pointer(&kf), unsafe.Pointer(&flags[0]), len(flags), KeepCleared[bool]{})
	keep(unsafe.Pointer(&km), unsafe.Pointer(&msgs[0]), len(msgs), KeepCleared[*poisonMsg]{})
	if !Quarantine {
		if len(kw)+len(kb)+len(kf)+len(km) != 0 {
			t.Fatalf("fields hold %d elements after the keep, want none", len(kw)+len(kb)+len(kf)+len(km))
		}
		if words[0] != "" || blobs[0] != nil || flags[0] || msgs[0] != nil {
			t.Fatal("the arrays kept are not cleared")
		}
		return
	}
	u := uint64(pattern)
	for i := range 2 {
		if kw[i] != PoisonString || !bytes.Equal(kb[i], poison[:]) || !kf[i] {
			t.Fatalf("element %d: %q %x %v, want the pattern", i, kw[i], kb[i], kf[i])
		}
		if m := km[i]; m == nil || m.Name != PoisonString || m.I64 != int64(u) || m.Child == nil || m.Child.Name != PoisonString {
			t.Fatalf("message element %d: %+v, want a message of poisoned fields", i, m)
		}
	}
}
