package grpcfast_test

import (
	"math"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"github.com/grpcfast/grpcfast/internal/own"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
	"github.com/grpcfast/grpcfast/internal/testprotos/proto2"
)

// The tests of a nested message of one field decoded by its holder's
// decoder (decodeGen.message, inlinable): kinds.Wrapped holds messages of
// one field (OneString, OneBytes, OneOptional) and of one oneof (OneOf, and
// Many, which has too many fields to be inlined), singular, repeated, in a
// map and in a oneof; proto2.Entries holds Note, a proto2 string that is
// not checked for UTF-8. Every input is decoded into a new message, into a
// reused slot with the owned copy and into one without it, and must be
// decoded as protobuf-go decodes it.

// oneField returns the encoding of a message of one field: num, of wire
// type typ, with the value v already encoded.
func oneField(num protowire.Number, typ protowire.Type, v []byte) []byte {
	return append(grpcfasttest.Tag(num, typ), v...)
}

func varint(v uint64) []byte  { return protowire.AppendVarint(nil, v) }
func bytesOf(s string) []byte { return protowire.AppendString(nil, s) }

// holding returns the encoding of field num of a holder whose value is
// the nested message's encoding m.
func holding(num protowire.Number, m []byte) []byte {
	return oneField(num, protowire.BytesType, protowire.AppendBytes(nil, m))
}

