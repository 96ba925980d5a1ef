package grpcfastimpl

import (
	"errors"
	"unsafe"

	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast/internal/own"
)

// Decoder is implemented by generated messages that protoc-gen-go-grpcfast
// wrote a decoder for: proto3 messages whose fields are numbers, enums,
// strings, bytes, messages, repeated fields of these (packed or not) and
// oneofs of these; not maps nor optional fields.
//
// GrpcfastDecode merges b, which the codec has checked as the standard codec
// would (wire types, lengths, UTF-8, nesting), into the message, which is
// empty, as UnmarshalVTUnsafe would: its strings and bytes fields are views
// of b, the owned copy, which the codec never reuses. It decodes into the
// memory that the message's GrpcfastReuse kept, and takes the nested
// messages and oneof wrappers that it gave back (spares) from o.
type Decoder interface {
	GrpcfastDecode(b []byte, o *Owned) error
}

// SpareKind names the list of spares of one Go type (a nested message
// type, or a oneof wrapper type) in a record.
type SpareKind = own.SpareKind

// NewSpareKind returns a new SpareKind; generated code calls it at init,
// once per type.
func NewSpareKind() SpareKind { return own.NewSpareKind() }

// Spare returns a spare *T of kind k from o, or a new one.
func Spare[T any](o *Owned, k SpareKind) *T {
	if p := o.TakeSpare(k); p != nil {
		return (*T)(p)
	}
	return new(T)
}

// PutSpare gives p, a oneof wrapper of kind k that o recorded (MatchOneof)
// and that has been cleared, to o's spares, if the decode that o records
// was a generated decoder's.
func PutSpare[T any](o *Owned, k SpareKind, p *T) {
	if o.Decoding() {
		o.PutSpare(k, unsafe.Pointer(p))
	}
}

// SpareMessage reads the record of a singular message field of a type with
// a generated decoder. If the decode that o records was a generated
// decoder's and o records m, m is reset (GrpcfastReuse, or Reset for types
// without it) and given to o's spares of kind k; otherwise it is treated as
// ReleaseMessage treats it.
func SpareMessage[M any](o *Owned, k SpareKind, m *M) {
	if !o.Decoding() {
		ReleaseMessage(o, m)
		return
	}
	ok, end := o.MatchMessage(unsafe.Pointer(m))
	if ok && resetRecorded(o, m) {
		o.PutSpare(k, unsafe.Pointer(m))
	}
	o.Seek(end)
}

// RecordOneof records the wrapper that a oneof field holds (nil if unset).
func RecordOneof(o *Owned, v any) { o.Open(dataOf(v)) }

// MatchOneof reads the entry that RecordOneof made and reports whether it
// records the wrapper that v holds.
func MatchOneof(o *Owned, v any) bool {
	p := dataOf(v)
	ok, _ := o.MatchMessage(p)
	return ok
}

// dataOf returns the pointer that v holds, or nil.
func dataOf(v any) unsafe.Pointer {
	return (*[2]unsafe.Pointer)(unsafe.Pointer(&v))[1]
}

// String returns a view of b, part of the owned copy that the generated
// decoder decodes, which the codec never reuses nor writes into.
func String(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// View returns b, part of the owned copy, as the value of a bytes field:
// never nil (as with UnmarshalVT), and with no capacity beyond its length,
// so that an append to it copies rather than writing into what follows.
func View(b []byte) []byte { return b[:len(b):len(b)] }

type vtDecoder interface{ UnmarshalVT([]byte) error }

// DecodeMessage merges b into m, an empty message of a type whose decoder
// the generated code does not know: its own generated decoder if it has
// one, vtprotobuf's UnmarshalVT otherwise, protobuf-go's last.
func DecodeMessage[M any](m *M, b []byte, o *Owned) error {
	if d, ok := any(m).(Decoder); ok {
		return d.GrpcfastDecode(b, o)
	}
	// Not UnmarshalVTUnsafe: its bytes fields would view b up to its end,
	// and an append to one would write into what the request's strings
	// view. Such subtrees (maps, optional fields) copy their strings and
	// bytes instead.
	if d, ok := any(m).(vtDecoder); ok {
		return d.UnmarshalVT(b)
	}
	if pm, ok := any(m).(proto.Message); ok {
		return proto.UnmarshalOptions{Merge: true}.Unmarshal(b, pm)
	}
	return errNotMessage
}

var errNotMessage = errors.New("grpcfast: not a protobuf message")
