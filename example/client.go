package example

import (
	"context"
	"fmt"
	"io"

	"github.com/grpcfast/grpcfast/example/examplepb"
)

// PutBlob uploads size bytes of the example blob (fillPattern) to
// ChunkService.Put in chunks of chunkSize bytes (DefaultChunkSize if 0), and
// checks the size and CRC-32C that the server answers with.
//
// Unless given WithFreshSends it sends every chunk from one reused Chunk:
// see WithFreshSends for when that is unsafe.
func PutBlob(ctx context.Context, client examplepb.ChunkServiceClient, size int64, chunkSize int, opts ...Option) error {
	o := newOptions(opts)
	if size < 0 || chunkSize < 0 {
		return fmt.Errorf("example: size %d and chunk size %d must not be negative", size, chunkSize)
	}
	if chunkSize == 0 {
		chunkSize = DefaultChunkSize
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the call if we return early
	stream, err := client.Put(ctx)
	if err != nil {
		return err
	}
	if err := sendBlob(size, chunkSize, o.freshSends, stream.Send); err != nil {
		if err == io.EOF {
			// The server ended the call; CloseAndRecv has its status.
			_, err = stream.CloseAndRecv()
		}
		return fmt.Errorf("example: put: %w", err)
	}
	resp, err := stream.CloseAndRecv()
	if err != nil {
		return fmt.Errorf("example: put: %w", err)
	}
	if want := patternChecksum(size); resp.GetSize() != size || resp.GetCrc32C() != want {
		return fmt.Errorf("example: put %d bytes (crc32c %08x); the server received %d (crc32c %08x)",
			size, want, resp.GetSize(), resp.GetCrc32C())
	}
	return nil
}

// GetBlob downloads size bytes from ChunkService.Get in chunks of chunkSize
// bytes (0 lets the server choose DefaultChunkSize), receiving with the
// generated helper examplepb.NewChunkService_GetResponseReceiver, and checks
// every chunk's length and the blob's size and CRC-32C against the example
// blob.
func GetBlob(ctx context.Context, client examplepb.ChunkServiceClient, size int64, chunkSize int, opts ...Option) error {
	o := newOptions(opts)
	if size < 0 || chunkSize < 0 {
		return fmt.Errorf("example: size %d and chunk size %d must not be negative", size, chunkSize)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the call if we return before the server is done
	stream, err := client.Get(ctx, &examplepb.GetRequest{Size: size, ChunkSize: int32(chunkSize)})
	if err != nil {
		return err
	}
	if chunkSize == 0 {
		chunkSize = DefaultChunkSize
	}
	var sum blobSum
	check := func(c *examplepb.Chunk) error {
		if sum.size >= size {
			return fmt.Errorf("example: get: a chunk of %d bytes after the whole blob (%d bytes)", len(c.Data), size)
		}
		if want := min(int64(chunkSize), size-sum.size); int64(len(c.Data)) != want {
			return fmt.Errorf("example: get: chunk at offset %d has %d bytes, want %d", sum.size, len(c.Data), want)
		}
		sum.add(c.Data)
		return nil
	}
	if o.standardRecv {
		for {
			c, err := stream.Recv()
			if err == io.EOF {
				break
			}
			if err != nil {
				return fmt.Errorf("example: get: %w", err)
			}
			if err := check(c); err != nil {
				return err
			}
		}
	} else {
		r := examplepb.NewChunkService_GetResponseReceiver(stream)
		defer r.Release() // the last message is not used after the stream
		for c, err := range r.All() {
			if err != nil {
				return fmt.Errorf("example: get: %w", err)
			}
			if err := check(c); err != nil {
				return err
			}
		}
	}
	if want := patternChecksum(size); sum.size != size || sum.crc != want {
		return fmt.Errorf("example: get: received %d bytes (crc32c %08x), want %d (crc32c %08x)",
			sum.size, sum.crc, size, want)
	}
	return nil
}
