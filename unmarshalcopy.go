package grpcfast

import (
	"google.golang.org/grpc/mem"

	"github.com/grpcfast/grpcfast/internal/own"
)

// vtUnsafeUnmarshaler is implemented by messages generated with
// vtprotobuf's unmarshal_unsafe feature: strings and bytes decoded as views
// of the input.
type vtUnsafeUnmarshaler interface {
	UnmarshalVTUnsafe(dAtA []byte) error
}

// unmarshalCopy decodes data into v, a message prepared and marked by a
// pooled handler with the owned copy (grpcfast.WithStringsInOneCopy): the
// whole message is copied into one new array, which this codec never reuses,
// never pools and never writes into again, and decoded with
// UnmarshalVTUnsafe, so that every string and bytes field is a view of that
// array instead of an allocation of its own. gRPC frees data when Unmarshal
// returns; the views point into the copy, which lives as long as anything
// refers to it.
//
// It checks, falls back and fails exactly as Unmarshal does for a message in
// one buffer: the wire walk (with UTF-8) first, protobuf-go when UnmarshalVT
// would be overruled. Types that vtprotobuf did not generate
// UnmarshalVTUnsafe for, or that the codec decodes with protobuf-go, are
// decoded as a prepared message without the copy.
func (c *Codec) unmarshalCopy(data mem.BufferSlice, v any, uf *[]byte) error {
	u, ok := v.(vtUnsafeUnmarshaler)
	info := vtInfoOf(v)
	if !ok || info == opaqueInfo || !info.vtDecodes {
		err := c.unmarshal(data, v, true, nil)
		if err == nil {
			own.SetDecoded(uf)
		}
		return err
	}
	n := data.Len()
	if n == 0 {
		// As Unmarshal: required fields are still checked.
		err := u.UnmarshalVTUnsafe(nil)
		if err == nil {
			own.SetDecodedCopy(uf)
		}
		return err
	}
	b := make([]byte, n) // the owned copy: never pooled, never reused
	data.CopyTo(b)
	var err error
	if info.wire != nil {
		err = info.wire.validate(b, !c.noUTF8)
	}
	if err == nil {
		if err = u.UnmarshalVTUnsafe(b); err == nil {
			own.SetDecodedCopy(uf)
			return nil
		}
	}
	if !finalDecodeError(err) {
		// As unmarshal: protobuf-go decides when UnmarshalVT fails or the
		// walk asks for it. It resets v, dropping any views, and allocates
		// what it decodes.
		perr := c.unmarshalProto(data, v)
		if perr == nil {
			own.SetDecoded(uf)
			return nil
		}
		if err == errNeedProto {
			return perr
		}
	}
	return err
}
