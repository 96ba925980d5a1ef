package example_test

import (
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/example"
	"github.com/grpcfast/grpcfast/example/examplepb"
	"github.com/grpcfast/grpcfast/grpcfastbench"
)

// transferServer is a ChunkService that does no work with the data: Put
// counts the bytes it receives, Get sends one chunk filled once. It measures
// what the gRPC machinery costs per stream, without the example's
// checksums and pattern fills, which cost the two paths the same.
type transferServer struct {
	examplepb.UnimplementedChunkServiceServer
	plain bool
	chunk *examplepb.Chunk
}

func (s *transferServer) Put(stream grpc.ClientStreamingServer[examplepb.Chunk, examplepb.PutResponse]) error {
	recv := stream.Recv
	if !s.plain {
		recv = examplepb.NewChunkService_PutRequestReceiver(stream).Recv
	}
	var n int64
	for {
		c, err := recv()
		if err == io.EOF {
			return stream.SendAndClose(&examplepb.PutResponse{Size: n})
		}
		if err != nil {
			return err
		}
		n += int64(len(c.Data))
	}
}

func (s *transferServer) Get(req *examplepb.GetRequest, stream grpc.ServerStreamingServer[examplepb.Chunk]) error {
	for sent := int64(0); sent < req.Size; sent += int64(len(s.chunk.Data)) {
		if err := stream.Send(s.chunk); err != nil {
			return err
		}
	}
	return nil
}

// BenchmarkTransfer moves 16 MiB in 16 KiB chunks per op with handlers that
// do nothing with the data, on the bulk transport.
//
// Besides std and grpcfast it runs path=floor: gRPC-Go with a codec that
// does no work (floorCodec), which is what the transport alone costs and so
// the floor for any codec and receive path on this gRPC-Go; and
// path=floor-recv, where grpcfast sends and only the receiving side does no
// work: against path=grpcfast, the cost of grpcfast's receiving side alone.
//
// Besides 16 KiB chunks it moves chunks of 16376 bytes (chunk=16376): the
// largest that gRPC-Go sends in one HTTP/2 frame of 16 KiB with its framing,
// so that the receiver decodes each chunk's data as a view of the transport
// buffer (docs/receivers.md, "Views of transport buffers"); a 16 KiB chunk
// straddles two frames and is copied once.
func BenchmarkTransfer(b *testing.B) {
	sopts, dopts := transportOptions("bulk")
	for _, op := range []string{"put", "get"} {
		for _, size := range []int{chunkSize, viewChunkSize} {
			chunk := &examplepb.Chunk{Data: make([]byte, size)}
			example.FillPattern(chunk.Data, 0)
			// Whole chunks of at least blobSize bytes.
			total := int64((blobSize + size - 1) / size * size)
			benchTransfer(b, op, chunk, total, sopts, dopts)
		}
	}
}

// viewChunkSize is the largest chunk whose gRPC message fits in one 16 KiB
// HTTP/2 frame (16376 bytes of data, 3 of tag and length, 5 of gRPC's
// message header).
const viewChunkSize = 16376

