package grpcfast

import (
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"

	// Captures gRPC's standard codec before a grpcfast codec can replace it:
	// the benchmark harness and the tests compare the two in one process.
	_ "github.com/grpcfast/grpcfast/internal/stdcodec"
)

// Name is the name of the codec, and the content-subtype it handles: "proto",
// the name of gRPC's standard codec, which it replaces.
const Name = "proto"

// defaultPoolingThreshold is the pooling threshold of a codec made without
// WithPoolingThreshold: a message of at most this many bytes is marshalled
// into a newly allocated slice, a larger one into a buffer from the pool.
// A pooled buffer costs about 70 ns whatever its size, an allocated one grows
// with its size and with the garbage collector's work; with a large heap
// they break even at about 64 bytes. BenchmarkThreshold measures it, and
// BENCHMARKS.md has the table it was chosen from.
const defaultPoolingThreshold = 64

// Codec is a gRPC encoding.CodecV2 for protobuf messages, registered under
// the name "proto" in place of gRPC's standard codec.
//
// Messages generated with vtprotobuf are encoded with their SizeVT and
// MarshalToSizedBufferVT methods into buffers from a pool that does not clear
// memory, and decoded with UnmarshalVT after a reset that keeps the capacity
// of their bytes, repeated and map fields. A message that arrives in several
// transport buffers is decoded piece by piece without first being gathered
// into one copy; a large bytes field that straddles two buffers is copied
// straight into the message.
//
// Other messages (well-known types, health checks, reflection, files that
// vtprotobuf cannot generate for) are encoded and decoded exactly as gRPC's
// standard codec does, with the protobuf-go runtime.
//
// A Codec is safe for concurrent use. The zero value is not usable; make one
// with NewCodec.
type Codec struct {
	pool      mem.BufferPool
	threshold int
}

var _ encoding.CodecV2 = (*Codec)(nil)

// Option configures a Codec made by NewCodec, Register, ServerOption or
// DialOption.
type Option func(*Codec)

// WithBufferPool makes the codec take its marshal buffers, and the scratch
// buffers it needs when decoding a message that arrived in pieces, from pool
// instead of DefaultBufferPool. The codec overwrites every byte it takes, so
// the pool need not clear memory. A nil pool leaves the default in place.
func WithBufferPool(pool mem.BufferPool) Option {
	return func(c *Codec) {
		if pool != nil {
			c.pool = pool
		}
	}
}

// WithPoolingThreshold sets the size in bytes up to which messages are
// marshalled into a newly allocated slice instead of a pooled buffer (64
// bytes when not set). Zero or less pools every non-empty message.
func WithPoolingThreshold(n int) Option {
	return func(c *Codec) {
		c.threshold = max(n, 0)
	}
}

// NewCodec returns a Codec configured by opts.
func NewCodec(opts ...Option) *Codec {
	c := &Codec{pool: defaultBufferPool, threshold: defaultPoolingThreshold}
	for _, o := range opts {
		o(c)
	}
	return c
}

// Name returns "proto".
func (c *Codec) Name() string { return Name }
