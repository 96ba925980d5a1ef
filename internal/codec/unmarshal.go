package codec

import (
	"fmt"
	"sync/atomic"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast/internal/decode"
	"github.com/grpcfast/grpcfast/internal/own"
	"github.com/grpcfast/grpcfast/internal/reuse"
)

// vtUnmarshaler is the part of a vtprotobuf message that Unmarshal uses.
type vtUnmarshaler interface {
	UnmarshalVT(dAtA []byte) error
}

// Unmarshal decodes data into v, replacing its contents. gRPC frees data as
// soon as Unmarshal returns; nothing in v refers to it afterwards.
//
// Like gRPC's standard codec, it first resets v as Reset does: a slice, map
// or nested message that v held is dropped, never written into, so memory
// that the caller put into v stays the caller's. Only a message that a
// grpcfast.Receiver has reset and marked, keeping memory that an earlier
// decode of the codec allocated, is decoded into without a reset.
func (c *Codec) Unmarshal(data mem.BufferSlice, v any) error {
	var uf *[]byte
	var vw *reuse.Header
	if o, ok := v.(reuse.Owner); ok {
		uf = o.GrpcfastUnknownFields()
		vw = reuse.TakeHeader(own.PointerOf(v), uf)
		if d, ok := v.(generatedDecoder); ok && vw == nil && len(data) == 1 {
			// The most common receive (a unary request, a reply in one
			// buffer), with as few frames as can be between gRPC's call and
			// the generated decoder: a new goroutine's stack (gRPC's server
			// runs each call on one) is copied whenever a call chain first
			// goes past its size.
			return c.decodeFresh(data[0].ReadOnlyData(), d, v)
		}
	}
	copied, err := c.unmarshal(data, v, vw)
	switch {
	case err != nil || vw == nil:
	case copied:
		own.SetDecodedCopy(uf)
	default:
		own.SetDecoded(uf)
	}
	return err
}

// unmarshal decodes data into v, prepared by the slot whose Header is vw
// (nil: a message that no slot prepared, which is reset first), and reports
// whether it decoded into one owned copy (vw.Copy(), where the type has a
// generated decoder).
func (c *Codec) unmarshal(data mem.BufferSlice, v any, vw *reuse.Header) (bool, error) {
	if d, ok := v.(generatedDecoder); ok {
		switch {
		case vw != nil && vw.Copy():
			return true, c.decodeCopy(data, d, v, vw)
		case vw == nil:
			resetForDecode(v)
		}
		return false, c.decodeGenerated(data, d, v, vw)
	}
	if m, ok := v.(vtUnmarshaler); ok {
		if info := vtInfoOf(v); info.vtDecodes && (vw != nil || resetForDecode(v)) {
			err := c.unmarshalVT(data, m, v, info, vw)
			if err != nil && info != opaqueInfo && !finalDecodeError(err) {
				// UnmarshalVT rejects some input that protobuf-go, and so
				// gRPC's codec, accepts: a known field with another wire
				// type (protobuf-go keeps it as an unknown field; the walk
				// in wire.go sees it first and UnmarshalVT is not called,
				// errNeedProto), a nested message that lacks a required
				// field in one of the occurrences that merge into it.
				// protobuf-go decides whenever UnmarshalVT fails; this
				// costs a second decode on the error path only, and the
				// error returned, when both fail, is UnmarshalVT's. Input
				// that the walk rejects, protobuf-go rejects too: it is not
				// decoded again.
				perr := c.unmarshalProto(data, v)
				if perr == nil || err == errNeedProto {
					return false, perr
				}
			}
			return false, err
		}
	}
	return false, c.unmarshalProto(data, v)
}

// wholeRetries counts decodes in pieces that failed (protobuf-go then
// decides); tests check that valid input never needs this.
var wholeRetries atomic.Int64

// bytesFielder is implemented by generated messages with singular bytes
// fields (grpcfastimpl.BytesFielder): it gives the codec the field to decode
// a straddling bytes field into.
type bytesFielder interface {
	GrpcfastBytesField(num protowire.Number) *[]byte
}

// resetForDecode clears v as Reset does, before UnmarshalVT, which merges
// into the message rather than replacing it: whatever v holds is dropped,
// as gRPC's standard codec drops it. It reports false if v cannot be reset.
func resetForDecode(v any) bool { return reuse.ResetForDecode(v) }

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
	p := c.Pool.Get(n)
	b := (*p)[:n]
	data.CopyTo(b)
	err := proto.Unmarshal(b, vv)
	c.putBuf(p)
	return err
}

