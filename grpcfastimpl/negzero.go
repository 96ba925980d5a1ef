package grpcfastimpl

import (
	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast/internal/codec"
)

// NegZeroHolder is implemented by the generated messages whose type can
// hold a float or double -0.0 in a field without presence, in a field of
// its own or in a message type reachable through its fields: vtprotobuf's
// encoding leaves such a -0.0 out, so the codec encodes a message that
// holds one with protobuf-go, as gRPC's standard codec does.
// GrpcfastNegZero reports whether the message holds one now.
type NegZeroHolder = codec.NegZeroHolder

// NegZero64 reports whether v is -0.0.
func NegZero64(v float64) bool { return codec.NegZero64(v) }

// NegZero32 reports whether v is -0.0.
func NegZero32(v float32) bool { return codec.NegZero32(v) }

// NegZeroOf reports whether m holds such a -0.0: m's GrpcfastNegZero, or,
// for a message type generated without it (another package's), a walk of
// its fields through protobuf-go's reflection. It is false for a nil
// message, a typed nil pointer too.
func NegZeroOf(m proto.Message) bool { return codec.NegZeroOf(m) }
