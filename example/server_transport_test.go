package example_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"google.golang.org/grpc"

	"github.com/grpcfast/grpcfast/example"
)

// Transport buffer sizes of the "bulk" transport that the tests and
// benchmarks also run on: gRPC batches outgoing frames in a write buffer,
// and reads the connection through a read buffer (both 32 KiB by default).
// They are transport settings, the same for either codec.
const (
	bulkWriteBufferSize = 128 << 10
	bulkReadBufferSize  = 64 << 10
)

func bulkServerOptions() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.WriteBufferSize(bulkWriteBufferSize),
		grpc.ReadBufferSize(bulkReadBufferSize),
	}
}

func bulkDialOptions() []grpc.DialOption {
	return []grpc.DialOption{
		grpc.WithWriteBufferSize(bulkWriteBufferSize),
		grpc.WithReadBufferSize(bulkReadBufferSize),
	}
}

// TestBulkOptions moves blobs through a server and a connection with larger
// transport buffers (bulkServerOptions, bulkDialOptions), on both paths.
// PutBlob and GetBlob check every blob's size and CRC-32C. The blobs are many
// times gRPC's initial flow-control window, the chunks range from smaller
// than a frame to larger than the transport buffers, and several streams
// share the connection at once.
func TestBulkOptions(t *testing.T) {
	ctx := context.Background()
	big := int64(4<<20 + 12345)
	if raceEnabled {
		big = 2<<20 + 12345
	}
	sizes := []int64{0, 1, 16384, 3*16384 + 7, big}
	chunks := []int{0, 1000, example.FrameChunkSize, bulkReadBufferSize + 1, example.MaxChunkSize}
	for _, path := range paths {
		t.Run(path, func(t *testing.T) {
			e := startEnv(t, path, bulkServerOptions(), bulkDialOptions())
			for _, size := range sizes {
				for _, chunk := range chunks {
					if err := example.PutBlob(ctx, e.chunk, size, chunk, e.opts...); err != nil {
						t.Errorf("PutBlob(%d, %d): %v", size, chunk, err)
					}
					if err := example.GetBlob(ctx, e.chunk, size, chunk, e.opts...); err != nil {
						t.Errorf("GetBlob(%d, %d): %v", size, chunk, err)
					}
				}
			}

			// Concurrent streams both ways on the one connection.
			var wg sync.WaitGroup
			errs := make(chan error, 8)
			for i := range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					size := big + int64(i)
					if err := example.PutBlob(ctx, e.chunk, size, example.DefaultChunkSize, e.opts...); err != nil {
						errs <- fmt.Errorf("concurrent PutBlob(%d): %w", size, err)
					}
				}()
				wg.Add(1)
				go func() {
					defer wg.Done()
					size := big - int64(i)
					if err := example.GetBlob(ctx, e.chunk, size, example.DefaultChunkSize, e.opts...); err != nil {
						errs <- fmt.Errorf("concurrent GetBlob(%d): %w", size, err)
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
		})
	}
}
