package example_test

import (
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"google.golang.org/grpc"

	"github.com/grpcfast/grpcfast/example"
	"github.com/grpcfast/grpcfast/example/examplepb"
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
		recv = examplepb.NewChunkServicePutRequestReceiver(stream).Recv
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
func BenchmarkTransfer(b *testing.B) {
	chunk := &examplepb.Chunk{Data: make([]byte, chunkSize)}
	example.FillPattern(chunk.Data, 0)
	sopts, dopts := transportOptions("bulk")
	for _, op := range []string{"put", "get"} {
		for _, path := range paths {
			b.Run(fmt.Sprintf("op=%s/path=%s", op, path), func(b *testing.B) {
				ps, pd, _ := pathOptions(path)
				srv := grpc.NewServer(append(ps, sopts...)...)
				plain := path == "std"
				examplepb.RegisterChunkServiceServer(srv, &transferServer{plain: plain, chunk: chunk})
				client := examplepb.NewChunkServiceClient(serve(b, srv, append(pd, dopts...)...))
				run := func() error {
					if op == "put" {
						return transferPut(client, chunk)
					}
					return transferGet(client, plain)
				}
				if err := run(); err != nil {
					b.Fatal(err)
				}
				b.SetBytes(blobSize)
				b.ReportAllocs()
				b.ResetTimer()
				cpu := example.ProcessCPUTime()
				for b.Loop() {
					if err := run(); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(example.ProcessCPUTime()-cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
			})
		}
	}
}

func transferPut(client examplepb.ChunkServiceClient, chunk *examplepb.Chunk) error {
	stream, err := client.Put(context.Background())
	if err != nil {
		return err
	}
	for sent := 0; sent < blobSize; sent += len(chunk.Data) {
		if err := stream.Send(chunk); err != nil {
			return err
		}
	}
	resp, err := stream.CloseAndRecv()
	if err == nil && resp.Size != blobSize {
		err = fmt.Errorf("server got %d bytes, want %d", resp.Size, blobSize)
	}
	return err
}

func transferGet(client examplepb.ChunkServiceClient, plain bool) error {
	stream, err := client.Get(context.Background(), &examplepb.GetRequest{Size: blobSize})
	if err != nil {
		return err
	}
	recv := stream.Recv
	if !plain {
		recv = examplepb.NewChunkServiceGetResponseReceiver(stream).Recv
	}
	var n int64
	for {
		c, err := recv()
		if err == io.EOF {
			if n != blobSize {
				return fmt.Errorf("got %d bytes, want %d", n, blobSize)
			}
			return nil
		}
		if err != nil {
			return err
		}
		n += int64(len(c.Data))
	}
}