// inlineInputs returns, by name, encodings of kinds.Wrapped whose nested
// messages are one field of every kind a holder decodes itself, at the
// edges of the shapes it accepts (a string of 127 bytes and of 128, a
// varint of one, two and three bytes), and the shapes it must leave to the
// nested decoder: two fields, a field twice, another wire type, an unknown
// field, a message, a tag of two bytes, a truncated value.
func inlineInputs() map[string][]byte {
	str := func(s string) []byte { return oneField(1, protowire.BytesType, bytesOf(s)) }
	in := map[string][]byte{}
	add := func(name string, parts ...[]byte) { in[name] = slices.Concat(parts...) }

	// OneString, OneBytes, OneOptional: one field.
	add("string", holding(1, str("name")))
	add("string empty", holding(1, str("")))
	add("string 127", holding(1, str(strings.Repeat("s", 127))))
	add("string 128", holding(1, str(strings.Repeat("s", 128))))
	add("string not 7-bit", holding(1, str("né")))
	add("string invalid", holding(1, str("n\xff")))
	add("string twice", holding(1, slices.Concat(str("a"), str("b"))))
	add("string and unknown", holding(1, slices.Concat(str("a"), oneField(99, protowire.VarintType, varint(1)))))
	add("string as varint", holding(1, oneField(1, protowire.VarintType, varint(3))))
	add("string truncated", holding(1, []byte{10, 5, 'a'}))
	add("string long length", holding(1, []byte{10, 0x81, 0x00, 'a'}))
	// A length of two bytes whose first byte, read as a length of one,
	// would span the whole nested message: "hello" and an unknown field.
	overlong := slices.Concat([]byte{10, 0x85, 0x00}, []byte("hello"), oneField(15, protowire.BytesType, bytesOf(strings.Repeat("u", 125))))
	if int(overlong[1]) != len(overlong)-2 {
		panic("the overlong length's input is not what it should be")
	}
	add("string overlong length", holding(1, overlong))
	add("empty nested", holding(1, nil))
	add("bytes", holding(2, str("data")))
	add("bytes empty", holding(2, str("")))
	add("optional", holding(3, oneField(1, protowire.VarintType, varint(protowire.EncodeZigZag(-3)))))
	add("optional zero", holding(3, oneField(1, protowire.VarintType, varint(0))))
	add("optional two bytes", holding(3, oneField(1, protowire.VarintType, varint(300))))
	add("optional truncated", holding(3, []byte{8, 0x80}))
	add("optional truncated two", holding(3, []byte{8, 0x80, 0x80}))
	add("optional and a stray byte", holding(3, []byte{8, 5, 6}))
	add("optional three bytes", holding(3, oneField(1, protowire.VarintType, varint(1<<14))))
	add("optional largest of two bytes", holding(3, oneField(1, protowire.VarintType, varint(1<<14-1))))
	add("optional overlong", holding(3, oneField(1, protowire.VarintType, []byte{0x81, 0x00})))

	// OneOf: every case the holder decodes, and those it does not.
	fixed64 := func(v uint64) []byte { return protowire.AppendFixed64(nil, v) }
	fixed32 := func(v uint32) []byte { return protowire.AppendFixed32(nil, v) }
	cases := map[string][]byte{
		"text":             oneField(1, protowire.BytesType, bytesOf("text")),
		"text not 7-bit":   oneField(1, protowire.BytesType, bytesOf("tëxt")),
		"text invalid":     oneField(1, protowire.BytesType, bytesOf("t\xc3")),
		"raw":              oneField(2, protowire.BytesType, bytesOf("\x00\xff")),
		"yes":              oneField(3, protowire.VarintType, varint(1)),
		"yes 2":            oneField(3, protowire.VarintType, varint(2)),
		"no":               oneField(3, protowire.VarintType, varint(0)),
		"num":              oneField(4, protowire.VarintType, varint(127)),
		"num 128":          oneField(4, protowire.VarintType, varint(128)),
		"num 16384":        oneField(4, protowire.VarintType, varint(16384)),
		"yes 2 bytes":      oneField(3, protowire.VarintType, []byte{0x80, 0x01}),
		"num negative":     oneField(4, protowire.VarintType, varint(math.MaxUint64)),
		"real":             oneField(5, protowire.Fixed64Type, fixed64(math.Float64bits(math.Copysign(0, -1)))),
		"real NaN":         oneField(5, protowire.Fixed64Type, fixed64(0x7ff8000000000001)),
		"small":            oneField(6, protowire.Fixed32Type, fixed32(math.Float32bits(1.5))),
		"hue":              oneField(7, protowire.VarintType, varint(2)),
		"hue unknown":      oneField(7, protowire.VarintType, varint(77)),
		"big":              oneField(8, protowire.Fixed64Type, fixed64(math.MaxUint64)),
		"big truncated":    oneField(8, protowire.Fixed64Type, fixed64(1)[:7]),
		"small as fixed64": oneField(6, protowire.Fixed64Type, fixed64(1)),
		"nested":           oneField(9, protowire.BytesType, protowire.AppendBytes(nil, oneField(4, protowire.VarintType, varint(1)))),
		"far":              oneField(16, protowire.Fixed32Type, fixed32(7)),
		"text then num":    slices.Concat(oneField(1, protowire.BytesType, bytesOf("t")), oneField(4, protowire.VarintType, varint(1))),
	}
	for name, c := range cases {
		add("oneof "+name, holding(4, c))
		add("repeated "+name, holding(5, c), holding(5, cases["text"]), holding(5, c))
		add("map "+name, holding(6, slices.Concat(oneField(1, protowire.BytesType, bytesOf("k")), holding(2, c))))
		add("picked oneof "+name, holding(8, c))
		add("plain "+name, holding(11, holding(1, c)), holding(11, holding(2, str("p"))))
	}
	// A nested message that comes again merges into the first: a oneof
	// switches case, a case that stays is overwritten.
	add("merged switching", holding(4, cases["text"]), holding(4, cases["num"]), holding(4, cases["raw"]))
	add("merged same case", holding(4, cases["text"]), holding(4, cases["text not 7-bit"]))
	add("merged optional", holding(3, oneField(1, protowire.VarintType, varint(4))), holding(3, nil))
	add("pick switching", holding(7, str("picked")), holding(8, cases["yes"]), holding(7, str("again")))
	add("blobs", holding(10, str("b1")), holding(10, str("")), holding(10, str("b3")))
	add("many", holding(12, oneField(3, protowire.VarintType, varint(3))))

	// The holder's own string, swept before or after its nested strings:
	// a nested string past the holder's first byte above 0x7f is checked.
	label := func(s string) []byte { return oneField(9, protowire.BytesType, bytesOf(s)) }
	add("label then invalid", label("label"), holding(4, cases["text invalid"]))
	add("label then not 7-bit", label("label"), holding(4, cases["text not 7-bit"]))
	add("label not 7-bit then invalid", label("labél"), holding(4, cases["text invalid"]), holding(1, str("ok")))
	add("label not 7-bit then 7-bit", label("labél"), holding(4, cases["text"]), holding(1, str("ok")))
	add("invalid then label", holding(1, str("\xff")), label("label"))
	add("label then invalid in map", label("label"), holding(6, slices.Concat(oneField(1, protowire.BytesType, bytesOf("k")), holding(2, cases["text invalid"]))))
	add("label then invalid repeated", label("label"), holding(5, cases["text"]), holding(5, cases["text invalid"]))
	return in
}

