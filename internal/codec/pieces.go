package codec

import (
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/grpcfast/grpcfast/internal/reuse"
)

// decodePieces decodes a message that arrived in several buffers without
// first copying it into one.
//
// The protobuf wire format is a sequence of fields, and decoding a message
// merges each field into the message in order (scalars replace, repeated
// fields append, messages merge). So decoding field-aligned segments of the
// encoding one after another, each with its own call of the generated
// decoder, gives the same message as decoding the whole. decodePieces walks
// the top-level fields:
// the longest run of complete fields in the current buffer is decoded in
// place; a field that straddles a buffer boundary is copied straight into the
// message if it is a bytes field that the message exposes through
// bytesFielder, and is otherwise gathered alone into a scratch buffer.
//
// Anything unusual (a group, an invalid tag, wire type or varint, a truncated
// field) is left to d: the rest of the message from that field on is
// gathered into one scratch buffer and decoded as a whole, so the result,
// and the error, are those of decoding the message in one buffer.
func (c *Codec) decodePieces(r *pieceReader, d runDecoder, bf bytesFielder, slot *reuse.Header) error {
	for r.remain > 0 && len(r.cur) > 0 {
		n, st := scanFields(r.cur)
		if n > 0 {
			if err := decodeRun(r.cur[:n], r.buf(), d, bf, slot); err != nil {
				return err
			}
			r.advance(n)
			continue
		}
		if st == fieldBad {
			// The rest may send a viewed field again, past where this
			// can scan (as below).
			slot.Unview()
			return c.gather(r, d, r.remain)
		}
		if err := c.straddling(r, d, bf, slot); err != nil {
			return err
		}
	}
	return nil
}

// decodeWhole decodes a message that arrived in one buffer.
func (c *Codec) decodeWhole(buf mem.Buffer, d runDecoder, bf bytesFielder, slot *reuse.Header) error {
	b := buf.ReadOnlyData()
	if slot == nil {
		return d.decode(b)
	}
	return decodeRun(b, buf, d, bf, slot)
}

// decodeRun decodes b, a run of whole top-level fields that lies in buf.
// With views (slot not nil), a singular bytes field of at least
// reuse.MinView bytes is not copied: the message's field becomes a view of
// buf, with no capacity beyond its length, and slot holds a reference on buf.
// This is what the generated decoder does for the field, m.F =
// append(m.F[:0], payload...), without the copy; the runs around it are
// decoded by the generated decoder, which merges, in order.
//
// A field decoded as a view may be sent again later in the message (the
// last wins). The generated decoder would write the later value into the
// field's array where it has room, the transport buffer, which is gRPC's
// and read-only: so where a run holds a later occurrence, the field is set
// to nil first and the decoder makes a new array; where the rest of the
// message cannot be scanned (a group, a malformed field), the views become
// copies first (reuse.Header.Unview). A short run is scanned too while the
// slot holds a view.
func decodeRun(b []byte, buf mem.Buffer, d runDecoder, bf bytesFielder, slot *reuse.Header) error {
	if slot == nil || len(b) < reuse.MinView && !slot.Views() {
		return d.decode(b)
	}
	start := 0
	for off := 0; off < len(b); {
		f, st := parseField(b[off:])
		if st != fieldOK {
			// Something unusual (a group, a malformed field; never in a
			// run that scanFields found): the generated decoder decides
			// on the rest, which it merges as it would the whole, and
			// which may send a viewed field again.
			slot.Unview()
			break
		}
		if f.typ == protowire.BytesType {
			if p := bf.GrpcfastBytesField(f.num); p != nil {
				large, viewed := f.size-f.hdr >= reuse.MinView, slot.Viewing(p)
				if large || viewed {
					if start < off {
						if err := d.decode(b[start:off]); err != nil {
							return err
						}
					}
					start = off
				}
				switch {
				case large:
					end := off + f.size
					slot.Hold(buf, b[off+f.hdr:end:end], p)
					start = end
				case viewed:
					// A later occurrence of a field decoded as a view
					// replaces it: the decoder would write it into the
					// view's capacity, a transport buffer that gRPC may
					// still show to stats handlers. Into a new array.
					*p = nil
				}
			}
		}
		off += f.size
	}
	if start < len(b) {
		return d.decode(b[start:])
	}
	return nil
}

// maxFieldHeader is the longest tag plus length or varint value: two varints
// of at most 10 bytes.
const maxFieldHeader = 20

