package grpcfast_test

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"testing"

	vtgrpc "github.com/planetscale/vtprotobuf/codec/grpc"
	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"github.com/grpcfast/grpcfast/internal/stdcodec"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
)

// v1Bridge wraps a V1 codec as gRPC does (codecV0Bridge in grpc-go's
// codec.go): Marshal wraps the slice, Unmarshal copies the received buffers
// into one new slice first.
type v1Bridge struct{ c encoding.Codec }

func (b v1Bridge) Name() string { return b.c.Name() }

func (b v1Bridge) Marshal(v any) (mem.BufferSlice, error) {
	data, err := b.c.Marshal(v)
	if err != nil {
		return nil, err
	}
	return mem.BufferSlice{mem.SliceBuffer(data)}, nil
}

func (b v1Bridge) Unmarshal(data mem.BufferSlice, v any) error {
	return b.c.Unmarshal(data.Materialize(), v)
}

// benchCodecs are the codecs compared, in benchstat's column order.
var benchCodecs = []struct {
	name  string
	codec encoding.CodecV2
	// merges: Unmarshal merges into the message instead of replacing it,
	// so the benchmark resets the message with Reset first, as a caller of
	// that codec would have to.
	merges bool
}{
	{"std", stdcodec.Codec(), false},
	{"grpcfast", grpcfast.NewCodec(), false},
	{"vtgrpc", v1Bridge{vtgrpc.Codec{}}, true},
}

// settle collects the garbage that the sub-benchmarks before b left (a
// codec's 1 MiB messages, 16 KiB of strings), so that it is not collected
// during b, on whichever codec comes next.
func settle(b *testing.B) {
	runtime.GC()
	b.ResetTimer()
}