// fullWrapped is a kinds.Wrapped with every field set, and nested messages
// of more than one field, decoded before the inputs so that the slot's next
// decodes reuse its spares, wrappers and arrays.
func fullWrapped() *kinds.Wrapped {
	long := strings.Repeat("x", 200)
	return &kinds.Wrapped{
		Name:   &kinds.OneString{Value: long},
		Data:   &kinds.OneBytes{Value: []byte(long)},
		Level:  &kinds.OneOptional{Value: proto.Int64(-1 << 40)},
		Value:  &kinds.OneOf{Kind: &kinds.OneOf_Raw{Raw: []byte(long)}},
		Values: []*kinds.OneOf{{Kind: &kinds.OneOf_Text{Text: long}}, {Kind: &kinds.OneOf_Num{Num: -1}}, {Kind: &kinds.OneOf_Yes{Yes: true}}},
		ByKey:  map[string]*kinds.OneOf{"a": {Kind: &kinds.OneOf_Big{Big: 1}}, "b": {Kind: &kinds.OneOf_Text{Text: long}}},
		Pick:   &kinds.Wrapped_Any{Any: &kinds.OneOf{Kind: &kinds.OneOf_Hue{Hue: kinds.Color_COLOR_RED}}},
		Label:  "labél",
		Blobs:  []*kinds.OneBytes{{Value: []byte(long)}, {Value: []byte(long)}},
		Plain:  &kinds.Plain{Values: []*kinds.OneOf{{Kind: &kinds.OneOf_Small{Small: 2}}}, Name: &kinds.OneString{Value: long}, Count: 3},
		Many:   &kinds.Many{Kind: &kinds.Many_I{I: 9}},
	}
}

// decodeEveryWay decodes b into a new M, and twice into a slot of M with
// the owned copy and one without it, each after decoding full (reused),
// from pieces cut in the middle; each decode must be protobuf-go's.
func decodeEveryWay[M any, P interface {
	*M
	proto.Message
}](t *testing.T, c *grpcfast.Codec, name string, b, full []byte, copySlot, plainSlot *grpcfasttest.CopySlot[M]) {
	t.Helper()
	fresh := P(new(M))
	grpcfasttest.CheckOracleAt(t, name+", new message", b, fresh, c.Unmarshal(grpcfasttest.SliceAt(b, len(b)/2), fresh))
	for _, s := range []*grpcfasttest.CopySlot[M]{copySlot, plainSlot} {
		if generated, err := s.Decode(c, mem.BufferSlice{mem.SliceBuffer(full)}); err != nil || !generated {
			t.Fatalf("%s: decoding the full message: generated %v, %v", name, generated, err)
		}
		for round := range 2 {
			s.Reset()
			generated, err := s.Decode(c, grpcfasttest.SliceAt(b, len(b)/3))
			grpcfasttest.CheckOracleAt(t, name+", reused slot", b, P(s.Msg()), err)
			if err == nil && !generated {
				t.Fatalf("%s, round %d: not decoded by the generated decoder", name, round)
			}
		}
		s.Reset()
	}
}

// TestInlinedNestedDecode decodes every inlineInputs every way.
func TestInlinedNestedDecode(t *testing.T) {
	c := grpcfast.NewCodec()
	full, err := proto.Marshal(fullWrapped())
	if err != nil {
		t.Fatal(err)
	}
	copySlot, plainSlot := grpcfasttest.NewCopySlot[kinds.Wrapped](), grpcfasttest.NewPlainSlot[kinds.Wrapped]()
	in := inlineInputs()
	names := make([]string, 0, len(in))
	for name := range in {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		decodeEveryWay(t, c, name, in[name], full, copySlot, plainSlot)
	}
}

