package codec

import (
	"math"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/grpcfast/grpcfast/internal/fieldrule"
)

// Negative zero. vtprotobuf's encoding writes a float or double field
// without presence (proto3's, or editions' IMPLICIT) when it is != 0, and
// -0.0 == 0: it leaves out a -0.0 that protobuf-go writes (it tests the
// bits), and the peer reads +0.0. Marshal encodes a message that holds one,
// in itself or in any message it holds, with protobuf-go instead, so that
// it sends what gRPC's standard codec sends. Every other float is sent by
// vtprotobuf as protobuf-go sends it: a oneof member, an optional or
// repeated field, a map's value.

// NegZeroHolder is implemented by the generated messages whose type can
// hold such a -0.0, in a field of its own or in a message type reachable
// through its fields (a wrapper such as google.protobuf.DoubleValue too).
// GrpcfastNegZero reports whether the message holds one now; it is false
// for a nil message.
type NegZeroHolder interface {
	GrpcfastNegZero() bool
}

// holdsNegZero reports whether v, a generated message of a type that can
// hold a -0.0 that vtprotobuf would leave out (vtInfo.negZero), holds one.
// Code generated before GrpcfastNegZero has no such method, and is sent as
// vtprotobuf sends it.
func holdsNegZero(v any) bool {
	nz, ok := v.(NegZeroHolder)
	return ok && nz.GrpcfastNegZero()
}

// NegZero64 reports whether v is -0.0.
func NegZero64(v float64) bool { return math.Float64bits(v) == 1<<63 }

// NegZero32 reports whether v is -0.0.
func NegZero32(v float32) bool { return math.Float32bits(v) == 1<<31 }

// NegZeroOf is GrpcfastNegZero for a message of any type: m's own method
// where it has one, and otherwise a walk of its fields through
// protobuf-go's reflection (a message type that protoc-gen-go-grpcfast did
// not generate, and that vtprotobuf may have generated an encoding for).
// It is false for a nil message.
func NegZeroOf(m proto.Message) bool {
	if m == nil {
		return false
	}
	if h, ok := m.(NegZeroHolder); ok {
		return h.GrpcfastNegZero()
	}
	r := m.ProtoReflect()
	return r.IsValid() && negZeroReflect(r)
}

// negZeroReflect is NegZeroOf for a message that has no method of its own.
func negZeroReflect(m protoreflect.Message) bool {
	found := false
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsMap():
			if fd.MapValue().Message() != nil {
				v.Map().Range(func(_ protoreflect.MapKey, e protoreflect.Value) bool {
					found = NegZeroOf(e.Message().Interface())
					return !found
				})
			}
		case fd.IsList():
			if fd.Message() != nil {
				l := v.List()
				for i := 0; i < l.Len() && !found; i++ {
					found = NegZeroOf(l.Get(i).Message().Interface())
				}
			}
		case fd.Message() != nil:
			found = NegZeroOf(v.Message().Interface())
		case fieldrule.NegZeroField(fd):
			found = NegZero64(v.Float()) // a float's -0.0 converts to a double's
		}
		return !found
	})
	return found
}
