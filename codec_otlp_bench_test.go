package grpcfast_test

import (
	"fmt"
	"testing"

	vtgrpc "github.com/planetscale/vtprotobuf/codec/grpc"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/fieldmaskpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/grpcfastrecord"
	"github.com/grpcfast/grpcfast/internal/codec"
	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"github.com/grpcfast/grpcfast/internal/testprotos/hostile"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
	"github.com/grpcfast/grpcfast/internal/testprotos/otlp"
)

// BenchmarkDecodeOTLP decodes the replayed OTLP exports of the generated
// benchmarks (internal/testprotos/otlp/testdata/corpus) on each receive
// path, the codec alone (benchDecodePaths).
func BenchmarkDecodeOTLP(b *testing.B) {
	msgs, err := grpcfastrecord.Read("internal/testprotos/otlp/testdata/corpus", "grpcfast.testdata.otlp.TraceService", "Export", true,
		func() proto.Message { return new(otlp.ExportTraceServiceRequest) })
	if err != nil {
		b.Fatal(err)
	}
	benchDecodePaths[otlp.ExportTraceServiceRequest](b, msgs)
}

// BenchmarkDecodeStrings decodes 1 and 16 KiB of short strings, the shape of
// the example's CreateUser, on each receive path (benchDecodePaths).
func BenchmarkDecodeStrings(b *testing.B) {
	for _, size := range []int{1024, 16384, 1 << 20} {
		b.Run(fmt.Sprintf("size=%d", size), func(b *testing.B) {
			benchDecodePaths[kinds.Rich](b, []proto.Message{grpcfasttest.StringsMessage(size)})
		})
	}
}

// BenchmarkDecodeKnown decodes messages that hold the well-known types the
// runtime decodes (grpcfastimpl/known.go) on each receive path: a Struct
// of 16 entries of every kind of Value, as a request's context or
// attributes (SpiceDB's CheckPermission sends one), a Timestamp, a
// Duration and Anys, a page of wrappers, and an update request's
// FieldMask.
func BenchmarkDecodeKnown(b *testing.B) {
	b.Run("shape=struct", func(b *testing.B) {
		benchDecodePaths[hostile.Holder](b, []proto.Message{&hostile.Holder{Fields: grpcfasttest.KnownStruct()}})
	})
	b.Run("shape=times", func(b *testing.B) {
		any := &anypb.Any{TypeUrl: "type.googleapis.com/google.rpc.ErrorInfo", Value: grpcfasttest.Pattern(64)}
		benchDecodePaths[hostile.Holder](b, []proto.Message{&hostile.Holder{
			Time:     &timestamppb.Timestamp{Seconds: 1_764_000_000, Nanos: 123_456_789},
			Duration: &durationpb.Duration{Seconds: 30},
			Any:      any,
			Anys:     []*anypb.Any{any, any, any, any},
		}})
	})
	// A page of 20 resources whose optional fields are wrappers, as in
	// APIs that predate proto3's optional: their holder decodes them.
	b.Run("shape=wrappers", func(b *testing.B) {
		page := &kinds.Wrappers{}
		for range 20 {
			page.Children = append(page.Children, wrappersMessage())
		}
		benchDecodePaths[kinds.Wrappers](b, []proto.Message{page})
	})
	// An update request's mask (AIP-134: the fields to change, beside the
	// resource's name) and an Empty: the mask through the runtime's
	// DecodeFieldMask, the Empty by nothing.
	b.Run("shape=mask", func(b *testing.B) {
		benchDecodePaths[hostile.Holder](b, []proto.Message{&hostile.Holder{
			Label: "projects/example/users/1234",
			Mask:  &fieldmaskpb.FieldMask{Paths: []string{"display_name", "email", "labels", "annotations", "etag", "update_time"}},
			Empty: &emptypb.Empty{},
		}})
	})
}

// benchDecodePaths decodes the encodings of msgs, in turn, on each receive
// path: gRPC's standard codec (std), vtprotobuf's UnmarshalVT (vt) and
// vtprotobuf's codec as gRPC runs it (vtcodec: a V1 codec behind gRPC's
// bridge, which copies the input first) into a new message, grpcfast's
// codec into a new message (fresh), and into a reused slot as a pooled
// handler prepares it, without and with the owned copy of strings (slot,
// slot-copy). vt is UnmarshalVT alone, without the work that a codec does
// around a decode, which shows on messages of a few hundred bytes.
func benchDecodePaths[M any, P interface {
	*M
	proto.Message
	UnmarshalVT([]byte) error
}](b *testing.B, msgs []proto.Message) {
	var wires [][]byte
	size := 0
	for _, m := range msgs {
		w, err := proto.Marshal(m)
		if err != nil {
			b.Fatal(err)
		}
		wires = append(wires, w)
		size += len(w)
	}
	c := grpcfast.NewCodec()
	std := grpcfast.StandardCodec()
	run := func(b *testing.B, decode func(w []byte) error) {
		// The owned copies' free list is live heap, and makes the
		// collector run less often: without this, the paths after
		// slot-copy (those of the next size) would be measured on a heap
		// that they did not make.
		b.Cleanup(codec.DropFreeCopies)
		b.SetBytes(int64(size / len(wires)))
		b.ReportAllocs()
		for i := range b.N {
			if err := decode(wires[i%len(wires)]); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("path=std", func(b *testing.B) {
		run(b, func(w []byte) error { return std.Unmarshal(mem.BufferSlice{mem.SliceBuffer(w)}, P(new(M))) })
	})
	b.Run("path=vt", func(b *testing.B) {
		run(b, func(w []byte) error { return P(new(M)).UnmarshalVT(w) })
	})
	vtc := v1Bridge{vtgrpc.Codec{}}
	b.Run("path=vtcodec", func(b *testing.B) {
		run(b, func(w []byte) error { return vtc.Unmarshal(mem.BufferSlice{mem.SliceBuffer(w)}, P(new(M))) })
	})
	b.Run("path=fresh", func(b *testing.B) {
		run(b, func(w []byte) error { return c.Unmarshal(mem.BufferSlice{mem.SliceBuffer(w)}, P(new(M))) })
	})
	for _, p := range []struct {
		name string
		slot func() *grpcfasttest.CopySlot[M]
	}{{"slot", grpcfasttest.NewPlainSlot[M]}, {"slot-copy", grpcfasttest.NewCopySlot[M]}} {
		b.Run("path="+p.name, func(b *testing.B) {
			s := p.slot()
			run(b, func(w []byte) error {
				_, err := s.Decode(c, mem.BufferSlice{mem.SliceBuffer(w)})
				s.Reset()
				return err
			})
		})
	}
}
