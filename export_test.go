package grpcfast

import (
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"

	"github.com/grpcfast/grpcfast/internal/codec"
	"github.com/grpcfast/grpcfast/internal/reuse"
)

// DefaultPoolingThreshold is the pooling threshold of a codec made without
// WithPoolingThreshold, for the tests' message sizes.
const DefaultPoolingThreshold = codec.DefaultThreshold

// NewCodecOver returns NewCodec(opts...) as if prev were the codec
// registered under "proto".
func NewCodecOver(prev encoding.CodecV2, opts ...Option) *Codec { return newCodec(prev, opts...) }

// NextOf returns the codec that c hands the values it does not keep to.
func NextOf(c *Codec) encoding.CodecV2 { return c.c.Next }

// UnmarshalCopy decodes data with c into a new *M, prepared as a pooled
// handler with WithStringsInOneCopy prepares its request, and hands it over
// as a handler's KeepRequest does. It reports whether the codec decoded it
// into one owned copy.
func UnmarshalCopy[M any](c *Codec, data mem.BufferSlice) (m *M, copied bool, err error) {
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
func (s *CopySlot[M]) Decode(c *Codec, data mem.BufferSlice) (generated bool, err error) {
	err = c.Unmarshal(data, s.s.Msg)
	generated = err == nil && s.s.Generated()
	s.s.Settle(err)
	return generated, err
}

// Reset prepares the slot for the next decode, as a pooled handler does
// when its call ends.
func (s *CopySlot[M]) Reset() {
	s.s.Prepare()
	if !s.plain {
		s.s.PrepareCopy()
	}
}

// ResponsesCopy reports whether r decodes into one owned copy.
func ResponsesCopy[M any](r *Responses[M]) bool { return r.copy }
