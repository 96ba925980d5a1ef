// Package reuse holds the message slots that grpcfast's receivers and
// generated pooled handlers decode into: a message, the record of the
// memory a grpcfast codec's decode left in it, and the reset that keeps only
// that memory before the next decode.
package reuse

import (
	"sync/atomic"
	"unsafe"

	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast/internal/decode"
	"github.com/grpcfast/grpcfast/internal/own"
)

// Owner is implemented by messages that protoc-gen-go-grpcfast generated a
// decoder for; grpcfastimpl.Owner, which generated code names, is this
// interface, with its contract.
type Owner interface {
	GrpcfastUnknownFields() *[]byte
}

// ResetForDecode clears v as Reset does: whatever v holds is dropped, as
// gRPC's standard codec drops it. It reports false if v cannot be reset.
func ResetForDecode(v any) bool {
	switch r := v.(type) {
	case interface{ Reset() }:
		r.Reset()
	case proto.Message:
		proto.Reset(r)
	default:
		return false
	}
	return true
}

// Slot is a message and the record of its memory, in one allocation.
type Slot[M any] struct {
	head  Header // first: the codec finds it from the message's address (TakeHeader)
	m     M
	Msg   *M         // &m
	ow    Owner      // Msg, if *M implements Owner; nil otherwise
	owned own.Record // what a grpcfast codec's decode left in Msg, if state is decoded
	state state
	given atomic.Uint32 // the collections counted when Put gave it to its pool (Slots.age)
}

type state uint8

const (
	clean   state = iota // reset, holding only memory a grpcfast decode allocated
	decoded              // decoded by a grpcfast codec; owned records its memory
	foreign              // decoded by another codec, or a failed decode: keep nothing
)

// New returns a new slot, not yet prepared.
func New[M any]() *Slot[M] {
	s := new(Slot[M])
	s.Msg = &s.m
	s.ow, _ = any(s.Msg).(Owner)
	if s.ow != nil && unsafe.Offsetof(s.m) != headerOffset {
		// The codec would not find the Header before the message, nor so
		// know it prepared (never for a generated message, which has the
		// alignment of a pointer): a plain message, reset before every
		// decode.
		s.ow = nil
	}
	if s.ow != nil {
		s.head.msg = unsafe.Pointer(s.Msg)
		s.head.owned = &s.owned
	}
	return s
}

// Prepare makes s ready to be decoded into by any codec: reset, keeping only
// what a grpcfast codec's decode allocated (poisoned in checked builds), and
// marked so that the grpcfast codec decodes into it without resetting it
// again. A codec that merges into the message (vtprotobuf's) then gets an
// empty message too.
//
// The nested messages and oneof wrappers that the last decode took from
// the record, or allocated and added to it, are reset wherever the caller
// left them, and are the next decode's spares (own.Record.Recycle); after a
// successful decode, the arrays and maps that the decode recorded in their
// fields, and that the fields still hold, are kept there, emptied
// (own.Record.CheckArrays). Anything else the message holds is dropped.
func (s *Slot[M]) Prepare() {
	keep := s.state == decoded
	if keep {
		// Before the reset clears the fields.
		s.owned.CheckArrays()
	}
	switch s.state {
	case decoded:
		s.m = *new(M) // a generated message: what its Reset does
	case foreign:
		ResetForDecode(s.Msg)
	}
	s.owned.Recycle(keep)
	s.owned.Clear()
	s.head.release()
	s.head.copy = false
	s.state = clean
	if s.ow != nil {
		*s.ow.GrpcfastUnknownFields() = s.head.mark()
	}
}

// Poison overwrites, in checked builds but quarantine ones, what the
// prepared s's message and spares hold of their own (strings, numbers,
// bools, message fields) and the elements of the repeated message fields'
// arrays that they keep (own.PoisonOwn, own.Record.Poison), until
// Unpoison. Whatever still holds them after s was given back (a reply that
// echoes part of a pooled request, which gRPC encodes after the request
// went back; a message kept past the next Recv) reads the pattern, and a
// string of it, not valid UTF-8, fails to encode or decode. Quarantine
// builds poison what they drop instead (Slots.Put).
func (s *Slot[M]) Poison() {
	if own.Checked && !own.Quarantine {
		s.owned.Poison()
		own.PoisonOwn(s.Msg)
	}
}

// Unpoison clears what Poison poisoned, so that the next decode into s
// finds it prepared. Every decode into a slot that may have been poisoned
// takes it through Slots.Get or a receiver's next slot, which call
// Unpoison first.
func (s *Slot[M]) Unpoison() {
	if own.Checked && !own.Quarantine {
		s.owned.Unpoison()
		own.ClearOwn(s.Msg)
	}
}

// Detach hands s's message over for good, as Receiver.Take does: the
// transport buffers that its views point into are let go without being
// freed, so they are never reused, and the garbage collector reclaims them
// with the message; so are the messages that its record holds.
func (s *Slot[M]) Detach() {
	s.head.drop()
	s.owned.Disown()
}

// Settle records what a decode into the prepared slot left, given the
// error of the call that may have decoded (RecvMsg, or a unary handler's
// dec). It reports whether the slot holds a received message. On error the
// slot is prepared again, unless no codec touched it.
func (s *Slot[M]) Settle(err error) bool {
	if err != nil {
		// No codec touched the message if it still carries the mark (the
		// end of a stream, a transport error); otherwise it may hold part
		// of a failed decode: keep none of its memory.
		if s.ow == nil || !s.untouched() {
			s.state = foreign
			s.Prepare()
		}
		return false
	}
	s.state = foreign
	if s.ow == nil {
		return true
	}
	if ok, _ := TakeDecoded(s.ow.GrpcfastUnknownFields()); !ok || !s.owned.Generated() {
		return true
	}
	// A view points into a transport buffer, not into memory the decode
	// allocated: the next reset must not keep it.
	for i := range s.head.held {
		s.owned.Forget(unsafe.Pointer(unsafe.SliceData(s.head.held[i].view)))
	}
	s.state = decoded
	return true
}

// untouched reports whether the message still carries the mark that
// Prepare left: no codec has decoded into it since.
func (s *Slot[M]) untouched() bool {
	return s.head.isMark(*s.ow.GrpcfastUnknownFields())
}

// PrepareCopy marks the prepared slot s for a decode into one owned copy
// (Header.Copy): the grpcfast codec then decodes the message with
// its generated decoder, its strings and bytes viewing one array that
// nothing else refers to, and that is reused only once nothing refers to it
// (internal/codec's ownedCopy). It reports false, and leaves s as it was, if M has no
// generated decoder or no record of its memory.
func (s *Slot[M]) PrepareCopy() bool {
	if s.ow == nil || !HasGeneratedDecoder[M]() {
		return false
	}
	// The codec finds the slot's record, and the spares in it for a
	// generated decoder, from the mark that Prepare left.
	s.head.copy = true
	return true
}

// HasGeneratedDecoder reports whether protoc-gen-go-grpcfast wrote *M a
// decoder (GrpcfastDecode), which the owned copy decodes with.
func HasGeneratedDecoder[M any]() bool {
	_, ok := any((*M)(nil)).(decode.Decoder)
	return ok
}

// Held returns how many nested messages and oneof wrappers s's record
// holds for its next decodes.
func (s *Slot[M]) Held() int { return s.owned.Held() }

// Generated reports whether the last decode into s was by a generated
// decoder (grpcfastimpl.Decoder), which its next reset gives spares back to.
func (s *Slot[M]) Generated() bool { return s.owned.Generated() }
