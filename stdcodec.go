package grpcfast

import (
	"google.golang.org/grpc/encoding"
	protocodec "google.golang.org/grpc/encoding/proto"
)

// stdCodec is the codec that was registered under "proto" when this package
// was initialised, before any generated package could register ours.
var stdCodec = encoding.GetCodecV2(protocodec.Name)

// StandardCodec returns the codec that was registered under "proto" before
// grpcfast's: gRPC's standard proto codec, unless a package initialised
// before this one replaced it. Benchmarks and tests use it to compare, in
// one process, the standard path with grpcfast's by forcing it on a server
// (grpc.ForceServerCodecV2) or a call (grpc.ForceCodecV2).
func StandardCodec() encoding.CodecV2 { return stdCodec }
