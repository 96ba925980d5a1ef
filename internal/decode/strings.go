package decode

import (
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
	case s.pieces != nil:
		// The values in the piece where b starts, as views of its copy
		// (Pieces): viewRun reads the copy, whose bytes are b's, and ends
		// at the piece's end as at an input's end. A run that goes on past
		// the piece stops there as at a value it does not take: at the
		// next value's length, which the caller decodes alone (String:
		// copied if it straddles the two pieces, a view of the next one
		// otherwise) before it calls StringRun again.
		pb := s.pieces.within(b)
		if pb == nil {
			return dst, b, false
		}
		dst, rest, done := viewRun(dst, pb, tag)
		at := len(pb) - len(rest)
		if done && at == len(pb) && at < len(b) && b[at] == tag {
			return dst, b[at+1:], false
		}
		return dst, b[at:], done
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
// after it; a value of n bytes only where n < left; fewer than cap(dst)
// values before one is written). q never points past b's last byte. A
// value is built as a string header (view) from a pointer within b and its
// length, without unsafe.String's test that the two do not wrap around.
//
// Its loop takes the values followed by the tag and length of another,
// all within b, with one test of the bytes left a value; the code after it
// takes the value that ends b, if any. A value's length can only be read
// once the one before it has, so the loop's instructions around that chain
// of reads are what it costs: BenchmarkDecodeStrings/size=16384/path=slot-copy
// runs 61,115 instructions an op, where a loop that tested the bytes left
// before and after each tag ran 72,853 (cachegrind, scripts/instructions.sh),
// and indexes into b and unsafe.String more still.
//
// Where a value has the length of the one before it, an inner loop takes
// it and those after it of the same length: it finds the next value at a
// fixed stride and only tests the length it reads there, so that reading
// one value's length no longer waits for the last one's, and the processor
// works on several values at once. Runs of IDs, hashes or codes of one
// width take half the time (BenchmarkStringRun: mode=views/shape=equal8 and
// equal36),
// random lengths of a narrow range a quarter less, and lengths that seldom
// repeat (shape=mixed4to20) pay one test of a byte a value. TestStringRun's
// runs of equal lengths end it in every way the loop above ends, and
// TestStringRunGuarded runs each of them on input that ends before a page
// that faults when read.
func viewRun(dst []string, b []byte, tag byte) ([]string, []byte, bool) {
	k, c, end := len(dst), cap(dst), len(b)
	if k == c || end == 0 {
		return dst, b, false
	}
	d := unsafe.Pointer(unsafe.SliceData(dst))
	q := unsafe.Pointer(unsafe.SliceData(b)) // the next value's length
	left := end                              // the bytes from q on
	// The values whose tag and length after them lie within b (n+2 <
	// left): q moves to that length at once. at is the next value's offset
	// in dst's array, room the array's size.
	const size = unsafe.Sizeof(view{})
	at, room := uintptr(k)*size, uintptr(c)*size // k < c
	for {
		n := int(*(*byte)(q))
		if n >= 0x80 || n+2 >= left {
			break
		}
		p := unsafe.Add(q, 1) // within b: n+2 < left
		if n == 0 {
			p = nil
		}
		*(*view)(unsafe.Add(d, at)) = view{p, n}
		at += size
		if *(*byte)(unsafe.Add(q, 1+n)) != tag {
			return dst[:at/size], b[end-left+1+n:], true
		}
		q, left = unsafe.Add(q, 2+n), left-2-n // left >= 1: q within b
		if at == room {
			return dst[:c], b[end-left:], false
		}
		// The inner loop tests the next length again: without this test
		// before it, the compiler's layout cost runs of equal lengths 31%
		// more time (BenchmarkStringRun, mode=views/shape=equal8).
		if n == 0 || *(*byte)(q) != byte(n) {
			continue
		}
		// The next value has this one's length: the values of that length
		// (and a tag after each), n+2 bytes apart, all within b (n+2 <
		// left), without waiting for each length to be read; the loop
		// above takes the first value that is not such.
		for stride := 2 + n; stride < left && *(*byte)(q) == byte(n) && *(*byte)(unsafe.Add(q, 1+n)) == tag; {
			*(*view)(unsafe.Add(d, at)) = view{unsafe.Add(q, 1), n}
			at += size
			q, left = unsafe.Add(q, stride), left-stride
			if at == room {
				return dst[:c], b[end-left:], false
			}
		}
	}
	// The loop stopped at a value of 128 bytes or more (a length of two
	// bytes), at a length past b's end, or at the value that b ends with
	// (n+2 >= left): it ends b, or is followed by one byte alone.
	n := int(*(*byte)(q))
	if n >= 0x80 || n >= left {
		return dst[:at/size], b[end-left:], false
	}
	var p unsafe.Pointer
	if n > 0 {
		p = unsafe.Add(q, 1) // within b: n < left
	}
	*(*view)(unsafe.Add(d, at)) = view{p, n}
	k = int(at/size) + 1
	// The input ends with this value; or with the tag of one more, whose
	// length is missing (the caller finds it so); or with one byte of
	// another field.
	if left -= 1 + n; left == 1 && b[end-1] == tag {
		return dst[:k], b[end:], false
	}
	return dst[:k], b[end-left:], true
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
// oneByte's. Like viewRun, it walks b with a pointer and the bytes left
// from it, and writes dst's array and the chunk through pointers, each
// within bounds by the loop's own tests (a value of n > 0 bytes is copied
// to the chunk's byte filled only where n <= len(chunk)-filled; 16 bytes
// are read and written at once only where both b and the chunk hold them).
// 65 instructions a value of 8 bytes, where indexes, unsafe.String and
// encoding/binary took 92 (cachegrind,
// BenchmarkDecodeStrings/size=16384/path=fresh). Values of 2 to 16 bytes
// of the length of the one before them take an inner loop, as in viewRun,
// while the chunk has more than 16 bytes of room: BenchmarkStringRun's
// mode=fresh/shape=equal8 a quarter less time, random8or9 a sixth,
// mixed4to20 the same. TestStringRunEqualLengthsChunkEnd runs it into
// chunks that it fills to their last byte.
func (s *Chunks) copyRun(dst []string, b []byte, tag byte) ([]string, []byte, bool) {
	k, c, end := len(dst), cap(dst), len(b)
	if k == c || end == 0 {
		return dst, b, false
	}
	d := unsafe.Pointer(unsafe.SliceData(dst))
	p := unsafe.Pointer(unsafe.SliceData(b)) // the next value's length
	left := end                              // the bytes from p on
	// q is the chunk's first byte not handed out, and room the bytes from
	// q on: the loop keeps these two, not the chunk and what it filled.
	room := len(s.chunk) - s.filled
	var q unsafe.Pointer // nil where room is 0: never past the chunk's end
	if room > 0 {
		q = unsafe.Add(unsafe.Pointer(unsafe.SliceData(s.chunk)), s.filled)
	}
	done := false
	for {
		n := int(*(*byte)(p))
		if n >= 0x80 || n >= left {
			break
		}
		var v view
		switch {
		case n == 1:
			v = view{unsafe.Pointer(&oneByte[*(*byte)(unsafe.Add(p, 1))]), 1}
		case n > 0:
			if n > room {
				s.sync(room)
				s.newChunk(n)
				room, q = len(s.chunk), unsafe.Pointer(unsafe.SliceData(s.chunk))
			}
			if src := unsafe.Add(p, 1); n <= 16 && room >= 16 && left > 16 {
				// 16 bytes at once, without the call of memmove (and the
				// spills around it): those read are within b, those
				// written within the chunk, past what it handed out.
				*(*[16]byte)(q) = *(*[16]byte)(src)
			} else {
				copy(unsafe.Slice((*byte)(q), n), unsafe.Slice((*byte)(src), n))
			}
			v = view{q, n}
			room -= n
			if room > 0 {
				q = unsafe.Add(q, n) // within the chunk
			}
		}
		*(*view)(unsafe.Add(d, uintptr(k)*unsafe.Sizeof(v))) = v
		k++
		left -= 1 + n
		if left <= 1 {
			// As in viewRun: the input ends with this value; or with the
			// tag of one more, whose length is missing; or with one byte
			// of another field.
			if left == 1 && b[end-1] == tag {
				left = 0
			} else {
				done = true
			}
			break
		}
		p = unsafe.Add(p, 1+n) // within b: left > 1
		if *(*byte)(p) != tag {
			done = true
			break
		}
		p, left = unsafe.Add(p, 1), left-1
		if n >= 2 && n <= 16 && *(*byte)(p) == byte(n) {
			// As in viewRun: the values of this one's length, n+2 bytes
			// apart, each followed within b by the tag and the next
			// length (n+2 < left), copied 16 bytes at once (b holds 16
			// from p+1 on, the chunk more than 16 from q on, so that q
			// stays within it).
			for stride := 2 + n; k < c && stride < left && left > 16 && room > 16 && *(*byte)(p) == byte(n) && *(*byte)(unsafe.Add(p, 1+n)) == tag; {
				*(*[16]byte)(q) = *(*[16]byte)(unsafe.Add(p, 1))
				*(*view)(unsafe.Add(d, uintptr(k)*unsafe.Sizeof(view{}))) = view{q, n}
				k++
				q, room = unsafe.Add(q, n), room-n
				p, left = unsafe.Add(p, stride), left-stride
			}
		}
		if k == c {
			break
		}
	}
	s.sync(room)
	return dst[:k], b[end-left:], done
}

// sync records that the bytes of the chunk before the last room were
// handed out (filled), and counts them off left.
func (s *Chunks) sync(room int) {
	filled := len(s.chunk) - room
	s.left -= filled - s.filled
	s.filled = filled
}
