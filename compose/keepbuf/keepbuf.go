// Package keepbuf is a "proto" codec in the style of Cortex's and Mimir's
// (cortexpb): for messages whose decoded strings refer into the bytes they
// were decoded from, it keeps the receive buffer alive until the message is
// released; every other value goes to the codec registered before it.
//
// A codec registered later that replaced this one instead of handing it
// these messages would let gRPC free, and reuse for later calls, the buffer
// that a Sample's Label points into: silent corruption, not an error.
package keepbuf

import (
	"context"
	"errors"
	"unsafe"

	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
)

// Codec keeps the receive buffer of the messages that refer into it
// (BufferHolder) and hands everything else to Next.
type Codec struct {
	Next encoding.CodecV2
}

// Register registers a Codec in front of the codec registered under
// "proto", as cortexpb does at init.
func Register() {
	encoding.RegisterCodecV2(&Codec{Next: encoding.GetCodecV2("proto")})
}

// BufferHolder is a message that refers into the bytes it was decoded from.
type BufferHolder interface {
	HoldBuffer(mem.Buffer)
}

// Name returns "proto".
func (c *Codec) Name() string { return "proto" }

// Marshal hands v to Next.
func (c *Codec) Marshal(v any) (mem.BufferSlice, error) { return c.Next.Marshal(v) }

// Unmarshal decodes a BufferHolder from one buffer that it keeps alive for
// the message, and hands every other value to Next.
func (c *Codec) Unmarshal(data mem.BufferSlice, v any) error {
	h, ok := v.(BufferHolder)
	if !ok {
		return c.Next.Unmarshal(data, v)
	}
	buf := data.MaterializeToBuffer(mem.DefaultBufferPool())
	if err := c.Next.Unmarshal(mem.BufferSlice{buf}, v); err != nil {
		buf.Free()
		return err
	}
	h.HoldBuffer(buf)
	return nil
}

// Sample is a legacy (gogo-style) message: protobuf-go decodes it with its
// own Unmarshal method, which makes Label refer into the input instead of
// copying it, as cortexpb's yoloString does.
type Sample struct {
	Label string `protobuf:"bytes,1,opt,name=label,proto3" json:"label,omitempty"`
	buf   mem.Buffer
}

// Reset clears m.
func (m *Sample) Reset() { *m = Sample{} }

// String returns the label.
func (m *Sample) String() string { return m.Label }

// ProtoMessage marks Sample as a protobuf message.
func (*Sample) ProtoMessage() {}

// Marshal encodes m.
func (m *Sample) Marshal() ([]byte, error) {
	if m.Label == "" {
		return nil, nil
	}
	b := protowire.AppendTag(nil, 1, protowire.BytesType)
	return protowire.AppendString(b, m.Label), nil
}

// Unmarshal decodes b into m; Label refers into b.
func (m *Sample) Unmarshal(b []byte) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		if num == 1 && typ == protowire.BytesType {
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return protowire.ParseError(n)
			}
			if len(v) > 0 {
				m.Label = unsafe.String(&v[0], len(v))
			}
			b = b[n:]
			continue
		}
		n = protowire.ConsumeFieldValue(num, typ, b)
		if n < 0 {
			return errors.New("keepbuf: bad field")
		}
		b = b[n:]
	}
	return nil
}

// HoldBuffer keeps buf, which Label refers into, until Release.
func (m *Sample) HoldBuffer(buf mem.Buffer) { m.buf = buf }

// Release lets go of the buffer Label refers into: Label must not be used
// afterwards.
func (m *Sample) Release() {
	if m.buf != nil {
		m.buf.Free()
		m.buf = nil
	}
}

// SampleServer receives Samples.
type SampleServer interface {
	Put(*Sample) error
}

// RegisterSampleServer registers s as the service keepbuf.Samples, whose
// method Put takes a Sample and returns an empty Sample.
func RegisterSampleServer(r grpc.ServiceRegistrar, s SampleServer) {
	r.RegisterService(&grpc.ServiceDesc{
		ServiceName: "keepbuf.Samples",
		HandlerType: (*SampleServer)(nil),
		Methods: []grpc.MethodDesc{{
			MethodName: "Put",
			Handler: func(srv any, ctx context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
				in := new(Sample)
				if err := dec(in); err != nil {
					return nil, err
				}
				return new(Sample), srv.(SampleServer).Put(in)
			},
		}},
	}, s)
}

// PutSample calls keepbuf.Samples/Put on conn.
func PutSample(ctx context.Context, conn grpc.ClientConnInterface, s *Sample) error {
	return conn.Invoke(ctx, "/keepbuf.Samples/Put", s, new(Sample))
}