// straddling decodes the field at the reader's position, which runs past the
// end of the current buffer.
func (c *Codec) straddling(r *pieceReader, d runDecoder, bf bytesFielder, slot *reuse.Header) error {
	f, ok := r.peekField()
	if !ok {
		// Malformed, or truncated at the end of the message: the rest may
		// send a viewed field again (decodeRun).
		slot.Unview()
		return c.gather(r, d, r.remain)
	}
	if p := straddlingBytes(f, bf); p != nil {
		copyBytesField(r, f, p, slot)
		return nil
	}
	if f.typ == protowire.BytesType && bf != nil && slot != nil {
		if p := bf.GrpcfastBytesField(f.num); p != nil && slot.Viewing(p) {
			// A viewed field sent again, empty, its tag at the end of a
			// buffer (one with a payload is copied above): the decoder
			// would leave it an empty slice of the view, with the
			// transport buffer as its capacity.
			*p = nil
		}
	}
	return c.gather(r, d, f.size)
}

// peekField parses the field at the reader's position, which may run past
// the end of the current buffer, without consuming it. It reports false for
// a malformed field, or one that runs past the end of the message.
func (r *pieceReader) peekField() (field, bool) {
	var hdr [maxFieldHeader]byte
	f, st := parseField(hdr[:r.peek(hdr[:])])
	return f, st != fieldBad && f.size >= 0 && f.size <= r.remain
}

// straddlingBytes returns the singular bytes field of bf that f, a field
// with a payload, is, or nil.
func straddlingBytes(f field, bf bytesFielder) *[]byte {
	if f.typ != protowire.BytesType || bf == nil || f.size <= f.hdr {
		return nil
	}
	return bf.GrpcfastBytesField(f.num)
}

// copyBytesField copies the field f at the reader's position, the singular
// bytes field *p, straight into it, as the generated decoder does for it
// (m.F = append(m.F[:0], payload...)), in pieces.
func copyBytesField(r *pieceReader, f field, p *[]byte, slot *reuse.Header) {
	r.skip(f.hdr)
	n := f.size - f.hdr
	dst := (*p)[:0]
	if cap(dst) < n || slot != nil && slot.Viewing(p) {
		dst = make([]byte, 0, n)
	}
	*p = r.appendTo(dst, n)
}

// decodePiecesCopy decodes a message that arrived in several buffers into a
// message that no slot prepared: its fields are copied, in order, into one
// scratch buffer and decoded together, but for the singular bytes fields
// that straddle two buffers, which are copied straight into the message
// between the decodes of what precedes and what follows them. The decoder so
// sees a repeated field's elements together across the transport's frames
// and sizes the field for them (grpcfastimpl.Grow), where a decode per
// frame sized it a frame's worth at a time, and a large bytes field is still
// copied once. Fields are copied whole, so each decode is of a
// field-aligned segment, as in decodePieces.
func (c *Codec) decodePiecesCopy(r *pieceReader, d runDecoder, bf bytesFielder) error {
	var p *[]byte // the scratch buffer, taken when a field is first copied
	var seg []byte
	add := func(n int) {
		if p == nil {
			p = c.Pool.Get(r.remain)
			seg = (*p)[:0]
		}
		seg = r.appendTo(seg, n)
	}
	defer func() {
		if p != nil {
			c.putBuf(p) // strings and bytes are copies: nothing refers to it
		}
	}()
	for r.remain > 0 && len(r.cur) > 0 {
		n, st := scanFields(r.cur)
		if n > 0 {
			if len(seg) == 0 && n == r.remain {
				// The rest of the message, whole in this buffer: in place.
				return d.decode(r.cur[:n])
			}
			add(n)
			continue
		}
		if st != fieldBad {
			if f, ok := r.peekField(); ok {
				if fp := straddlingBytes(f, bf); fp != nil {
					if len(seg) > 0 {
						if err := d.decode(seg); err != nil {
							return err
						}
						seg = seg[:0]
					}
					copyBytesField(r, f, fp, nil)
				} else {
					add(f.size)
				}
				continue
			}
		}
		// Malformed, or truncated at the end of the message: the decoder
		// decides on the rest, as it would on the whole.
		add(r.remain)
	}
	if len(seg) == 0 {
		return nil
	}
	return d.decode(seg)
}

// gather copies the next n bytes into a scratch buffer from the pool and
// decodes them.
func (c *Codec) gather(r *pieceReader, d runDecoder, n int) error {
	p := c.Pool.Get(n)
	b := (*p)[:n]
	r.read(b)
	err := d.decode(b)
	c.putBuf(p)
	return err
}

// pieceReader reads the buffers of a message in sequence.
type pieceReader struct {
	data   mem.BufferSlice
	next   int    // index in data of the buffer after cur
	cur    []byte // unread part of the current buffer
	remain int    // unread bytes, cur included
}

// buf returns the buffer that r.cur lies in.
func (r *pieceReader) buf() mem.Buffer { return r.data[r.next-1] }

// advance consumes n <= len(r.cur) bytes and moves to the next non-empty
// buffer when the current one is used up.
func (r *pieceReader) advance(n int) {
	r.cur = r.cur[n:]
	r.remain -= n
	for len(r.cur) == 0 && r.next < len(r.data) {
		r.cur = r.data[r.next].ReadOnlyData()
		r.next++
	}
}

