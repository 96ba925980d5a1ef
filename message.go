package grpcfast

import "google.golang.org/protobuf/encoding/protowire"

// SupportPackageIsVersion1 is referenced by generated code so that the build
// fails when the grpcfast runtime is older than the code generated for it.
const SupportPackageIsVersion1 = true

// Resetter is implemented by every message declared in a file for which
// protoc-gen-go-grpcfast generated code.
//
// GrpcfastReset clears the message as Reset does, but keeps the capacity of
// its bytes fields without presence, its repeated fields and its maps, so
// that decoding the next message into it can reuse that memory. Fields that
// track presence (proto2 optional, proto3 optional, editions explicit
// presence), oneofs and singular message fields are cleared as Reset clears
// them. The codec calls it before decoding into a message, because
// vtprotobuf's UnmarshalVT merges rather than replaces.
type Resetter interface {
	GrpcfastReset()
}

// BytesFielder is implemented by generated messages that have singular bytes
// fields outside a oneof.
//
// GrpcfastBytesField returns a pointer to the field with the given number, or
// nil when the message has no such bytes field. The codec uses it to decode a
// large bytes field that arrived split across several transport buffers
// straight into the field, without first gathering the message into one
// contiguous copy.
type BytesFielder interface {
	GrpcfastBytesField(num protowire.Number) *[]byte
}
