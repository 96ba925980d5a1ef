package decode

import (
	"encoding/binary"
	"unsafe"
)

// StringRun appends to dst the values of a repeated string field at the
// start of b, each after the first preceded by the field's tag of one byte
// (tag), for as long as they take the common path: a length of one byte and
// room in dst (a decode into a fresh message takes a new chunk where the
// current one is full, as copy does). It returns dst, the rest of b and
// true where the run ends (b after its last value); false, with b at the
// length of a value, where it stops for another reason: the caller decodes
// that value in full (String), then calls it again. It never checks UTF-8: the caller calls it only where no
// value needs the check.
//
// A generated decoder's loop over such a field costs about twice as many
// instructions per value, its variables spilled around the calls of its
// other fields; here a value is read, converted and appended in registers.
func (s *Decoding) StringRun(dst []string, b []byte, tag byte) ([]string, []byte, bool) {
	switch {
	case s.views:
		return viewRun(dst, b, tag)
	case s.strs != nil:
		return s.strs.copyRun(dst, b, tag)
	}
	// No chunks (every decode that copies has some: GetFresh,
	// ChunkStrings): the caller decodes each value.
	return dst, b, false
}

// viewRun is StringRun for a state whose strings are views of the input.
// It reads b and writes dst's array through pointers, without the bounds
// checks and the growth test of indexing and append: each access is within
// bounds by the loop's own tests (left, the bytes from q on, is at least 1
// before a length is read and 2 before q moves past a value to the tag
// after it; a value of n bytes only where n < left; k < cap(dst) before a
// value is written). q never points past b's last byte. A value is built as
// a string header (view) from a pointer within b and its length, without
// unsafe.String's test that the two do not wrap around. 32 instructions a
// value, where indexes into b and unsafe.String took 38 (cachegrind,
// BenchmarkDecodeStrings/size=16384/path=slot-copy); TestStringRunGuarded
// runs it on input that ends before a page that faults when read.
func viewRun(dst []string, b []byte, tag byte) ([]string, []byte, bool) {
	k, c, end := len(dst), cap(dst), len(b)
	if k == c || end == 0 {
		return dst, b, false
	}
	d := unsafe.Pointer(unsafe.SliceData(dst))
	q := unsafe.Pointer(unsafe.SliceData(b)) // the next value's length
	left := end                              // the bytes from q on
	for {
		n := int(*(*byte)(q))
		if n >= 0x80 || n >= left {
			break
		}
		var v view
		if n > 0 {
			v = view{unsafe.Add(q, 1), n}
		}
		*(*view)(unsafe.Add(d, uintptr(k)*unsafe.Sizeof(v))) = v
		k++
		left -= 1 + n
		if left <= 1 {
			// The input ends with this value; or with the tag of one more,
			// whose length is missing (the caller finds it so); or with
			// one byte of another field.
			if left == 1 && b[end-1] == tag {
				return dst[:k], b[end:], false
			}
			return dst[:k], b[end-left:], true
		}
		q = unsafe.Add(q, 1+n) // within b: left > 1
		if *(*byte)(q) != tag {
			return dst[:k], b[end-left:], true
		}
		q, left = unsafe.Add(q, 1), left-1
		if k == c {
			break
		}
	}
	return dst[:k], b[end-left:], false
}

// view is a string's header: a value made from one (n > 0 bytes at p,
// within b) needs no check that p+n does not wrap around, as
// unsafe.String's does.
type view struct {
	p unsafe.Pointer
	n int
}

// copyRun is StringRun for a decode that copies strings into chunks (a
// fresh message's, or a slot's: ChunkStrings): each value is copied into
// the current chunk, or a new one, as copy does; a value of one byte is
// oneByte's. Like viewRun,
// it reads b and writes dst's array and the chunk through pointers, each
// within bounds by the loop's own tests (a value of n > 0 bytes is copied
// to the chunk's byte filled only where n <= len(chunk)-filled).
func (s *Chunks) copyRun(dst []string, b []byte, tag byte) ([]string, []byte, bool) {
	k, c, end := len(dst), cap(dst), len(b)
	if k == c || end == 0 {
		return dst, b, false
	}
	d := unsafe.Pointer(unsafe.SliceData(dst))
	p := unsafe.Pointer(unsafe.SliceData(b))
	chunk, filled := s.chunk, s.filled
	q := unsafe.Pointer(unsafe.SliceData(chunk))
	i, done := 0, false
	for {
		n := int(*(*byte)(unsafe.Add(p, i)))
		if n >= 0x80 || n >= end-i {
			break
		}
		v := ""
		switch {
		case n == 1:
			v = unsafe.String(&oneByte[*(*byte)(unsafe.Add(p, i+1))], 1)
		case n > 0:
			if n > len(chunk)-filled {
				s.left -= filled - s.filled
				s.newChunk(n)
				chunk, filled = s.chunk, 0
				q = unsafe.Pointer(unsafe.SliceData(chunk))
			}
			at := (*byte)(unsafe.Add(q, filled))
			if src := unsafe.Add(p, i+1); n <= 16 && len(chunk)-filled >= 16 && end-i > 16 {
				// Two words, without the call of memmove (and the spills
				// around it): the 16 bytes read are within b, those written
				// within the chunk, past what it handed out.
				w0 := binary.LittleEndian.Uint64(unsafe.Slice((*byte)(src), 8))
				w1 := binary.LittleEndian.Uint64(unsafe.Slice((*byte)(unsafe.Add(src, 8)), 8))
				binary.LittleEndian.PutUint64(unsafe.Slice(at, 8), w0)
				binary.LittleEndian.PutUint64(unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(at), 8)), 8), w1)
			} else {
				copy(unsafe.Slice(at, n), unsafe.Slice((*byte)(src), n))
			}
			filled += n
			v = unsafe.String(at, n)
		}
		*(*string)(unsafe.Add(d, uintptr(k)*unsafe.Sizeof(v))) = v
		k++
		i += 1 + n
		if i >= end || *(*byte)(unsafe.Add(p, i)) != tag {
			done = true
			break
		}
		i++
		if k == c || i >= end {
			break
		}
	}
	s.left -= filled - s.filled
	s.filled = filled
	return dst[:k], b[i:], done
}