// TestInlinedNestedDecodeProto2: a proto2 string of a message of one field,
// with presence and not checked for UTF-8, decoded by its holder, singular
// and as a map's value.
func TestInlinedNestedDecodeProto2(t *testing.T) {
	c := grpcfast.NewCodec()
	full, err := proto.Marshal(&proto2.Entries{Id: proto.Int64(1), Remark: &proto2.Note{Value: proto.String(strings.Repeat("r", 300))},
		Notes: map[int32]*proto2.Note{1: {Value: proto.String("one")}, 2: {}}})
	if err != nil {
		t.Fatal(err)
	}
	id := oneField(6, protowire.VarintType, varint(7))
	note := func(s string) []byte { return oneField(1, protowire.BytesType, bytesOf(s)) }
	entry := func(k uint64, v []byte) []byte {
		return holding(14, slices.Concat(oneField(1, protowire.VarintType, varint(k)), holding(2, v)))
	}
	in := map[string][]byte{
		"remark":               slices.Concat(id, holding(13, note("remark"))),
		"remark invalid":       slices.Concat(id, holding(13, note("r\xff"))),
		"remark empty":         slices.Concat(id, holding(13, note(""))),
		"remark empty message": slices.Concat(id, holding(13, nil)),
		"remark twice":         slices.Concat(id, holding(13, note("a")), holding(13, note("b"))),
		"notes":                slices.Concat(id, entry(1, note("n\xff")), entry(2, note("")), entry(1, note("again"))),
		"notes empty value":    slices.Concat(id, entry(3, nil)),
		"without the required": holding(13, note("no id")),
		"remark as varint":     slices.Concat(id, holding(13, oneField(1, protowire.VarintType, varint(1)))),
		"remark and unknown":   slices.Concat(id, holding(13, slices.Concat(note("a"), oneField(2, protowire.VarintType, varint(1))))),
	}
	copySlot, plainSlot := grpcfasttest.NewCopySlot[proto2.Entries](), grpcfasttest.NewPlainSlot[proto2.Entries]()
	for name, b := range in {
		decodeEveryWay(t, c, name, b, full, copySlot, plainSlot)
	}
}

// TestInlinedNestedKeepsArrays: a holder that decodes a nested message's
// bytes field itself records the field's array, as the nested decoder
// does at its end, so that the slot's next decode reuses it: a receiver
// (a slot without the owned copy, which copies bytes) decodes a OneBytes
// of 10 bytes into the array of 100 that the one before it got.
func TestInlinedNestedKeepsArrays(t *testing.T) {
	if own.Quarantine {
		t.Skip("quarantine builds keep nothing")
	}
	c := grpcfast.NewCodec()
	s := grpcfasttest.NewPlainSlot[kinds.Wrapped]()
	var arrays []*byte
	for _, n := range []int{100, 10, 50} {
		b, err := proto.Marshal(&kinds.Wrapped{Data: &kinds.OneBytes{Value: grpcfasttest.Pattern(n)}})
		if err != nil {
			t.Fatal(err)
		}
		generated, err := s.Decode(c, mem.BufferSlice{mem.SliceBuffer(b)})
		grpcfasttest.CheckOracle(t, b, s.Msg(), err)
		if !generated {
			t.Fatal("not decoded by the generated decoder")
		}
		arrays = append(arrays, unsafe.SliceData(s.Msg().Data.Value))
		s.Reset()
	}
	if arrays[1] != arrays[0] || arrays[2] != arrays[0] {
		t.Errorf("the bytes field's array was not kept for the next decodes: %p, then %p and %p", arrays[0], arrays[1], arrays[2])
	}
}

