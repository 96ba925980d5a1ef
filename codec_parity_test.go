package grpcfast_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	vtproto2 "github.com/planetscale/vtprotobuf/testproto/proto2"
	"github.com/planetscale/vtprotobuf/testproto/proto3opt"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/grpcfastimpl"
	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"github.com/grpcfast/grpcfast/internal/stdcodec"
	"github.com/grpcfast/grpcfast/internal/testprotos/bytestream"
	"github.com/grpcfast/grpcfast/internal/testprotos/editions"
	"github.com/grpcfast/grpcfast/internal/testprotos/hostile"
	"github.com/grpcfast/grpcfast/internal/testprotos/imports"
	"github.com/grpcfast/grpcfast/internal/testprotos/imports/o"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
	"github.com/grpcfast/grpcfast/internal/testprotos/otlp"
	"github.com/grpcfast/grpcfast/internal/testprotos/proto2"
	"github.com/grpcfast/grpcfast/internal/testprotos/shapes"

	// Linked for TestRandomParity, which decodes every generated type.
	_ "github.com/grpcfast/grpcfast/internal/testprotos/comments"
	_ "github.com/grpcfast/grpcfast/internal/testprotos/content"
	_ "github.com/grpcfast/grpcfast/internal/testprotos/multi"
	_ "github.com/grpcfast/grpcfast/internal/testprotos/names"
)

// The tests in this file check that the codec accepts, rejects and
// transmits what gRPC's standard codec does, where vtprotobuf's generated
// code on its own does not.
//
// Besides the project's test protos they use message types that vtprotobuf
// generates for its own tests (github.com/planetscale/vtprotobuf/testproto/...,
// in the pinned module): real generated code for shapes our protos lack.

// splits returns the ways a message's encoding b can arrive: no buffers,
// empty buffers (the encoding of an empty message), one buffer, and many
// pieces with empty buffers between them.
func splits(b []byte) map[string]mem.BufferSlice {
	out := map[string]mem.BufferSlice{
		"nil BufferSlice":       nil,
		"one empty buffer":      {mem.SliceBuffer(nil)},
		"several empty buffers": {mem.SliceBuffer(nil), mem.SliceBuffer{}, mem.SliceBuffer(nil)},
	}
	if len(b) > 0 {
		out["one buffer"] = grpcfasttest.SliceAt(b)
		var many mem.BufferSlice
		for i := range b {
			many = append(many, mem.SliceBuffer(b[i:i+1]), mem.SliceBuffer(nil))
		}
		out["many pieces"] = many
	}
	return out
}

// sameVerdict fails t unless both errors are nil or both are not.
func sameVerdict(t *testing.T, what string, got, std error) {
	t.Helper()
	if (got == nil) != (std == nil) {
		t.Errorf("%s: grpcfast: %v; standard codec: %v", what, got, std)
	}
}

// TestRequiredParity checks required fields both ways: a message that lacks
// one is neither sent nor accepted, however the transport cut its bytes.
// proto2.Item has a group, so it decodes with protobuf-go; vtprotobuf's
// Int32Message decodes with UnmarshalVT; a dynamic Item has no vtprotobuf
// methods at all.
func TestRequiredParity(t *testing.T) {
	c := grpcfast.NewCodec()
	std := stdcodec.Codec()
	for _, tc := range []struct {
		name string
		msg  proto.Message
	}{
		{"Item without id", &proto2.Item{Data: grpcfasttest.Pattern(40), Tags: []int32{1, 2}}},
		{"Item with id", &proto2.Item{Id: proto.Int32(7), Data: grpcfasttest.Pattern(40), Tags: []int32{1, 2}}},
		{"empty Item", &proto2.Item{}},
		{"vtprotobuf Int32Message without required", &vtproto2.Int32Message{OptionalField: proto.Int32(3), PackedField: []int32{1, 300}}},
		{"vtprotobuf Int32Message with required", &vtproto2.Int32Message{RequiredField: proto.Int32(0), PackedField: []int32{1, 300}}},
		{"empty vtprotobuf Int32Message", &vtproto2.Int32Message{}},
		// Without vtprotobuf methods: the codec's protobuf-go path.
		{"empty dynamic Item", dynamicpb.NewMessage((&proto2.Item{}).ProtoReflect().Descriptor())},
	} {
		out, err := c.Marshal(tc.msg)
		_, stdErr := std.Marshal(tc.msg)
		sameVerdict(t, tc.name+": Marshal", err, stdErr)
		if err == nil {
			out.Free()
		}
		b, err := proto.MarshalOptions{AllowPartial: true}.Marshal(tc.msg)
		if err != nil {
			t.Fatal(err)
		}
		for split, data := range splits(b) {
			fresh := func() proto.Message { return tc.msg.ProtoReflect().New().Interface() }
			sameVerdict(t, tc.name+": Unmarshal from "+split, c.Unmarshal(data, fresh()), std.Unmarshal(data, fresh()))
		}
	}
}

