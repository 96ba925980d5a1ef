package grpcfastimpl_test

import (
	"fmt"
	"math"
	"testing"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/fieldmaskpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"github.com/grpcfast/grpcfast/internal/testprotos/hostile"
)

// Wire-format builders for the inputs below.

func cat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

// msg is field n holding b, length-delimited.
func msg(n protowire.Number, parts ...[]byte) []byte {
	return protowire.AppendBytes(protowire.AppendTag(nil, n, protowire.BytesType), cat(parts...))
}

func varint(n protowire.Number, v uint64) []byte {
	return protowire.AppendVarint(protowire.AppendTag(nil, n, protowire.VarintType), v)
}

func fixed64(n protowire.Number, v uint64) []byte {
	return protowire.AppendFixed64(protowire.AppendTag(nil, n, protowire.Fixed64Type), v)
}

func fixed32(n protowire.Number, v uint32) []byte {
	return protowire.AppendFixed32(protowire.AppendTag(nil, n, protowire.Fixed32Type), v)
}

func str(n protowire.Number, s string) []byte { return msg(n, []byte(s)) }

// group is an unknown group of field n holding parts.
func group(n protowire.Number, parts ...[]byte) []byte {
	return cat(protowire.AppendTag(nil, n, protowire.StartGroupType), cat(parts...), protowire.AppendTag(nil, n, protowire.EndGroupType))
}

// Fields of a google.protobuf.Value, and of a Struct's entry.
func number(f float64) []byte { return fixed64(2, math.Float64bits(f)) }
func text(s string) []byte    { return str(3, s) }
func entry(k string, v ...[]byte) []byte {
	return msg(1, str(1, k), msg(2, v...))
}

// Fields of a hostile.Holder.
const (
	hValue    = 1
	hFields   = 2
	hLabel    = 3
	hValues   = 4
	hList     = 5
	hTime     = 6
	hDuration = 7
	hAny      = 8
	hAnys     = 9
	hByName   = 10
	hPicked   = 11
	hAt       = 12
	hMask     = 13
	hMasks    = 14
	hMaskMap  = 15
	hPickMask = 16
	hNothing  = 17
	hEmpty    = 18
	hEmpties  = 19
)

// path is a path of a google.protobuf.FieldMask.
func path(s string) []byte { return str(1, s) }

