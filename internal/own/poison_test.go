package own

import (
	"bytes"
	"math"
	"reflect"
	"slices"
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
// string field only (PoisonOwn poisons message elements apart:
// TestPoisonOwnClearOwn); outside checked builds, it clears them.
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

// Record.Poison, in checked builds but quarantine ones, poisons the
// spares a recycle made (PoisonOwn), every one of every kind (a message kept
// past its lifetime may hold any of them), and Unpoison clears them again
// for the next decode; elsewhere both do nothing.
func TestRecordPoisonsSpares(t *testing.T) {
	var o Record
	kinds := []SpareKind{NewSpareKind(), NewSpareKind()}
	var spares [][]*poisonMsg // by kind
	for _, k := range kinds {
		var of []*poisonMsg
		for range 3 {
			p := &poisonMsg{Name: "decoded", Data: make([]byte, 0, 4)}
			of = append(of, p)
			o.Adopt(k, unsafe.Pointer(p), Ops[poisonMsg]{})
		}
		spares = append(spares, of)
	}
	o.Recycle(false)
	o.Clear()
	if Quarantine {
		t.Skip("quarantine builds keep no spares")
	}
	o.Poison()
	for i, of := range spares {
		for j, spare := range of {
			if Checked != (spare.Name == PoisonString && spare.Child != nil) {
				t.Fatalf("kind %d, spare %d after Poison: %+v; want it poisoned in checked builds only", i, j, *spare)
			}
		}
	}
	o.Unpoison()
	for i, of := range spares {
		for j, spare := range of {
			if spare.Name != "" || spare.Child != nil || spare.I64 != 0 {
				t.Fatalf("kind %d, spare %d after Unpoison: %+v, want it reset for the next decode", i, j, *spare)
			}
		}
	}
	for i, k := range kinds {
		p := o.TakeSpare(k)
		if !slices.ContainsFunc(spares[i], func(s *poisonMsg) bool { return unsafe.Pointer(s) == p }) {
			t.Fatalf("kind %d: the spare taken is not one of its own, for the next decode", i)
		}
	}
}

// PoisonOwn sets, in checked builds, what a reused message holds of its
// own, but bytes, a message field to a message of the pattern, and the
// elements of a repeated message field's array up to its capacity; ClearOwn
// clears it again, leaving the arrays the record kept (bytes, repeated
// fields) in their fields, empty.
func TestPoisonOwnClearOwn(t *testing.T) {
	type withKids struct {
		Name string
		Kids []*poisonMsg
	}
	data := make([]byte, 0, 16)
	words := make([]string, 0, 4)
	kids := make([]*poisonMsg, 0, 3)
	m := &poisonMsg{state: 7, Data: data, Words: words}
	w := &withKids{Kids: kids}
	PoisonOwn(m)
	PoisonOwn(w)
	if !Checked {
		if !reflect.DeepEqual(*m, poisonMsg{state: 7, Data: data, Words: words}) || w.Name != "" || kids[:3][0] != nil {
			t.Fatalf("outside checked builds: %+v %+v, want them as they were", *m, *w)
		}
		return
	}
	switch all := kids[:3]; {
	case m.Name != PoisonString || m.U32 != 0xDEADBEEF || m.I32 != int32(m.U32) || !m.Flag || m.Opt == nil:
		t.Fatalf("%+v: want strings, numbers, bools and optional fields poisoned", *m)
	case m.Child == nil || m.Child.Name != PoisonString:
		t.Fatalf("message field %+v: want a message of poisoned fields", m.Child)
	case all[0] == nil || all[2] == nil || all[2].Name != PoisonString || len(w.Kids) != 0:
		t.Fatalf("repeated message field: %d elements, array %v; want it empty, its array of messages of the pattern", len(w.Kids), all)
	case unsafe.SliceData(m.Data) != unsafe.SliceData(data) || len(m.Data) != 0:
		t.Fatal("the kept bytes array left its field")
	case m.state != 7 || m.Counts != nil || m.Choice != nil:
		t.Fatalf("%+v: unexported, map and oneof fields changed", *m)
	}
	ClearOwn(m)
	ClearOwn(w)
	if !reflect.DeepEqual(*m, poisonMsg{state: 7, Data: data, Words: words}) {
		t.Fatalf("after ClearOwn: %+v, want it reset, its arrays in their fields", *m)
	}
	if all := kids[:3]; w.Name != "" || all[0] != nil || all[2] != nil || unsafe.SliceData(w.Kids) != unsafe.SliceData(kids) {
		t.Fatalf("after ClearOwn: %+v, array %v; want the array in its field, cleared", *w, all)
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
	kids := &struct{ Kids []*poisonMsg }{Kids: make([]*poisonMsg, 0, 4)}
	if n := testing.AllocsPerRun(100, func() { PoisonOwn(m); ClearOwn(m); PoisonOwn(kids); ClearOwn(kids) }); n != 0 {
		t.Fatalf("%v allocations per PoisonOwn and ClearOwn, want 0", n)
	}
}

// PoisonScalars poisons, in checked builds, the whole capacity of the
// slice, past its length too; elsewhere it leaves it as it was.
func TestPoisonScalarsWholeCapacity(t *testing.T) {
	s := make([]uint32, 1, 4)
	PoisonScalars(s)
	for i, v := range s[:4] {
		if Checked != (v != 0) {
			t.Fatalf("element %d: %#x, want it poisoned in checked builds only", i, v)
		}
	}
}

// PoisonOwn, in checked builds, sets a value that is not a struct (a
// spare of a scalar kind) to the pattern, and ClearOwn clears it again.
func TestPoisonOwnScalar(t *testing.T) {
	var v int64
	PoisonOwn(&v)
	if u := uint64(pattern); Checked != (v == int64(u)) {
		t.Fatalf("after PoisonOwn: %#x, want the pattern in checked builds only", v)
	}
	ClearOwn(&v)
	if v != 0 {
		t.Fatalf("after ClearOwn: %#x, want 0", v)
	}
}
