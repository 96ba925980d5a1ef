package grpcfastimpl

import (
	"errors"
	"unsafe"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast/internal/decode"
	"github.com/grpcfast/grpcfast/internal/own"
)

// Decoder is implemented by every message that protoc-gen-go-grpcfast
// writes a decoder for: all but map entries, messages of the opaque Go API
// and messages with groups, extension ranges or weak fields, which
// protobuf-go decodes.
//
// GrpcfastDecode merges b into the message in one pass, checking as it goes
// what protobuf-go checks (tags, wire types, lengths, the UTF-8 of strings
// that require it, nesting deeper than depth more levels), and fails where
// protobuf-go fails; it does not check required fields, which the caller
// checks once the whole message is decoded. Strings and bytes are copied,
// or are views of b where d says so. In a slot's message it decodes into the
// arrays that the slot's last reset kept, takes the nested messages and
// oneof wrappers from d's record (TakeSpare, NewSpare), and records the
// arrays and maps of the message as it ends (LogBytes and the others).
type Decoder = decode.Decoder

// RequiredHolder is implemented by the generated messages with a decoder
// whose type can hold required fields, in itself or in a message type
// reachable through its fields: the codec checks them (as
// proto.CheckInitialized does) once a decode ends.
type RequiredHolder = decode.RequiredHolder

// Flat is implemented by the generated messages with a decoder whose
// decode into a new message has nothing that a fresh decode's slabs and
// chunks would allocate together: no message field (nor map, nor oneof),
// no repeated string or bytes field, and at most two singular string or
// bytes fields. The codec decodes them without taking those from their
// pool, and copies each value into an array of its own, as protobuf-go
// does: a string alone costs one allocation either way, two cost two
// rather than one, and the pool's round trip more than that.
type Flat = decode.Flat

// Decoding is the state of one decode: strings and bytes copied or views,
// the UTF-8 check on or off, the record of the slot decoded into.
type Decoding = decode.Decoding

// The calls below are how generated decoders use a Decoding: functions of
// this package, which generated code imports, so that the compiler has their
// bodies, and those of the Decoding methods they call, to inline; the
// methods of internal/decode alone would stay calls in a generated package.

// ShortVarint returns the value of b, a varint of one byte or of two (the
// first byte above 0x7f, the second not), which the caller checked: a
// nested message's one field that its holder decodes itself.
func ShortVarint(b []byte) uint64 {
	if len(b) == 1 {
		return uint64(b[0])
	}
	return uint64(b[0]&0x7f) | uint64(b[1])<<7
}

// IsVarint reports whether b is one varint and nothing else, of up to ten
// bytes, as protobuf-go reads one: a wrapper's number
// (google.protobuf.Int64Value...) that its holder decodes itself.
func IsVarint(b []byte) bool {
	_, n := protowire.ConsumeVarint(b)
	return n == len(b)
}

// String returns b as the value of a string field: a copy, or a view of
// the input.
func String(d *Decoding, b []byte) string { return d.String(b) }

// Bytes returns b as the value of a bytes field without presence: copied
// into dst's array, or a view of the input.
func Bytes(d *Decoding, dst, b []byte) []byte { return d.Bytes(dst, b) }

// BytesPresent returns b as the value of a bytes field whose presence is
// tracked by nil, or of an element of a repeated bytes field: never nil.
func BytesPresent(d *Decoding, b []byte) []byte { return d.BytesPresent(b) }

// CheckUTF8 returns an error naming field if b is not valid UTF-8, unless d
// does not check.
func CheckUTF8(d *Decoding, b []byte, field string) error { return d.CheckUTF8(b, field) }

// Unswept returns what a generated decoder starts aScii with: -1 if d
// checks UTF-8, so that the first string field it checks sweeps the rest of
// the input first (Sweep); 0 if d checks nothing, so that no string is
// checked and nothing swept.
func Unswept(d *Decoding) int {
	if d.Checks() {
		return -1
	}
	return 0
}

// Sweep returns d without the UTF-8 check, and 0, if every byte of b, the
// rest of a message's input, is below 0x80; otherwise d, and the length of
// b's rest from its first byte of 0x80 or more: a string that ends with at
// least that much input left needs no check.
func Sweep(d *Decoding, b []byte) (*Decoding, int) { return d.Sweep(b) }

// ErrDepth is the error of generated decoders for messages nested deeper
// than protobuf-go allows.
var ErrDepth = decode.ErrDepth

// ErrWire returns the error for n, a negative length from a read.
func ErrWire(n int) error { return decode.ErrWire(n) }

// MapLevel is 1 if the linked protobuf-go counts a map entry as a level of
// nesting, 0 otherwise.
var MapLevel = decode.MapLevel

// ReadTag reads a tag as protobuf-go does: negative length if malformed or
// its field number is outside [1, 2^29-1].
func ReadTag(b []byte) (uint64, int) { return decode.ReadTag(b) }

// SkipField returns the length of the value of field tag at the start of
// b, or a negative number if it is malformed.
func SkipField(tag uint64, b []byte) int { return decode.SkipField(tag, b) }