// knownInputs are Holders that hold the well-known types that
// grpcfastimpl decodes (known.go), in the shapes where protobuf-go's
// decode has a rule of its own: each of them at least once.
func knownInputs(t testing.TB) map[string][]byte {
	full := &hostile.Holder{
		Value: structpb.NewStringValue("héllo"),
		Fields: &structpb.Struct{Fields: map[string]*structpb.Value{
			"n": structpb.NewNumberValue(-0.5), "s": structpb.NewStringValue("x"), "b": structpb.NewBoolValue(true),
			"null": structpb.NewNullValue(), "l": structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{structpb.NewNumberValue(1), structpb.NewStringValue("two")}}),
			"st": structpb.NewStructValue(&structpb.Struct{Fields: map[string]*structpb.Value{"inner": structpb.NewStringValue("deep")}}),
		}},
		Label:    "label",
		Values:   []*structpb.Value{structpb.NewBoolValue(false), structpb.NewNumberValue(math.Inf(-1)), {}},
		List:     &structpb.ListValue{Values: []*structpb.Value{structpb.NewStringValue("a"), structpb.NewStringValue("b")}},
		Time:     &timestamppb.Timestamp{Seconds: 1_700_000_000, Nanos: 999_999_999},
		Duration: &durationpb.Duration{Seconds: -5, Nanos: -1},
		Any:      &anypb.Any{TypeUrl: "type.googleapis.com/google.protobuf.Duration", Value: []byte{8, 5}},
		Anys:     []*anypb.Any{{TypeUrl: "a"}, {Value: []byte("v")}, {}},
		ByName:   map[string]*structpb.Value{"k": structpb.NewNumberValue(2), "": {}},
		Pick:     &hostile.Holder_Picked{Picked: &structpb.Struct{Fields: map[string]*structpb.Value{"p": structpb.NewBoolValue(true)}}},
		Mask:     &fieldmaskpb.FieldMask{Paths: []string{"user.display_name", "user.émail", ""}},
		Masks:    []*fieldmaskpb.FieldMask{{Paths: []string{"a"}}, {}, {Paths: []string{"b", "c"}}},
		MasksByName: map[string]*fieldmaskpb.FieldMask{
			"k": {Paths: []string{"p"}}, "": {},
		},
		Empty:   &emptypb.Empty{},
		Empties: []*emptypb.Empty{{}, {}},
	}
	b, err := proto.Marshal(full)
	if err != nil {
		t.Fatal(err)
	}
	at, err := proto.Marshal(&hostile.Holder{Pick: &hostile.Holder_At{At: timestamppb.New(timestamppb.Now().AsTime())}})
	if err != nil {
		t.Fatal(err)
	}
	unknown := cat(varint(20, 7), fixed32(21, 1), str(22, "u"), group(23, varint(1, 1)))
	return map[string][]byte{
		"full":         b,
		"oneof at":     at,
		"empty fields": cat(msg(hValue), msg(hFields), msg(hList), msg(hTime), msg(hDuration), msg(hAny), msg(hAnys), msg(hValues), msg(hByName), msg(hPicked)),

		// Map entries: the last of a key wins; a missing key is "", a
		// missing value an empty Value; a key or value that comes twice is
		// the last (a value merges); other fields, and a key or value of
		// another wire type, are skipped.
		"struct repeated key": msg(hFields, entry("k", number(1)), entry("k", text("second")), entry("j", text("j"))),
		"entry value first":   msg(hFields, msg(1, msg(2, number(3)), str(1, "k"))),
		"entry without key":   msg(hFields, msg(1, msg(2, text("v")))),
		"entry without value": msg(hFields, msg(1, str(1, "k"))),
		"empty entry":         msg(hFields, msg(1)),
		"entry twice each":    msg(hFields, msg(1, str(1, "a"), msg(2, text("v")), str(1, "b"), msg(2, number(2)))),
		"entry value merges":  msg(hFields, msg(1, str(1, "k"), msg(2, msg(5, entry("x", number(1)))), msg(2, msg(5, entry("y", number(2)))))),
		"entry other fields":  msg(hFields, msg(1, str(1, "k"), varint(3, 1), fixed64(4, 1), group(5, varint(1, 1)), msg(2, text("v")), fixed32(6, 9))),
		"entry wrong wire":    msg(hFields, msg(1, varint(1, 5), fixed64(2, 1), str(1, "k"), varint(2, 1))),
		"by_name repeated":    cat(msg(hByName, str(1, "k"), msg(2, text("a"))), msg(hByName, str(1, "k"), msg(2, number(1)))),

		// Value's oneof: a member replaces another and merges into
		// itself; scalars are the last.
		"value members":        msg(hValue, number(1), text("s"), varint(4, 2), varint(1, 0)),
		"value struct merges":  msg(hValue, msg(5, entry("a", number(1))), msg(5, entry("b", number(2)), entry("a", text("a")))),
		"value list appends":   msg(hValue, msg(6, msg(1, number(1))), msg(6, msg(1, text("x")), msg(1))),
		"value list then num":  msg(hValue, msg(6, msg(1, number(1))), number(2), msg(6, msg(1, text("y")))),
		"value null large":     msg(hValue, varint(1, math.MaxUint64)),
		"value null 2^31":      msg(hValue, varint(1, 1<<31)),
		"value bool large":     msg(hValue, varint(4, 1<<40)),
		"value nan":            msg(hValue, fixed64(2, 0x7ff8000000000001)),
		"value neg zero":       msg(hValue, number(math.Copysign(0, -1))),
		"values repeated":      cat(msg(hValues, text("a")), msg(hLabel, []byte("l")), msg(hValues, number(1)), msg(hValues)),
		"list two occurrences": cat(msg(hList, msg(1, text("a"))), msg(hList, msg(1, text("b")), msg(1, number(2)))),
		"struct two":           cat(msg(hFields, entry("a", number(1))), msg(hFields, entry("b", number(2)))),
		"oneof switches":       cat(msg(hPicked, entry("a", number(1))), msg(hAt, varint(1, 5)), msg(hPicked, entry("b", number(2)))),
		"oneof merges":         cat(msg(hPicked, entry("a", number(1))), msg(hPicked, entry("b", number(2)))),

		// Fields of another wire type than their own, and unknown fields,
		// at every level.
		"value wrong wire":     msg(hValue, fixed32(1, 1), varint(2, 1), varint(3, 1), fixed64(4, 1), varint(5, 1), fixed32(6, 1), text("kept")),
		"struct wrong wire":    msg(hFields, varint(1, 1), fixed64(1, 2), fixed32(1, 3), group(1, varint(1, 1)), entry("k", number(1))),
		"list wrong wire":      msg(hList, varint(1, 1), msg(1, number(1)), fixed32(1, 2)),
		"time wrong wire":      msg(hTime, fixed64(1, 5), str(2, "x"), varint(1, 3)),
		"any wrong wire":       msg(hAny, varint(1, 1), fixed32(2, 1), str(1, "u")),
		"unknown in value":     msg(hValue, unknown, number(2), unknown),
		"unknown in struct":    msg(hFields, unknown, entry("k", number(1)), unknown),
		"unknown in list":      msg(hList, unknown, msg(1, text("a")), unknown),
		"unknown in time":      msg(hTime, unknown, varint(1, 1), unknown),
		"unknown in duration":  msg(hDuration, unknown, varint(2, 1), unknown),
		"unknown in any":       msg(hAny, unknown, str(1, "t"), unknown),
		"unknown twice":        cat(msg(hTime, varint(9, 1)), msg(hTime, varint(10, 2))),
		"unknown in entry val": msg(hFields, entry("k", unknown, number(1))),
		"long tag unknown":     msg(hTime, []byte{0x88, 0x80, 0x80, 0x00, 0x01}),

		// Scalars: the last wins; varints of every length, truncated to 32
		// bits where the field is.
		"time repeated":     msg(hTime, varint(1, 1), varint(2, 2), varint(1, 3), varint(2, 4)),
		"time extremes":     msg(hTime, varint(1, math.MaxUint64), varint(2, math.MaxUint64)),
		"duration big nano": msg(hDuration, varint(2, 1<<35+7)),
		"any twice":         msg(hAny, str(1, "a"), msg(2, []byte("long value long value")), str(1, "bb"), msg(2, []byte("v"))),
		"anys":              cat(msg(hAnys, str(1, "a")), msg(hAnys), msg(hAnys, msg(2, []byte{0, 1, 2}))),
		"long strings":      msg(hFields, entry(string(make([]byte, 300)), text(string(make([]byte, 2000))))),

		// FieldMask: its paths appended, as a repeated string field's (a
		// mask that comes again adds its paths); a path of another wire
		// type, and any other field, unknown.
		"mask":                 msg(hMask, path("a"), path("b.c")),
		"mask empty":           msg(hMask),
		"mask empty path":      msg(hMask, path("")),
		"mask twice":           cat(msg(hMask, path("a")), msg(hLabel, []byte("l")), msg(hMask, path("b"))),
		"mask long path":       msg(hMask, path(string(make([]byte, 300))), path("short")),
		"mask not 7-bit":       msg(hMask, path("usér.name")),
		"mask many paths":      msg(hMask, cat(slicesOf(40, func(i int) []byte { return path(fmt.Sprintf("field_%d", i)) })...)),
		"mask wrong wire":      msg(hMask, varint(1, 5), path("a"), fixed32(1, 1), group(1, varint(1, 1))),
		"unknown in mask":      msg(hMask, unknown, path("a"), unknown),
		"masks":                cat(msg(hMasks, path("a")), msg(hMasks), msg(hMasks, path("b"), path("c"))),
		"mask map":             cat(msg(hMaskMap, str(1, "k"), msg(2, path("p"))), msg(hMaskMap, str(1, "j"))),
		"mask map repeated":    cat(msg(hMaskMap, str(1, "k"), msg(2, path("a"))), msg(hMaskMap, str(1, "k"), msg(2, path("b")))),
		"mask map value twice": msg(hMaskMap, str(1, "k"), msg(2, path("a")), msg(2, path("b"))),
		"oneof mask":           msg(hPickMask, path("a")),
		"oneof mask merges":    cat(msg(hPickMask, path("a")), msg(hPickMask, path("b"))),
		"oneof mask switch":    cat(msg(hPickMask, path("a")), msg(hNothing), msg(hPickMask, path("b"))),
		"oneof struct mask":    cat(msg(hPicked, entry("a", number(1))), msg(hPickMask, path("a"))),

		// Empty: empty, as it is sent, or holding unknown fields, which
		// protobuf-go keeps.
		"empty":             msg(hEmpty),
		"empty twice":       cat(msg(hEmpty), msg(hEmpty)),
		"empty unknown":     msg(hEmpty, unknown),
		"empty then more":   cat(msg(hEmpty), msg(hEmpty, varint(1, 1)), msg(hEmpty)),
		"empties":           cat(msg(hEmpties), msg(hEmpties, varint(3, 1)), msg(hEmpties)),
		"oneof nothing":     msg(hNothing),
		"oneof nothing unk": msg(hNothing, str(2, "x")),
	}
}

