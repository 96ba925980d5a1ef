package grpcfast

import (
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"

	"github.com/grpcfast/grpcfast/internal/codec"
	// Captures gRPC's standard codec before a grpcfast codec can replace it:
	// the benchmark harness and the tests compare the two in one process.
	_ "github.com/grpcfast/grpcfast/internal/stdcodec"
)

// Name is the name of the codec, and the content-subtype it handles: "proto",
// the name of gRPC's standard codec, which it replaces.
const Name = "proto"

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
	c codec.Codec // the machinery, internal/codec
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
			c.c.Pool = pool
		}
	}
}

// WithPoolingThreshold sets the size in bytes up to which messages are
// marshalled into a newly allocated slice instead of a pooled buffer (64
// bytes when not set). Zero or less pools every non-empty message.
func WithPoolingThreshold(n int) Option {
	return func(c *Codec) {
		c.c.Threshold = max(n, 0)
	}
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
		c.c.NoUTF8 = true
	}
}

// NewCodec returns a Codec configured by opts.
func NewCodec(opts ...Option) *Codec {
	c := &Codec{c: codec.New()}
	for _, o := range opts {
		o(c)
	}
	return c
}

// Name returns "proto".
func (c *Codec) Name() string { return Name }

// Marshal returns the wire format of v, in one buffer (none when the
// encoding is empty), which gRPC frees once written.
func (c *Codec) Marshal(v any) (mem.BufferSlice, error) { return c.c.Marshal(v) }

// Unmarshal decodes data into v, which it first resets as gRPC's standard
// codec does: a slice, map or nested message that v held is dropped, never
// written into. Only a message that a Receiver, a Responses or a pooled
// handler prepared, keeping memory that an earlier decode of a grpcfast
// codec allocated, is decoded into without a reset (docs/receivers.md).
func (c *Codec) Unmarshal(data mem.BufferSlice, v any) error { return c.c.Unmarshal(data, v) }
