package grpcfast_test

import (
	"testing"

	vtproto2 "github.com/planetscale/vtprotobuf/testproto/proto2"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/internal/stdcodec"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
	"github.com/grpcfast/grpcfast/internal/testprotos/proto2"
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
		out["one buffer"] = sliceAt(b)
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
// Int32Message decodes with UnmarshalVT.
func TestRequiredParity(t *testing.T) {
	c := grpcfast.NewCodec()
	std := stdcodec.Codec()
	for _, tc := range []struct {
		name string
		msg  proto.Message
	}{
		{"Item without id", &proto2.Item{Data: pattern(40), Tags: []int32{1, 2}}},
		{"Item with id", &proto2.Item{Id: proto.Int32(7), Data: pattern(40), Tags: []int32{1, 2}}},
		{"empty Item", &proto2.Item{}},
		{"vtprotobuf Int32Message without required", &vtproto2.Int32Message{OptionalField: proto.Int32(3), PackedField: []int32{1, 300}}},
		{"vtprotobuf Int32Message with required", &vtproto2.Int32Message{RequiredField: proto.Int32(0), PackedField: []int32{1, 300}}},
		{"empty vtprotobuf Int32Message", &vtproto2.Int32Message{}},
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

// stdVerdict decodes b with the standard codec and with c, split in every
// way of splits and into a fresh and a reused message, and fails t unless
// both accept it into equal messages or both reject it.
func stdVerdict(t *testing.T, c *grpcfast.Codec, name string, b []byte, newMsg func() proto.Message, dirty proto.Message) {
	t.Helper()
	want := newMsg()
	stdErr := stdcodec.Codec().Unmarshal(sliceAt(b), want)
	for split, data := range splits(b) {
		if len(b) > 0 && data.Len() == 0 {
			continue // the empty message, not b
		}
		for _, got := range []proto.Message{newMsg(), dirty} {
			err := c.Unmarshal(data, got)
			sameVerdict(t, name+": Unmarshal from "+split, err, stdErr)
			if err == nil && stdErr == nil && !proto.Equal(got, want) {
				t.Errorf("%s: Unmarshal from %s: got %v, standard codec %v", name, split, got, want)
			}
		}
	}
}

// TestLaxInputAccepted checks input that protobuf-go accepts and
// vtprotobuf's UnmarshalVT rejects: a known field with another wire type is
// an unknown field to protobuf-go (and kept as such), an error to
// vtprotobuf.
func TestLaxInputAccepted(t *testing.T) {
	c := grpcfast.NewCodec()
	valid, _ := proto.Marshal(fullRich(300))
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
		stdVerdict(t, c, name, b, func() proto.Message { return &kinds.Rich{} }, fullRich(100))
	}
	withMismatch := append(append([]byte{}, valid...), 0x18, 0x01)
	withMismatch = append(withMismatch, valid...)
	stdVerdict(t, c, "valid fields around a mismatch", withMismatch, func() proto.Message { return &kinds.Rich{} }, fullRich(100))
}
