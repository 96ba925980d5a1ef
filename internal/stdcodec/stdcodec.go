// Package stdcodec keeps gRPC's standard "proto" codec, captured before any
// grpcfast codec can replace it in gRPC's registry.
//
// The root package grpcfast imports this package, so this package is
// initialised before anything that can register a grpcfast codec: every
// program that links grpcfast sees the standard codec here. Tests and the
// benchmark harness use it to compare, in one process, gRPC's standard path
// with grpcfast's.
package stdcodec

import (
	"google.golang.org/grpc/encoding"
	protocodec "google.golang.org/grpc/encoding/proto"
)

// codec is the codec registered under "proto" when this package was
// initialised: gRPC's standard codec, registered by encoding/proto's init.
var codec = encoding.GetCodecV2(protocodec.Name)

// Codec returns gRPC's standard proto codec.
func Codec() encoding.CodecV2 { return codec }
