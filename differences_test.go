package grpcfast_test

import (
	"bytes"
	"math"
	"testing"

	"github.com/planetscale/vtprotobuf/testproto/proto3opt"
	"github.com/planetscale/vtprotobuf/testproto/wkt"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/grpcfast/grpcfast"
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
	got, std = marshalBoth(t, &wkt.MessageWithWKT{DoubleValue: wrapperspb.Double(negZero)})
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
// the others) nested in a vtprotobuf message are dropped, on receive and on
// send: vtprotobuf's helpers for well-known types skip them. Unknown fields
// of the message itself are kept.
func TestDifferenceUnknownFieldsInWellKnownTypes(t *testing.T) {
	ts, _ := proto.Marshal(&timestamppb.Timestamp{Seconds: 5})
	ts = protowire.AppendTag(ts, 9, protowire.VarintType)
	ts = protowire.AppendVarint(ts, 3)
	b := protowire.AppendTag(nil, 5, protowire.BytesType)
	b = protowire.AppendBytes(b, ts)
	b = protowire.AppendTag(b, 99, protowire.VarintType) // unknown in MessageWithWKT
	b = protowire.AppendVarint(b, 1)

	got, std := &wkt.MessageWithWKT{}, &wkt.MessageWithWKT{}
	if err := grpcfast.NewCodec().Unmarshal(sliceAt(b), got); err != nil {
		t.Fatal(err)
	}
	if err := stdcodec.Codec().Unmarshal(sliceAt(b), std); err != nil {
		t.Fatal(err)
	}
	if len(got.Timestamp.ProtoReflect().GetUnknown()) != 0 || len(std.Timestamp.ProtoReflect().GetUnknown()) == 0 {
		t.Errorf("received: unknown fields in Timestamp: grpcfast %x, standard codec %x: the difference is gone, update docs/differences.md",
			got.Timestamp.ProtoReflect().GetUnknown(), std.Timestamp.ProtoReflect().GetUnknown())
	}
	if len(got.ProtoReflect().GetUnknown()) == 0 {
		t.Error("received: the message's own unknown field was dropped")
	}
	sentGot, sentStd := marshalBoth(t, std)
	if len(sentGot) != len(b)-2 || len(sentStd) != len(b) {
		t.Errorf("sent: grpcfast %x, standard codec %x (received %x): the difference is gone, update docs/differences.md", sentGot, sentStd, b)
	}
}

// TestDifferenceUnknownTagEncoding pins a documented difference: an
// unknown field whose tag is a longer varint than needed keeps those bytes
// when vtprotobuf's decoder decodes the message (a vtprotobuf type that
// protoc-gen-go-grpcfast did not generate), where protobuf-go re-encodes the
// tag. Both decode the same field. Generated decoders re-encode it as
// protobuf-go does. When this test fails, vtprotobuf re-encodes such tags
// too: remove the difference from docs/differences.md and canonicalUnknown
// from the fuzz test.
func TestDifferenceUnknownTagEncoding(t *testing.T) {
	b := []byte("\xfa\x00\x00") // field 15, length-delimited, empty; tag in 2 bytes
	vtOnly, generated, want := vtOnlyPooled{Pooled: &kinds.Pooled{}}, &kinds.Pooled{}, &kinds.Pooled{}
	for _, m := range []any{vtOnly, generated} {
		if err := grpcfast.NewCodec().Unmarshal(mem.BufferSlice{mem.SliceBuffer(b)}, m); err != nil {
			t.Fatal(err)
		}
	}
	if err := proto.Unmarshal(b, want); err != nil {
		t.Fatal(err)
	}
	g, w := string(vtOnly.ProtoReflect().GetUnknown()), string(want.ProtoReflect().GetUnknown())
	if g != "\xfa\x00\x00" || w != "z\x00" {
		t.Errorf("unknown field bytes: vtprotobuf's decoder %q, protobuf-go %q; want %q and %q", g, w, "\xfa\x00\x00", "z\x00")
	}
	if g := string(generated.ProtoReflect().GetUnknown()); g != w {
		t.Errorf("unknown field bytes: generated decoder %q, protobuf-go %q", g, w)
	}
}

// vtOnlyPooled is a Pooled without its generated decoder, as a vtprotobuf
// type that the plugin did not generate.
type vtOnlyPooled struct {
	*kinds.Pooled
	hideDecoder
}