// vtDecoder decodes runs of whole top-level fields of a message with
// UnmarshalVT, after checking that the strings in them that must be valid
// UTF-8 are.
//
// A message with a generated decoder (gen) is decoded by it instead, in one
// pass that checks as it goes: no walk.
type vtDecoder struct {
	m    vtUnmarshaler
	wire *wirePlan // nil for types that cannot be inspected (opaqueInfo)
	utf8 bool      // check UTF-8 (WithoutUTF8Validation not given)
	gen  generatedDecoder
	st   *decode.State
}

func (d vtDecoder) decode(b []byte) error {
	if d.gen != nil {
		return d.gen.GrpcfastDecode(b, d.st, decode.Limit)
	}
	if d.wire != nil {
		if err := d.wire.validate(b, d.utf8); err != nil {
			return err
		}
	}
	return d.m.UnmarshalVT(b)
}

func (c *Codec) unmarshalVT(data mem.BufferSlice, m vtUnmarshaler, v any, info *vtInfo, vw *reuse.Header) error {
	return c.decodeRuns(data, vtDecoder{m: m, wire: info.wire, utf8: !c.NoUTF8}, v, info, vw)
}

// decodeGenerated decodes data into v, reset or prepared by a slot (vw), with
// its generated decoder gen: whole, or in runs of whole top-level fields of
// the transport buffers it arrived in, a large bytes field that straddles
// two buffers copied straight into the field or, in a slot, left a view of
// the buffer (pieces.go). Required fields are checked at the end.
func (c *Codec) decodeGenerated(data mem.BufferSlice, gen generatedDecoder, v any, vw *reuse.Header) error {
	d := vtDecoder{gen: gen, st: c.freshState()}
	if vw != nil {
		// The slot's next reset gives the nested messages and oneof
		// wrappers of this decode back to it, for the next decode.
		d.st = vw.State(c.NoUTF8)
		if o := vw.Record(); o != nil {
			o.SetGenerated()
		}
	}
	if _, ok := v.(bytesFielder); !ok && len(data) > 1 {
		// No bytes field to copy straight from the buffers, nor to view:
		// one copy of a message of a few frames costs less than finding
		// the runs of its top-level fields (a message of many short
		// strings has thousands).
		if n := data.Len(); n <= maxGather {
			p := c.Pool.Get(n)
			b := (*p)[:n]
			data.CopyTo(b)
			err := decodeAll(b, gen, d.st, v)
			c.putBuf(p) // strings and bytes are copies: nothing refers to b
			return err
		}
	}
	if err := c.decodeRuns(data, d, v, vtInfoOf(v), vw); err != nil {
		return err
	}
	return checkInitialized(v, nil, data)
}

// maxGather is the largest message without bytes fields that a generated
// decoder decodes from one scratch copy rather than in runs.
const maxGather = 64 << 10

// decodeRuns decodes data into v with d, whole or in runs of whole
// top-level fields.
func (c *Codec) decodeRuns(data mem.BufferSlice, d vtDecoder, v any, info *vtInfo, vw *reuse.Header) error {
	bf, _ := v.(bytesFielder)
	if bf == nil || info.required {
		// Views are of singular bytes fields, and a message with required
		// fields is decoded whole (below).
		vw = nil
	}
	switch len(data) {
	case 0:
		// The empty message. UnmarshalVT still checks required fields
		// (proto2 required), as proto.Unmarshal does.
		return d.decode(nil)
	case 1:
		return c.decodeWhole(data[0], d, bf, vw)
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
		return d.decode(nil)
	case 1:
		return c.decodeWhole(data[last], d, bf, vw)
	}
	r := pieceReader{data: data, remain: total}
	r.advance(0)
	if info.required {
		// vtprotobuf checks required fields at the end of every UnmarshalVT
		// call, so the message cannot be decoded piece by piece.
		return c.gather(&r, d, total)
	}
	if d.wire != nil {
		// Walk the whole message before UnmarshalVT decodes any of it
		// (wirepieces.go), so that input for protobuf-go costs no decode
		// by UnmarshalVT; the decode below need not walk again.
		w := r
		if err := c.walkPieces(&w, d, bf); err != nil {
			return err
		}
		d.wire = nil
	}
	if err := c.decodePieces(&r, d, bf, vw); err != nil {
		// What the walk accepts, UnmarshalVT decodes in runs as it decodes
		// the whole (wire.go), so an error here is the error of a decode in
		// one buffer, and protobuf-go decides next (Unmarshal), without a
		// third decode. A generated decoder's error is final.
		if d.gen == nil {
			wholeRetries.Add(1)
		}
		return err
	}
	return nil
}
