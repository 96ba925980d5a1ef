package grpcfastimpl

import (
	"math"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/grpcfast/grpcfast/internal/decode"
)

// Decoders for the well-known types that a generated message holds:
// google.protobuf.Struct, Value, ListValue, Timestamp, Duration and Any,
// whose Go types are protobuf-go's and so have no generated decoder. Every
// program that links gRPC-Go links their packages already (its status,
// binary log and this module's internal/decode import them), so decoding
// them here registers no file that a program did not have. The other
// well-known types' packages are not imported here: generated decoders
// decode the wrappers themselves, and a FieldMask through DecodeFieldMask,
// given its paths; an Empty, and any other encoding of these, goes to
// protobuf-go (DecodeMessage, which skips an empty one).
//
// Each decodes as protobuf-go does, in one pass, into the decode's memory
// as the generated decoders do: nested messages and oneof wrappers from
// the slot's record or the fresh decode's slabs (spare), strings and bytes
// copied or views as the Decoding says, and, in a slot, the map, the list
// and the bytes recorded for the next decode (LogMap, LogCleared,
// LogBytes). What protobuf-go does, and so they do:
//   - a field with another wire type than its own is an unknown field, kept
//     with the message's other unknown fields, in order; a map field's
//     counts a level of nesting first, as a map entry does (MapLevel);
//   - a scalar that comes twice is the last one; a message merges; a
//     oneof's member replaces another member, and merges into itself;
//   - a map entry is a new key and value, whatever the map held: a missing
//     key is "", a missing value an empty Value, the last of a repeated key
//     or value wins (a repeated value merges), any other field of the entry
//     is skipped, and the last entry of a key wins;
//   - strings are UTF-8 (proto3), map keys too, unless the check is off;
//   - each nested message is a level of the depth left, as in the generated
//     decoders.

var (
	spareStruct      = NewSpareKind()
	spareValue       = NewSpareKind()
	spareList        = NewSpareKind()
	spareNull        = NewSpareKind()
	spareNumber      = NewSpareKind()
	spareString      = NewSpareKind()
	spareBool        = NewSpareKind()
	spareStructValue = NewSpareKind()
	spareListValue   = NewSpareKind()
)

// The tags of the fields the decoders read, each of its own wire type.
const (
	tagVarint1 = 1<<3 | uint64(protowire.VarintType)
	tagVarint2 = 2<<3 | uint64(protowire.VarintType)
	tagBytes1  = 1<<3 | uint64(protowire.BytesType)
	tagBytes2  = 2<<3 | uint64(protowire.BytesType)
	tagDouble2 = 2<<3 | uint64(protowire.Fixed64Type)
	tagString3 = 3<<3 | uint64(protowire.BytesType)
	tagBool4   = 4<<3 | uint64(protowire.VarintType)
	tagStruct5 = 5<<3 | uint64(protowire.BytesType)
	tagList6   = 6<<3 | uint64(protowire.BytesType)
)

// decodeKnown merges b into m if m is one of the well-known types above,
// with depth levels left below it, and reports whether it was.
func decodeKnown(m any, b []byte, d *Decoding, depth int) (bool, error) {
	switch x := m.(type) {
	case *structpb.Value:
		return true, decodeValue(x, b, d, depth)
	case *structpb.Struct:
		return true, decodeStruct(x, b, d, depth)
	case *structpb.ListValue:
		return true, decodeList(x, b, d, depth)
	case *timestamppb.Timestamp:
		return true, decodeSecondsNanos(x, &x.Seconds, &x.Nanos, b)
	case *durationpb.Duration:
		return true, decodeSecondsNanos(x, &x.Seconds, &x.Nanos, b)
	case *anypb.Any:
		return true, decodeAny(x, b, d)
	}
	return false, nil
}

// spare returns a spare *T of kind k from the slot's record, the next of
// the fresh decode's slab, or a new one (NewSpare).
func spare[T any](d *Decoding, k SpareKind) *T {
	if p := TakeSpare[T](d, k); p != nil {
		return p
	}
	if p := NextSpare[T](d, k); p != nil {
		return p
	}
	return NewSpare[T](d, k)
}

