package grpcfast_test

import (
	"bytes"
	"math"
	"testing"

	"github.com/planetscale/vtprotobuf/testproto/proto3opt"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/wrapperspb"

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

// A proto3 float or double field without presence that holds -0.0 is not
// sent: vtprotobuf writes such a field when it is != 0, and -0.0 == 0. The
// peer reads +0.0. With explicit presence (optional) it is sent; a wrapper
// type does not help, its value field is the same kind of field.
func TestDifferenceNegativeZero(t *testing.T) {
	negZero := math.Copysign(0, -1)
	got, std := marshalBoth(t, &kinds.Rich{Ratio: negZero})
	if len(got) != 0 || len(std) == 0 {
		t.Errorf("Rich{Ratio: -0.0}: grpcfast sent %x, standard codec %x: the difference is gone, update docs/differences.md", got, std)
	}
	got, std = marshalBoth(t, &kinds.WellKnown{Ratio: wrapperspb.Double(negZero)})
	if bytes.Equal(got, std) {
		t.Errorf("DoubleValue(-0.0): both sent %x: the difference is gone, update docs/differences.md", got)
	}
	// The workaround: explicit presence.
	got, std = marshalBoth(t, &proto3opt.OptionalFieldInProto3{OptionalDouble: &negZero, OptionalFloat: proto.Float32(float32(negZero))})
	if !bytes.Equal(got, std) {
		t.Errorf("optional double -0.0: grpcfast sent %x, standard codec %x", got, std)
	}
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