// stdVerdict decodes b with c, split in every way of splits and into a
// fresh and a reused message, and fails t unless the oracle (grpcfasttest.CheckOracle)
// agrees with every decode.
func stdVerdict(t *testing.T, c *grpcfast.Codec, name string, b []byte, newMsg func() proto.Message, dirty proto.Message) {
	t.Helper()
	for split, data := range splits(b) {
		if len(b) > 0 && data.Len() == 0 {
			continue // the empty message, not b
		}
		for _, got := range []proto.Message{newMsg(), dirty} {
			grpcfasttest.CheckOracleAt(t, name+": Unmarshal from "+split, b, got, c.Unmarshal(data, got))
		}
	}
}

// TestLaxInputAccepted checks input that protobuf-go accepts and
// vtprotobuf's UnmarshalVT rejects: a known field with another wire type is
// an unknown field to protobuf-go (and kept as such), an error to
// vtprotobuf.
func TestLaxInputAccepted(t *testing.T) {
	c := grpcfast.NewCodec()
	valid, _ := proto.Marshal(grpcfasttest.FullRich(300))
	for name, b := range map[string][]byte{
		"bytes field as varint":        {0x18, 0x01},
		"string field as fixed32":      {0x15, 1, 2, 3, 4},
		"message field as varint":      append(append([]byte{}, valid...), 0x40, 0x07),
		"nested string as fixed64":     {0x42, 0x09, 0x09, 1, 2, 3, 4, 5, 6, 7, 8},
		"int64 field as bytes":         {0x0a, 0x02, 0x08, 0x01},
		"map entry with key as varint": {0x52, 0x04, 0x08, 0x01, 0x10, 0x02},
		"packed enum as fixed32":       {0xa5, 0x01, 1, 0, 0, 0},
		"oneof bytes as varint":        {0x60, 0x05},
	} {
		stdVerdict(t, c, name, b, func() proto.Message { return &kinds.Rich{} }, grpcfasttest.FullRich(100))
	}
	withMismatch := append(append([]byte{}, valid...), 0x18, 0x01)
	withMismatch = append(withMismatch, valid...)
	stdVerdict(t, c, "valid fields around a mismatch", withMismatch, func() proto.Message { return &kinds.Rich{} }, grpcfasttest.FullRich(100))
}

// TestUTF8Parity checks strings that must be valid UTF-8 (proto3, editions
// with utf8_validation VERIFY): gRPC's standard codec refuses to send one
// that is not, and to accept one, wherever it is in the message.
func TestUTF8Parity(t *testing.T) {
	c := grpcfast.NewCodec()
	std := stdcodec.Codec()
	for name, m := range grpcfasttest.UTF8Cases() {
		out, err := c.Marshal(m)
		_, stdErr := std.Marshal(m)
		sameVerdict(t, name+": Marshal", err, stdErr)
		if err == nil {
			out.Free()
		}
		b := grpcfasttest.VTMarshal(t, m)
		if b == nil {
			// No vtprotobuf methods (editions): protobuf-go both ways.
			// Only a valid message can be encoded to decode it.
			if stdErr != nil {
				continue
			}
			b, _ = proto.Marshal(m)
		}
		stdVerdict(t, c, name, b, func() proto.Message { return m.ProtoReflect().New().Interface() }, proto.Clone(m))
	}
}

// vtPooledRich is a kinds.Rich as vtprotobuf generates it with its pool
// feature but without protoc-gen-go-grpcfast: ResetVT is what vtprotobuf's
// features/pool writes for Rich's fields (it keeps F[:0] of every list and
// bytes field, the proto3 optional bytes field Maybe included), and there
// is no generated decoder.
type vtPooledRich struct{ m *kinds.Rich }