// nested merges b into *p, a nested message of kind k (a spare if *p is
// nil), with decode, a level below depth.
func nested[M any](p **M, k SpareKind, b []byte, d *Decoding, depth int, decode func(*M, []byte, *Decoding, int) error) error {
	if *p == nil {
		*p = spare[M](d, k)
	}
	if depth < 1 {
		return ErrDepth
	}
	return decode(*p, b, d, depth-1)
}

// readTag reads the tag at the start of b, as the generated decoders do.
func readTag(b []byte) (uint64, []byte, error) {
	if len(b) > 0 {
		if t := uint64(b[0]); t-8 < 0x78 {
			return t, b[1:], nil
		}
	}
	t, n := decode.ReadTag(b)
	if n < 0 {
		return 0, nil, decode.ErrWire(n)
	}
	return t, b[n:], nil
}

// readVarint reads the varint at the start of b.
func readVarint(b []byte) (uint64, []byte, error) {
	if len(b) > 0 && b[0] < 0x80 {
		return uint64(b[0]), b[1:], nil
	}
	v, n := protowire.ConsumeVarint(b)
	if n < 0 {
		return 0, nil, decode.ErrWire(n)
	}
	return v, b[n:], nil
}

// readBytes reads the length-delimited value at the start of b.
func readBytes(b []byte) ([]byte, []byte, error) {
	if len(b) > 1 && b[0] < 0x80 && int(b[0]) < len(b) {
		return b[1 : 1+int(b[0])], b[1+int(b[0]):], nil
	}
	v, n := protowire.ConsumeBytes(b)
	if n < 0 {
		return nil, nil, decode.ErrWire(n)
	}
	return v, b[n:], nil
}

// skipUnknown reads the value of field tag at the start of b, an unknown
// field, and returns unk with the field appended as protobuf-go keeps it.
func skipUnknown(unk []byte, tag uint64, b []byte) ([]byte, []byte, error) {
	n := decode.SkipField(tag, b)
	if n < 0 {
		return nil, nil, decode.ErrWire(n)
	}
	return AppendUnknown(unk, tag, b[:n]), b[n:], nil
}

// keepUnknown appends unk, the unknown fields of one decode of m, to those
// m holds.
func keepUnknown(m proto.Message, unk []byte) {
	if len(unk) > 0 {
		r := m.ProtoReflect()
		r.SetUnknown(append(r.GetUnknown(), unk...))
	}
}

// decodeValue merges b into x, a google.protobuf.Value: one member of its
// oneof, kind.
func decodeValue(x *structpb.Value, b []byte, d *Decoding, depth int) error {
	var unk []byte
	for len(b) > 0 {
		tag, rest, err := readTag(b)
		if err != nil {
			return err
		}
		b = rest
		switch tag {
		case tagVarint1: // null_value
			v, rest, err := readVarint(b)
			if err != nil {
				return err
			}
			b = rest
			w, ok := x.Kind.(*structpb.Value_NullValue)
			if !ok {
				w = spare[structpb.Value_NullValue](d, spareNull)
				x.Kind = w
			}
			w.NullValue = structpb.NullValue(int32(v))
			continue
		case tagDouble2: // number_value
			v, n := protowire.ConsumeFixed64(b)
			if n < 0 {
				return decode.ErrWire(n)
			}
			b = b[n:]
			w, ok := x.Kind.(*structpb.Value_NumberValue)
			if !ok {
				w = spare[structpb.Value_NumberValue](d, spareNumber)
				x.Kind = w
			}
			w.NumberValue = math.Float64frombits(v)
			continue
		case tagString3: // string_value
			v, rest, err := readBytes(b)
			if err != nil {
				return err
			}
			b = rest
			w, ok := x.Kind.(*structpb.Value_StringValue)
			if !ok {
				w = spare[structpb.Value_StringValue](d, spareString)
				x.Kind = w
			}
			if err := d.CheckUTF8(v, "google.protobuf.Value.string_value"); err != nil {
				return err
			}
			w.StringValue = d.String(v)
			continue
		case tagBool4: // bool_value
			v, rest, err := readVarint(b)
			if err != nil {
				return err
			}
			b = rest
			w, ok := x.Kind.(*structpb.Value_BoolValue)
			if !ok {
				w = spare[structpb.Value_BoolValue](d, spareBool)
				x.Kind = w
			}
			w.BoolValue = v != 0
			continue
		case tagStruct5: // struct_value
			v, rest, err := readBytes(b)
			if err != nil {
				return err
			}
			b = rest
			w, ok := x.Kind.(*structpb.Value_StructValue)
			if !ok {
				w = spare[structpb.Value_StructValue](d, spareStructValue)
				x.Kind = w
			}
			if err := nested(&w.StructValue, spareStruct, v, d, depth, decodeStruct); err != nil {
				return err
			}
			continue
		case tagList6: // list_value
			v, rest, err := readBytes(b)
			if err != nil {
				return err
			}
			b = rest
			w, ok := x.Kind.(*structpb.Value_ListValue)
			if !ok {
				w = spare[structpb.Value_ListValue](d, spareListValue)
				x.Kind = w
			}
			if err := nested(&w.ListValue, spareList, v, d, depth, decodeList); err != nil {
				return err
			}
			continue
		}
		if unk, b, err = skipUnknown(unk, tag, b); err != nil {
			return err
		}
	}
	keepUnknown(x, unk)
	return nil
}

