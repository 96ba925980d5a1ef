package codec

import (
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/grpcfast/grpcfast/internal/decode"
	"github.com/grpcfast/grpcfast/internal/own"
	"github.com/grpcfast/grpcfast/internal/reuse"
	"github.com/grpcfast/grpcfast/internal/stack"
)

// Unmarshal decodes data into v, replacing its contents. gRPC frees data as
// soon as Unmarshal returns; nothing in v refers to it afterwards.
//
// A value whose type has no generated decoder goes to c.Next, untouched.
//
// Like gRPC's standard codec, it first resets v as Reset does: a slice, map
// or nested message that v held is dropped, never written into, so memory
// that the caller put into v stays the caller's. Only a message that a
// slot (a receiver, a pooled handler, a reusing client) has reset and
// marked, keeping memory that an earlier decode of the codec allocated, is
// decoded into without a reset.
func (c *Codec) Unmarshal(data mem.BufferSlice, v any) error {
	d, ok := v.(generatedDecoder)
	if !ok {
		return c.Next.Unmarshal(data, v)
	}
	// gRPC-Go runs each unary call on a new goroutine, whose stack grows
	// by a copy that costs per frame on it, once in or after the decode:
	// here, with few frames on the stack, rather than a dozen frames down
	// in the decode (internal/stack).
	stack.Grow()
	var uf *[]byte
	var slot *reuse.Header
	if o, ok := v.(reuse.Owner); ok {
		uf = o.GrpcfastUnknownFields()
		slot = reuse.TakeHeader(own.PointerOf(v), uf)
	}
	if slot == nil && len(data) == 1 {
		// The most common receive (a unary request, a reply in one
		// buffer), with as few frames as can be between gRPC's call and
		// the generated decoder: a new goroutine's stack (gRPC's server
		// runs each call on one) is copied whenever a call chain first
		// goes past its size.
		return c.decodeFresh(data[0].ReadOnlyData(), d, v)
	}
	var err error
	switch {
	case slot == nil:
		reuse.ResetForDecode(v)
		err = c.decodeGenerated(data, d, v, nil)
	case slot.Copy():
		if err = c.decodeCopy(data, d, v, slot); err == nil {
			reuse.SetDecodedCopy(uf)
		}
	default:
		if err = c.decodeGenerated(data, d, v, slot); err == nil {
			reuse.SetDecoded(uf)
		}
	}
	return err
}

// bytesFielder is implemented by generated messages with singular bytes
// fields (grpcfastimpl.BytesFielder): it gives the codec the field to decode
// a straddling bytes field into.
type bytesFielder interface {
	GrpcfastBytesField(num protowire.Number) *[]byte
}

// runDecoder decodes runs of whole top-level fields of a message with its
// generated decoder, in the state st.
type runDecoder struct {
	gen generatedDecoder
	st  *decode.Decoding
}

func (d runDecoder) decode(b []byte) error {
	return d.gen.GrpcfastDecode(b, d.st, decode.Limit)
}

// decodeGenerated decodes data into v, reset, or prepared by the slot whose
// Header is slot, with its generated decoder gen: whole, or in field-aligned
// segments of the transport buffers it arrived in, a large bytes field that
// straddles two buffers copied straight into the field or, in a slot, left a
// view of the buffer (pieces.go). Required fields are checked at the end.
func (c *Codec) decodeGenerated(data mem.BufferSlice, gen generatedDecoder, v any, slot *reuse.Header) error {
	d := runDecoder{gen: gen}
	var fresh *decode.FreshDecoding
	if slot == nil {
		if _, ok := v.(decode.Flat); ok {
			d.st = decode.Plain(c.NoUTF8)
		} else {
			f, st := decode.GetFresh(data.Len(), c.NoUTF8)
			defer decode.PutFresh(f)
			d.st, fresh = st, f
		}
	} else {
		// The slot's next reset gives the nested messages and oneof
		// wrappers of this decode back to it, for the next decode.
		d.st = slot.Decoding(c.NoUTF8)
		if o := slot.Record(); o != nil {
			o.SetGenerated()
		}
		// Strings in chunks of this decode, as a fresh message's.
		strs := decode.ChunkStrings(d.st, data.Len())
		defer decode.EndStrings(d.st, strs)
	}
	if _, ok := v.(bytesFielder); !ok && len(data) > 1 {
		// No bytes field to copy straight from the buffers, nor to view:
		// one copy of the message costs less than finding the runs of its
		// top-level fields (a message of many short strings has
		// thousands), and the decoder then sees each repeated field's
		// elements together, across the transport's buffers, and sizes the
		// field for them (grpcfastimpl.Grow). gRPC's standard codec makes
		// the same copy (MaterializeToBuffer).
		n := data.Len()
		p := c.Pool.Get(n)
		b := (*p)[:n]
		data.CopyTo(b)
		if fresh != nil && n >= decode.PieceMin {
			fresh.CopyPieces(b, ownedPiece)
		}
		err := decodeAll(b, gen, d.st, v)
		c.putBuf(p) // strings and bytes are copies: nothing refers to b
		return err
	}
	if err := c.decodeRuns(data, d, v, slot); err != nil {
		return err
	}
	if slot != nil {
		// The codec may have written bytes fields of the message itself,
		// between or after the runs (pieces.go): decoding nothing records
		// the message's fields as they end, for the slot's next reset
		// (grpcfastimpl.LogBytes and the others).
		if err := d.decode(nil); err != nil {
			return err
		}
	}
	return checkInitialized(v, nil, data)
}

// decodeRuns decodes data into v with d, whole or in runs of whole
// top-level fields.
func (c *Codec) decodeRuns(data mem.BufferSlice, d runDecoder, v any, slot *reuse.Header) error {
	bf, _ := v.(bytesFielder)
	if bf == nil {
		// Views are of singular bytes fields.
		slot = nil
	}
	switch len(data) {
	case 0:
		return d.decode(nil)
	case 1:
		return c.decodeWhole(data[0], d, bf, slot)
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
		return c.decodeWhole(data[last], d, bf, slot)
	}
	r := pieceReader{data: data, remain: total}
	r.advance(0)
	if slot == nil {
		return c.decodePiecesCopy(&r, d, bf)
	}
	return c.decodePieces(&r, d, bf, slot)
}