func (w vtPooledRich) UnmarshalVT(b []byte) error         { return w.m.UnmarshalVT(b) }
func (w vtPooledRich) ProtoReflect() protoreflect.Message { return w.m.ProtoReflect() }
func (w vtPooledRich) ResetVT() {
	m := w.m
	if m == nil {
		return
	}
	for _, mm := range m.Inners {
		mm.Reset()
	}
	f0 := m.Numbers[:0]
	f1 := m.Words[:0]
	f2 := m.Blobs[:0]
	f3 := m.Inners[:0]
	f4 := m.Data[:0]
	f5 := m.Maybe[:0]
	f6 := m.Colors[:0]
	m.Reset()
	m.Numbers = f0
	m.Words = f1
	m.Blobs = f2
	m.Inners = f3
	m.Data = f4
	m.Maybe = f5
	m.Colors = f6
}

// TestPresenceAfterResetVT decodes into a message that the codec can only
// reset with vtprotobuf's ResetVT: an optional bytes field of an earlier
// message must not read as present in the next one, nor be sent again.
func TestPresenceAfterResetVT(t *testing.T) {
	c := grpcfast.NewCodec()
	reused := vtPooledRich{&kinds.Rich{}}
	for i, m := range []*kinds.Rich{
		{Maybe: []byte("x"), Data: grpcfasttest.Pattern(100)},
		{Data: grpcfasttest.Pattern(50)},
		{Maybe: []byte{}},
		{Name: "n"},
		{Maybe: grpcfasttest.Pattern(2000), Words: []string{"a"}},
		{},
	} {
		b, _ := proto.Marshal(m)
		for _, data := range []mem.BufferSlice{grpcfasttest.SliceAt(b), grpcfasttest.SliceAt(b, len(b)/2)} {
			if err := c.Unmarshal(data, reused); err != nil {
				t.Fatal(err)
			}
			if !proto.Equal(reused.m, m) {
				t.Errorf("message %d in %d buffers: decoded %v, want %v (has maybe: %v, want %v)",
					i, len(data), reused.m, m, reused.m.Maybe != nil, m.Maybe != nil)
			}
			out, err := c.Marshal(reused.m)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out.Materialize(), b) {
				t.Errorf("message %d in %d buffers: sent again as %x, want %x", i, len(data), out.Materialize(), b)
			}
			out.Free()
		}
	}
}

// TestPooledChildPresence decodes, into a reused message and into fresh
// ones, messages of a pooled type with pooled children that have an
// optional bytes field, alternately with and without it: no child may
// read it as present when the input lacks it. It needs this test type,
// which the project's protos do not have yet (testdata/proto/kinds/kinds.proto,
// with pool=github.com/grpcfast/grpcfast/internal/testprotos/kinds.PooledMaybe
// in testdata/buf.gen.yaml):
//
//	message PooledMaybe {
//	  optional bytes maybe = 1;
//	  bytes data = 2;
//	  PooledMaybe one = 3;
//	  repeated PooledMaybe items = 4;
//	}
func TestPooledChildPresence(t *testing.T) {
	const name = "grpcfast.testdata.kinds.PooledMaybe"
	mt, err := protoregistry.GlobalTypes.FindMessageByName(name)
	if err != nil {
		t.Fatalf("no message type %s in testdata/proto/kinds/kinds.proto, pooled (see the test's comment)", name)
	}
	fields := mt.Descriptor().Fields()
	maybe, data, one, items := fields.ByName("maybe"), fields.ByName("data"), fields.ByName("one"), fields.ByName("items")
	var build func(depth int, withMaybe bool) protoreflect.Message
	build = func(depth int, withMaybe bool) protoreflect.Message {
		m := mt.New()
		if withMaybe {
			m.Set(maybe, protoreflect.ValueOfBytes([]byte("m")))
		}
		m.Set(data, protoreflect.ValueOfBytes(grpcfasttest.Pattern(10+depth)))
		if depth > 0 {
			m.Set(one, protoreflect.ValueOfMessage(build(depth-1, withMaybe)))
			l := m.Mutable(items).List()
			for range 3 {
				l.Append(protoreflect.ValueOfMessage(build(depth-1, withMaybe)))
			}
		}
		return m
	}
	c := grpcfast.NewCodec()
	reused := mt.New().Interface()
	for i := range 8 {
		want := build(2, i%2 == 0).Interface()
		b, err := proto.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		for _, into := range []proto.Message{reused, mt.New().Interface()} {
			if err := c.Unmarshal(grpcfasttest.SliceAt(b), into); err != nil {
				t.Fatal(err)
			}
			if !proto.Equal(into, want) {
				t.Fatalf("message %d: decoded %v, want %v", i, into, want)
			}
		}
	}
}

