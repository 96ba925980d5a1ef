package codec

import (
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast/internal/decode"
	"github.com/grpcfast/grpcfast/internal/reuse"
)

// generatedDecoder is implemented by messages that protoc-gen-go-grpcfast
// generated a decoder for (grpcfastimpl.Decoder).
type generatedDecoder = decode.Decoder

// decodeFresh decodes b, a message in one buffer, into v, a message that no
// slot prepared, with its generated decoder d, in one pass: v is reset
// first, strings and bytes are copied, and what protobuf-go rejects is
// rejected while decoding. A message of a Flat type, which has nothing to
// allocate together, is decoded in a Plain state, without the slabs and
// chunks that GetFresh takes from their pool.
func (c *Codec) decodeFresh(b []byte, d generatedDecoder, v any) error {
	reuse.ResetForDecode(v)
	if _, ok := v.(decode.Flat); ok {
		if err := d.GrpcfastDecode(b, decode.Plain(c.NoUTF8), decode.Limit); err != nil {
			return err
		}
		return checkInitialized(v, b, nil)
	}
	// decodeAll, written out: one frame less on the way to the decoder.
	f, st := decode.GetFresh(len(b), c.NoUTF8)
	if len(b) >= decode.PieceMin {
		f.CopyPieces(b, ownedPiece)
	}
	err := d.GrpcfastDecode(b, st, decode.Limit)
	decode.PutFresh(f)
	if err != nil {
		return err
	}
	return checkInitialized(v, b, nil)
}

// decodeAll decodes b, a whole message, into v with its generated decoder
// d, and checks its required fields.
func decodeAll(b []byte, d generatedDecoder, st *decode.Decoding, v any) error {
	if err := d.GrpcfastDecode(b, st, decode.Limit); err != nil {
		return err
	}
	return checkInitialized(v, b, nil)
}

// checkInitialized checks the required fields of v's whole tree, where its
// type can hold any, as protobuf-go does once it has decoded a message from
// b, or from data where b is nil.
//
// Where one is missing, the linked protobuf-go decides from the input: its
// Unmarshal checks the whole tree only when its decode saw a required field
// missing on the way, and that decode does not look into the message of a
// oneof's field other than the oneof's first (protobuf-go v1.36), so it
// accepts some messages that proto.CheckInitialized rejects. gRPC's codec
// accepts them, and so does this one. This costs a second decode of input
// that lacks a required field only.
func checkInitialized(v any, b []byte, data mem.BufferSlice) error {
	if _, ok := v.(decode.RequiredHolder); !ok {
		return nil
	}
	m := v.(proto.Message)
	if proto.CheckInitialized(m) == nil {
		return nil
	}
	if b == nil {
		b = data.Materialize()
	}
	return proto.Unmarshal(b, m.ProtoReflect().New().Interface())
}
