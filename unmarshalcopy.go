package grpcfast

import (
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast/internal/own"
)

// vtUnsafeUnmarshaler is implemented by messages generated with
// vtprotobuf's unmarshal_unsafe feature: strings and bytes decoded as views
// of the input.
type vtUnsafeUnmarshaler interface {
	UnmarshalVTUnsafe(dAtA []byte) error
}

// decodeCopy decodes data into u, a message that a pooled handler prepared
// for the owned copy (grpcfast.WithStringsInOneCopy): the whole message is
// copied into one new array, which this codec never reuses, never pools and
// never writes into again, and decoded with UnmarshalVTUnsafe, so that every
// string and bytes field is a view of that array instead of an allocation of
// its own. gRPC frees data when Unmarshal returns; the views point into the
// copy, which lives as long as anything refers to it.
//
// The walk (with UTF-8) checks the copy first, as it checks a message in one
// buffer; when it or UnmarshalVTUnsafe fails, unmarshal lets protobuf-go
// decide, as for any message, and protobuf-go resets the message, dropping
// the views.
func (c *Codec) decodeCopy(data mem.BufferSlice, u vtUnsafeUnmarshaler, info *vtInfo, o *own.Owned) error {
	b := make([]byte, data.Len()) // the owned copy: never pooled, never reused
	data.CopyTo(b)
	if info.wire == nil {
		return unsafeDecode(u, b)
	}
	if err := info.wire.validate(b, !c.noUTF8); err != nil {
		return err
	}
	if d, ok := u.(generatedDecoder); ok && o != nil {
		// The walk has checked b: the generated decoder decodes it as
		// UnmarshalVTUnsafe would, reusing the nested messages and oneof
		// wrappers that the slot's last reset gave back.
		o.SetDecoding()
		err := d.GrpcfastDecode(b, o)
		if err != nil {
			o.Clear() // protobuf-go decides, and its decode is not the generated one
		}
		return err
	}
	return unsafeDecode(u, b)
}

// unsafeDecode decodes b into u with UnmarshalVTUnsafe, and clips the
// views it leaves in bytes fields (own.ClipViews): an append to one must not
// write into the copy that the message's strings view.
func unsafeDecode(u vtUnsafeUnmarshaler, b []byte) error {
	if err := u.UnmarshalVTUnsafe(b); err != nil {
		return err
	}
	if m, ok := u.(proto.Message); ok {
		own.ClipViews(m)
	}
	return nil
}

// generatedDecoder is implemented by messages that protoc-gen-go-grpcfast
// generated a decoder for (grpcfastimpl.Decoder).
type generatedDecoder interface {
	GrpcfastDecode(b []byte, o *own.Owned) error
}
