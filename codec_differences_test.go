package grpcfast_test

import (
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"github.com/grpcfast/grpcfast/internal/stdcodec"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
)

// The tests in this file pin the differences from gRPC's standard codec
// that the codec cannot remove without changing vtprotobuf's output
// (docs/differences.md). Each fails when the difference goes away, for
// instance with a vtprotobuf that fixes it: then update docs/differences.md
// and the test.

func marshalBoth(t *testing.T, m proto.Message) (got, std []byte) {
	t.Helper()
	g, err := grpcfast.NewCodec().Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	s, err := stdcodec.Codec().Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return g.Materialize(), s.Materialize()
}

// Unknown fields inside a well-known type (google.protobuf.Timestamp and
// the others) nested in a generated message are dropped on send:
// vtprotobuf's helpers for well-known types skip them. They are kept on
// receive (the generated decoder decodes well-known types with
// protobuf-go), and so are unknown fields of the message itself.
func TestDifferenceUnknownFieldsInWellKnownTypes(t *testing.T) {
	ts, _ := proto.Marshal(&timestamppb.Timestamp{Seconds: 5})
	ts = protowire.AppendTag(ts, 9, protowire.VarintType)
	ts = protowire.AppendVarint(ts, 3)
	b := protowire.AppendTag(nil, 1, protowire.BytesType)
	b = protowire.AppendBytes(b, ts)
	b = protowire.AppendTag(b, 99, protowire.VarintType) // unknown in WellKnown
	b = protowire.AppendVarint(b, 1)

	got, std := &kinds.WellKnown{}, &kinds.WellKnown{}
	if err := grpcfast.NewCodec().Unmarshal(grpcfasttest.SliceAt(b), got); err != nil {
		t.Fatal(err)
	}
	if err := stdcodec.Codec().Unmarshal(grpcfasttest.SliceAt(b), std); err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(got, std) || len(got.Time.ProtoReflect().GetUnknown()) == 0 {
		t.Errorf("received: unknown fields in Timestamp: grpcfast %x, standard codec %x; want them kept",
			got.Time.ProtoReflect().GetUnknown(), std.Time.ProtoReflect().GetUnknown())
	}
	if len(got.ProtoReflect().GetUnknown()) == 0 {
		t.Error("received: the message's own unknown field was dropped")
	}
	sentGot, sentStd := marshalBoth(t, std)
	if len(sentGot) != len(b)-2 || len(sentStd) != len(b) {
		t.Errorf("sent: grpcfast %x, standard codec %x (received %x): the difference is gone, update docs/differences.md", sentGot, sentStd, b)
	}
}

// A oneof whose wrapper holds a nil message (m.Choice =
// &pb.T_Member{}, its message left nil) is sent unset: vtprotobuf writes a
// oneof's message member only when it is not nil, where protobuf-go writes
// an empty message, so that the peer finds the member set. Workaround: set
// the member to an empty message (&pb.T_Member{Member: &pb.M{}}), which
// both send alike.
func TestDifferenceNilMessageInOneof(t *testing.T) {
	m := &kinds.Decodable{Choice: &kinds.Decodable_Node{}, Second: &kinds.Decodable_Inner{}}
	got, std := marshalBoth(t, m)
	if len(got) != 0 || len(std) == 0 {
		t.Errorf("a oneof wrapper of a nil message: grpcfast sent %x, the standard codec %x: the difference is gone, update docs/differences.md", got, std)
	}
	// The workaround.
	m = &kinds.Decodable{Choice: &kinds.Decodable_Node{Node: &kinds.Decodable{}}, Second: &kinds.Decodable_Inner{Inner: &kinds.Inner{}}}
	if got, std := marshalBoth(t, m); string(got) != string(std) {
		t.Errorf("a oneof wrapper of an empty message: grpcfast sent %x, the standard codec %x", got, std)
	}
}
