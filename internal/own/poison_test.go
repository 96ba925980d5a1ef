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

// KeepCleared, in quarantine builds, where the array is never reused and
// stays in the field, replaces the elements of a repeated string, bytes,
// bool or message field with the pattern; in other checked builds, where
// the array goes back into the field empty for the next decode, those of a
// string field only (the record poisons message elements apart:
// TestRecordPoisonsMessageArrays); outside checked builds, it clears them.
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
	if n := len(kw) + len(kb) + len(kf) + len(km); Quarantine && n != 8 || !Quarantine && n != 0 {
		t.Fatalf("fields hold %d elements after the keep, want 8 in quarantine builds (never reused) and 0 elsewhere", n)
	}
	u := uint64(pattern)
	for i := range 2 {
		switch m := msgs[i]; {
		case !Checked || !Quarantine && words[i] != PoisonString:
			if Checked {
				t.Fatalf("string element %d: %q, want the pattern", i, words[i])
			}
			if words[i] != "" || blobs[i] != nil || flags[i] || m != nil {
				t.Fatalf("element %d: %q %x %v %v, want them cleared", i, words[i], blobs[i], flags[i], m)
			}
		case !Quarantine:
			if blobs[i] != nil || flags[i] || m != nil {
				t.Fatalf("bytes, bool and message elements %d: %x %v %v, want them cleared for the decode that reuses the array", i, blobs[i], flags[i], m)
			}
		case words[i] != PoisonString || !bytes.Equal(blobs[i], poison[:]) || !flags[i]:
			t.Fatalf("element %d: %q %x %v, want the pattern", i, words[i], blobs[i], flags[i])
		case m == nil || m.Name != PoisonString || m.I64 != int64(u) || m.Child == nil || m.Child.Name != PoisonString:
			t.Fatalf("message element %d: %+v, want a message of poisoned fields", i, m)
		}
	}
}

// Record.Poison, in checked builds but quarantine ones, points every
// element of a repeated message field's array that Recycle kept to a
// message of the pattern, and Unpoison clears them again; outside checked
// builds, and in quarantine ones, it does nothing.
func TestRecordPoisonsMessageArrays(t *testing.T) {
	type holder struct{ kids []*poisonMsg }
	h := &holder{kids: []*poisonMsg{{Name: "a"}, {Name: "b"}, nil}}
	arr := h.kids[:3]
	var o Record
	o.LogArray(unsafe.Pointer(&h.kids), unsafe.Pointer(unsafe.SliceData(h.kids)), cap(h.kids), KeepCleared[*poisonMsg]{})
	o.CheckArrays()
	*h = holder{} // the reset
	o.Recycle(true)
	o.Clear()
	o.Poison()
	for i, m := range arr {
		switch {
		case Checked && !Quarantine && (m == nil || m.Name != PoisonString):
			t.Fatalf("element %d after Poison: %+v, want a message of the pattern", i, m)
		case !(Checked && !Quarantine) && m != nil && !Quarantine:
			t.Fatalf("element %d: %+v, want it cleared outside checked builds", i, m)
		}
	}
	o.Unpoison()
	if !Quarantine {
		for i, m := range arr {
			if m != nil {
				t.Fatalf("element %d after Unpoison: %+v, want it cleared for the next decode", i, m)
			}
		}
		if len(h.kids) != 0 || cap(h.kids) != 3 {
			t.Fatalf("the field holds %d of %d, want the array back, empty", len(h.kids), cap(h.kids))
		}
	}
	o.Poison() // nothing left to poison
	if !Quarantine && arr[0] != nil {
		t.Fatal("a second Poison after Unpoison wrote into the array, which the next decode owns")
	}
}

// PoisonOwn sets, in checked builds, what a reused message holds of its
// own, but bytes, and a message field to a message of the pattern; ClearOwn
// clears it again, leaving the arrays the record kept (bytes, repeated
// fields) in their fields.
func TestPoisonOwnClearOwn(t *testing.T) {
	data := make([]byte, 0, 16)
	words := make([]string, 0, 4)
	m := &poisonMsg{state: 7, Data: data, Words: words}
	PoisonOwn(m)
	if !Checked {
		if !reflect.DeepEqual(*m, poisonMsg{state: 7, Data: data, Words: words}) {
			t.Fatalf("outside checked builds: %+v, want it as it was", *m)
		}
		return
	}
	switch {
	case m.Name != PoisonString || m.U32 != 0xDEADBEEF || m.I32 != int32(m.U32) || !m.Flag || m.Opt == nil:
		t.Fatalf("%+v: want strings, numbers, bools and optional fields poisoned", *m)
	case m.Child == nil || m.Child.Name != PoisonString:
		t.Fatalf("message field %+v: want a message of poisoned fields", m.Child)
	case unsafe.SliceData(m.Data) != unsafe.SliceData(data) || len(m.Data) != 0:
		t.Fatal("the kept bytes array left its field")
	case m.state != 7 || m.Counts != nil || m.Choice != nil:
		t.Fatalf("%+v: unexported, map and oneof fields changed", *m)
	}
	ClearOwn(m)
	if !reflect.DeepEqual(*m, poisonMsg{state: 7, Data: data, Words: words}) {
		t.Fatalf("after ClearOwn: %+v, want it reset, its arrays in their fields", *m)
	}
}

// PoisonOwn and ClearOwn allocate nothing once they have seen a type, as a
// pooled handler's or a receiver's slot is given back and taken in -race
// builds, where the allocation counting tests run.
func TestPoisonOwnAllocs(t *testing.T) {
	if !Checked || Quarantine {
		t.Skip("PoisonOwn poisons in checked builds but quarantine ones")
	}
	m := &poisonMsg{}
	if n := testing.AllocsPerRun(100, func() { PoisonOwn(m); ClearOwn(m) }); n != 0 {
		t.Fatalf("%v allocations per PoisonOwn and ClearOwn, want 0", n)
	}
}
