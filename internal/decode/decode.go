// Package decode holds what generated decoders (GrpcfastDecode) share: the
// state of one decode, the reading of tags, lengths and varints, the UTF-8
// check, and the errors, all as protobuf-go reads and rejects them.
package decode

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"unsafe"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/grpcfast/grpcfast/internal/own"
)

// Limit is the depth left to the top-level message of a decode: protobuf-go's
// default RecursionLimit, which gRPC's standard codec uses, less the level
// of the top-level message itself. A generated decoder fails when a nested
// message would be decoded with less than zero left.
const Limit = protowire.DefaultRecursionLimit - 1

// MapLevel is 1 where the protobuf-go that this program links counts a map
// entry toward RecursionLimit as a nested message (v1.36.12 does: its
// consumeMap decrements the depth), 0 where it does not (v1.36.0). A Struct
// holding, in its map, a Value holding a Struct is four levels deep with map
// entries counted and three without: a RecursionLimit of 3 accepts it only
// without.
var MapLevel = func() int {
	b, err := proto.Marshal(&structpb.Struct{Fields: map[string]*structpb.Value{
		"": structpb.NewStructValue(&structpb.Struct{}),
	}})
	if err != nil {
		panic("grpcfast: probing protobuf-go's recursion limit: " + err.Error())
	}
	if err := (proto.UnmarshalOptions{RecursionLimit: 3}).Unmarshal(b, new(structpb.Struct)); err != nil {
		return 1
	}
	return 0
}()

var (
	// ErrMalformed is the error for input that protobuf-go cannot parse:
	// an overlong varint, a field number outside [1, 2^29-1], wire types 6
	// and 7, an unexpected end group, an unknown group that does not close.
	ErrMalformed = errors.New("grpcfast: cannot parse invalid wire-format data")
	// ErrTruncated is the error for input that ends inside a field: it
	// wraps io.ErrUnexpectedEOF, as vtprotobuf's errors for it do.
	ErrTruncated = fmt.Errorf("grpcfast: cannot parse invalid wire-format data: %w", io.ErrUnexpectedEOF)
	// ErrDepth is the error for messages nested deeper than protobuf-go's
	// RecursionLimit.
	ErrDepth = errors.New("grpcfast: exceeded maximum recursion depth")
)

// ErrWire returns the error for n, a negative length from a read: protowire's
// error codes, where -1 is input that ends too soon.
func ErrWire(n int) error {
	if n == -1 {
		return ErrTruncated
	}
	return ErrMalformed
}

// Decoder is implemented by the messages that protoc-gen-go-grpcfast wrote a
// decoder for (grpcfastimpl.Decoder has its contract).
type Decoder interface {
	GrpcfastDecode(b []byte, d *Decoding, depth int) error
}

// RequiredHolder is implemented by generated messages with a decoder whose
// type can hold required fields (grpcfastimpl.RequiredHolder).
type RequiredHolder interface {
	GrpcfastRequired()
}

// UTF8Error is the error for a string field that must hold valid UTF-8 and
// does not.
type UTF8Error struct{ Field string }

func (e *UTF8Error) Error() string {
	return "grpcfast: field " + e.Field + " contains invalid UTF-8"
}

// Decoding is what one decode needs besides the bytes: how strings and bytes
// are decoded, whether UTF-8 is checked, and the record of the slot that
// the message is decoded into. A state is read, never written, while it
// decodes; its twin (ASCII) is the same state without the UTF-8 check, for
// the rest of an input known to be 7-bit.
type Decoding struct {
	// Record is the record of the slot whose message is decoded, where the
	// decoder finds the spares that its last reset gave back; nil for a
	// message that no slot prepared.
	Record *own.Record
	// views makes strings and bytes fields views of the input, which the
	// caller guarantees is never written into nor reused (the owned copy).
	views bool
	// noUTF8 turns off the UTF-8 check (grpcfast.WithoutUTF8Validation,
	// or an input known to be 7-bit).
	noUTF8 bool
	ascii  *Decoding // this decoding without the UTF-8 check
	// Slabs allocates the nested messages of a decode into a fresh message
	// (GetFresh); nil in a slot, whose record keeps spares instead.
	Slabs *Slabs
	// strs is where the decode copies its short strings, side by side in
	// chunks, equal ones once: the fresh decode's (in Slabs), or a slot's
	// (ChunkStrings); nil: each string is allocated alone.
	strs *Chunks
	// pieces makes strings views of copies of the input's pieces (a fresh
	// decode's, CopyPieces); nil: strings are copied into strs.
	pieces *Pieces
	// The window, with pieces: a string whose bytes lie in the n bytes of
	// the input at lo is a view of the same bytes at win, the copy of the
	// piece of the last string made (Pieces.view), found first thing in
	// copied; otherwise n is 0.
	lo, n uintptr
	win   unsafe.Pointer
}

