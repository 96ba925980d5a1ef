package grpcfast

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
	walk := func(b []byte) error {
		err := d.wire.validate(b, d.utf8)
		if err == errNeedProto {
			needProto = true
			return nil
		}
		return err
	}
	for r.remain > 0 && len(r.cur) > 0 {
		n, st := scanFields(r.cur)
		if n > 0 {
			if err := walk(r.cur[:n]); err != nil {
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
		p := c.pool.Get(size)
		b := (*p)[:size]
		r.read(b)
		err := walk(b)
		c.pool.Put(p)
		if err != nil {
			return err
		}
	}
	if needProto {
		return errNeedProto
	}
	return nil
}
