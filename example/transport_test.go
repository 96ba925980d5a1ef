package example_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/grpcfast/grpcfast/example"
)

// TestBulkOptions moves blobs through a server made with
// example.BulkServerOptions and a connection made with
// example.BulkDialOptions, on both paths. PutBlob and GetBlob check every
// blob's size and CRC-32C, so this also checks that the transport's
// non-clearing buffer pool never hands out stale bytes. The blobs are many
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
	chunks := []int{0, 1000, example.FrameChunkSize, example.BulkReadBufferSize + 1, example.MaxChunkSize}
	for _, path := range paths {
		t.Run(path, func(t *testing.T) {
			e := startEnv(t, path, example.BulkServerOptions(), example.BulkDialOptions())
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
				wg.Go(func() {
					size := big + int64(i)
					if err := example.PutBlob(ctx, e.chunk, size, example.DefaultChunkSize, e.opts...); err != nil {
						errs <- fmt.Errorf("concurrent PutBlob(%d): %w", size, err)
					}
				})
				wg.Go(func() {
					size := big - int64(i)
					if err := example.GetBlob(ctx, e.chunk, size, example.DefaultChunkSize, e.opts...); err != nil {
						errs <- fmt.Errorf("concurrent GetBlob(%d): %w", size, err)
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
		})
	}
}

// TestBulkOptionsFresh checks that BulkServerOptions and BulkDialOptions
// return a new slice on every call, so that appending to one result cannot
// change another.
func TestBulkOptionsFresh(t *testing.T) {
	s1, s2 := example.BulkServerOptions(), example.BulkServerOptions()
	if len(s1) == 0 || &s1[0] == &s2[0] {
		t.Error("BulkServerOptions returned an empty or shared slice")
	}
	d1, d2 := example.BulkDialOptions(), example.BulkDialOptions()
	if len(d1) == 0 || &d1[0] == &d2[0] {
		t.Error("BulkDialOptions returned an empty or shared slice")
	}
}