// AppendUnknown appends to b the unknown field of tag tag and value v, as
// protobuf-go keeps it: the tag in its shortest form.
func AppendUnknown(b []byte, tag uint64, v []byte) []byte {
	return append(protowire.AppendVarint(b, tag), v...)
}

// DecodeSint32 decodes a zigzag-encoded sint32 varint.
func DecodeSint32(v uint64) int32 { return decode.Sint32(v) }

// SpareKind names the list of spares of one Go type (a nested message
// type, or a oneof wrapper type) in a record.
type SpareKind = own.SpareKind

// NewSpareKind returns a new SpareKind; generated code calls it at init,
// once per type.
func NewSpareKind() SpareKind { return own.NewSpareKind() }

// NextSpare returns the next *T of kind k from the slab of its type in a
// decode into a fresh message (decode.Slabs), or nil where the decode has
// no slabs (a slot's) or that slab none left. It inlines into generated
// decoders, which call it where TakeSpare returned nil, and NewSpare where
// it returns nil too: a fresh message's nested messages and wrappers cost
// them no call, but one in MaxSlab or so, which starts a new slab.
func NextSpare[T any](d *Decoding, k SpareKind) *T {
	return (*T)(nextSlab(d, k, unsafe.Sizeof(*new(T))))
}

// nextSlab is NextSpare's call into the slabs, from a function of this
// package so that it inlines (see takeSpare).
func nextSlab(d *Decoding, k SpareKind, size uintptr) unsafe.Pointer {
	if s := d.Slabs; s != nil {
		return s.Next(k, size)
	}
	return nil
}

// TakeSpare returns the next spare *T of kind k in d's record, or nil if
// the record has none left (or d has none: a decode into a fresh message).
// It inlines into generated decoders, which call NextSpare, then
// NewSpare, when it returns nil: a slot's decode, which finds its nested
// messages and wrappers in its record, costs them no call.
func TakeSpare[T any](d *Decoding, k SpareKind) *T { return (*T)(takeSpare(d, k)) }

// takeSpare is TakeSpare's call into the record. From the body of a generic
// function, the compiler does not always inline a call into another
// package (it called the record's TakeSpare from most generated decoders);
// from this one it does.
func takeSpare(d *Decoding, k SpareKind) unsafe.Pointer { return d.Record.TakeSpare(k) }

// NewSpare returns a new *T of kind k where NextSpare and TakeSpare
// returned nil: in a decode into a fresh message, from a new slab of its
// type (decode.Take, which also hands out the next message of a slab with
// room, for code generated before NextSpare); in a slot's, allocated and
// added to the record, whose next reset keeps it as a spare.
func NewSpare[T any](d *Decoding, k SpareKind) *T {
	// A decode has slabs (a fresh message) or a record (a slot's), never
	// both.
	if s := d.Slabs; s != nil {
		return decode.Take[T](s, k)
	}
	return adopt[T](d.Record, k)
}

// adopt returns a new *T and, in a slot's decode, adds it to what the decode
// took from the slot's record: the slot's next reset resets it and keeps it
// for the next decode.
func adopt[T any](o *own.Record, k SpareKind) *T {
	p := new(T)
	if o != nil {
		o.Adopt(k, unsafe.Pointer(p), own.Ops[T]{})
	}
	return p
}

// DecodeMessage merges b into m, a message of a type that has no generated
// decoder in the generated file that calls it, with depth levels left below
// m: its own generated decoder if it has one, this package's for the
// well-known types that every gRPC program links (decodeKnown), and
// protobuf-go's otherwise (which copies strings and bytes, and checks as
// the standard codec does), where b holds anything.
func DecodeMessage[M any](m *M, b []byte, d *Decoding, depth int) error {
	if dm, ok := any(m).(Decoder); ok {
		return dm.GrpcfastDecode(b, d, depth)
	}
	if ok, err := decodeKnown(m, b, d, depth); ok {
		return err
	}
	if pm, ok := any(m).(proto.Message); ok {
		if len(b) == 0 {
			// Merged, partial, nothing: an empty encoding (an Empty's, as
			// it is sent) changes nothing, and costs protobuf-go's
			// Unmarshal a walk through its reflection.
			return nil
		}
		return proto.UnmarshalOptions{Merge: true, AllowPartial: true, RecursionLimit: depth + 1}.Unmarshal(b, pm)
	}
	return errNotMessage
}

var errNotMessage = errors.New("grpcfast: not a protobuf message")

// The calls below give a repeated field the capacity for the elements that
// follow in the input, as protobuf-go does for packed fields, instead of
// growing it as append does, element after element.

// Grow returns s, when its length is its capacity, with room for one more
// element, and for those of the field of tag tag that follow it in rest
// (runAhead), or as much as append would give it if that is more.
func Grow[T any](s []T, tag uint64, rest []byte) []T {
	return GrowBy(s, 1+runAhead(tag, rest, len(s)))
}

