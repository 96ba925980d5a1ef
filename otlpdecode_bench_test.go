package grpcfast_test

import (
	"testing"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/grpcfastrecord"
	"github.com/grpcfast/grpcfast/internal/testprotos/otlp"
)

// BenchmarkDecodeOTLP decodes the replayed OTLP exports of the generated
// benchmarks (internal/testprotos/otlp/testdata/corpus) on each receive
// path, the codec alone: gRPC's standard codec (std) and vtprotobuf's
// UnmarshalVT (vt) into a new message, grpcfast's codec into a new message
// (fresh), and into a reused slot as a pooled handler prepares it, without
// and with the owned copy of strings (slot, slot-copy).
func BenchmarkDecodeOTLP(b *testing.B) {
	msgs, err := grpcfastrecord.Read("internal/testprotos/otlp/testdata/corpus", "grpcfast.testdata.otlp.TraceService", "Export", true,
		func() proto.Message { return new(otlp.ExportTraceServiceRequest) })
	if err != nil {
		b.Fatal(err)
	}
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
		b.SetBytes(int64(size / len(wires)))
		b.ReportAllocs()
		for i := range b.N {
			if err := decode(wires[i%len(wires)]); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("path=std", func(b *testing.B) {
		run(b, func(w []byte) error {
			return std.Unmarshal(mem.BufferSlice{mem.SliceBuffer(w)}, new(otlp.ExportTraceServiceRequest))
		})
	})
	b.Run("path=vt", func(b *testing.B) {
		run(b, func(w []byte) error { return new(otlp.ExportTraceServiceRequest).UnmarshalVT(w) })
	})
	b.Run("path=fresh", func(b *testing.B) {
		run(b, func(w []byte) error {
			return c.Unmarshal(mem.BufferSlice{mem.SliceBuffer(w)}, new(otlp.ExportTraceServiceRequest))
		})
	})
	for _, p := range []struct {
		name string
		slot func() *grpcfast.CopySlot[otlp.ExportTraceServiceRequest]
	}{{"slot", grpcfast.NewPlainSlot[otlp.ExportTraceServiceRequest]}, {"slot-copy", grpcfast.NewCopySlot[otlp.ExportTraceServiceRequest]}} {
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