// wrapperInputs returns, by name, encodings of kinds.Wrappers: each of
// google.protobuf's wrappers, which the holder decodes itself where the
// wrapper is its field alone or nothing (wrapperspb has no generated
// decoder), at the edges of the shapes it accepts, and the shapes it must
// leave to protobuf-go, in every kind of field.
func wrapperInputs() map[string][]byte {
	str := func(s string) []byte { return oneField(1, protowire.BytesType, bytesOf(s)) }
	num := func(v uint64) []byte { return oneField(1, protowire.VarintType, varint(v)) }
	f64 := func(v uint64) []byte { return oneField(1, protowire.Fixed64Type, protowire.AppendFixed64(nil, v)) }
	f32 := func(v uint32) []byte { return oneField(1, protowire.Fixed32Type, protowire.AppendFixed32(nil, v)) }
	in := map[string][]byte{}
	add := func(name string, parts ...[]byte) { in[name] = slices.Concat(parts...) }

	// Every wrapper: its value, its zero (an empty message, as protobuf-go
	// encodes it), its zero sent anyway, and shapes left to protobuf-go.
	for num0, name := range []string{"double", "float", "int64", "uint64", "int32", "uint32", "bool", "string", "bytes"} {
		n := protowire.Number(num0 + 1)
		add(name+" empty", holding(n, nil))
		add(name+" empty twice", holding(n, nil), holding(n, nil))
		add(name+" unknown field", holding(n, oneField(2, protowire.VarintType, varint(1))))
		add(name+" as a group's end", holding(n, grpcfasttest.Tag(1, protowire.EndGroupType)))
		add(name+" truncated tag", holding(n, []byte{0x80}))
	}
	add("double", holding(1, f64(math.Float64bits(2.5))))
	add("double negative zero", holding(1, f64(math.Float64bits(math.Copysign(0, -1)))))
	add("double NaN", holding(1, f64(0x7ff8000000000001)))
	add("double truncated", holding(1, f64(1)[:8]))
	add("double as varint", holding(1, num(1)))
	add("float", holding(2, f32(math.Float32bits(-1.5))))
	add("float truncated", holding(2, f32(1)[:4]))
	add("int64", holding(3, num(300)))
	add("int64 negative", holding(3, num(math.MaxUint64)))
	add("int64 three bytes", holding(3, num(1<<14)))
	add("int64 overlong", holding(3, oneField(1, protowire.VarintType, []byte{0x81, 0x00})))
	add("int64 truncated", holding(3, []byte{8, 0x80}))
	add("uint64", holding(4, num(127)))
	add("uint64 large", holding(4, num(1<<63)))
	add("int32", holding(5, num(7)))
	add("int32 negative", holding(5, num(uint64(math.MaxUint64-6))))
	add("uint32", holding(6, num(1<<14-1)))
	add("uint32 past 32 bits", holding(6, num(1<<35+5)))
	add("bool", holding(7, num(1)))
	add("bool 2", holding(7, num(2)))
	add("bool 2 bytes", holding(7, oneField(1, protowire.VarintType, []byte{0x80, 0x01})))
	add("bool false", holding(7, num(0)))
	add("string", holding(8, str("name")))
	add("string sent empty", holding(8, str("")))
	add("string not 7-bit", holding(8, str("né")))
	add("string invalid", holding(8, str("n\xff")))
	add("string 127", holding(8, str(strings.Repeat("s", 127))))
	add("string 128", holding(8, str(strings.Repeat("s", 128))))
	add("string 128 invalid", holding(8, str(strings.Repeat("s", 127)+"\xff")))
	add("string twice", holding(8, slices.Concat(str("a"), str("b"))))
	add("string as varint", holding(8, num(3)))
	add("string truncated", holding(8, []byte{10, 5, 'a'}))
	add("bytes", holding(9, str("\x00\xff")))
	add("bytes sent empty", holding(9, str("")))
	add("bytes 128", holding(9, str(strings.Repeat("b", 128))))
	add("bytes 16383", holding(9, str(strings.Repeat("b", 16383))))
	add("string 16383", holding(8, str(strings.Repeat("s", 16383))))
	add("string 16384", holding(8, str(strings.Repeat("s", 16384))))
	add("string 300 not 7-bit", holding(8, str(strings.Repeat("é", 150))))
	add("string 300 invalid", holding(8, str(strings.Repeat("s", 299)+"\xff")))
	add("string 200 and a stray byte", holding(8, append(str(strings.Repeat("s", 200)), 0)))
	add("string 200 truncated", holding(8, str(strings.Repeat("s", 200))[:150]))
	add("string overlong length", holding(8, []byte{10, 0x80, 0x00}))
	add("string overlong length 3", holding(8, slices.Concat([]byte{10, 0x83, 0x00}, []byte("abc"))))
	add("int64 ten bytes", holding(3, num(1<<63)))
	add("int64 overflow", holding(3, oneField(1, protowire.VarintType, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02})))
	add("int64 eleven bytes", holding(3, oneField(1, protowire.VarintType, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x81, 0x00})))
	add("int64 three bytes and a stray byte", holding(3, []byte{8, 0x80, 0x80, 0x01, 0x05}))
	add("int64 four bytes truncated", holding(3, []byte{8, 0x80, 0x80, 0x80}))
	add("uint64 max", holding(4, num(math.MaxUint64)))
	add("uint32 mode", holding(6, num(0o100755)))
	add("bool ten bytes", holding(7, num(1<<63)))
	add("double of four bytes", holding(1, []byte{9, 1, 2, 3}))

	// A wrapper that comes again merges into the first: an empty one
	// changes nothing, a value replaces the one before.
	add("merged empty after", holding(8, str("kept")), holding(8, nil))
	add("merged empty before", holding(8, nil), holding(8, str("set")))
	add("merged value", holding(3, num(5)), holding(3, num(6)))
	add("merged long then short", holding(8, str(strings.Repeat("l", 200))), holding(8, str("short")))
	add("merged bytes empty after", holding(9, str("kept")), holding(9, nil))

	// Repeated, in a map, in a oneof.
	add("names", holding(10, str("a")), holding(10, nil), holding(10, str("c")), holding(10, str(strings.Repeat("d", 300))))
	add("names invalid", holding(10, str("a")), holding(10, str("\xc3")))
	entry := func(k string, v []byte) []byte {
		return holding(11, slices.Concat(oneField(1, protowire.BytesType, bytesOf(k)), holding(2, v)))
	}
	add("counts", entry("a", num(1)), entry("b", nil), entry("c", num(math.MaxUint64)))
	add("counts key again", entry("a", num(1)), entry("a", num(2)))
	add("counts value missing", holding(11, oneField(1, protowire.BytesType, bytesOf("k"))))
	add("counts value unknown field", entry("a", oneField(3, protowire.VarintType, varint(1))))
	add("picked", holding(12, str("picked")))
	add("picked empty", holding(12, nil))
	add("pick switching", holding(12, str("picked")), holding(13, str("blob")), holding(12, nil))
	add("picked invalid", holding(12, str("\xff")))
	add("blob merged", holding(13, str("one")), holding(13, nil))

	// The holder's own string, swept before its wrappers' strings.
	label := func(s string) []byte { return oneField(14, protowire.BytesType, bytesOf(s)) }
	add("label then invalid", label("label"), holding(8, str("\xff")))
	add("label not 7-bit then invalid", label("labél"), holding(8, str("\xff")))
	add("label not 7-bit then not 7-bit", label("labél"), holding(10, str("né")))
	add("invalid then label", holding(8, str("\xff")), label("label"))

	// A child holds its own wrappers.
	add("children", holding(15, slices.Concat(holding(8, str("child")), holding(7, num(1)))), holding(15, nil), holding(15, holding(15, holding(9, str("deep")))))
	add("child invalid", holding(15, holding(10, str("\xff"))))
	return in
}

