package own

import (
	"sync/atomic"
	"unsafe"
)

// Spares. A message type that protoc-gen-go-grpcfast generated a decoder for
// (GrpcfastDecode) gives back, when it is reset for reuse after that
// decoder decoded it, the memory that a reset drops but that the next
// decode needs again: its singular nested messages and its oneof wrappers
// (&AnyValue_StringValue{}). They cannot stay in the message, which must
// read as empty to any codec that decodes into it next, so they wait in the
// slot's record (the Record), one list per type, and the generated decoder
// takes them from there instead of allocating. Only memory that the record
// proves the decoder allocated is given back, and the lists hold no more
// than the last two decodes used (DropSpares).

// SpareKind names the list of spares of one Go type; generated code gets
// one per type from NewSpareKind at init.
type SpareKind int32

var kinds atomic.Int32

// NewSpareKind returns a new SpareKind.
func NewSpareKind() SpareKind { return SpareKind(kinds.Add(1) - 1) }

// Generated reports whether the record is of a decode by a generated
// decoder (SetGenerated): the next reset gives spares back.
func (o *Record) Generated() bool { return o != nil && o.generated }

// SetGenerated marks the record as that of a decode by a generated decoder,
// until Clear.
func (o *Record) SetGenerated() { o.generated = true }

// spareList is the list of spares of one kind: the first n of p. The
// array keeps its length from one generation to the next, so that a push
// and a pop only write an element and n; DropSpares clears it all.
type spareList struct {
	p []unsafe.Pointer
	n int
}

// PutSpare gives p, which the record proved to be the decoder's and which
// has been reset, to the list of kind k. Quarantine builds keep nothing.
func (o *Record) PutSpare(k SpareKind, p unsafe.Pointer) {
	if Quarantine || o == nil || p == nil {
		return
	}
	if int(k) >= len(o.spares) {
		o.growSpares(k)
	}
	l := &o.spares[k]
	if l.n < len(l.p) {
		l.p[l.n] = p
	} else {
		l.p = append(l.p, p)
	}
	l.n++
}

func (o *Record) growSpares(k SpareKind) {
	n := int(k) + 1
	o.spares = append(o.spares, make([]spareList, n-len(o.spares))...)
	o.older = append(o.older, make([]spareList, n-len(o.older))...)
}

// TakeSpare returns a spare of kind k, or nil if there is none: one that
// the last reset gave back, or else one of the reset before. The element
// it leaves behind in the array is not cleared: it points to memory that
// the slot's message holds from now on, and the next PutSpare or
// DropSpares overwrites it.
func (o *Record) TakeSpare(k SpareKind) unsafe.Pointer {
	if o == nil || uint(k) >= uint(len(o.spares)) {
		return nil
	}
	if l := &o.spares[k]; l.n > 0 {
		l.n--
		return l.p[l.n]
	}
	return o.takeOlder(k)
}

func (o *Record) takeOlder(k SpareKind) unsafe.Pointer {
	l := &o.older[k]
	if l.n == 0 {
		return nil
	}
	l.n--
	return l.p[l.n]
}

// DropSpares starts a new generation of spares, before a reset gives some
// back: those that the last two decodes left unused are let go, those of
// the last reset are kept for one more decode. A message whose repeated
// fields alternate between long and short finds there what the long one
// left, and a slot keeps no more than its last two messages needed,
// whatever decoded them.
func (o *Record) DropSpares() {
	for i := range o.spares {
		clear(o.older[i].p)
		o.older[i], o.spares[i] = o.spares[i], spareList{p: o.older[i].p}
	}
}
