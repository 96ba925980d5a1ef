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
