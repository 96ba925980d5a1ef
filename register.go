package grpcfast

import (
	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/grpclog"

	"github.com/grpcfast/grpcfast/internal/codec"
)

// Register registers NewCodec(opts...) with encoding.RegisterCodecV2 under
// the name "proto", in front of the codec registered there: the new codec
// encodes and decodes the types protoc-gen-go-grpcfast generated decoders
// for and hands every other value to that codec, whether it is gRPC's
// standard codec or a library's (docs/codecs.md). A grpcfast codec
// registered there before (by a generated package or an earlier Register)
// is replaced rather than wrapped: the new one hands other values to what
// that one handed them to.
//
// Generated code already registers a codec with the default options when its
// package is initialised, unless a grpcfast codec has been registered before
// in the process; call Register only to change the options. Like
// encoding.RegisterCodecV2 it must only be called during initialization (from
// an init function or the start of main, before any client or server is
// created) and is not safe for concurrent use. A Register in an init
// function or in main is never undone by a generated package, whichever is
// initialised first.
//
// gRPC prefers a codec registered with encoding.RegisterCodec (a V1 codec,
// such as vtprotobuf's codec/grpc) to every CodecV2 of the same name: while
// one is registered under "proto", Register logs a warning, and grpcfast's
// codec is in effect only where ServerOption or DialOption force it.
func Register(opts ...Option) {
	c := NewCodec(opts...)
	encoding.RegisterCodecV2(c)
	codec.SetRegistered()
	if v1 := encoding.GetCodec(Name); v1 != nil {
		grpclog.Warningf("grpcfast: a V1 codec (%T) is registered under %q, and gRPC uses it in place of grpcfast's: "+
			"unregister it (grpcfast hands it nothing it could not decode itself) or force grpcfast's with grpcfast.ServerOption and grpcfast.DialOption", v1, Name)
	}
}

// ServerOption returns a grpc.ServerOption that makes a server use
// NewCodec(opts...) for every call, whatever codec is registered (it wraps
// grpc.ForceServerCodecV2). Use it when the generated code was made with
// register_codec=false, or to give one server its own options. The codec
// hands the values it does not encode and decode itself to the codec
// registered under "proto" when ServerOption is called (NewCodec), so call
// it after every init has run, in main: a library's codec registered at
// init then keeps its types on that server too. It costs a
// server nothing per call over the process-wide registration: 186
// allocations per unary call either way (BenchmarkForcedCodec, grpc-go
// v1.85.0).
func ServerOption(opts ...Option) grpc.ServerOption {
	return grpc.ForceServerCodecV2(NewCodec(opts...))
}

// DialOption returns a grpc.DialOption that makes a client use
// NewCodec(opts...) for every call on the connection, whatever codec is
// registered (grpc.WithDefaultCallOptions(grpc.ForceCodecV2(...))). Like
// ServerOption, the codec hands other values to the codec registered under
// "proto" when DialOption is called.
//
// Prefer the process-wide registration: a forced codec sets a
// content-subtype, and grpc-go then builds the content-type string on every
// call, which costs the client 3 allocations per unary call, 189 instead of
// 186 (BenchmarkForcedCodec, grpc-go v1.85.0). The registration under
// "proto" does not pay this.
func DialOption(opts ...Option) grpc.DialOption {
	return grpc.WithDefaultCallOptions(grpc.ForceCodecV2(NewCodec(opts...)))
}
