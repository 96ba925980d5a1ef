package grpcfast

import (
	"fmt"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/protoadapt"
)

// Name is the name of the codec, and the content-subtype it handles: "proto",
// the name of gRPC's standard codec, which it replaces.
const Name = "proto"

// DefaultPoolingThreshold is the pooling threshold of a codec made without
// WithPoolingThreshold: a message of at most this many bytes is marshalled
// into a newly allocated slice, a larger one into a buffer from the pool.
//
// It was chosen by measurement: BenchmarkThreshold in codec_bench_test.go,
// Marshal then Free of a kinds.Rich of the given size, one goroutine, 2-core
// AMD EPYC, Go 1.26, median ns/op of 8 runs. "Small heap" is the benchmark
// as is (the GC runs often, so allocation costs the most); "1 GiB heap" adds
// a 1 GiB live allocation, so that the GC runs rarely, as in a server with a
// large heap (allocation costs the least).
//
//	bytes   small heap        1 GiB heap
//	        plain  pooled     plain  pooled
//	   16     70     70         64     67
//	   64    113     69         71     69
//	  128    137     68         79     70
//	  256    192     70        115     70
//	  512    356     71        152     73
//	 1024    517     76        199     73
//	 2048    971     82        311     80
//
// A pooled buffer costs about 70 ns whatever its size (three sync.Pool round
// trips: the bytes, the BufferSlice holder and gRPC's buffer object), an
// allocated one grows with its size and with the GC's work. With a large
// heap they break even at about 64 bytes, and below that pooling would also
// tie up a buffer of more than 1 KiB (gRPC returns smaller buffers to no
// pool) for every small message in flight, so messages of up to 64 bytes are
// allocated. Plain allocation costs 2 allocations per message (the bytes and
// the BufferSlice holder); gRPC's codec takes 3.
const DefaultPoolingThreshold = 64

// Codec is a gRPC encoding.CodecV2 for protobuf messages, registered under
// the name "proto" in place of gRPC's standard codec.
//
// Messages generated with vtprotobuf are encoded with their SizeVT and
// MarshalToSizedBufferVT methods into buffers from a pool that does not clear
// memory, and decoded with UnmarshalVT after a reset that keeps the capacity of
// their fields (Resetter, else vtprotobuf's ResetVT, else Reset). A message
// that arrives in several transport buffers is decoded piece by piece without
// first being gathered into one copy; a large bytes field that straddles two
// buffers is copied straight into the message (BytesFielder).
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
// marshalled into a newly allocated slice instead of a pooled buffer
// (DefaultPoolingThreshold when not set). Zero or less pools every non-empty
// message.
func WithPoolingThreshold(n int) Option {
	return func(c *Codec) {
		c.threshold = max(n, 0)
	}
}

// NewCodec returns a Codec configured by opts.
func NewCodec(opts ...Option) *Codec {
	c := &Codec{pool: defaultBufferPool, threshold: DefaultPoolingThreshold}
	for _, o := range opts {
		o(c)
	}
	return c
}

// Name returns "proto".
func (c *Codec) Name() string { return Name }

var defaultCodec = NewCodec()

// Register registers NewCodec(opts...) with encoding.RegisterCodecV2 under
// the name "proto", replacing whatever codec is registered under that name
// (gRPC's standard codec, or a grpcfast codec registered before).
//
// Like encoding.RegisterCodecV2 it must only be called during initialization
// (from an init function or the start of main, before any client or server is
// created) and is not safe for concurrent use. To keep a codec with custom
// options from being replaced by the default one that generated code
// registers, call Register from an init function of the main package or of a
// package that imports the generated packages: RegisterDefault never
// replaces a grpcfast codec, whichever ran first.
func Register(opts ...Option) {
	encoding.RegisterCodecV2(NewCodec(opts...))
}

// RegisterDefault registers the default codec under the name "proto", unless
// a *Codec is registered under that name already. Code generated by
// protoc-gen-go-grpcfast calls it from init, so that a program that links a
// generated package uses the codec without further setup; it does not undo a
// Register with custom options that ran earlier. It is idempotent and cheap
// (one map lookup when a codec is registered already). Like Register, it is
// for initialization time only.
//
// A codec registered under "proto" that is not a *Codec (gRPC's standard
// codec, or any other) is replaced.
func RegisterDefault() {
	if _, ok := encoding.GetCodecV2(Name).(*Codec); ok {
		return
	}
	encoding.RegisterCodecV2(defaultCodec)
}