// TestNegativeZeroParity checks that a float or double -0.0 is sent as
// gRPC's standard codec sends it, wherever it is: vtprotobuf's encoding
// leaves out a field without presence that holds it (it writes such a field
// when it is != 0), so the codec encodes a message that holds one, in
// itself or in any message it holds, with protobuf-go. The peer then reads
// -0.0, not +0.0.
func TestNegativeZeroParity(t *testing.T) {
	nz := math.Copysign(0, -1)
	nz32 := float32(nz)
	cases := []struct {
		name      string
		m         proto.Message
		fixed     bool // vtprotobuf alone would drop the -0.0
		unordered bool // a map of two entries: no set order of its entries
	}{
		{"double", &kinds.Rich{Ratio: nz, Id: 7}, true, false},
		{"float", &kinds.Decodable{Fl: nz32, Name: "f"}, true, false},
		{"double in a decodable", &kinds.Decodable{Db: nz}, true, false},
		{"child", &kinds.Decodable{Child: &kinds.Decodable{Db: nz}}, true, false},
		{"repeated child", &kinds.Decodable{Children: []*kinds.Decodable{{}, {Fl: nz32}}}, true, false},
		{"child of another type", &kinds.Decodable{Rich: &kinds.Rich{Ratio: nz}}, true, false},
		{"repeated child of another type", &kinds.Decodable{Riches: []*kinds.Rich{{Name: "a"}, {Ratio: nz}}}, true, false},
		{"oneof member", &kinds.Decodable{Choice: &kinds.Decodable_Node{Node: &kinds.Decodable{Db: nz}}}, true, false},
		{"oneof member of another type", &kinds.Decodable{Choice: &kinds.Decodable_Other{Other: &kinds.Rich{Ratio: nz}}}, true, false},
		{"deep", &kinds.Decodable{Child: &kinds.Decodable{Children: []*kinds.Decodable{{Riches: []*kinds.Rich{{Ratio: nz}}}}}}, true, false},
		{"DoubleValue", &kinds.WellKnown{Ratio: wrapperspb.Double(nz)}, true, false},
		{"FloatValue", &kinds.Signed{Wf: wrapperspb.Float(nz32)}, true, false},
		{"map value message", &kinds.Signed{ByKey: map[string]*kinds.Signed{"b": {Fl: nz32}}}, true, false},
		{"map value message, among others", &kinds.Signed{ByKey: map[string]*kinds.Signed{"a": {Db: 1}, "b": {Fl: nz32}, "c": {}}}, true, true},
		{"map value message, nested", &kinds.Signed{List: []*kinds.Signed{{ByKey: map[string]*kinds.Signed{"a": {Db: nz}}}}}, true, false},
		{"nil map value", &kinds.Signed{ByKey: map[string]*kinds.Signed{"a": nil}}, false, false},
		{"another package's message", &imports.FromV{M: &o.M{D: nz}}, true, false},
		{"another package's, repeated", &imports.FromV{Ms: []*o.M{{S: "s"}, {D: nz}}}, true, false},
		{"another package's, oneof member", &imports.FromV{Choice: &imports.FromV_One{One: &o.M{D: nz}}}, true, false},
		// Where vtprotobuf sends -0.0 itself: oneof members, optional and
		// repeated fields, map values.
		{"oneof double", &kinds.Decodable{Choice: &kinds.Decodable_Real{Real: nz}}, false, false},
		{"optional", &proto3opt.OptionalFieldInProto3{OptionalDouble: &nz, OptionalFloat: &nz32}, false, false},
		{"repeated", &kinds.Decodable{Rdb: []float64{1, nz}, Rfl: []float32{nz32}}, false, false},
		{"map value", &kinds.Signed{Values: map[string]float64{"a": nz}}, false, false},
		{"positive zero", &kinds.Signed{Db: 0, Fl: 0, ByKey: map[string]*kinds.Signed{"a": {}}, Wf: wrapperspb.Float(0)}, false, false},
	}
	c := grpcfast.NewCodec()
	for _, tc := range cases {
		got, err := c.Marshal(tc.m)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		want, err := stdcodec.Codec().Marshal(tc.m)
		if err != nil {
			t.Fatal(err)
		}
		// A map of two entries or more is encoded in no set order, by
		// either codec: such a message is compared by what the peer reads.
		if g, w := got.Materialize(), want.Materialize(); !tc.unordered && !bytes.Equal(g, w) {
			t.Errorf("%s: sent %x, the standard codec sends %x", tc.name, g, w)
		}
		if back := readBack(t, got.Materialize(), tc.m); !proto.Equal(back, tc.m) || !sameSigns(back.ProtoReflect(), tc.m.ProtoReflect()) {
			t.Errorf("%s: the peer reads %v, want %v", tc.name, back, tc.m)
		}
		vt, err := tc.m.(interface{ MarshalVT() ([]byte, error) }).MarshalVT()
		if err != nil {
			t.Fatal(err)
		}
		if differs := !sameSigns(readBack(t, vt, tc.m).ProtoReflect(), tc.m.ProtoReflect()); differs != tc.fixed {
			t.Errorf("%s: vtprotobuf's encoding loses a sign: %v, want %v (the case no longer covers what it names)", tc.name, differs, tc.fixed)
		}
		got.Free()
		want.Free()
	}
}