// BenchmarkCodec compares gRPC's standard codec, grpcfast and vtprotobuf's
// own (V1) codec side by side:
//
//	go test -run='^$' -bench=BenchmarkCodec -count=6 . | tee /tmp/codec.bench
//	benchstat -col /codec /tmp/codec.bench
//
// op=marshal includes freeing the result, so that pooled buffers cycle as
// they do under gRPC; op=unmarshal decodes into one reused message; bufs is
// the number of transport buffers the message arrives in.
func BenchmarkCodec(b *testing.B) {
	type input struct {
		name string
		msg  *kinds.Rich
		// bufs are the ways the received message is split.
		bufs map[string]func([]byte) mem.BufferSlice
	}
	whole := func(b []byte) mem.BufferSlice { return grpcfasttest.SliceAt(b) }
	inputs := []input{
		{"small", grpcfasttest.SmallMessage(), map[string]func([]byte) mem.BufferSlice{"1": whole}},
		// 16 KiB of short strings, as a CreateUser of tags or a batch of
		// names: the decode is mostly string allocations and UTF-8 checks.
		{"strings16k", grpcfasttest.StringsMessage(16384), map[string]func([]byte) mem.BufferSlice{"1": whole}},
		{"chunk16k", &kinds.Rich{Data: grpcfasttest.Pattern(16384)}, map[string]func([]byte) mem.BufferSlice{
			"1": whole,
			// 16 KiB and the 4-byte tail.
			"2": func(b []byte) mem.BufferSlice { return grpcfasttest.SliceAt(b, 16384) },
		}},
		// 1 MiB of short strings, whole and as the transport hands it
		// over: a repeated string field of 100,000 elements.
		{"strings1m", grpcfasttest.StringsMessage(1 << 20), map[string]func([]byte) mem.BufferSlice{
			"1":      whole,
			"frames": grpcfasttest.Frames,
		}},
		// A repeated message field of 100,000 small elements.
		{"messages100k", grpcfasttest.MessagesMessage(100000), map[string]func([]byte) mem.BufferSlice{
			"1":      whole,
			"frames": grpcfasttest.Frames,
		}},
		{"1mib", &kinds.Rich{Data: grpcfasttest.Pattern(1 << 20)}, map[string]func([]byte) mem.BufferSlice{
			"1":      whole,
			"frames": grpcfasttest.Frames,
		}},
	}
	// Message by message, every codec in turn: a codec's sub-benchmarks
	// run after those of the others on the same message, not after their
	// 1 MiB messages, whose heap slows the next codec's 16 KiB decodes.
	for _, in := range inputs {
		for _, cc := range benchCodecs {
			c := cc.codec
			wire, err := proto.Marshal(in.msg)
			if err != nil {
				b.Fatal(err)
			}
			prefix := fmt.Sprintf("codec=%s/msg=%s", cc.name, in.name)
			b.Run(prefix+"/op=marshal", func(b *testing.B) {
				settle(b)
				b.SetBytes(int64(len(wire)))
				b.ReportAllocs()
				for range b.N {
					out, err := c.Marshal(in.msg)
					if err != nil {
						b.Fatal(err)
					}
					out.Free()
				}
			})
			for _, bufs := range []string{"1", "2", "frames"} {
				split, ok := in.bufs[bufs]
				if !ok {
					continue
				}
				data := split(wire)
				b.Run(fmt.Sprintf("%s/op=unmarshal/bufs=%s", prefix, bufs), func(b *testing.B) {
					settle(b)
					b.SetBytes(int64(len(wire)))
					b.ReportAllocs()
					into := &kinds.Rich{}
					for range b.N {
						if cc.merges {
							into.Reset()
						}
						if err := c.Unmarshal(data, into); err != nil {
							b.Fatal(err)
						}
					}
					if !proto.Equal(into, in.msg) {
						b.Fatal("decoded message differs")
					}
				})
			}
			if in.name == "small" {
				b.Run(prefix+"/op=roundtrip", func(b *testing.B) {
					settle(b)
					b.SetBytes(int64(len(wire)))
					b.ReportAllocs()
					into := &kinds.Rich{}
					for range b.N {
						out, err := c.Marshal(in.msg)
						if err != nil {
							b.Fatal(err)
						}
						if cc.merges {
							into.Reset()
						}
						if err := c.Unmarshal(out, into); err != nil {
							b.Fatal(err)
						}
						out.Free()
					}
				})
			}
		}
	}
}

// BenchmarkFresh decodes small messages into a new message each time, as
// gRPC's server decodes every request, where what a decode costs besides
// its fields shows most:
//
//	go test -run='^$' -bench=BenchmarkFresh -count=6 . | tee /tmp/fresh.bench
//	benchstat -col /codec /tmp/fresh.bench
//
// ids (three integers) and label (one string) are flat
// (grpcfastimpl.Flat): grpcfast decodes them without its pooled slabs and
// chunks; small is BenchmarkCodec's small message, which is not; nested is
// shaped as Temporal's GetWorkflowExecutionHistoryRequest (three strings, one
// of them and a 16-byte token in a nested message, a few scalars: 112 bytes),
// the common unary request of many APIs.
func BenchmarkFresh(b *testing.B) {
	inputs := []struct {
		name string
		msg  proto.Message
		new  func() proto.Message
	}{
		{"ids", &kinds.Summary{Count: 1234567, Bytes: 1 << 20, Crc32C: 0xdeadbeef}, func() proto.Message { return new(kinds.Summary) }},
		{"label", &kinds.Inner{Label: "0f8fad5b-d9cb-469f-a165-70867728950e"}, func() proto.Message { return new(kinds.Inner) }},
		{"small", grpcfasttest.SmallMessage(), func() proto.Message { return new(kinds.Rich) }},
		{"nested", &kinds.Rich{
			Id:    1000,
			Name:  "payments-prod",
			Inner: &kinds.Inner{Label: "order-fulfillment-7f3c2a9e-42", Payload: []byte("\x08\x96\x01\x10\xc8\x03\x1a\x08nextpage")},
			Words: []string{"0191b7c4-5e2d-7a3b-9c1f-6d8e4a2b1c0f"},
			Color: kinds.Color_COLOR_RED,
			Flag:  true,
		}, func() proto.Message { return new(kinds.Rich) }},
	}
	for _, in := range inputs {
		wire, err := proto.Marshal(in.msg)
		if err != nil {
			b.Fatal(err)
		}
		data := grpcfasttest.SliceAt(wire)
		for _, cc := range benchCodecs {
			c := cc.codec
			b.Run(fmt.Sprintf("msg=%s/codec=%s", in.name, cc.name), func(b *testing.B) {
				settle(b)
				b.SetBytes(int64(len(wire)))
				b.ReportAllocs()
				var into proto.Message
				for range b.N {
					into = in.new()
					if err := c.Unmarshal(data, into); err != nil {
						b.Fatal(err)
					}
				}
				if !proto.Equal(into, in.msg) {
					b.Fatal("decoded message differs")
				}
			})
		}
	}
}