// peek copies the next bytes into b without consuming them and returns how
// many it copied.
func (r *pieceReader) peek(b []byte) int {
	k := copy(b, r.cur)
	for i := r.next; k < len(b) && i < len(r.data); i++ {
		k += copy(b[k:], r.data[i].ReadOnlyData())
	}
	return k
}

// read fills b, consuming len(b) <= r.remain bytes.
func (r *pieceReader) read(b []byte) {
	for len(b) > 0 && len(r.cur) > 0 {
		k := copy(b, r.cur)
		b = b[k:]
		r.advance(k)
	}
}

// skip consumes n <= r.remain bytes.
func (r *pieceReader) skip(n int) {
	for n > 0 && len(r.cur) > 0 {
		k := min(n, len(r.cur))
		r.advance(k)
		n -= k
	}
}

// appendTo appends the next n <= r.remain bytes to b, consuming them.
func (r *pieceReader) appendTo(b []byte, n int) []byte {
	for n > 0 && len(r.cur) > 0 {
		k := min(n, len(r.cur))
		b = append(b, r.cur[:k]...)
		r.advance(k)
		n -= k
	}
	return b
}

// Field scan results.
const (
	fieldOK    = iota // the field is complete
	fieldShort        // the bytes end inside the field
	fieldBad          // malformed, or a group: leave it to the decoder
)

// field describes the field at the start of a byte slice.
type field struct {
	num  protowire.Number
	typ  protowire.Type
	hdr  int // bytes of tag, and of length for wire type 2
	size int // bytes of the whole field; -1 if its header is incomplete
}

// scanFields returns the length of the longest run of complete fields at the
// start of b, and the status of the field that follows it (fieldOK if the run
// covers b).
func scanFields(b []byte) (int, int) {
	off := 0
	for off < len(b) {
		f, st := parseField(b[off:])
		if st != fieldOK {
			return off, st
		}
		off += f.size
	}
	return off, fieldOK
}

// parseField parses the field at the start of b (len(b) > 0). It leaves to
// the generated decoder, on the whole rest of the message, what needs more
// than finding a field's extent: varints with bits beyond the 64th, field
// numbers outside [1, 2^29-1], groups and invalid wire types.
func parseField(b []byte) (field, int) {
	tag, n, st := readVarint(b)
	if st != fieldOK {
		return field{size: -1}, st
	}
	if n == 10 && b[9] > 1 {
		// Bits beyond the 64th, which protobuf-go rejects: left to the
		// decoder.
		return field{}, fieldBad
	}
	num := protowire.Number(tag >> 3)
	typ := protowire.Type(tag & 7)
	if tag>>3 < uint64(protowire.MinValidNumber) || tag>>3 > uint64(protowire.MaxValidNumber) {
		return field{}, fieldBad
	}
	f := field{num: num, typ: typ, hdr: n}
	switch typ {
	case protowire.VarintType:
		_, k, st := readVarint(b[n:])
		if st == fieldShort {
			f.size = -1
			return f, st
		}
		if st != fieldOK {
			return f, st
		}
		f.size = n + k
	case protowire.Fixed32Type:
		f.size = n + 4
	case protowire.Fixed64Type:
		f.size = n + 8
	case protowire.BytesType:
		l, k, st := readVarint(b[n:])
		if st == fieldShort {
			f.size = -1
			return f, st
		}
		if st != fieldOK || int64(l) < 0 || k == 10 && b[n+9] > 1 {
			return f, fieldBad
		}
		f.hdr = n + k
		if l > uint64(len(b)-f.hdr) {
			if l > uint64(maxInt-f.hdr) {
				// The end overflows an int: the decoder reports it.
				return f, fieldBad
			}
			f.size = f.hdr + int(l)
			return f, fieldShort
		}
		f.size = f.hdr + int(l)
	default: // groups, and wire types 4, 6, 7
		return f, fieldBad
	}
	if f.size > len(b) {
		return f, fieldShort
	}
	return f, fieldOK
}

const maxInt = int(^uint(0) >> 1)

// readVarint reads a varint of up to 10 bytes, the bits beyond 64 dropped. It returns fieldShort if b ends first and fieldBad if
// the varint is longer than 10 bytes.
func readVarint(b []byte) (uint64, int, int) {
	if len(b) > 0 && b[0] < 0x80 {
		return uint64(b[0]), 1, fieldOK
	}
	var v uint64
	for i, shift := 0, uint(0); shift < 64; i, shift = i+1, shift+7 {
		if i >= len(b) {
			return 0, 0, fieldShort
		}
		c := b[i]
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v, i + 1, fieldOK
		}
	}
	return 0, 0, fieldBad
}
