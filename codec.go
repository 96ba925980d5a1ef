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
// the name of gRPC's standard codec, in front of which it registers.
const Name = "proto"

// Codec is a gRPC encoding.CodecV2 for protobuf messages, registered under
// the name "proto" in front of the codec registered there before.
//
// It encodes and decodes the messages whose types protoc-gen-go-grpcfast
// generated a decoder for: every message of the files it generated for, but
// map entries and messages with groups, extension ranges or weak fields. It
// encodes them with vtprotobuf's SizeVT and MarshalToSizedBufferVT methods
// (protobuf-go where a file has none) into buffers from a pool that does not
// clear memory, and decodes them with the generated decoder, in one pass
// that checks what protobuf-go checks. A message that arrives in several
// transport buffers is decoded piece by piece without first being gathered
// into one copy; a large bytes field that straddles two buffers is copied
// straight into the message.
//
// Every other value (well-known types, health checks, reflection, messages
// that only have vtprotobuf's methods, and the types of other libraries'
// codecs, such as the OpenTelemetry Collector's pdata) goes, untouched, to
// the codec that was registered under "proto" when the Codec was made: gRPC's
// standard codec, unless a library linked into the program registered its
// own (docs/codecs.md). So a program may link libraries that register
// "proto" codecs of their own, in any order of initialisation: each keeps
// its types.
//
// The codec sends, accepts and rejects what gRPC's standard codec does
// where vtprotobuf's methods alone would not: it checks required fields and
// (unless WithoutUTF8Validation) the UTF-8 of strings that require it, and
// uses protobuf-go for what vtprotobuf encodes wrongly: the types that reach
// extension ranges, a message that holds a float or double -0.0 in a field
// without presence, and one whose encoding makes vtprotobuf panic (a oneof
// set to a nil wrapper). docs/differences.md ("Differences from gRPC's
// standard codec") lists what remains.
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
// always checks. So are those that the codec encodes with protobuf-go where
// vtprotobuf's encoding would differ: messages of types with extension
// ranges, and messages that hold a float or double -0.0 in a field without
// presence, which vtprotobuf would leave out (docs/differences.md); one that
// also holds invalid UTF-8 fails to encode.
func WithoutUTF8Validation() Option {
	return func(c *Codec) {
		c.c.NoUTF8 = true
	}
}

// NewCodec returns a Codec configured by opts. It hands the values it does
// not encode and decode itself to the codec that gRPC uses for "proto" now:
// gRPC's standard codec, or a library's codec registered in its place (a
// codec registered with encoding.RegisterCodec, such as vtprotobuf's, comes
// first: gRPC prefers it to every CodecV2). Where that is a grpcfast Codec, NewCodec hands
// them to what that one hands them to, so grpcfast codecs never stack.
func NewCodec(opts ...Option) *Codec { return newCodec(registered(), opts...) }

// registered returns the codec that gRPC uses for "proto" now: a codec
// registered with encoding.RegisterCodec (a V1 codec, such as vtprotobuf's
// codec/grpc) takes precedence over every CodecV2 of its name.
func registered() encoding.CodecV2 {
	if v1 := encoding.GetCodec(Name); v1 != nil {
		return codec.V1(v1)
	}
	return encoding.GetCodecV2(Name)
}

// newCodec returns a Codec configured by opts that hands other values to
// prev, or to what prev hands them to if prev is a grpcfast Codec (gRPC's
// standard codec if prev is nil).
func newCodec(prev encoding.CodecV2, opts ...Option) *Codec {
	c := &Codec{c: codec.New()}
	if g, ok := prev.(*Codec); ok {
		prev = g.c.Next
	}
	if prev != nil {
		c.c.Next = prev
	}
	for _, o := range opts {
		o(c)
	}
	return c
}

// Name returns "proto".
func (c *Codec) Name() string { return Name }

// Marshal returns the wire format of v, in one buffer (none when the
// encoding is empty), which gRPC frees once written. A value whose type has
// no generated decoder is handed to the codec NewCodec found.
func (c *Codec) Marshal(v any) (mem.BufferSlice, error) { return c.c.Marshal(v) }

// Unmarshal decodes data into v, which it first resets as gRPC's standard
// codec does: a slice, map or nested message that v held is dropped, never
// written into. Only a message that a Receiver, a Responses or a pooled
// handler prepared, keeping memory that an earlier decode of a grpcfast
// codec allocated, is decoded into without a reset (docs/receivers.md). A
// value whose type has no generated decoder is handed to the codec
// NewCodec found.
func (c *Codec) Unmarshal(data mem.BufferSlice, v any) error { return c.c.Unmarshal(data, v) }