// fullWrappers is a kinds.Wrappers with every field set, its strings and
// bytes longer than a holder decodes itself, decoded before the inputs so
// that the slot's next decodes reuse its spares and arrays.
func fullWrappers() *kinds.Wrappers {
	long := strings.Repeat("x", 200)
	return &kinds.Wrappers{
		Double: wrapperspb.Double(1), Float: wrapperspb.Float(2), Int64: wrapperspb.Int64(-3), Uint64: wrapperspb.UInt64(4),
		Int32: wrapperspb.Int32(-5), Uint32: wrapperspb.UInt32(6), Bool: wrapperspb.Bool(true),
		String_: wrapperspb.String(long), Bytes: wrapperspb.Bytes([]byte(long)),
		Names:    []*wrapperspb.StringValue{wrapperspb.String(long), wrapperspb.String("short"), {}},
		Counts:   map[string]*wrapperspb.Int64Value{"a": wrapperspb.Int64(1), "b": {}},
		Pick:     &kinds.Wrappers_Blob{Blob: wrapperspb.Bytes([]byte(long))},
		Label:    "labél",
		Children: []*kinds.Wrappers{{String_: wrapperspb.String("child"), Bytes: wrapperspb.Bytes([]byte("b"))}},
	}
}

// TestInlinedWrappers decodes every wrapperInputs every way: google.protobuf's
// wrappers, decoded by their holder where they are their field alone, and
// by protobuf-go otherwise, as protobuf-go decodes them.
func TestInlinedWrappers(t *testing.T) {
	c := grpcfast.NewCodec()
	full, err := proto.Marshal(fullWrappers())
	if err != nil {
		t.Fatal(err)
	}
	copySlot, plainSlot := grpcfasttest.NewCopySlot[kinds.Wrappers](), grpcfasttest.NewPlainSlot[kinds.Wrappers]()
	in := wrapperInputs()
	names := make([]string, 0, len(in))
	for name := range in {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		decodeEveryWay(t, c, name, in[name], full, copySlot, plainSlot)
	}
}

