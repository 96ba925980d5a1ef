package grpcfast

import (
	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding"
)

// Register registers NewCodec(opts...) with encoding.RegisterCodecV2 under
// the name "proto", replacing whatever codec is registered under that name
// (gRPC's standard codec, or a grpcfast codec registered before).
//
// Generated code already registers a codec with the default options when its
// package is initialised; call Register only to change the options. Like
// encoding.RegisterCodecV2 it must only be called during initialization (from
// an init function or the start of main, before any client or server is
// created) and is not safe for concurrent use. The generated registration
// never replaces a grpcfast codec, whichever ran first, so a Register in an
// init function or in main is never undone.
func Register(opts ...Option) {
	encoding.RegisterCodecV2(NewCodec(opts...))
}

// ServerOption returns a grpc.ServerOption that makes a server use
// NewCodec(opts...) for every call, whatever codec is registered (it wraps
// grpc.ForceServerCodecV2). Use it when the generated code was made with
// register_codec=false, or to give one server its own options. It costs a
// server nothing per call over the process-wide registration: 186
// allocations per unary call either way (BenchmarkForcedCodec, grpc-go
// v1.85.0).
func ServerOption(opts ...Option) grpc.ServerOption {
	return grpc.ForceServerCodecV2(NewCodec(opts...))
}

// DialOption returns a grpc.DialOption that makes a client use
// NewCodec(opts...) for every call on the connection, whatever codec is
// registered (grpc.WithDefaultCallOptions(grpc.ForceCodecV2(...))).
//
// Prefer the process-wide registration: a forced codec sets a
// content-subtype, and grpc-go then builds the content-type string on every
// call, which costs the client 3 allocations per unary call, 189 instead of
// 186 (BenchmarkForcedCodec, grpc-go v1.85.0). The registration under
// "proto" does not pay this.
func DialOption(opts ...Option) grpc.DialOption {
	return grpc.WithDefaultCallOptions(grpc.ForceCodecV2(NewCodec(opts...)))
}