// slicesOf returns f(0) to f(n-1).
func slicesOf(n int, f func(int) []byte) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

// malformedKnown are inputs that protobuf-go rejects within a well-known
// type: the codec must too, in every mode.
func malformedKnown() map[string][]byte {
	bad := string([]byte{0xff, 0xfe})
	return map[string][]byte{
		"value string utf8": msg(hValue, text(bad)),
		"struct key utf8":   msg(hFields, entry(bad, number(1))),
		"by_name key utf8":  msg(hByName, str(1, bad), msg(2)),
		"any url utf8":      msg(hAny, str(1, bad)),
		"list string utf8":  msg(hList, msg(1, text("ok")), msg(1, text(bad))),
		"deep string utf8":  msg(hValue, msg(5, entry("k", msg(6, msg(1, text(bad)))))),
		"field zero":        msg(hTime, []byte{0x00, 0x01}),
		"end group":         msg(hValue, []byte{0x0c}),
		"group unclosed":    msg(hDuration, []byte{0x1b, 0x08, 0x01}),
		"group mismatched":  msg(hAny, []byte{0x1b, 0x24}),
		"varint overlong":   msg(hTime, []byte{0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}),
		"varint cut":        msg(hTime, []byte{0x08, 0x80}),
		"number cut":        msg(hValue, []byte{0x11, 1, 2, 3}),
		"length past end":   msg(hFields, []byte{0x0a, 0x05, 0x0a}),
		"entry length past": msg(hFields, msg(1, []byte{0x12, 0x09, 0x11})),
		"entry bad tag":     msg(hFields, msg(1, []byte{0x80})),
		"list bad value":    msg(hList, msg(1, []byte{0x11, 0x00})),
		"field too big":     msg(hValue, []byte{0xf8, 0xff, 0xff, 0xff, 0x7f, 0x00}),
		"mask path utf8":    msg(hMask, path("ok"), path(bad)),
		"masks path utf8":   cat(msg(hMasks, path("ok")), msg(hMasks, path(bad))),
		"mask map utf8":     msg(hMaskMap, str(1, "k"), msg(2, path(bad))),
		"oneof mask utf8":   msg(hPickMask, path(bad)),
		"mask path cut":     msg(hMask, []byte{0x0a, 0x05, 'a'}),
		"mask bad tag":      msg(hMask, path("a"), []byte{0x80}),
		"mask end group":    msg(hMask, []byte{0x0c}),
		"empty bad tag":     msg(hEmpty, []byte{0x80}),
		"empty end group":   msg(hEmpty, []byte{0x0c}),
		"empties field 0":   cat(msg(hEmpties), msg(hEmpties, []byte{0x00, 0x01})),
		"nothing cut":       msg(hNothing, []byte{0x08}),
	}
}