// runAhead counts the elements of the field of tag tag that follow one
// another at the start of rest, for a field that holds have: up to
// decode.MaxRun, or up to have if that is more. A field of 100,000 strings
// then takes about 8 arrays of doubling size rather than 20 growing by a
// quarter, and a run that fails at its end cost at most as much again as
// what was decoded before it.
func runAhead(tag uint64, rest []byte, have int) int {
	return decode.RunUpTo(tag, rest, max(decode.MaxRun, have))
}

// GrowBy returns s with room for n more elements at least: its length and
// n, or, if that is less, what append gives (twice a short slice, 1.25
// times a long one), so that elements that come apart still cost O(log n)
// arrays. The new array holds s's elements and zeros beyond them.
//
// Where that capacity is append's own (one step of its growth, or more
// than twice the length), it grows s with append, which the compiler turns
// into one call of the runtime's growslice: that clears only the part of
// the new array beyond the copied elements, and copies them with a write
// barrier on the source alone. A make and a copy clear the whole array,
// then copy with barriers on both sides: at 1 MiB of short strings, while
// the collector ran, that was most of the decode of a repeated string field.
// Between the two (a run ahead longer than append's step), append would
// overshoot by further steps: make and copy give the capacity asked.
func GrowBy[T any](s []T, n int) []T {
	if cap(s)-len(s) >= n {
		return s
	}
	l := len(s)
	step := appendCap(l)
	c := max(l+n, step)
	if c == step || c > 2*l {
		return append(s[:l:l], make([]T, c-l)...)[:l]
	}
	t := make([]T, l, c)
	copy(t, s)
	return t
}

// appendCap is the capacity that append gives a full slice of length l,
// as the runtime's nextslicecap computes it, before rounding up to the
// allocator's size class.
func appendCap(l int) int {
	if l < 256 {
		return 2 * l
	}
	return l + (l+3*256)/4
}

// AppendStrings decodes the run of values of a repeated string field whose
// tag is one byte, tag, at the start of b (the value after the tag just
// read, then each value after tag), and returns the field, the rest of the
// input, and the state and aScii that the generated decoder goes on with:
// what its own loop over the field did, UTF-8 checked alike (with aScii 0,
// nothing is checked nor swept). Values that need no check go through the
// state's StringRun; the others, and those it stops at, one at a time.
func AppendStrings(d *Decoding, s []string, b []byte, tag byte, aScii int, field string) ([]string, []byte, *Decoding, int, error) {
	if aScii < 0 {
		d, aScii = d.Sweep(b)
	}
	for {
		if aScii == 0 && len(s) < cap(s) {
			var done bool
			if s, b, done = d.StringRun(s, b, tag); done {
				return s, b, d, aScii, nil
			}
		}
		var v []byte
		if len(b) > 1 && b[0] < 0x80 && int(b[0]) < len(b) {
			v, b = b[1:1+int(b[0])], b[1+int(b[0]):]
		} else {
			r, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return s, b, d, aScii, decode.ErrWire(n)
			}
			v, b = r, b[n:]
		}
		if len(b) < aScii {
			if err := d.CheckUTF8(v, field); err != nil {
				return s, b, d, aScii, err
			}
		}
		if len(s) == cap(s) {
			s = Grow(s, uint64(tag), b)
		}
		s = append(s, d.String(v))
		if len(b) == 0 || b[0] != tag {
			return s, b, d, aScii, nil
		}
		b = b[1:]
	}
}

// PackedVarints returns the number of varints in b, the value of a packed
// field of varints.
func PackedVarints(b []byte) int { return decode.Varints(b) }

// AppendMessage returns s, whose length is its capacity, with one more
// element for the message of the field of tag tag just read, and with room
// for those that follow it in rest (Grow). The caller decodes into the new
// last element if it is not nil, and into a spare otherwise. In a decode
// into a fresh message (d has no record), the new element and those that
// follow it in rest are allocated together, in chunks of at most
// 1+decode.MaxRun, and set in s beyond its length, where the next elements
// of the field find them; and a field's first run of at most
// decode.MaxCarved elements has its pointers side by side with those of the
// decode's other short fields (decode.Slabs.Pointers), in an array of
// exactly their number: appending to the field copies it, as to any full
// slice, and writes nothing of another field.
func AppendMessage[T any](s []*T, d *Decoding, tag uint64, rest []byte) []*T {
	n := 1 + runAhead(tag, rest, len(s))
	if sl := d.Slabs; sl != nil && len(s) == 0 && n <= decode.MaxCarved {
		s = unsafe.Slice((**T)(sl.Pointers(n)), n)[:1]
	} else {
		s = GrowBy(s, n)[:len(s)+1]
	}
	if d.Record == nil {
		// In chunks of at most 1+MaxRun elements, so that an element kept
		// keeps at most that many of its siblings alive.
		next := s[len(s)-1 : len(s)-1+n]
		for len(next) > 0 {
			all := make([]T, min(len(next), 1+decode.MaxRun))
			for i := range all {
				next[i] = &all[i]
			}
			next = next[len(all):]
		}
	}
	return s
}