// readBack decodes b, as gRPC's standard codec does, into a new message of
// m's type.
func readBack(t *testing.T, b []byte, m proto.Message) proto.Message {
	t.Helper()
	back := m.ProtoReflect().New().Interface()
	if err := stdcodec.Codec().Unmarshal(grpcfasttest.SliceAt(b), back); err != nil {
		t.Fatal(err)
	}
	return back
}

// sameSigns reports whether a and b, two messages of one type, hold the same
// signs in their float and double fields, nested ones included (proto.Equal
// finds -0.0 equal to +0.0).
func sameSigns(a, b protoreflect.Message) bool {
	return fmt.Sprint(signs(a)) == fmt.Sprint(signs(b))
}

func signs(m protoreflect.Message) []string {
	var out []string
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsMap():
			v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
				if fd.MapValue().Message() != nil {
					out = append(out, fmt.Sprint(k, signs(mv.Message())))
				} else {
					out = append(out, fmt.Sprint(k, mv))
				}
				return true
			})
		case fd.IsList():
			for i := range v.List().Len() {
				if fd.Message() != nil {
					out = append(out, fmt.Sprint(signs(v.List().Get(i).Message())))
				} else {
					out = append(out, fmt.Sprint(math.Signbit(v.List().Get(i).Float())))
				}
			}
		case fd.Message() != nil:
			out = append(out, fmt.Sprint(fd.Name(), signs(v.Message())))
		case fd.Kind() == protoreflect.DoubleKind || fd.Kind() == protoreflect.FloatKind:
			out = append(out, fmt.Sprint(fd.Name(), math.Signbit(v.Float())))
		}
		return true
	})
	sort.Strings(out)
	return out
}

// TestNegativeZeroWithoutUTF8Validation pins what WithoutUTF8Validation
// documents: a message that holds a -0.0 that vtprotobuf would leave out is
// encoded with protobuf-go, which checks UTF-8 whatever the option, so one
// that also holds invalid UTF-8 fails to encode; without the -0.0, it is
// sent as it is.
func TestNegativeZeroWithoutUTF8Validation(t *testing.T) {
	c := grpcfast.NewCodec(grpcfast.WithoutUTF8Validation())
	out, err := c.Marshal(&kinds.Rich{Name: "\xff", Ratio: 1})
	if err != nil {
		t.Fatalf("invalid UTF-8 without a -0.0: %v, want it sent", err)
	}
	out.Free()
	if _, err := c.Marshal(&kinds.Rich{Name: "\xff", Ratio: math.Copysign(0, -1)}); err == nil {
		t.Fatal("invalid UTF-8 with a -0.0: sent, want protobuf-go's error")
	}
	out, err = c.Marshal(&kinds.Rich{Name: "ok", Ratio: math.Copysign(0, -1)})
	if err != nil {
		t.Fatal(err)
	}
	if b := out.Materialize(); !bytes.Contains(b, []byte{0x81, 1, 0, 0, 0, 0, 0, 0, 0, 0x80}) {
		t.Errorf("a -0.0 with the option: sent %x, want field 16 with -0.0", b)
	}
	out.Free()
}