// decodeModes decodes b into a Holder in each way the codec can, and
// returns each result, named: a fresh message whole and in pieces, a slot
// of a pooled handler or receiver (reused across calls: each mode's slot is
// the same for every input, reset between them), the same with the owned
// copy (views), and the owned copy handed over.
type knownModes struct {
	c     *grpcfast.Codec
	plain *grpcfasttest.CopySlot[hostile.Holder]
	copy  *grpcfasttest.CopySlot[hostile.Holder]
}

func newKnownModes() *knownModes {
	return &knownModes{
		c:     grpcfast.NewCodec(),
		plain: grpcfasttest.NewPlainSlot[hostile.Holder](),
		copy:  grpcfasttest.NewCopySlot[hostile.Holder](),
	}
}

func (k *knownModes) check(t *testing.T, name string, b []byte) {
	t.Helper()
	want := &hostile.Holder{}
	wantErr := proto.Unmarshal(b, want)
	same := func(mode string, got *hostile.Holder, err error) {
		t.Helper()
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("%s, %s: protobuf-go: %v; the codec: %v (input %.200x)", name, mode, wantErr, err, b)
		}
		if err == nil && !proto.Equal(got, want) {
			t.Fatalf("%s, %s: decoded\n%v\nprotobuf-go:\n%v", name, mode, got, want)
		}
	}
	fresh := &hostile.Holder{}
	same("fresh", fresh, k.c.Unmarshal(mem.BufferSlice{mem.SliceBuffer(b)}, fresh))
	pieces := &hostile.Holder{}
	same("in pieces", pieces, k.c.Unmarshal(grpcfasttest.SliceAt(b, len(b)/3, len(b)/2), pieces))
	for _, s := range []struct {
		name string
		slot *grpcfasttest.CopySlot[hostile.Holder]
	}{{"slot", k.plain}, {"slot with one copy", k.copy}} {
		generated, err := s.slot.Decode(k.c, grpcfasttest.SliceAt(b, len(b)/2))
		same(s.name, s.slot.Msg(), err)
		if err == nil && !generated {
			t.Errorf("%s, %s: not decoded by the generated decoder", name, s.name)
		}
		s.slot.Reset()
	}
	copied, _, err := grpcfasttest.UnmarshalCopy[hostile.Holder](k.c, grpcfasttest.SliceAt(b, len(b)/2))
	same("one copy handed over", copied, err)
}