// BenchmarkThreshold measures Marshal then Free of messages around the
// pooling threshold, into a plain allocated slice and into a pooled buffer,
// to choose the default pooling threshold:
//
//	go test -run='^$' -bench=BenchmarkThreshold -count=6 . | tee /tmp/threshold.bench
//	benchstat -col /mode /tmp/threshold.bench
func BenchmarkThreshold(b *testing.B) {
	modes := []struct {
		name  string
		codec *grpcfast.Codec
	}{
		{"plain", grpcfast.NewCodec(grpcfast.WithPoolingThreshold(math.MaxInt))},
		{"pooled", grpcfast.NewCodec(grpcfast.WithPoolingThreshold(0))},
	}
	for _, size := range []int{16, 32, 64, 128, 256, 384, 512, 768, 1024, 2048, 4096} {
		m := grpcfasttest.RichOfSize(b, size)
		for _, par := range []bool{false, true} {
			for _, mode := range modes {
				name := fmt.Sprintf("size=%d/parallel=%v/mode=%s", size, par, mode.name)
				c := mode.codec
				b.Run(name, func(b *testing.B) {
					b.SetBytes(int64(size))
					b.ReportAllocs()
					if par {
						b.RunParallel(func(pb *testing.PB) {
							for pb.Next() {
								out, _ := c.Marshal(m)
								out.Free()
							}
						})
						return
					}
					for range b.N {
						out, _ := c.Marshal(m)
						out.Free()
					}
				})
			}
		}
	}
}