// TestTypedNilParity checks messages that hold a typed nil where protobuf-go
// looks for a message: a oneof set to a nil wrapper (var w *pb.T_Member;
// m.Choice = w), a nil element of a repeated field, a nil map value.
// gRPC's standard codec encodes them (a nil wrapper as an unset oneof);
// vtprotobuf's MarshalToSizedBufferVT dereferences a nil wrapper, and the
// panic, in gRPC-Go's encoding, ended the process. The codec sends what
// the standard codec sends, and panics where it panics.
func TestTypedNilParity(t *testing.T) {
	nz := math.Copysign(0, -1)
	for _, tc := range []struct {
		name string
		m    proto.Message
	}{
		{"nil oneof wrapper of a message", &kinds.Decodable{Name: "n", Choice: (*kinds.Decodable_Node)(nil)}},
		{"nil oneof wrapper of another type's message", &kinds.Decodable{Choice: (*kinds.Decodable_Other)(nil)}},
		{"nil oneof wrapper of a string", &kinds.Decodable{Choice: (*kinds.Decodable_Text)(nil), Second: &kinds.Decodable_Label{Label: "l"}}},
		{"nil oneof wrapper, nested", &kinds.Decodable{Children: []*kinds.Decodable{{Db: 1, Choice: (*kinds.Decodable_Real)(nil)}}}},
		{"nil oneof wrapper beside a -0.0", &kinds.Decodable{Db: nz, Choice: (*kinds.Decodable_Node)(nil)}},
		{"nil oneof wrapper in a type without floats", &kinds.Rich{Choice: (*kinds.Rich_Nested)(nil), Name: "r"}},
		{"nil element", &kinds.Decodable{Children: []*kinds.Decodable{{I32: 1}, nil}}},
		{"nil map value", &kinds.Signed{ByKey: map[string]*kinds.Signed{"a": nil}}},
	} {
		want, err := stdcodec.Codec().Marshal(tc.m)
		if err != nil {
			t.Fatalf("%s: the standard codec: %v", tc.name, err)
		}
		var got mem.BufferSlice
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: Marshal panicked: %v; the standard codec sends %x", tc.name, r, want.Materialize())
				}
			}()
			got, err = grpcfast.NewCodec().Marshal(tc.m)
		}()
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
		if g, w := got.Materialize(), want.Materialize(); !bytes.Equal(g, w) {
			t.Errorf("%s: sent %x, the standard codec sends %x", tc.name, g, w)
		}
		got.Free()
		want.Free()
	}
}

// TestRandomParity decodes random messages of every type that the test
// protos generate a decoder for, and inputs made from them, with the codec
// and with gRPC's standard codec, and checks that both accept and reject
// the same inputs and decode the same messages: each message as encoded,
// merged with another of its type (its encoding twice, or two encodings
// one after the other), and changed (a bit flipped, cut short, two bytes
// appended); into a new message and into one that holds another; in one
// buffer and cut at random. A message the codec decoded is sent back
// through the codec and must read as it was (but where an input was
// changed: a flipped bit can leave unknown fields inside a well-known
// type, which vtprotobuf's helpers drop on send, docs/differences.md).
// Where the tests above pin one rule each, this one covers every field of
// every generated type the same way, whatever shape the generator gave
// its decoder.
func TestRandomParity(t *testing.T) {
	types := generatedTypes()
	if len(types) < 60 {
		t.Fatalf("found %d message types with a generated decoder; the test protos have more", len(types))
	}
	c := grpcfast.NewCodec()
	r := rand.New(rand.NewPCG(36, 1))
	inputs, decodes := 0, 0
	for _, mt := range types {
		name := mt.Descriptor().FullName()
		for range 10 {
			for _, in := range randomInputs(t, r, mt) {
				inputs++
				for _, into := range []string{"a new message", "a message holding another"} {
					got := mt.New()
					data := grpcfasttest.SliceAt(in.b)
					if into != "a new message" {
						randomFill(r, got, 0)
						data = grpcfasttest.SliceAt(in.b, grpcfasttest.RandomCuts(r, len(in.b), 1+r.IntN(3))...)
					}
					what := fmt.Sprintf("%s, %s, into %s", name, in.what, into)
					err := c.Unmarshal(data, got.Interface())
					decodes++
					grpcfasttest.CheckOracleAt(t, what, in.b, got.Interface(), err)
					if err != nil || in.changed {
						continue
					}
					sent, err := c.Marshal(got.Interface())
					stdSent, stdErr := stdcodec.Codec().Marshal(got.Interface())
					stdSent.Free()
					if (err == nil) != (stdErr == nil) {
						t.Fatalf("%s: sending it back: grpcfast: %v; standard codec: %v", what, err, stdErr)
					}
					if err != nil {
						continue // a required field missing deep down, which both decodes let through
					}
					back := mt.New().Interface()
					err = proto.UnmarshalOptions{AllowPartial: true}.Unmarshal(sent.Materialize(), back)
					sent.Free()
					if err != nil || !proto.Equal(back, got.Interface()) {
						t.Fatalf("%s: sent back, read as %v (%v), was %v", what, back, err, got.Interface())
					}
				}
			}
		}
	}
	t.Logf("%d types, %d inputs, %d decodes", len(types), inputs, decodes)
}