// The well-known types that grpcfastimpl decodes decode as protobuf-go
// decodes them, in every mode of the codec, and reject what it rejects:
// each input of knownInputs, every prefix of it (truncated anywhere), and
// malformedKnown's. The slots are reused from one input to the next, so
// that each decode also finds the memory that the one before left.
func TestKnownParity(t *testing.T) {
	k := newKnownModes()
	inputs := knownInputs(t)
	for name, b := range inputs {
		if err := proto.Unmarshal(b, &hostile.Holder{}); err != nil {
			t.Fatalf("%s: protobuf-go rejects it: %v", name, err)
		}
		k.check(t, name, b)
	}
	for name, b := range malformedKnown() {
		if err := proto.Unmarshal(b, &hostile.Holder{}); err == nil {
			t.Fatalf("%s: protobuf-go accepts it", name)
		}
		k.check(t, name, b)
	}
	for name, b := range inputs {
		for i := range len(b) {
			k.check(t, name+" cut", b[:i])
		}
	}
}

// nestedValues returns a Holder whose value nests n ListValues, then m
// Structs, each the struct_value of a Value and holding it in an entry, with
// leaf the content of the innermost Value; or, if inList, the same Value as
// the element of the Holder's list, a level deeper.
func nestedValues(n, m int, leaf []byte, inList bool) []byte {
	// Each level's bytes come before what it holds: they are collected
	// inside out, then written outside in, in linear time.
	var prefixes [][]byte
	size := len(leaf)
	add := func(p []byte) { prefixes = append(prefixes, p); size += len(p) }
	wrap := func(n protowire.Number) {
		add(protowire.AppendVarint(protowire.AppendTag(nil, n, protowire.BytesType), uint64(size)))
	}
	for range m {
		wrap(2)
		add(str(1, "k"))
		wrap(1)
		wrap(5)
	}
	for range n {
		wrap(1)
		wrap(6)
	}
	if inList {
		wrap(1)
		wrap(hList)
	} else {
		wrap(hValue)
	}
	b := make([]byte, 0, size)
	for i := len(prefixes) - 1; i >= 0; i-- {
		b = append(b, prefixes[i]...)
	}
	return append(b, leaf...)
}

