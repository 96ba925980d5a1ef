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

// vtPooled is implemented by messages generated with vtprotobuf's pool
// feature.
type vtPooled interface {
	ResetVT()
	ReturnToVTPool()
}

// ResetRepeated prepares the elements of a repeated message field for the
// next decode and returns the field emptied, with its capacity kept. It is
// called by generated GrpcfastReset methods.
//
// When M is pooled by vtprotobuf (it has ResetVT), vtprotobuf's UnmarshalVT
// decodes into the elements left in the field's capacity, so they are reset
// and kept, as vtprotobuf's own ResetVT does. Otherwise UnmarshalVT allocates
// every element anew, and the old ones are cleared so that they can be
// collected.
func ResetRepeated[M any](s []*M) []*M {
	if len(s) > 0 {
		if _, ok := any(s[0]).(vtPooled); ok {
			for _, m := range s {
				if m != nil {
					any(m).(vtPooled).ResetVT()
				}
			}
			return s[:0]
		}
	}
	clear(s)
	return s[:0]
}

// Release returns m to vtprotobuf's pool if its type is pooled (it has
// ReturnToVTPool), and does nothing otherwise. Generated GrpcfastReset
// methods call it for message fields, so that the next decode takes the
// message from the pool instead of allocating it.
func Release(m any) {
	if p, ok := m.(vtPooled); ok {
		p.ReturnToVTPool()
	}
}
