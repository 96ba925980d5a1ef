package codec

import (
	"errors"
	"fmt"
	"sync"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/protoadapt"

	"github.com/grpcfast/grpcfast/internal/own"
)

// vtMarshaler is the part of a vtprotobuf message that Marshal uses.
type vtMarshaler interface {
	SizeVT() int
	MarshalToSizedBufferVT(dAtA []byte) (int, error)
}

// Marshal returns the wire format of v. The result holds one buffer, or none
// when the encoding is empty; gRPC frees it once written. A value whose type
// has no generated decoder goes to c.Next, untouched. Generated messages are
// encoded by vtprotobuf, but for those that it would encode differently
// from protobuf-go: types with extension ranges (vtInfo), and messages
// that hold a -0.0 it would leave out (NegZeroHolder).
func (c *Codec) Marshal(v any) (mem.BufferSlice, error) {
	if _, ok := v.(generatedDecoder); !ok {
		return c.Next.Marshal(v)
	}
	if m, ok := v.(vtMarshaler); ok {
		if info := vtInfoOf(v); info.vtMarshals {
			if !info.negZero || !holdsNegZero(v) {
				out, err := c.marshalVT(m, info)
				if err != errVTPanicked {
					return out, err
				}
			}
		}
	}
	return c.marshalProto(v)
}

// errVTPanicked is marshalVT's error where vtprotobuf's SizeVT or
// MarshalToSizedBufferVT panicked: on a oneof set to a nil wrapper (var w
// *pb.T_Member; m.Choice = w), which protobuf-go encodes as an unset oneof,
// MarshalToSizedBufferVT dereferences it. Marshal then encodes the message
// with protobuf-go, which sends what gRPC's standard codec sends, and
// panics where it panics: a panic in a codec, under gRPC-Go, ends the
// process.
var errVTPanicked = errors.New("grpcfast: vtprotobuf's encoding panicked")