// At the depth where protobuf-go stops, the codec stops too, in every mode:
// Values nested just under the limit, at it and just past it, through lists
// then a Struct (whose entry is a level where the linked protobuf-go counts
// one), the innermost holding an empty Struct or list, a list of an empty
// Value, a string, an entry
// without a value, or a Struct whose fields field comes with another wire
// type, which protobuf-go counts as a map entry's level before it keeps it
// as an unknown field; each from the Holder's value and, a level deeper,
// from its list, so that the limit falls on each kind of level.
func TestKnownDepth(t *testing.T) {
	k := newKnownModes()
	accepts := func(b []byte) bool { return proto.Unmarshal(b, &hostile.Holder{}) == nil }
	// The most lists that protobuf-go accepts around a string (its decode
	// of so deep a message takes about 50 ms: few are tried).
	lo, hi := 0, 6000
	for hi-lo > 1 {
		if mid := (lo + hi) / 2; accepts(nestedValues(mid, 1, text("leaf"), false)) {
			lo = mid
		} else {
			hi = mid
		}
	}
	for name, leaf := range map[string][]byte{
		"empty struct":         msg(5),
		"empty list":           msg(6),
		"list of an empty one": msg(6, msg(1)),
		"string":               text("leaf"),
		"entry without value":  msg(5, msg(1, str(1, "k"))),
		"fields as a varint":   msg(5, varint(1, 1)),
	} {
		for _, inList := range []bool{false, true} {
			// Within a few levels of the string's limit: the first n
			// refused.
			n := lo - 4
			for ; n < lo+4 && accepts(nestedValues(n, 1, leaf, inList)); n++ {
			}
			if n == lo-4 || n == lo+4 {
				t.Fatalf("%s: protobuf-go's limit is not within 4 lists of %d", name, lo)
			}
			for _, n := range []int{n - 1, n} {
				k.check(t, fmt.Sprintf("%s in %d lists (in the Holder's list: %v)", name, n, inList), nestedValues(n, 1, leaf, inList))
			}
		}
	}
}

// FuzzKnown decodes arbitrary input as a Holder, whose fields are the
// well-known types that grpcfastimpl decodes, in every mode of the codec
// (knownModes.check), against protobuf-go. The seeds are knownInputs and
// malformedKnown.
//
//	go test -run='^$' -fuzz=FuzzKnown -fuzztime=60s ./grpcfastimpl
func FuzzKnown(f *testing.F) {
	for _, b := range knownInputs(f) {
		f.Add(b)
	}
	for _, b := range malformedKnown() {
		f.Add(b)
	}
	k := newKnownModes()
	f.Fuzz(func(t *testing.T, b []byte) { k.check(t, "input", b) })
}

// TestKnownHostileMasks: what a hostile peer can put in a FieldMask or an
// Empty that the generated decoders leave to DecodeFieldMask and
// DecodeMessage: unknown groups nested up to and past protobuf-go's limit
// of 10,000, a field number past 2^29, and a mask split at every byte,
// decoded in every mode as protobuf-go decodes it, or rejected with it.
func TestKnownHostileMasks(t *testing.T) {
	nested := func(depth int) []byte {
		var b []byte
		for range depth {
			b = protowire.AppendTag(b, 5, protowire.StartGroupType)
		}
		for range depth {
			b = protowire.AppendTag(b, 5, protowire.EndGroupType)
		}
		return b
	}
	for depth, rejects := range map[int]bool{100: false, 20_000: true} {
		if err := proto.Unmarshal(msg(hMask, nested(depth)), &hostile.Holder{}); (err != nil) != rejects {
			t.Fatalf("protobuf-go on groups %d deep: %v; the limit is not where this test looks", depth, err)
		}
	}
	k := newKnownModes()
	for _, depth := range []int{100, 9_999, 10_000, 10_001, 20_000} {
		k.check(t, fmt.Sprintf("mask, groups %d deep", depth), msg(hMask, path("a"), nested(depth), path("b")))
		k.check(t, fmt.Sprintf("empty, groups %d deep", depth), msg(hEmpty, nested(depth)))
		k.check(t, fmt.Sprintf("oneof nothing, groups %d deep", depth), msg(hNothing, nested(depth)))
	}
	for _, num := range []uint64{1<<29 - 1, 1 << 29, 1 << 32} {
		tag := protowire.AppendVarint(nil, num<<3|uint64(protowire.VarintType))
		k.check(t, fmt.Sprintf("mask, field %d", num), msg(hMask, path("a"), tag, []byte{1}))
		k.check(t, fmt.Sprintf("empty, field %d", num), msg(hEmpty, tag, []byte{1}))
	}
	c := grpcfast.NewCodec()
	b := cat(msg(hLabel, []byte("l")), msg(hMask, path("user.display_name"), path("usér"), varint(2, 300), path("")), msg(hEmpty), msg(hMasks, path("x")))
	want := &hostile.Holder{}
	if err := proto.Unmarshal(b, want); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(b); i++ {
		got := &hostile.Holder{}
		if err := c.Unmarshal(grpcfasttest.SliceAt(b, i), got); err != nil || !proto.Equal(got, want) {
			t.Fatalf("split at %d: %v, decoded\n%v\nwant\n%v", i, err, got, want)
		}
	}
}
