package grpcfast

import (
	"google.golang.org/grpc/encoding"

	"github.com/grpcfast/grpcfast/internal/stdcodec"
)

// StandardCodec returns gRPC's standard codec: the encoding.CodecV2 that
// google.golang.org/grpc/encoding/proto registers under the name "proto",
// in front of which the grpcfast codec registers when a generated package is
// initialised. It is captured when this package is initialised, which is
// before any generated package or Register registers a grpcfast codec, so it
// is gRPC's codec whatever encoding.GetCodecV2("proto") returns later (a
// library whose package is initialised before this one and registers a
// codec of its own is the exception: docs/codecs.md).
//
// Use it to compare the two codecs in one process, or to go back to gRPC's
// standard path on one server or connection while the rest of the process
// keeps grpcfast's codec:
//
//	srv := grpc.NewServer(grpc.ForceServerCodecV2(grpcfast.StandardCodec()))
//	conn, err := grpc.NewClient(addr, creds,
//		grpc.WithDefaultCallOptions(grpc.ForceCodecV2(grpcfast.StandardCodec())))
//
// Both sides of a call choose their codec independently: the wire format is
// the same. A forced codec costs a client 3 allocations per call (see
// DialOption). It decodes every value with protobuf-go: the types of a
// library whose own codec knows them (the OpenTelemetry Collector's pdata)
// fail where it is forced. Registering it with encoding.RegisterCodecV2 puts
// gRPC's standard codec back process-wide; generated code does not register
// grpcfast's again after that.
func StandardCodec() encoding.CodecV2 { return stdcodec.Codec() }
