package reuse

import "unsafe"

// Marks: how the codec and the slots tell each other what they did, all in
// this file. A slot marks a message that it has prepared with a mark of its
// own that points at its Header (Header.mark; the codec finds the Header
// with TakeHeader); the codec then decodes into it without a reset that would drop the memory the slot kept,
// and replaces the slot's mark with markDecoded (SetDecoded; or markDecodedCopy,
// SetDecodedCopy, for a decode into one owned copy) after a successful
// decode, so that the slot knows which codec decoded, and how. All marks
// are empty slices with no capacity, so the message reads as having no
// unknown fields, and appending to them (vtprotobuf's decoder appends
// unknown fields) allocates: nothing is ever written into the arrays they
// point to.
//
// With markDecodedCopy the strings and bytes of the message are views of one
// array that no slot ever reuses (the codec makes a later copy in it only
// once nothing refers to it); the record of the message's memory then
// leaves out what points into it (grpcfastimpl.LogBytes records no view).
//
// Each mark points at an array of its own: a slice of zero capacity keeps
// the address of the array it was cut from, not of the index it was cut at.
const (
	markDecoded = iota
	markDecodedCopy
	numMarks
)

var marks = func() (m [numMarks]*[1]byte) {
	for i := range m {
		m[i] = new([1]byte)
	}
	return m
}()

// markOf returns which mark b is, or -1.
func markOf(b []byte) int {
	if cap(b) == 0 {
		for i, m := range marks {
			if unsafe.SliceData(b) == &m[0] {
				return i
			}
		}
	}
	return -1
}

// setDecoded marks a prepared message that a grpcfast codec decoded into. A
// message that got unknown fields from the decode keeps them and is not
// marked: its slot then treats it as decoded by another codec and keeps
// none of its memory.
func setDecoded(uf *[]byte, i int) {
	if len(*uf) == 0 {
		*uf = marks[i][:0:0]
	}
}

// SetDecoded marks a prepared message that a grpcfast codec decoded into.
func SetDecoded(uf *[]byte) { setDecoded(uf, markDecoded) }

// SetDecodedCopy marks a prepared message that a grpcfast codec decoded as
// views of one owned copy.
func SetDecodedCopy(uf *[]byte) { setDecoded(uf, markDecodedCopy) }

// TakeDecoded removes any mark from *uf, and reports whether it was decoded
// or decoded as one owned copy (ok), and which (copied).
func TakeDecoded(uf *[]byte) (ok, copied bool) {
	i := markOf(*uf)
	if i >= 0 {
		*uf = nil
	}
	return i == markDecoded || i == markDecodedCopy, i == markDecodedCopy
}

// mark is the mark of the prepared slot whose Header h is.
func (h *Header) mark() []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(h)), 1)[:0:0]
}

func (h *Header) isMark(b []byte) bool {
	return cap(b) == 0 && unsafe.Pointer(unsafe.SliceData(b)) == unsafe.Pointer(h)
}

// TakeHeader returns the Header of the slot that holds msg, a pointer to a
// message whose unknown fields are *uf, and removes the mark, if *uf carries
// the mark of a prepared slot; it returns nil otherwise.
func TakeHeader(msg unsafe.Pointer, uf *[]byte) *Header {
	b := *uf
	p := unsafe.Pointer(unsafe.SliceData(b))
	if cap(b) != 0 || p == nil || msg == nil || uintptr(msg)-uintptr(p) != headerOffset {
		return nil
	}
	h := (*Header)(p)
	if h.msg != msg {
		return nil
	}
	*uf = nil
	return h
}
