package grpcfasttest

// Message slots prepared as pooled handlers and receivers prepare theirs,
// for the tests of what the codec decodes into them.

import (
	"google.golang.org/grpc/mem"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/internal/codec"
	"github.com/grpcfast/grpcfast/internal/reuse"
)

// DefaultPoolingThreshold is the pooling threshold of a codec made without
// WithPoolingThreshold, for the tests' message sizes.
const DefaultPoolingThreshold = codec.DefaultThreshold

// UnmarshalCopy decodes data with c into a new *M, prepared as a pooled
// handler with WithStringsInOneCopy prepares its request, and hands it over
// as a handler's KeepRequest does. It reports whether the codec decoded it
// into one owned copy.
func UnmarshalCopy[M any](c *grpcfast.Codec, data mem.BufferSlice) (m *M, copied bool, err error) {
	s := reuse.New[M]()
	s.Prepare()
	s.PrepareCopy()
	err = c.Unmarshal(data, s.Msg)
	if o, ok := any(s.Msg).(reuse.Owner); ok && err == nil {
		_, copied = reuse.TakeDecoded(o.GrpcfastUnknownFields())
	}
	s.Detach()
	return s.Msg, copied, err
}

// CopySlot is a message slot prepared as a pooled handler with
// WithStringsInOneCopy prepares it (or, made by NewPlainSlot, without it):
// a type with a generated decoder is decoded by it, with the spares of the
// slot's last reset.
type CopySlot[M any] struct {
	s     *reuse.Slot[M]
	plain bool
}

// NewCopySlot returns a new, prepared CopySlot.
func NewCopySlot[M any]() *CopySlot[M] {
	s := &CopySlot[M]{s: reuse.New[M]()}
	s.Reset()
	return s
}

// NewPlainSlot returns a new slot prepared as a pooled handler without the
// owned copy, or a receiver, prepares it.
func NewPlainSlot[M any]() *CopySlot[M] {
	s := &CopySlot[M]{s: reuse.New[M](), plain: true}
	s.Reset()
	return s
}

// Msg returns the slot's message.
func (s *CopySlot[M]) Msg() *M { return s.s.Msg }

// Decode decodes data into the slot's message with c, and reports whether
// the generated decoder decoded it.
func (s *CopySlot[M]) Decode(c *grpcfast.Codec, data mem.BufferSlice) (generated bool, err error) {
	err = c.Unmarshal(data, s.s.Msg)
	generated = err == nil && s.s.Generated()
	s.s.Settle(err)
	return generated, err
}

// Held returns how many nested messages and oneof wrappers the slot holds
// for its next decodes, beside its message.
func (s *CopySlot[M]) Held() int { return s.s.Held() }

// Reset prepares the slot for the next decode, as a pooled handler does
// when its call ends and the next call takes the slot: prepared, poisoned
// in checked builds and cleared again (reuse.Slots' Put and Get), so that
// every decode into a reused slot in the tests also checks that nothing
// of the poison reaches it.
func (s *CopySlot[M]) Reset() {
	s.s.Prepare()
	s.s.Poison()
	s.s.Unpoison()
	if !s.plain {
		s.s.PrepareCopy()
	}
}