func (s *Decoding) setWindow(lo, n uintptr, win unsafe.Pointer) {
	s.lo, s.n, s.win = lo, n, win
}

// Decodings is a Decoding and its twin without the UTF-8 check, for a slot to
// keep (Init).
type Decodings struct{ state, ascii Decoding }

// Init sets s up for a decode into the slot that o records, with strings
// and bytes as views of the input or copied, and returns the state.
func (s *Decodings) Init(o *own.Record, views, noUTF8 bool) *Decoding {
	s.state = Decoding{Record: o, views: views, noUTF8: noUTF8, ascii: &s.ascii}
	s.ascii = Decoding{Record: o, views: views, noUTF8: true}
	s.ascii.ascii = &s.ascii
	return &s.state
}

// Views reports whether s's strings and bytes are views of the input.
func (s *Decoding) Views() bool { return s.views }

// Checks reports whether s checks UTF-8.
func (s *Decoding) Checks() bool { return !s.noUTF8 }

// String returns b as a string: a view of the input, or a copy (copied).
// It inlines into generated decoders: a view costs them no call.
func (s *Decoding) String(b []byte) string {
	if s.views && len(b) > 0 {
		return unsafe.String(unsafe.SliceData(b), len(b))
	}
	return s.copied(b)
}

// copied returns a copy of b as a string: a value of up to MaxChunked bytes
// in the decode's chunks, or the same decode's copy of an equal value
// (Chunks.copyString), where the decode has chunks for strings (a fresh
// message's, or a slot's: ChunkStrings). It is not inlined, so that String
// is. A value of 8 bytes or more, the most common (an OTLP export's keys and
// values), is looked for here, without a further call where the decode
// copied it before: its entry from its first and last 8 bytes (seenHash),
// and its bytes compared as two or four words, overlapping, up to 32 bytes.
//
//go:noinline
func (s *Decoding) copied(b []byte) string {
	if off := uintptr(unsafe.Pointer(unsafe.SliceData(b))) - s.lo; off < s.n && uintptr(len(b)) <= s.n-off {
		return unsafe.String((*byte)(unsafe.Add(s.win, off)), len(b))
	}
	if p := s.pieces; p != nil && len(b) > 0 {
		if v, ok := p.view(b); ok {
			return v
		}
	}
	c, n := s.strs, len(b)
	if c == nil || n < 2 || n > MaxChunked {
		// A string of one byte is the runtime's, allocated for none.
		return string(b)
	}
	if n < 8 || c.paused > 0 {
		return c.copyString(b)
	}
	lo, hi := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[n-8:])
	h := seenHash(lo, hi, n)
	c.looked++
	if v := c.seen[h&(seenSize-1)]; len(v) == n {
		w := unsafe.Slice(unsafe.StringData(v), n)
		same := binary.LittleEndian.Uint64(w) == lo && binary.LittleEndian.Uint64(w[n-8:]) == hi
		if same && n > 16 {
			if n <= 32 {
				same = binary.LittleEndian.Uint64(w[8:]) == binary.LittleEndian.Uint64(b[8:]) &&
					binary.LittleEndian.Uint64(w[n-16:]) == binary.LittleEndian.Uint64(b[n-16:])
			} else {
				same = v == string(b)
			}
		}
		if same {
			return c.hit(v)
		}
	}
	return c.copySeen(b, h)
}

// Bytes returns b as the value of a bytes field without presence: a view
// of the input with no capacity beyond it, or a copy (copiedInto). It
// inlines into generated decoders.
func (s *Decoding) Bytes(dst, b []byte) []byte {
	if s.views {
		return b[:len(b):len(b)]
	}
	return s.copiedInto(dst, b)
}

// copiedInto returns a copy of b: into dst's array if it holds b;
// otherwise, in a decode into a fresh message, a value of up to MaxChunked
// bytes in the decode's chunks (Chunks.copy). dst is the field's value
// before this one: an earlier value of the same field in this decode, or
// the array a slot kept for the field from its last decode (a slot keeps
// none that is a view of an owned copy: grpcfastimpl.LogBytes records no
// view). Nothing else refers to either (any other message is reset before
// a decode into it), so writing over it changes nothing that anyone can
// see; protobuf-go's decode allocates a new array for every value instead.
// It is not inlined, so that Bytes is.
//
//go:noinline
func (s *Decoding) copiedInto(dst, b []byte) []byte {
	if s.Slabs != nil && cap(dst) < len(b) && len(b) <= MaxChunked {
		return s.Slabs.copy(b)
	}
	return append(dst[:0], b...)
}

// BytesPresent returns b as the value of a bytes field whose presence is
// tracked by nil, or of an element of a repeated bytes field: never nil. It
// inlines into generated decoders.
func (s *Decoding) BytesPresent(b []byte) []byte {
	if s.views {
		return b[:len(b):len(b)]
	}
	return s.copiedPresent(b)
}