// BenchmarkUTF8 measures the check of strings that must be valid UTF-8,
// with and without it, on a small and a string-heavy message, on a 16 KiB
// chunk (a type with strings, but a message with none) and on 10,000
// nested messages of 7-bit labels. On
// unmarshal, utf8=off still walks the message (wire.go), without the check:
//
//	go test -run='^$' -bench=BenchmarkUTF8 -count=6 . | tee /tmp/utf8.bench
//	benchstat -col /utf8 /tmp/utf8.bench
func BenchmarkUTF8(b *testing.B) {
	codecs := []struct {
		name  string
		codec *grpcfast.Codec
	}{
		{"on", grpcfast.NewCodec()},
		{"off", grpcfast.NewCodec(grpcfast.WithoutUTF8Validation())},
	}
	for _, msg := range []struct {
		name string
		m    *kinds.Rich
	}{
		{"small", grpcfasttest.SmallMessage()},
		{"wordy", grpcfasttest.WordyMessage()},
		{"chunk16k", &kinds.Rich{Data: grpcfasttest.Pattern(16384)}},
		// 10,000 nested messages that hold 7-bit strings and nothing
		// above 0x7f: the check on sending sweeps the encoding once.
		{"labels10k", labelsMessage(10000)},
	} {
		wire, err := proto.Marshal(msg.m)
		if err != nil {
			b.Fatal(err)
		}
		for _, cc := range codecs {
			c := cc.codec
			b.Run(fmt.Sprintf("msg=%s/op=marshal/utf8=%s", msg.name, cc.name), func(b *testing.B) {
				b.SetBytes(int64(len(wire)))
				b.ReportAllocs()
				for range b.N {
					out, err := c.Marshal(msg.m)
					if err != nil {
						b.Fatal(err)
					}
					out.Free()
				}
			})
		}
		for _, cc := range codecs {
			c := cc.codec
			b.Run(fmt.Sprintf("msg=%s/op=unmarshal/utf8=%s", msg.name, cc.name), func(b *testing.B) {
				b.SetBytes(int64(len(wire)))
				b.ReportAllocs()
				data := grpcfasttest.SliceAt(wire)
				into := &kinds.Rich{}
				for range b.N {
					if err := c.Unmarshal(data, into); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// labelsMessage is a Rich with n nested messages, each a label of 7-bit
// characters only, and no other field: a batch of one repeated field.
func labelsMessage(n int) *kinds.Rich {
	m := &kinds.Rich{}
	for i := range n {
		m.Inners = append(m.Inners, &kinds.Inner{Label: fmt.Sprintf("label-%06d", i)})
	}
	return m
}

// BenchmarkForcedCodec measures what forcing the codec on one side costs a
// unary call, against the process-wide registration: side=server forces it
// with ServerOption (the client uses the registered codec), side=client with
// DialOption (the server uses the registered one). Compare allocs/op:
//
//	go test -run '^$' -bench BenchmarkForcedCodec -benchmem -count 6 . | tee /tmp/forced.txt
//	benchstat -col /forced /tmp/forced.txt
func BenchmarkForcedCodec(b *testing.B) {
	for _, side := range []string{"server", "client"} {
		for _, forced := range []bool{false, true} {
			b.Run(fmt.Sprintf("side=%s/forced=%v", side, forced), func(b *testing.B) {
				var sopts []grpc.ServerOption
				var dopts []grpc.DialOption
				if forced && side == "server" {
					sopts = append(sopts, grpcfast.ServerOption())
				}
				if forced && side == "client" {
					dopts = append(dopts, grpcfast.DialOption())
				}
				e := grpcfasttest.StartEnv(b, &grpcfasttest.KindsServer{}, sopts, dopts)
				in := grpcfasttest.GenRich(1)
				ctx := context.Background()
				b.ReportAllocs()
				for range b.N {
					if _, err := e.Client.Unary(ctx, in); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkNegZero measures what the search for a -0.0 that vtprotobuf
// would not send costs the encoding (internal/codec/negzero.go), on its
// worst shape: 10,000 nested messages that each hold a float and a double
// without presence, all of which GrpcfastNegZero looks at. With none of
// them -0.0 (zero=none), grpcfast walks the tree and encodes with
// vtprotobuf; with the last one -0.0 (zero=last), it walks the whole tree
// and encodes with protobuf-go, as the standard codec does:
//
//	go test -run='^$' -bench=BenchmarkNegZero -count=6 . | tee /tmp/negzero.bench
//	benchstat -col /codec /tmp/negzero.bench
func BenchmarkNegZero(b *testing.B) {
	for _, zero := range []string{"none", "last"} {
		m := &kinds.Decodable{}
		for i := range 10000 {
			m.Children = append(m.Children, &kinds.Decodable{Db: float64(i) + 0.5, Fl: 1.5, I64: int64(i)})
		}
		if zero == "last" {
			m.Children[len(m.Children)-1].Db = math.Copysign(0, -1)
		}
		for _, cc := range benchCodecs {
			b.Run("zero="+zero+"/codec="+cc.name, func(b *testing.B) {
				settle(b)
				b.ReportAllocs()
				for range b.N {
					out, err := cc.codec.Marshal(m)
					if err != nil {
						b.Fatal(err)
					}
					out.Free()
				}
			})
		}
	}
}