// decodeStruct merges b into x, a google.protobuf.Struct: the entries of
// its map of Values, fields.
func decodeStruct(x *structpb.Struct, b []byte, d *Decoding, depth int) error {
	var unk []byte
	for len(b) > 0 {
		tag, rest, err := readTag(b)
		if err != nil {
			return err
		}
		b = rest
		switch tag {
		case tagBytes1: // fields
			e, rest, err := readBytes(b)
			if err != nil {
				return err
			}
			b = rest
			if depth < MapLevel {
				return ErrDepth
			}
			k, v, err := decodeEntry(e, d, depth-MapLevel)
			if err != nil {
				return err
			}
			if x.Fields == nil {
				x.Fields = make(map[string]*structpb.Value, 1+decode.Run(tagBytes1, b))
			}
			x.Fields[k] = v
			continue
		case tagVarint1, 1<<3 | uint64(protowire.Fixed64Type), 1<<3 | uint64(protowire.StartGroupType), 1<<3 | uint64(protowire.Fixed32Type):
			// fields, another wire type: an unknown field, which protobuf-go
			// counts as a level first, as a map entry.
			if depth < MapLevel {
				return ErrDepth
			}
		}
		if unk, b, err = skipUnknown(unk, tag, b); err != nil {
			return err
		}
	}
	if d.Record != nil {
		LogMap(d, &x.Fields)
	}
	keepUnknown(x, unk)
	return nil
}

// decodeEntry decodes e, an entry of a Struct's fields, with depth levels
// left below it.
func decodeEntry(e []byte, d *Decoding, depth int) (string, *structpb.Value, error) {
	var k string
	var v *structpb.Value
	for len(e) > 0 {
		tag, rest, err := readTag(e)
		if err != nil {
			return "", nil, err
		}
		e = rest
		switch tag {
		case tagBytes1: // key
			b, rest, err := readBytes(e)
			if err != nil {
				return "", nil, err
			}
			e = rest
			if err := d.CheckUTF8(b, "google.protobuf.Struct.FieldsEntry.key"); err != nil {
				return "", nil, err
			}
			k = d.String(b)
			continue
		case tagBytes2: // value
			b, rest, err := readBytes(e)
			if err != nil {
				return "", nil, err
			}
			e = rest
			if err := nested(&v, spareValue, b, d, depth, decodeValue); err != nil {
				return "", nil, err
			}
			continue
		}
		n := decode.SkipField(tag, e)
		if n < 0 {
			return "", nil, decode.ErrWire(n)
		}
		e = e[n:]
	}
	if v == nil {
		v = spare[structpb.Value](d, spareValue)
	}
	return k, v, nil
}

// decodeList merges b into x, a google.protobuf.ListValue: its Values are
// appended to x's.
func decodeList(x *structpb.ListValue, b []byte, d *Decoding, depth int) error {
	var unk []byte
	for len(b) > 0 {
		tag, rest, err := readTag(b)
		if err != nil {
			return err
		}
		b = rest
		if tag == tagBytes1 { // values
			v, rest, err := readBytes(b)
			if err != nil {
				return err
			}
			b = rest
			n := len(x.Values)
			if n < cap(x.Values) {
				x.Values = x.Values[:n+1]
			} else {
				x.Values = AppendMessage(x.Values, d, tagBytes1, b)
			}
			el := x.Values[n]
			if el == nil {
				el = spare[structpb.Value](d, spareValue)
				x.Values[n] = el
			}
			if depth < 1 {
				return ErrDepth
			}
			if err := decodeValue(el, v, d, depth-1); err != nil {
				return err
			}
			continue
		}
		if unk, b, err = skipUnknown(unk, tag, b); err != nil {
			return err
		}
	}
	if d.Record != nil {
		LogCleared(d, &x.Values)
	}
	keepUnknown(x, unk)
	return nil
}