// copiedPresent returns a copy of b, never nil: in a decode into a fresh
// message, a value of up to MaxChunked bytes in the decode's chunks
// (Chunks.copy). It is not inlined, so that BytesPresent is.
//
//go:noinline
func (s *Decoding) copiedPresent(b []byte) []byte {
	if len(b) == 0 {
		return []byte{}
	}
	if s.Slabs != nil && len(b) <= MaxChunked {
		return s.Slabs.copy(b)
	}
	return append([]byte(nil), b...)
}

// CheckUTF8 returns an error naming field if b is not valid UTF-8, unless
// the check is off. It inlines into generated decoders: with the check off,
// it costs them no call.
func (s *Decoding) CheckUTF8(b []byte, field string) error {
	if s.noUTF8 {
		return nil
	}
	return checkUTF8(b, field)
}

//go:noinline
func checkUTF8(b []byte, field string) error {
	if ValidUTF8(b) {
		return nil
	}
	return utf8Error(field)
}

func utf8Error(field string) error { return &UTF8Error{Field: field} }

// ReadTag reads the tag at the start of b as protobuf-go does: the tag and its
// length, or a negative length for a malformed varint or a field number
// outside [1, 2^29-1]. Generated decoders read a tag of one byte inline and
// call it for the rest.
func ReadTag(b []byte) (uint64, int) {
	v, n := protowire.ConsumeVarint(b)
	switch {
	case n < 0:
		return 0, n
	case v < 8 || v > math.MaxUint32:
		return 0, -2
	}
	return v, n
}

// SkipField returns the length of the value of an unknown field (or of a known
// one with another wire type) of tag tag at the start of b, or -1, as
// protobuf-go skips it.
func SkipField(tag uint64, b []byte) int {
	return protowire.ConsumeFieldValue(protowire.Number(tag>>3), protowire.Type(tag&7), b)
}

// Sint32 decodes a zigzag-encoded sint32 as protobuf-go does.
func Sint32(v uint64) int32 { return int32(protowire.DecodeZigZag(v & math.MaxUint32)) }

// Run returns how many fields of tag tag follow one another at the start of
// b, up to MaxRun: how many more elements a repeated field is about to get,
// since an encoder writes a field's elements together. It is a hint for the
// capacity of the field, never an error: it stops at anything else,
// malformed input included, which the decode reports when it gets there.
func Run(tag uint64, b []byte) int { return RunUpTo(tag, b, MaxRun) }

// RunUpTo is Run, counting up to limit.
func RunUpTo(tag uint64, b []byte, limit int) int {
	if tag < 0x80 && protowire.Type(tag&7) == protowire.BytesType {
		return runBytes(byte(tag), b, limit)
	}
	n := 0
	for len(b) > 0 && n < limit {
		t, i := uint64(b[0]), 1
		if t >= 0x80 {
			t, i = ReadTag(b)
		}
		if i < 0 || t != tag {
			return n
		}
		b = b[i:]
		switch protowire.Type(tag & 7) {
		case protowire.BytesType:
			l, j := protowire.ConsumeVarint(b)
			if j < 0 || l > uint64(len(b)-j) {
				return n
			}
			i = j + int(l)
		case protowire.VarintType, protowire.Fixed32Type, protowire.Fixed64Type:
			if i = SkipField(tag, b); i < 0 {
				return n
			}
		default: // groups: their fields are decoded by protobuf-go
			return n
		}
		b = b[i:]
		n++
	}
	return n
}

// runBytes is RunUpTo for a tag of one byte and the bytes wire type, the
// common case: strings, bytes and messages, most of them with a length of
// one byte, which it reads inline.
func runBytes(tag byte, b []byte, limit int) int {
	n, i := 0, 0
	for n < limit && i < len(b) && b[i] == tag {
		i++
		if i < len(b) && b[i] < 0x80 {
			i += 1 + int(b[i])
		} else {
			l, j := protowire.ConsumeVarint(b[i:])
			if j < 0 || l > uint64(len(b)-i-j) {
				return n
			}
			i += j + int(l)
		}
		if i > len(b) {
			return n
		}
		n++
	}
	return n
}

// MaxRun bounds what Run counts, and so what a decoder allocates ahead of
// elements it has not yet decoded: a field's first elements cost at most
// this many in advance, whatever the input. A field that already holds more
// counts as many as it holds (grpcfastimpl.Grow): what it allocates ahead is
// then at most what the input has already been found to hold, as when
// append doubles a slice.
const MaxRun = 1024

// Varints returns how many varints b holds, a packed field's elements: the
// number of bytes that end one.
func Varints(b []byte) int {
	n := 0
	for _, c := range b {
		if c < 0x80 {
			n++
		}
	}
	return n
}