func (c *Codec) marshalVT(m vtMarshaler, info *vtInfo) (out mem.BufferSlice, err error) {
	// vtprotobuf's methods may panic where protobuf-go encodes
	// (errVTPanicked): what they leave in a pooled buffer goes back with
	// it. A panic of the UTF-8 check, after them, is the codec's own, and
	// goes on.
	var p *[]byte
	inVT := true
	defer func() {
		if inVT {
			if r := recover(); r != nil {
				if p != nil {
					c.putBuf(p)
				}
				out, err = nil, errVTPanicked
			}
		}
	}()
	size := m.SizeVT()
	if size == 0 {
		// An empty encoding is still checked: vtprotobuf's
		// MarshalToSizedBufferVT fails on a missing required field (proto2
		// required), as proto.Marshal does, and writes nothing here.
		return nil, marshalSized(m, nil)
	}
	plan := c.utf8Plan(info)
	if size <= c.Threshold {
		out, b := newPlainBuf(size)
		err := marshalSized(m, b)
		inVT = false
		if err == nil && plan != nil {
			err = plan.check(b)
		}
		if err != nil {
			return nil, err
		}
		return out, nil
	}
	p = c.getSendBuf(size)
	err = marshalSized(m, *p)
	inVT = false
	if err == nil && plan != nil {
		err = plan.check(*p)
	}
	if err != nil {
		c.putBuf(p)
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
		// An empty encoding is still checked, as proto.Marshal checks it:
		// a message without its required fields is not sent.
		_, err := opts.Marshal(vv)
		return nil, err
	}
	if size <= c.Threshold {
		b, err := opts.Marshal(vv)
		if err != nil {
			return nil, err
		}
		return mem.BufferSlice{mem.SliceBuffer(b)}, nil
	}
	p := c.getSendBuf(size)
	out, err := opts.MarshalAppend((*p)[:0], vv)
	if err != nil {
		c.putBuf(p)
		return nil, err
	}
	if len(out) != size || &out[0] != &(*p)[0] {
		c.putBuf(p)
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

// minPooledCap is the smallest capacity that mem.NewBuffer returns to its
// pool when freed: a buffer below gRPC's pooling threshold
// (mem.IsBelowBufferPoolingThreshold, 1 KiB in grpc-go v1.85) is wrapped in
// an unpooled SliceBuffer instead.
var minPooledCap = func() int {
	n := 1
	for mem.IsBelowBufferPoolingThreshold(n) {
		n *= 2
	}
	lo := n / 2 // below the threshold; n is not
	for lo+1 < n {
		mid := (lo + n) / 2
		if mem.IsBelowBufferPoolingThreshold(mid) {
			lo = mid
		} else {
			n = mid
		}
	}
	return n
}()

// getSendBuf takes a buffer of length size from the pool, with a capacity
// large enough for mem.NewBuffer to return it to the pool when it is freed.
func (c *Codec) getSendBuf(size int) *[]byte {
	p := c.Pool.Get(max(size, minPooledCap))
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

// wrap returns a BufferSlice holding p that returns p to c.Pool when freed.
func (c *Codec) wrap(p *[]byte) mem.BufferSlice {
	if mem.IsBelowBufferPoolingThreshold(cap(*p)) {
		// A pool that ignored the capacity request: gRPC will not return
		// this buffer to the pool, so there is nothing to recycle.
		return mem.BufferSlice{mem.SliceBuffer(*p)}
	}
	h := sendBufPool.Get().(*sendBuf)
	h.pool = c.Pool
	h.one[0] = mem.NewBuffer(p, h)
	return h.one[:]
}

// Get implements mem.BufferPool; mem never calls it.
func (h *sendBuf) Get(n int) *[]byte { return h.pool.Get(n) }

// Put is called by mem once the buffer's last reference is freed. In
// checked builds the bytes are poisoned, and the array is left holding a
// buffer of poison rather than nil, so that a read after the final Free
// shows 0xDEADBEEF instead of the next message's bytes.
func (h *sendBuf) Put(p *[]byte) {
	pool := h.pool
	h.pool = nil
	h.one[0] = nil
	if own.Checked {
		h.one[0] = freedSendBuf
	}
	if !own.Quarantine {
		sendBufPool.Put(h)
	}
	putBuf(pool, p)
}

// freedSendBuf is what a recycled sendBuf's array holds in checked builds.
var freedSendBuf = func() mem.Buffer {
	b := make([]byte, 64)
	own.PoisonBytes(b)
	return mem.SliceBuffer(b)
}()

// putBuf returns p to pool, poisoned first in checked builds; with the
// grpcfast_checked tag it is poisoned and dropped.
func putBuf(pool mem.BufferPool, p *[]byte) {
	own.PoisonBytes((*p)[:cap(*p)])
	if !own.Quarantine {
		pool.Put(p)
	}
}

// putBuf returns p to the codec's pool, poisoned first in checked builds.
func (c *Codec) putBuf(p *[]byte) { putBuf(c.Pool, p) }

// An unpooled small message is sent in a plainBuf: the bytes, the
// SliceBuffer that holds them and its one-element BufferSlice array in one
// allocation. A *mem.SliceBuffer is a mem.Buffer, and converting a pointer to
// an interface does not allocate, where converting the SliceBuffer itself
// would allocate its slice header. Every pointer in it points into itself, so
// it lives as long as gRPC holds the BufferSlice. Messages larger than its
// array (a pooling threshold raised above it) take a second allocation.
type plainBuf struct {
	one  [1]mem.Buffer
	data mem.SliceBuffer
	arr  [plainBufBytes]byte
}

// plainBufBytes makes a plainBuf 112 bytes, one of the runtime's size
// classes, and holds a message up to DefaultThreshold.
const plainBufBytes = 72

// newPlainBuf returns a BufferSlice of one unpooled buffer of length size
// and that buffer's bytes.
func newPlainBuf(size int) (mem.BufferSlice, []byte) {
	b := new(plainBuf)
	if size <= len(b.arr) {
		b.data = b.arr[:size:size]
	} else {
		b.data = make(mem.SliceBuffer, size)
	}
	b.one[0] = &b.data
	return b.one[:], b.data
}
