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
// A pooled buffer costs the same whatever its size, an allocated one grows
// with its size and with the garbage collector's work; BenchmarkThreshold
// measures where they break even, and BENCHMARKS.md has the table the
// threshold was chosen from.
const defaultPoolingThreshold = 64

// Codec is a gRPC encoding.CodecV2 for protobuf messages, registered under
// the name "proto" in place of gRPC's standard codec.
//
// Messages generated with vtprotobuf are encoded with their SizeVT and
// MarshalToSizedBufferVT methods into buffers from a pool that does not clear
// memory. Messages that protoc-gen-go-grpcfast generated a decoder for are
// decoded by it, in one pass that checks what protobuf-go checks; other
// vtprotobuf messages with UnmarshalVT after a walk that checks the same. A
// message that arrives in several transport buffers is decoded piece by
// piece without first being gathered into one copy; a large bytes field
// that straddles two buffers is copied straight into the message.
//
// Other messages (well-known types, health checks, reflection, files that
// vtprotobuf cannot generate for) are encoded and decoded exactly as gRPC's
// standard codec does, with the protobuf-go runtime.
//
// The codec sends, accepts and rejects what gRPC's standard codec does where
// vtprotobuf's methods alone would not: it checks required fields and (unless
// WithoutUTF8Validation) the UTF-8 of strings that require it, and uses
// protobuf-go for the types vtprotobuf encodes or decodes wrongly (extension
// ranges, groups). docs/differences.md ("Differences from gRPC's standard codec")
// lists what remains.
//
// A Codec is safe for concurrent use. The zero value is not usable; make one
// with NewCodec.
type Codec struct {
	pool      mem.BufferPool
	threshold int
	noUTF8    bool // WithoutUTF8Validation
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

// utf8Plan returns the plan for checking the strings of a message of info's
// type, or nil if they are not to be checked.
func (c *Codec) utf8Plan(info *vtInfo) *utf8Plan {
	if c.noUTF8 {
		return nil
	}
	return info.utf8
}

// WithoutUTF8Validation turns off the codec's check that string fields hold
// valid UTF-8 where the protobuf language requires it (proto3 string
// fields, and editions string fields with utf8_validation = VERIFY, the
// default), for messages with vtprotobuf methods.
//
// By default the codec does what gRPC's standard codec does: Marshal fails
// on a message with such a string that is not valid UTF-8, and Unmarshal
// rejects one, wherever it is in the message (repeated fields, map keys and
// values, oneofs, nested messages). vtprotobuf's generated code does not
// check, so the codec scans the encoding of every message whose type can
// hold such strings, before decoding it and after encoding it. With this
// option it does not: invalid UTF-8 is sent and accepted as it is, as
// vtprotobuf's own methods do, and a peer that uses gRPC's standard codec
// rejects it. Messages without vtprotobuf methods are unaffected: protobuf-go
// always checks.
func WithoutUTF8Validation() Option {
	return func(c *Codec) {
		c.noUTF8 = true
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
