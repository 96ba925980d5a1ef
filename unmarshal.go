package grpcfast

import (
	"fmt"
	"sync"
	"sync/atomic"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// vtUnmarshaler is the part of a vtprotobuf message that Unmarshal uses.
type vtUnmarshaler interface {
	UnmarshalVT(dAtA []byte) error
}

// Unmarshal decodes data into v, replacing its contents. gRPC frees data as
// soon as Unmarshal returns; nothing in v refers to it afterwards.
func (c *Codec) Unmarshal(data mem.BufferSlice, v any) error {
	if m, ok := v.(vtUnmarshaler); ok {
		if info := vtInfoOf(v); info.vtDecodes && resetForDecode(v) {
			err := c.unmarshalVT(data, m, v, info)
			if err != nil && info != opaqueInfo && c.unmarshalProto(data, v) == nil {
				// UnmarshalVT rejects some input that protobuf-go, and so
				// gRPC's codec, accepts: a known field with another wire
				// type (protobuf-go keeps it as an unknown field), a
				// nested message that lacks a required field in one of
				// the occurrences that merge into it. protobuf-go decides
				// whenever UnmarshalVT fails; this costs a second decode on
				// the error path only, and the error returned, when both
				// fail, is UnmarshalVT's.
				return nil
			}
			return err
		}
	}
	return c.unmarshalProto(data, v)
}

// vtInfo is what the codec needs to know about a message type with
// vtprotobuf methods.
type vtInfo struct {
	// vtDecodes is false for message types that UnmarshalVT decodes wrongly:
	// those that contain a group field, directly or in a nested message.
	// vtprotobuf v0.6 looks at the wrong wire type when it looks for the end
	// of a group, and fails with io.ErrUnexpectedEOF on every valid group.
	// These types are decoded with protobuf-go, as gRPC's codec does.
	vtDecodes bool
	// required is true for types with required fields (proto2 required,
	// editions LEGACY_REQUIRED): UnmarshalVT checks them at the end of each
	// call, so such a message cannot be decoded in pieces.
	required bool
}

// wholeRetries counts decodes in pieces that failed and were redone in one
// piece; tests check that valid input never needs this.
var wholeRetries atomic.Int64

var (
	vtInfos sync.Map // protoreflect.MessageDescriptor → *vtInfo

	// opaqueInfo is for types that are not proto.Message and so cannot be
	// inspected: trust UnmarshalVT, but decode in one piece.
	opaqueInfo = &vtInfo{vtDecodes: true, required: true}
)

func vtInfoOf(v any) *vtInfo {
	pm, ok := v.(proto.Message)
	if !ok {
		return opaqueInfo
	}
	md := pm.ProtoReflect().Descriptor()
	if info, ok := vtInfos.Load(md); ok {
		return info.(*vtInfo)
	}
	info := &vtInfo{
		vtDecodes: !hasGroups(md, map[protoreflect.FullName]bool{}),
		required:  md.RequiredNumbers().Len() > 0,
	}
	vtInfos.Store(md, info)
	return info
}

// hasGroups reports whether md or a message type reachable through its
// fields has a group field (in editions, a message field with delimited
// encoding, which is the same on the wire).
func hasGroups(md protoreflect.MessageDescriptor, seen map[protoreflect.FullName]bool) bool {
	if seen[md.FullName()] {
		return false
	}
	seen[md.FullName()] = true
	fields := md.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if fd.Kind() == protoreflect.GroupKind {
			return true
		}
		if sub := fd.Message(); sub != nil && hasGroups(sub, seen) {
			return true
		}
	}
	return false
}

// resetter is implemented by messages that protoc-gen-go-grpcfast generated
// a reset for (grpcfastimpl.Resetter): it keeps the capacity of bytes,
// repeated and map fields.
type resetter interface {
	GrpcfastReset()
}

// bytesFielder is implemented by generated messages with singular bytes
// fields (grpcfastimpl.BytesFielder): it gives the codec the field to decode
// a straddling bytes field into.
type bytesFielder interface {
	GrpcfastBytesField(num protowire.Number) *[]byte
}

// resetForDecode clears v before UnmarshalVT, which merges into the message
// rather than replacing it. It prefers the resets that keep the capacity of
// the message's fields. It reports false if v cannot be reset.
func resetForDecode(v any) bool {
	switch r := v.(type) {
	case resetter:
		r.GrpcfastReset()
	case interface{ ResetVT() }:
		r.ResetVT()
	case interface{ Reset() }:
		r.Reset()
	case proto.Message:
		proto.Reset(r)
	default:
		return false
	}
	return true
}

func (c *Codec) unmarshalProto(data mem.BufferSlice, v any) error {
	vv := messageV2Of(v)
	if vv == nil {
		return fmt.Errorf("failed to unmarshal, message is %T, want proto.Message", v)
	}
	switch len(data) {
	case 0:
		return proto.Unmarshal(nil, vv)
	case 1:
		return proto.Unmarshal(data[0].ReadOnlyData(), vv)
	}
	// As gRPC's codec, but the scratch buffer always goes back to the pool
	// (MaterializeToBuffer drops buffers of up to 1 KiB).
	n := data.Len()
	p := c.pool.Get(n)
	b := (*p)[:n]
	data.CopyTo(b)
	err := proto.Unmarshal(b, vv)
	c.pool.Put(p)
	return err
}

func (c *Codec) unmarshalVT(data mem.BufferSlice, m vtUnmarshaler, v any, info *vtInfo) error {
	switch len(data) {
	case 0:
		// The empty message. UnmarshalVT still checks required fields
		// (proto2 required), as proto.Unmarshal does.
		return m.UnmarshalVT(nil)
	case 1:
		return m.UnmarshalVT(data[0].ReadOnlyData())
	}
	total, nonEmpty, last := 0, 0, 0
	for i, b := range data {
		if n := b.Len(); n > 0 {
			total += n
			nonEmpty++
			last = i
		}
	}
	switch nonEmpty {
	case 0:
		return m.UnmarshalVT(nil)
	case 1:
		return m.UnmarshalVT(data[last].ReadOnlyData())
	}
	r := pieceReader{data: data, remain: total}
	r.advance(0)
	if info.required {
		// vtprotobuf checks required fields at the end of every UnmarshalVT
		// call, so the message cannot be decoded piece by piece.
		return c.gather(&r, m, total)
	}
	bf, _ := v.(bytesFielder)
	if err := c.decodePieces(&r, m, bf); err != nil {
		// The input is malformed. UnmarshalVT is lenient in places: the last
		// varint of a packed field may run past the end of the field, and a
		// single decode then reads on into the next field where a decode in
		// pieces stops at the end of the piece. Decode the whole message in
		// one piece, so that the outcome is exactly that of a message that
		// arrived in one buffer. This costs a copy, on the error path only.
		//
		// When decodePieces succeeds, every piece was decoded without reading
		// past its end (UnmarshalVT bounds-checks every read), so a decode of
		// the whole message reads the same bytes the same way.
		wholeRetries.Add(1)
		resetForDecode(v)
		r = pieceReader{data: data, remain: total}
		r.advance(0)
		return c.gather(&r, m, total)
	}
	return nil
}
