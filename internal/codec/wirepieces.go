package codec

import "google.golang.org/protobuf/encoding/protowire"

// walkPieces walks a message that arrived in several buffers as
// decodePieces will decode it, a run of whole top-level fields at a time,
// and returns what the walk of the whole message in one buffer returns:
// nil, errNeedProto, or the first error for input that protobuf-go rejects
// (a run that needs protobuf-go does not stop the walk, as a later run may
// hold such input). Walking first means that no UnmarshalVT decode is spent
// on a message that goes to protobuf-go (BenchmarkHostile,
// wrong-wire-type-at-end in frames).
//
// A field that straddles buffers is gathered into a scratch buffer and
// walked, and gathered again by decodePieces; a singular bytes field that
// decodePieces copies straight into the message is only skipped: the walk
// checks nothing inside a bytes value, and parseField has checked its tag
// and length as the walk would.
func (c *Codec) walkPieces(r *pieceReader, d vtDecoder, bf bytesFielder) error {
	needProto := false
	for r.remain > 0 && len(r.cur) > 0 {
		n, st := scanFields(r.cur)
		if n > 0 {
			if err := walkRun(d, r.cur[:n], &needProto); err != nil {
				return err
			}
			r.advance(n)
			continue
		}
		size := r.remain // malformed, a group, or truncated: the rest
		if st != fieldBad {
			var hdr [maxFieldHeader]byte
			k := r.peek(hdr[:])
			if f, st := parseField(hdr[:k]); st != fieldBad && f.size >= 0 && f.size <= r.remain {
				if f.typ == protowire.BytesType && bf != nil && f.size > f.hdr && bf.GrpcfastBytesField(f.num) != nil {
					r.skip(f.size)
					continue
				}
				size = f.size
			}
		}
		if size <= smallField {
			// A scalar, or a short string or message: no pool traffic
			// (decodePieces takes a scratch buffer for it next).
			var small [smallField]byte
			b := small[:size]
			r.read(b)
			if err := walkRun(d, b, &needProto); err != nil {
				return err
			}
			continue
		}
		p := c.Pool.Get(size)
		b := (*p)[:size]
		r.read(b)
		err := walkRun(d, b, &needProto)
		c.Pool.Put(p)
		if err != nil {
			return err
		}
	}
	if needProto {
		return errNeedProto
	}
	return nil
}

// smallField is the size up to which walkPieces copies a straddling field
// into an array on the stack.
const smallField = 64

// walkRun walks b, a run of whole top-level fields, and notes in needProto
// whether it needs protobuf-go.
func walkRun(d vtDecoder, b []byte, needProto *bool) error {
	err := d.wire.validate(b, d.utf8)
	if err == errNeedProto {
		*needProto = true
		return nil
	}
	return err
}