// TestInlinedWrappersKeepsArrays: a BytesValue that its holder decodes
// itself keeps its array for the slot's next decode, as a bytes field of
// the holder's own does.
func TestInlinedWrappersKeepsArrays(t *testing.T) {
	if own.Quarantine {
		t.Skip("quarantine builds keep nothing")
	}
	c := grpcfast.NewCodec()
	s := grpcfasttest.NewPlainSlot[kinds.Wrappers]()
	var arrays []*byte
	for _, n := range []int{100, 10, 50} {
		b, err := proto.Marshal(&kinds.Wrappers{Bytes: wrapperspb.Bytes(grpcfasttest.Pattern(n))})
		if err != nil {
			t.Fatal(err)
		}
		generated, err := s.Decode(c, mem.BufferSlice{mem.SliceBuffer(b)})
		grpcfasttest.CheckOracle(t, b, s.Msg(), err)
		if !generated {
			t.Fatal("not decoded by the generated decoder")
		}
		arrays = append(arrays, unsafe.SliceData(s.Msg().Bytes.Value))
		s.Reset()
	}
	if arrays[1] != arrays[0] || arrays[2] != arrays[0] {
		t.Errorf("the BytesValue's array was not kept for the next decodes: %p, then %p and %p", arrays[0], arrays[1], arrays[2])
	}
}

// wrappersMessage is a kinds.Wrappers of wrappers as an API's optional
// fields hold them (a time in milliseconds, a file's mode, a description of
// 240 bytes, zeros): each a holder decodes itself.
func wrappersMessage() *kinds.Wrappers {
	return &kinds.Wrappers{
		Double: wrapperspb.Double(1.5), Int64: wrapperspb.Int64(1_764_000_000_000), Bool: wrapperspb.Bool(true), Uint32: wrapperspb.UInt32(0o100644),
		String_: wrapperspb.String("display name"), Bytes: wrapperspb.Bytes([]byte("etag")),
		Names:  []*wrapperspb.StringValue{wrapperspb.String("a"), wrapperspb.String(strings.Repeat("description ", 20)), wrapperspb.String("c"), wrapperspb.String("")},
		Counts: map[string]*wrapperspb.Int64Value{"x": wrapperspb.Int64(1), "y": wrapperspb.Int64(2)},
		Pick:   &kinds.Wrappers_Picked{Picked: wrapperspb.String("picked")},
		Label:  "label",
	}
}

// TestInlinedWrappersAllocs counts the allocations of a decode of
// wrappersMessage. A reused slot takes one with the owned copy (the copy),
// and 3 without it: the chunks that its strings are copied into, which the
// message's user keeps (each wrapper decoded by protobuf-go took more). A
// new message takes 17: itself, a slab for each type of wrapper, its map,
// list and the chunks of its strings (protobuf-go takes 29).
func TestInlinedWrappersAllocs(t *testing.T) {
	grpcfasttest.SkipInCheckedBuild(t, "a slot's reset poisons its spares and never reuses them")
	grpcfasttest.SkipIfRace(t)
	c := grpcfast.NewCodec()
	b, err := proto.Marshal(wrappersMessage())
	if err != nil {
		t.Fatal(err)
	}
	in := mem.BufferSlice{mem.SliceBuffer(b)}
	for _, tc := range []struct {
		name string
		s    *grpcfasttest.CopySlot[kinds.Wrappers]
		max  float64
	}{
		{"with the owned copy", grpcfasttest.NewCopySlot[kinds.Wrappers](), 1},
		{"without it", grpcfasttest.NewPlainSlot[kinds.Wrappers](), 3},
	} {
		allocs := testing.AllocsPerRun(50, func() {
			tc.s.Reset()
			if _, err := tc.s.Decode(c, in); err != nil {
				t.Fatal(err)
			}
		})
		if allocs > tc.max {
			t.Errorf("a reused slot, %s: %v allocations a decode, want at most %v", tc.name, allocs, tc.max)
		}
	}
	std := testing.AllocsPerRun(50, func() {
		if err := proto.Unmarshal(b, new(kinds.Wrappers)); err != nil {
			t.Fatal(err)
		}
	})
	fresh := testing.AllocsPerRun(50, func() {
		if err := c.Unmarshal(in, new(kinds.Wrappers)); err != nil {
			t.Fatal(err)
		}
	})
	if fresh > 17 {
		t.Errorf("a new message: %v allocations a decode, want at most 17 (protobuf-go: %v)", fresh, std)
	}
}
