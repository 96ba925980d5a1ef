package grpcfast

import (
	"google.golang.org/grpc/mem"

	"github.com/grpcfast/grpcfast/internal/codec"
)

// NewBufferPool returns a mem.BufferPool with fine size classes (eight per
// power of two, from 256 bytes to 64 MiB) that does not clear memory.
//
// Get(n) returns a buffer of length n whose contents are whatever the previous
// user left there: unlike mem.DefaultBufferPool, it does not zero the buffer.
// This is what a marshaller wants, because it overwrites every byte it
// returns, and it is why the grpcfast codec is faster than gRPC's default
// codec on large messages. Use it only where every byte handed out is written
// before it is read.
//
// Requests above 64 MiB are allocated and not pooled. Put accepts any buffer:
// one whose capacity is not a class size goes to the largest class not above
// its capacity; one smaller than 256 bytes or larger than 64 MiB is dropped.
//
// The codec uses the pool returned by DefaultBufferPool unless given another
// with WithBufferPool. Note that gRPC wraps a buffer of at most 1 KiB capacity
// in an unpooled mem.SliceBuffer (mem.IsBelowBufferPoolingThreshold), so only
// buffers above 1 KiB ever come back to a pool through mem.Buffer.Free.
func NewBufferPool() mem.BufferPool { return codec.NewBufferPool() }

// DefaultBufferPool returns the pool that codecs use unless given another
// with WithBufferPool: a pool made by NewBufferPool and shared by the whole
// process.
func DefaultBufferPool() mem.BufferPool { return codec.DefaultPool }