// ServerOption returns a grpc.ServerOption that makes a server use
// NewCodec(opts...) for every call, whatever codec is registered (it wraps
// grpc.ForceServerCodecV2).
//
// Prefer the process-wide registration (Register, or RegisterDefault, which
// generated code calls): forcing a codec sets a content-subtype, and grpc-go
// then builds the content-type string on every call, which costs 3
// allocations per unary call (measured with grpc-go v1.85.0). The
// registration under "proto" does not pay this.
func ServerOption(opts ...Option) grpc.ServerOption {
	return grpc.ForceServerCodecV2(NewCodec(opts...))
}

// DialOption returns a grpc.DialOption that makes a client use
// NewCodec(opts...) for every call on the connection, whatever codec is
// registered (grpc.WithDefaultCallOptions(grpc.ForceCodecV2(...))).
//
// Prefer the process-wide registration (Register, or RegisterDefault, which
// generated code calls): forcing a codec sets a content-subtype, and grpc-go
// then builds the content-type string on every call, which costs 3
// allocations per unary call (measured with grpc-go v1.85.0). The
// registration under "proto" does not pay this.
func DialOption(opts ...Option) grpc.DialOption {
	return grpc.WithDefaultCallOptions(grpc.ForceCodecV2(NewCodec(opts...)))
}

// vtMarshaler is the part of a vtprotobuf message that Marshal uses.
type vtMarshaler interface {
	SizeVT() int
	MarshalToSizedBufferVT(dAtA []byte) (int, error)
}

// Marshal returns the wire format of v. The result holds one buffer, or none
// when the encoding is empty; gRPC frees it once written.
func (c *Codec) Marshal(v any) (mem.BufferSlice, error) {
	if m, ok := v.(vtMarshaler); ok {
		return c.marshalVT(m)
	}
	return c.marshalProto(v)
}

func (c *Codec) marshalVT(m vtMarshaler) (mem.BufferSlice, error) {
	size := m.SizeVT()
	if size == 0 {
		return nil, nil
	}
	if size <= c.threshold {
		b := newPlainBuf(size)
		if err := marshalSized(m, b.data); err != nil {
			return nil, err
		}
		return b.one[:], nil
	}
	p := c.getSendBuf(size)
	if err := marshalSized(m, *p); err != nil {
		c.pool.Put(p)
		return nil, err
	}
	return c.wrap(p), nil
}

// marshalSized encodes m into b, whose length must be m.SizeVT().
// MarshalToSizedBufferVT writes backwards from the end of the slice it is
// given, so it must be given exactly the encoded size: a longer slice would
// leave garbage at the front, a shorter one would panic.
func marshalSized(m vtMarshaler, b []byte) error {
	n, err := m.MarshalToSizedBufferVT(b)
	if err != nil {
		return err
	}
	if n != len(b) {
		return fmt.Errorf("grpcfast: %T encoded %d bytes where SizeVT reported %d (was it modified during Marshal?)", m, n, len(b))
	}
	return nil
}

func (c *Codec) marshalProto(v any) (mem.BufferSlice, error) {
	vv := messageV2Of(v)
	if vv == nil {
		return nil, fmt.Errorf("proto: failed to marshal, message is %T, want proto.Message", v)
	}
	// As in gRPC's codec: UseCachedSize is safe because Size has just been
	// computed and the message is not modified concurrently.
	size := proto.Size(vv)
	opts := proto.MarshalOptions{UseCachedSize: true}
	if size == 0 {
		return nil, nil
	}
	if size <= c.threshold {
		b, err := opts.Marshal(vv)
		if err != nil {
			return nil, err
		}
		return mem.BufferSlice{mem.SliceBuffer(b)}, nil
	}
	p := c.getSendBuf(size)
	out, err := opts.MarshalAppend((*p)[:0], vv)
	if err != nil {
		c.pool.Put(p)
		return nil, err
	}
	if len(out) != size || &out[0] != &(*p)[0] {
		c.pool.Put(p)
		return nil, fmt.Errorf("grpcfast: %T encoded %d bytes where proto.Size reported %d (was it modified during Marshal?)", v, len(out), size)
	}
	return c.wrap(p), nil
}

func messageV2Of(v any) proto.Message {
	switch v := v.(type) {
	case protoadapt.MessageV1:
		return protoadapt.MessageV2Of(v)
	case protoadapt.MessageV2:
		return v
	}
	return nil
}