func benchTransfer(b *testing.B, op string, chunk *examplepb.Chunk, total int64, sopts []grpc.ServerOption, dopts []grpc.DialOption) {
	for _, path := range append(paths[:len(paths):len(paths)], "floor", "floor-recv") {
		b.Run(fmt.Sprintf("op=%s/chunk=%d/path=%s", op, len(chunk.Data), path), func(b *testing.B) {
			var ps []grpc.ServerOption
			var pd []grpc.DialOption
			switch path {
			case "floor":
				c := newFloorCodec(chunk)
				ps = []grpc.ServerOption{grpc.ForceServerCodecV2(c)}
				pd = []grpc.DialOption{grpc.WithDefaultCallOptions(grpc.ForceCodecV2(c))}
			case "floor-recv":
				// grpcfast sends; the receiving side (the server
				// for put, the client for get) does no work.
				c := newFloorCodec(chunk)
				c.recvOnly = true
				ps, pd, _ = pathOptions("grpcfast")
				if op == "put" {
					ps = []grpc.ServerOption{grpc.ForceServerCodecV2(c)}
				} else {
					pd = []grpc.DialOption{grpc.WithDefaultCallOptions(grpc.ForceCodecV2(c))}
				}
			default:
				ps, pd, _ = pathOptions(path)
			}
			srv := grpc.NewServer(append(ps, sopts...)...)
			plain := path == "std"
			examplepb.RegisterChunkServiceServer(srv, &transferServer{plain: plain, chunk: chunk})
			client := examplepb.NewChunkServiceClient(serve(b, srv, append(pd, dopts...)...))
			run := func() error {
				if op == "put" {
					return transferPut(client, chunk, total)
				}
				return transferGet(client, plain, total)
			}
			if err := run(); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(total)
			b.ReportAllocs()
			b.ResetTimer()
			cpu := grpcfastbench.CPUTime()
			for range b.N {
				if err := run(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(grpcfastbench.CPUTime()-cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
		})
	}
}

// floorCodec is a codec that does no work on the chunks of BenchmarkTransfer,
// to measure what gRPC-Go's transport costs without any codec: it sends the
// one chunk it was made for from an encoding made once (no marshalling, no
// copy, nothing to free), and "receives" a chunk by setting its Data to a
// shared, never-written buffer of the received length (no decoding, no
// copy). The peer still gets a valid encoding on the wire. Other messages go
// through grpcfast's codec. It is good for nothing but this measurement.
type floorCodec struct {
	recvOnly bool // send through grpcfast's codec: only receiving does no work
	chunk    *examplepb.Chunk
	encoded  mem.BufferSlice // chunk's encoding: one mem.SliceBuffer, whose Ref and Free do nothing
	scratch  []byte          // what received chunks' Data point into; never written
	fallback encoding.CodecV2
}

func newFloorCodec(chunk *examplepb.Chunk) *floorCodec {
	enc, err := chunk.MarshalVT()
	if err != nil {
		panic(err)
	}
	return &floorCodec{
		chunk:    chunk,
		encoded:  mem.BufferSlice{mem.SliceBuffer(enc)},
		scratch:  make([]byte, len(chunk.Data)),
		fallback: grpcfast.NewCodec(),
	}
}

func (c *floorCodec) Name() string { return "proto" }

func (c *floorCodec) Marshal(v any) (mem.BufferSlice, error) {
	if v == c.chunk && !c.recvOnly {
		return c.encoded, nil
	}
	return c.fallback.Marshal(v)
}

func (c *floorCodec) Unmarshal(data mem.BufferSlice, v any) error {
	m, ok := v.(*examplepb.Chunk)
	if !ok {
		return c.fallback.Unmarshal(data, v)
	}
	// A Chunk of n > 0 bytes is encoded as tag (1 byte), varint n, n bytes.
	total := data.Len()
	for k := 1; k <= protowire.SizeVarint(uint64(total)); k++ {
		if n := total - 1 - k; n > 0 && n <= len(c.scratch) && protowire.SizeVarint(uint64(n)) == k {
			m.Data = c.scratch[:n]
			return nil
		}
	}
	return fmt.Errorf("floorCodec: a %d-byte message is not a chunk of at most %d bytes", total, len(c.scratch))
}

func transferPut(client examplepb.ChunkServiceClient, chunk *examplepb.Chunk, total int64) error {
	stream, err := client.Put(context.Background())
	if err != nil {
		return err
	}
	for sent := int64(0); sent < total; sent += int64(len(chunk.Data)) {
		if err := stream.Send(chunk); err != nil {
			return err
		}
	}
	resp, err := stream.CloseAndRecv()
	if err == nil && resp.Size != total {
		err = fmt.Errorf("server got %d bytes, want %d", resp.Size, total)
	}
	return err
}

func transferGet(client examplepb.ChunkServiceClient, plain bool, total int64) error {
	stream, err := client.Get(context.Background(), &examplepb.GetRequest{Size: total})
	if err != nil {
		return err
	}
	recv := stream.Recv
	if !plain {
		recv = examplepb.NewChunkService_GetResponseReceiver(stream).Recv
	}
	var n int64
	for {
		c, err := recv()
		if err == io.EOF {
			if n != total {
				return fmt.Errorf("got %d bytes, want %d", n, total)
			}
			return nil
		}
		if err != nil {
			return err
		}
		n += int64(len(c.Data))
	}
}
