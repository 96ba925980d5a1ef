package reuse

import (
	"sync/atomic"
	"unsafe"

	"google.golang.org/grpc/mem"

	"github.com/grpcfast/grpcfast/internal/decode"
	"github.com/grpcfast/grpcfast/internal/own"
)

// Header is the part of a slot that lies just before its message, where
// the codec finds it from the message's address: the slot's record (Record),
// whether to decode into one owned copy (Copy), the states of its
// generated decodes, and the transport buffers that the views in the
// message point into: a large singular bytes field that arrived whole in
// one of gRPC's receive buffers is decoded as a view of it, not copied, and
// the slot keeps a reference on the buffer (mem.Buffer.Ref) until the
// message is reset or handed over.
//
// A prepared slot's message carries a mark that points at its Header: an
// empty, zero-capacity unknown-fields slice whose array is the Header itself
// (nothing is ever written through it). The codec finds the Header from that
// mark only if it lies exactly where a slot puts it, before the message, and
// names the message as its own (TakeHeader); anything else is not a mark.
type Header struct {
	msg       unsafe.Pointer // the slot's message; nil if views are off for the slot
	held      []held
	owned     *own.Record // the slot's record, where a generated decoder finds its spares
	copy      bool        // decode into one owned copy (PrepareCopy), not into views
	decodings decode.Decodings
}

// Decoding returns the state of a generated decoder's decode into the
// slot's message, with strings and bytes copied.
func (h *Header) Decoding(noUTF8 bool) *decode.Decoding {
	return h.decodings.Init(h.owned, false, noUTF8)
}

// CopyDecoding returns the state of a generated decoder's decode into the
// owned copy, for the slot: strings and bytes as views of the copy, the
// slot's record for spares.
func (h *Header) CopyDecoding(noUTF8 bool) *decode.Decoding {
	return h.decodings.Init(h.owned, true, noUTF8)
}

// Record returns the record of the slot: a generated decoder takes the
// spares that the slot's last reset gave back from it.
func (h *Header) Record() *own.Record { return h.owned }

// Copy reports whether the slot was prepared for a decode into one owned
// copy (Slot.PrepareCopy).
func (h *Header) Copy() bool { return h.copy }

type held struct {
	buf   mem.Buffer
	view  []byte
	field *[]byte // the field that was set to view
}

// headerOffset is the offset of the message in a slot of a message type with
// the alignment of a pointer (every generated message). A slot whose message
// lies elsewhere gets no views.
var headerOffset = unsafe.Offsetof(Slot[struct{ _ *int }]{}.m)

// MinView is the size from which a bytes field is decoded as a view of the
// transport buffer rather than copied: a view costs a reference on the
// buffer and keeps all of it alive until the message is reset, which a copy
// of a few hundred bytes costs about as much as.
const MinView = 1024

// Hold takes a reference on buf, which view lies in, until the slot's
// message is reset, and sets *field to view. A view that the field held
// before (a peer may send a singular field more than once; the last wins)
// is let go at once: the message no longer points into it, and gRPC still
// holds its own reference on that buffer until the decode ends, so it is
// neither poisoned nor reused before then. So the views held are at most one
// per field, whatever the peer sends.
func (h *Header) Hold(buf mem.Buffer, view []byte, field *[]byte) {
	buf.Ref()
	*field = view
	for i := range h.held {
		if e := &h.held[i]; e.field == field {
			e.buf.Free()
			*e = held{buf, view, field}
			return
		}
	}
	h.held = append(h.held, held{buf, view, field})
}

// Viewing reports whether *field is the view held for it.
func (h *Header) Viewing(field *[]byte) bool {
	for i := range h.held {
		if e := &h.held[i]; e.field == field {
			return unsafe.SliceData(*field) == unsafe.SliceData(e.view)
		}
	}
	return false
}

// Views reports whether the slot holds a transport buffer that a field was
// set to a view of (Hold): in the decode under way, since the reset before
// each decode lets go of the last one's.
func (h *Header) Views() bool { return h != nil && len(h.held) > 0 }

// Unview makes each field that is still the view held for it (Viewing) a
// copy of it, in an array of its own, and lets go of the buffer. The codec
// calls it before the generated decoder decodes the rest of a message that
// it cannot scan field by field (past a group or a malformed field), where
// the field may be sent again: the decoder writes a later value into the
// field's array where it has room (decode.Decoding.Bytes), and a view's
// array is gRPC's read-only transport buffer. It allocates only where a
// field is a view; a nil h holds none.
func (h *Header) Unview() {
	if !h.Views() {
		return
	}
	kept := h.held[:0]
	for _, e := range h.held {
		if unsafe.SliceData(*e.field) != unsafe.SliceData(e.view) {
			// Set again since (a later occurrence, which the codec
			// decodes into a new array): held until the reset, as
			// before.
			kept = append(kept, e)
			continue
		}
		*e.field = append([]byte(nil), e.view...)
		// No view of it is left to poison: the decode that made it has
		// not ended, and gRPC holds its own reference until then.
		e.buf.Free()
	}
	clear(h.held[len(kept):])
	h.held = kept
}

// release lets go of the buffers: poisoned first in checked builds, and
// never given back to gRPC's pool in quarantine builds, so that the poison
// stays where a view kept too long still points.
func (h *Header) release() {
	for i := range h.held {
		e := &h.held[i]
		if _, unpooled := e.buf.(mem.SliceBuffer); !unpooled {
			// A SliceBuffer is never recycled, and its memory may be
			// its maker's still: it is neither poisoned nor reused.
			own.PoisonBytes(e.view)
		}
		if !own.Quarantine {
			e.buf.Free()
		}
		*e = held{}
	}
	h.held = h.held[:0]
}

// Dropped counts the transport buffers let go without a Free (a message
// handed over by Take), each once: the tests' audits of gRPC's buffer
// pools allow that many buffers not to come back.
var Dropped atomic.Int64

// drop lets go of the buffers without freeing them: they stay the message's,
// and the garbage collector's. A field the caller set again may leave a
// view of a buffer elsewhere (a handler that kept m.Data, then put its own
// there), so none is freed. Several entries may hold one buffer (two
// fields viewing it; a field set again beside one that still views it):
// Dropped counts it once.
func (h *Header) drop() {
	n := 0
	for i, e := range h.held {
		if !h.heldBefore(i, e.buf) {
			n++
		}
	}
	Dropped.Add(int64(n))
	clear(h.held)
	h.held = h.held[:0]
}

// heldBefore reports whether an entry before the i-th holds buf: the same
// memory (mem.Buffer values of some types, SliceBuffer's, cannot be
// compared).
func (h *Header) heldBefore(i int, buf mem.Buffer) bool {
	p := unsafe.SliceData(buf.ReadOnlyData())
	for _, e := range h.held[:i] {
		if unsafe.SliceData(e.buf.ReadOnlyData()) == p {
			return true
		}
	}
	return false
}