// minPooledCap is the smallest capacity that mem.NewBuffer pools: it wraps a
// buffer of at most mem's pooling threshold (1 KiB) in an unpooled
// SliceBuffer that never goes back to the pool.
const minPooledCap = 1025

// getSendBuf takes a buffer of length size from the pool, with a capacity
// large enough for mem.NewBuffer to return it to the pool when it is freed.
func (c *Codec) getSendBuf(size int) *[]byte {
	p := c.pool.Get(max(size, minPooledCap))
	*p = (*p)[:size]
	return p
}

// A BufferSlice of one buffer needs a one-element backing array, which would
// cost an allocation per message. sendBuf provides it from a sync.Pool
// instead: it holds the array, and it is also the mem.BufferPool that the
// buffer is created with, so that when gRPC frees the buffer (its reference
// count drops to zero), sendBuf.Put returns the bytes to the real pool, clears
// the array and returns the sendBuf itself to its pool.
//
// This is safe only if nothing reads the BufferSlice's elements after the
// final Free. What was checked in grpc-go v1.85.0:
//
//   - Every reader holds a reference while it reads elements: encode and
//     compress (rpc_util.go) and msgHeader read Len and the data before
//     SendMsg's deferred data.Free; SendMsg (clientStream, addrConnStream,
//     serverStream in stream.go; unary server responses go through
//     serverStream.SendMsg via Server.wrapUnaryHandler) reads Len, takes
//     payload.Ref() for the transport and binary logging materializes a copy
//     while its own reference is still held.
//   - The transports take their own reference in Write (http2_client.go,
//     http2_server.go: data.Ref() before controlBuf.put, Free on error;
//     handler_server.go: Ref, then the write closure reads the elements and
//     defers the Free). The loopy writer (controlbuf.go processData) moves the
//     data into a mem.Reader with Reset (Ref) and frees the frame's reference;
//     the Reader frees each buffer once consumed and then only reslices
//     (r.data = r.data[1:]) without reading elements; cleanupStreamHandler and
//     controlBuffer.finish free only frames not yet being processed.
//   - Retries: the replay closure captures the payload together with a
//     reference (payload.Ref() in clientStream.SendMsg) that is released only
//     by the replay buffer's cleanup, after which the closure is dropped.
//   - PreparedMsg.Encode materializes the data and frees it at once.
//   - Stats handlers get the message and lengths, never the BufferSlice.
//
// So every element access happens while a reference is held, and the last
// Free is the last access. Appends to the slice (none were found) could not
// write into the array either: its capacity is 1. Reading an element after
// the final Free would be a use-after-free in gRPC with any codec, since mem
// recycles its buffer objects as well. A reference that gRPC never frees
// (for example a frame queued for a stream the loopy writer has already
// cleaned up, controlbuf.go preprocessData) only means that the buffer and
// its sendBuf are garbage collected instead of reused.
type sendBuf struct {
	pool mem.BufferPool
	one  [1]mem.Buffer
}

var sendBufPool = sync.Pool{New: func() any { return new(sendBuf) }}

// wrap returns a BufferSlice holding p that returns p to c.pool when freed.
func (c *Codec) wrap(p *[]byte) mem.BufferSlice {
	if mem.IsBelowBufferPoolingThreshold(cap(*p)) {
		// A pool that ignored the capacity request: gRPC will not return
		// this buffer to the pool, so there is nothing to recycle.
		return mem.BufferSlice{mem.SliceBuffer(*p)}
	}
	h := sendBufPool.Get().(*sendBuf)
	h.pool = c.pool
	h.one[0] = mem.NewBuffer(p, h)
	return h.one[:]
}

// Get implements mem.BufferPool; mem never calls it.
func (h *sendBuf) Get(n int) *[]byte { return h.pool.Get(n) }

// Put is called by mem once the buffer's last reference is freed.
func (h *sendBuf) Put(p *[]byte) {
	pool := h.pool
	h.pool = nil
	h.one[0] = nil
	sendBufPool.Put(h)
	pool.Put(p)
}

// plainBuf is an unpooled small message and its one-element BufferSlice
// array in a single allocation (plus the bytes): a *mem.SliceBuffer is a
// mem.Buffer, and converting a pointer to an interface does not allocate,
// where converting the SliceBuffer itself would allocate its slice header.
type plainBuf struct {
	data mem.SliceBuffer
	one  [1]mem.Buffer
}

func newPlainBuf(size int) *plainBuf {
	b := &plainBuf{data: make(mem.SliceBuffer, size)}
	b.one[0] = &b.data
	return b
}
