// Package codec is the machinery of the grpcfast codec (grpcfast.Codec):
// which values it keeps and which it hands to the codec registered before
// it (Codec.Next), encoding through vtprotobuf's methods into pooled buffers
// (marshal.go), decoding with the generated decoders in one pass, whole or
// in runs of the transport's buffers (unmarshal.go; unmarshalfresh.go into a
// new message, unmarshalcopy.go into the owned copy; pieces.go), the owned
// copies of pooled requests (copies.go), what the codec knows per message
// type (info.go), the UTF-8 check of encoded strings (utf8.go) and the
// non-zeroing buffer pool (pool.go). docs/internals.md follows a received
// message through it.
package codec

import (
	"sync/atomic"

	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"

	"github.com/grpcfast/grpcfast/internal/stdcodec"
)

// Codec encodes and decodes messages as grpcfast.Codec, which holds one,
// documents.
//
// It keeps the values whose types protoc-gen-go-grpcfast generated a
// decoder for (decode.Decoder, GrpcfastDecode) and hands every other value,
// untouched, to Next: the codec that was registered under "proto" before
// it, gRPC's standard codec when no library registered one of its own.
type Codec struct {
	Pool      mem.BufferPool   // marshal and scratch buffers (grpcfast.WithBufferPool)
	Threshold int              // the pooling threshold (grpcfast.WithPoolingThreshold)
	NoUTF8    bool             // grpcfast.WithoutUTF8Validation
	Next      encoding.CodecV2 // the codec for every other value; never nil
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
// Next is gRPC's standard codec until the caller sets another.
func New() Codec {
	return Codec{Pool: DefaultPool, Threshold: DefaultThreshold, Next: stdcodec.Codec()}
}

// utf8Plan returns the plan for checking the strings of a message of info's
// type, or nil if they are not to be checked.
func (c *Codec) utf8Plan(info *vtInfo) *utf8Plan {
	if c.NoUTF8 {
		return nil
	}
	return info.utf8
}

// registered is set once a grpcfast codec has been registered under "proto"
// in this process (grpcfast.Register, which the generated init calls).
var registered atomic.Bool

// SetRegistered records that a grpcfast codec has been registered under
// "proto" in this process.
func SetRegistered() { registered.Store(true) }

// Registered reports whether a grpcfast codec has been registered under
// "proto" in this process: the generated init then registers none, wherever
// that codec stands now (behind a library's codec that wraps it, or replaced).
func Registered() bool { return registered.Load() }