// TestRandomParitySlots decodes the inputs of TestRandomParity one after
// the other into the same slot, prepared as a pooled handler prepares its
// request, with the owned copy and without, and reset between decodes as
// the handler's next call resets it (poisoned and cleared in checked
// builds): each decode must read as the standard codec's of the same input,
// whatever the slot kept from the ones before it, so nothing of one call
// shows in the next.
func TestRandomParitySlots(t *testing.T) {
	c := grpcfast.NewCodec()
	r := rand.New(rand.NewPCG(36, 2))
	slotParity[kinds.Decodable](t, c, r)
	slotParity[kinds.Rich](t, c, r)
	slotParity[kinds.Pooled](t, c, r)
	slotParity[kinds.WellKnown](t, c, r)
	slotParity[kinds.Wrappers](t, c, r)
	slotParity[kinds.OneOf](t, c, r)
	slotParity[kinds.Many](t, c, r)
	slotParity[otlp.ExportTraceServiceRequest](t, c, r)
	slotParity[otlp.AnyValue](t, c, r)
	slotParity[proto2.Entries](t, c, r)
	slotParity[editions.Note](t, c, r)
	slotParity[shapes.Tree](t, c, r)
	slotParity[bytestream.WriteRequest](t, c, r)
	slotParity[bytestream.BatchReadBlobsResponse](t, c, r)
	slotParity[hostile.Holder](t, c, r)
}

// slotParity decodes random inputs of type M into one copy slot and one
// plain slot, in turn, and checks each decode against the standard codec.
func slotParity[M any, P interface {
	*M
	proto.Message
}](t *testing.T, c *grpcfast.Codec, r *rand.Rand) {
	t.Helper()
	mt := P(new(M)).ProtoReflect().Type()
	slots := []struct {
		kind string
		s    *grpcfasttest.CopySlot[M]
	}{
		{"with the owned copy", grpcfasttest.NewCopySlot[M]()},
		{"without the owned copy", grpcfasttest.NewPlainSlot[M]()},
	}
	for i := range 15 {
		for _, in := range randomInputs(t, r, mt) {
			for _, sl := range slots {
				kind, s := sl.kind, sl.s
				data := grpcfasttest.SliceAt(in.b, grpcfasttest.RandomCuts(r, len(in.b), r.IntN(3))...)
				_, err := s.Decode(c, data)
				what := fmt.Sprintf("%s, %s, decode %d into a slot %s", mt.Descriptor().FullName(), in.what, i, kind)
				grpcfasttest.CheckOracleAt(t, what, in.b, P(s.Msg()), err)
				s.Reset()
			}
		}
	}
}

// randomInput is an input of TestRandomParity: what it is made of, and
// whether it was changed after it was encoded.
type randomInput struct {
	what    string
	b       []byte
	changed bool
}

// randomInputs returns inputs made of random messages of type mt: one as
// encoded, its encoding twice, and merged with another's; and six changed
// copies of it: a bit flipped, cut short, two bytes appended.
func randomInputs(t *testing.T, r *rand.Rand, mt protoreflect.MessageType) []randomInput {
	t.Helper()
	encode := func() []byte {
		m := mt.New()
		randomFill(r, m, 0)
		// Deterministic: a seed gives the same inputs on every run.
		b, err := proto.MarshalOptions{AllowPartial: true, Deterministic: true}.Marshal(m.Interface())
		if err != nil {
			t.Fatalf("%s: %v", mt.Descriptor().FullName(), err)
		}
		return b
	}
	b, ob := encode(), encode()
	ins := []randomInput{
		{"as encoded", b, false},
		{"twice", append(append([]byte(nil), b...), b...), false},
		{"merged with another", append(append([]byte(nil), b...), ob...), false},
	}
	for k := range 6 {
		if len(b) == 0 {
			break
		}
		x := append([]byte(nil), b...)
		switch k % 3 {
		case 0:
			x[r.IntN(len(x))] ^= 1 << r.IntN(8)
			ins = append(ins, randomInput{"a bit flipped", x, true})
		case 1:
			ins = append(ins, randomInput{"cut short", x[:r.IntN(len(x))], true})
		case 2:
			ins = append(ins, randomInput{"two bytes appended", append(x, byte(r.Uint32()), byte(r.Uint32())), true})
		}
	}
	return ins
}