// decodeSecondsNanos merges b into m, a google.protobuf.Timestamp or
// Duration, whose fields seconds and nanos are at sec and nanos.
func decodeSecondsNanos(m proto.Message, sec *int64, nanos *int32, b []byte) error {
	var unk []byte
	for len(b) > 0 {
		tag, rest, err := readTag(b)
		if err != nil {
			return err
		}
		b = rest
		switch tag {
		case tagVarint1: // seconds
			v, rest, err := readVarint(b)
			if err != nil {
				return err
			}
			b, *sec = rest, int64(v)
			continue
		case tagVarint2: // nanos
			v, rest, err := readVarint(b)
			if err != nil {
				return err
			}
			b, *nanos = rest, int32(v)
			continue
		}
		if unk, b, err = skipUnknown(unk, tag, b); err != nil {
			return err
		}
	}
	keepUnknown(m, unk)
	return nil
}

// decodeAny merges b into x, a google.protobuf.Any: its type_url and the
// bytes of its value, which stay encoded.
func decodeAny(x *anypb.Any, b []byte, d *Decoding) error {
	var unk []byte
	for len(b) > 0 {
		tag, rest, err := readTag(b)
		if err != nil {
			return err
		}
		b = rest
		switch tag {
		case tagBytes1: // type_url
			v, rest, err := readBytes(b)
			if err != nil {
				return err
			}
			b = rest
			if err := d.CheckUTF8(v, "google.protobuf.Any.type_url"); err != nil {
				return err
			}
			x.TypeUrl = d.String(v)
			continue
		case tagBytes2: // value
			v, rest, err := readBytes(b)
			if err != nil {
				return err
			}
			b = rest
			x.Value = d.Bytes(x.Value, v)
			continue
		}
		if unk, b, err = skipUnknown(unk, tag, b); err != nil {
			return err
		}
	}
	if d.Record != nil {
		LogBytes(d, &x.Value)
	}
	keepUnknown(x, unk)
	return nil
}

// DecodeFieldMask merges b into m, a google.protobuf.FieldMask, whose
// paths are *paths, as protobuf-go does: each path is appended, checked for
// UTF-8 (proto3) unless the check is off (once for the whole mask where it
// is 7-bit), and copied or a view as the
// Decoding says; a field of another number or wire type is an unknown
// field of m. In a slot, the paths' array is recorded for the next decode
// (LogCleared), as a repeated string field's is.
//
// Generated decoders call it for a FieldMask that a message holds, in the
// files that import its package (fieldmaskpb, whose type protobuf-go
// generates without a decoder of ours): this package does not import it,
// so that a program registers no file it did not link.
func DecodeFieldMask(m proto.Message, paths *[]string, b []byte, d *Decoding) error {
	// Paths are mostly 7-bit: one sweep of the whole mask spares each its
	// check.
	if twin, rest := d.Sweep(b); rest == 0 {
		d = twin
	}
	var unk []byte
	for len(b) > 0 {
		tag, rest, err := readTag(b)
		if err != nil {
			return err
		}
		b = rest
		if tag == tagBytes1 { // paths
			v, rest, err := readBytes(b)
			if err != nil {
				return err
			}
			b = rest
			if err := d.CheckUTF8(v, "google.protobuf.FieldMask.paths"); err != nil {
				return err
			}
			if len(*paths) == cap(*paths) {
				*paths = Grow(*paths, tagBytes1, b)
			}
			*paths = append(*paths, d.String(v))
			continue
		}
		if unk, b, err = skipUnknown(unk, tag, b); err != nil {
			return err
		}
	}
	if d.Record != nil {
		LogCleared(d, paths)
	}
	keepUnknown(m, unk)
	return nil
}
