package grpcfasttest

import (
	"bytes"
	"testing"

	vtproto2 "github.com/planetscale/vtprotobuf/testproto/proto2"

	"github.com/grpcfast/grpcfast/internal/testprotos/editions"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
	"github.com/grpcfast/grpcfast/internal/testprotos/proto2"
	"github.com/planetscale/vtprotobuf/testproto/wkt"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/fieldmaskpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// Inputs that the codec must judge as gRPC's standard codec does.

// Malformed returns encodings that must not decode into a Rich. (A known
// field with another wire type is not one: protobuf-go keeps it as an
// unknown field; TestLaxInputAccepted has those.)
func Malformed() map[string][]byte {
	valid, _ := proto.Marshal(FullRich(100))
	cases := map[string][]byte{
		"varint too long":        append([]byte{0x08}, bytes.Repeat([]byte{0xff}, 11)...),
		"tag too long":           bytes.Repeat([]byte{0x80}, 11),
		"field number 0":         {0x00, 0x01},
		"wire type 6":            {0x0e, 0x01},
		"wire type 7":            {0x0f, 0x01},
		"end group at top level": {0x0c},
		"group without end":      {0x0b, 0x08, 0x01},
		"group with wrong end":   {0x5b, 0x08, 0x01, 0x64},
		"length past end":        {0x1a, 0x05, 1, 2, 3},
		"negative length":        append([]byte{0x1a}, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01),
		"huge length":            append([]byte{0x1a}, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f),
		"truncated tag":          {0x80},
		"truncated fixed64":      {0x81, 0x01, 1, 2, 3},
		"truncated fixed32":      {0x8d, 0x01, 1, 2, 3},
		"bad nested message":     {0x42, 0x02, 0x0a, 0x05},
		"after valid fields":     append(append([]byte{}, valid...), 0x1a, 0x05, 1),
		"truncated in data":      valid[:60],
		"long data truncated":    append([]byte{0x1a, 0x80, 0x80, 0x01}, make([]byte, 16000)...),
	}
	return cases
}

// UTF8Cases returns messages with strings in every place a string can be,
// valid or not, for the types that vtprotobuf generates here.
func UTF8Cases() map[string]proto.Message {
	const bad, cut, good = "a\xffb", "ok\xe2\x82", "héllo ✓ 😀"
	rich := func(s string, set func(m *kinds.Rich, s string)) *kinds.Rich {
		m := FullRich(40)
		set(m, s)
		return m
	}
	cases := map[string]proto.Message{}
	for _, s := range []struct{ name, s string }{{"invalid", bad}, {"truncated", cut}, {"valid", good}} {
		add := func(name string, m proto.Message) { cases[s.name+" "+name] = m }
		add("Rich.name", rich(s.s, func(m *kinds.Rich, s string) { m.Name = s }))
		add("Rich.words", rich(s.s, func(m *kinds.Rich, s string) { m.Words = []string{"x", s, "y"} }))
		add("Rich.counts key", rich(s.s, func(m *kinds.Rich, s string) { m.Counts = map[string]int64{"k": 1, s: 2} }))
		add("Rich.text (oneof)", rich(s.s, func(m *kinds.Rich, s string) { m.Choice = &kinds.Rich_Text{Text: s} }))
		add("Rich.inner.label", rich(s.s, func(m *kinds.Rich, s string) { m.Inner.Label = s }))
		add("Rich.inners[2].label", rich(s.s, func(m *kinds.Rich, s string) { m.Inners[2].Label = s }))
		add("Rich.nested.label (oneof)", rich(s.s, func(m *kinds.Rich, s string) { m.Choice = &kinds.Rich_Nested{Nested: &kinds.Inner{Label: s}} }))
		add("Pooled.name", &kinds.Pooled{Data: Pattern(30), Name: s.s})
		add("Pooled.inners[0].label", &kinds.Pooled{Inners: []*kinds.Inner{{Label: s.s}}})
		add("WKT StringValue", &wkt.MessageWithWKT{StringValue: wrapperspb.String(s.s)})
		add("WKT FieldMask", &wkt.MessageWithWKT{FieldMask: &fieldmaskpb.FieldMask{Paths: []string{"a", s.s}}})
		add("WKT Any type_url", &wkt.MessageWithWKT{Any: &anypb.Any{TypeUrl: s.s, Value: []byte{1}}})
		add("WKT Struct key", &wkt.MessageWithWKT{StructValue: &structpb.Struct{Fields: map[string]*structpb.Value{s.s: structpb.NewNumberValue(1)}}})
		add("WKT Struct value", &wkt.MessageWithWKT{StructValue: &structpb.Struct{Fields: map[string]*structpb.Value{"k": structpb.NewStringValue(s.s)}}})
		add("WKT ListValue in Value", &wkt.MessageWithWKT{ValueValue: structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{structpb.NewBoolValue(true), structpb.NewStringValue(s.s)}})})
		// proto2 strings are not validated, by either codec.
		add("proto2 StringMessage", &vtproto2.StringMessage{RequiredField: proto.String(s.s), RepeatedField: []string{s.s}})
		add("proto2 Item.extra.note (group)", &proto2.Item{Id: proto.Int32(1), Extra: &proto2.Item_Extra{Note: proto.String(s.s)}})
		// Editions (no vtprotobuf methods): validated, as utf8_validation
		// defaults to VERIFY.
		add("editions Note.text", &editions.Note{Text: proto.String(s.s)})
	}
	return cases
}

// VTMarshal encodes m with vtprotobuf's MarshalVT, which does not check
// strings, or returns nil if m has no such method.
func VTMarshal(t *testing.T, m proto.Message) []byte {
	t.Helper()
	vm, ok := m.(interface{ MarshalVT() ([]byte, error) })
	if !ok {
		return nil
	}
	b, err := vm.MarshalVT()
	if err != nil {
		t.Fatal(err)
	}
	return b
}
