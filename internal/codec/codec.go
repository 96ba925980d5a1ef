// Package codec is the machinery of the grpcfast codec (grpcfast.Codec):
// encoding through vtprotobuf's methods into pooled buffers (marshal.go),
// and decoding, with the generated decoders in one pass or, for vtprotobuf
// types without one, with UnmarshalVT after a walk that checks what
// protobuf-go checks (unmarshal.go, unmarshalcopy.go, pieces.go, wire.go,
// wirepieces.go), what the codec knows per message type (info.go), the
// UTF-8 check of encoded strings (utf8.go) and the non-zeroing buffer pool
// (pool.go). docs/internals.md follows a received message through it.
package codec

import (
	"google.golang.org/grpc/mem"
)

// Codec encodes and decodes messages as grpcfast.Codec, which holds one,
// documents. Its fields are the codec's options.
type Codec struct {
	Pool      mem.BufferPool // marshal and scratch buffers (grpcfast.WithBufferPool)
	Threshold int            // the pooling threshold (grpcfast.WithPoolingThreshold)
	NoUTF8    bool           // grpcfast.WithoutUTF8Validation
}

// DefaultThreshold is the pooling threshold of a codec made without
// grpcfast.WithPoolingThreshold: a message of at most this many bytes is
// marshalled into a newly allocated slice, a larger one into a buffer from
// the pool. A pooled buffer costs the same whatever its size, an allocated
// one grows with its size and with the garbage collector's work;
// BenchmarkThreshold measures where they break even, and BENCHMARKS.md has
// the table the threshold was chosen from.
const DefaultThreshold = 64

// New returns a Codec with the default options.
func New() Codec { return Codec{Pool: DefaultPool, Threshold: DefaultThreshold} }

// utf8Plan returns the plan for checking the strings of a message of info's
// type, or nil if they are not to be checked.
func (c *Codec) utf8Plan(info *vtInfo) *utf8Plan {
	if c.NoUTF8 {
		return nil
	}
	return info.utf8
}