// generatedTypes returns the message types linked into this test that
// protoc-gen-go-grpcfast generated a decoder for, in order of name.
func generatedTypes() []protoreflect.MessageType {
	var out []protoreflect.MessageType
	protoregistry.GlobalTypes.RangeMessages(func(mt protoreflect.MessageType) bool {
		if _, ok := mt.Zero().Interface().(interface {
			GrpcfastDecode([]byte, *grpcfastimpl.Decoding, int) error
		}); ok {
			out = append(out, mt)
		}
		return true
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Descriptor().FullName() < out[j].Descriptor().FullName() })
	return out
}

// randomStrings are the values randomFill gives strings: empty, one byte,
// multi-byte UTF-8, and longer than a decode copies into its chunks.
var randomStrings = []string{"", "a", "héllo", "ключ-значение", "0123456789abcdef", strings.Repeat("x", 300)}

// randomFill sets a random subset of m's fields, nested messages down to
// depth 3: every kind of field, lists, maps and oneofs (one member each).
func randomFill(r *rand.Rand, m protoreflect.Message, depth int) {
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if r.IntN(3) == 0 {
			continue
		}
		isMessage := fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.GroupKind
		switch {
		case fd.IsList():
			if isMessage && depth >= 3 {
				continue
			}
			l := m.Mutable(fd).List()
			for range r.IntN(4) {
				if isMessage {
					e := l.NewElement()
					randomFill(r, e.Message(), depth+1)
					l.Append(e)
				} else {
					l.Append(randomScalar(r, fd))
				}
			}
		case fd.IsMap():
			vd := fd.MapValue()
			valueMessage := vd.Kind() == protoreflect.MessageKind
			if valueMessage && depth >= 3 {
				continue
			}
			mp := m.Mutable(fd).Map()
			for range r.IntN(4) {
				k := randomScalar(r, fd.MapKey()).MapKey()
				if valueMessage {
					v := mp.NewValue()
					randomFill(r, v.Message(), depth+1)
					mp.Set(k, v)
				} else {
					mp.Set(k, randomScalar(r, vd))
				}
			}
		case isMessage:
			if depth >= 3 {
				continue
			}
			randomFill(r, m.Mutable(fd).Message(), depth+1)
		default:
			m.Set(fd, randomScalar(r, fd))
		}
	}
}

// randomScalar returns a random value of fd's kind: numbers across their
// range (negative ones too), enum numbers that the enum may not name, and
// strings of randomStrings or, in proto2 files, which check no UTF-8, of
// invalid UTF-8 too.
func randomScalar(r *rand.Rand, fd protoreflect.FieldDescriptor) protoreflect.Value {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(r.IntN(2) == 1)
	case protoreflect.EnumKind:
		return protoreflect.ValueOfEnum(protoreflect.EnumNumber(r.IntN(6) - 1))
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32(int32(r.Uint32()) >> r.IntN(32))
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64(int64(r.Uint64()) >> r.IntN(64))
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(r.Uint32() >> r.IntN(32))
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64(r.Uint64() >> r.IntN(64))
	case protoreflect.FloatKind:
		return protoreflect.ValueOfFloat32(float32(r.NormFloat64()))
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64(r.NormFloat64() * 1e6)
	case protoreflect.StringKind:
		if fd.ParentFile().Syntax() == protoreflect.Proto2 && r.IntN(4) == 0 {
			return protoreflect.ValueOfString("not UTF-8: \xff\xfe") // proto2 checks none
		}
		return protoreflect.ValueOfString(randomStrings[r.IntN(len(randomStrings))])
	case protoreflect.BytesKind:
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return protoreflect.ValueOfBytes(b)
	}
	panic(fmt.Sprintf("randomScalar: %v", fd.Kind()))
}
