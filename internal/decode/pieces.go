package decode

import "unsafe"

// PieceShift sets the size of the pieces that a decode into a fresh message
// copies its input in, once it has PieceMin bytes or more (Pieces): 16 KiB.
const (
	PieceShift = 14
	PieceSize  = 1 << PieceShift
	PieceMin   = 4 << 10
)

// Pieces makes the strings of a decode into a fresh message views of copies
// of its input, where each string was copied into the decode's chunks
// (Chunks): the input is copied in pieces of PieceSize bytes (the last one
// shorter), each into an array of its own that nothing else refers to and
// that nobody writes into once it is made (the codec's owned copies, which
// the codec reuses only once the garbage collector has found them
// unreferenced). A string that lies within one piece is a view of that
// piece's copy, with no copy of its own; one that straddles two pieces is
// copied into the chunks, as before. A piece is copied when the decode
// first makes a string in it, so that pieces of bytes fields and numbers
// alone are never copied. Bytes fields, which their owner may write into,
// are copies as before, never views.
//
// A string that a caller keeps holds its piece alive: at most PieceSize
// bytes of the same decode's encoding, and nothing of another decode.
type Pieces struct {
	src   []byte              // the decode's input
	base  uintptr             // where src starts
	shift uint                // a piece holds 1<<shift bytes: PieceShift (tests: fewer)
	arrs  []*byte             // each piece's copy, nil until a string is made in it
	owned func([]byte) []byte // makes a piece's copy
	st    *Decoding           // the decode's state, whose window (and its twin's) is the last piece viewed
}

// CopyPieces makes f's decode of src (and its 7-bit twin) make its strings
// views of pieces of src, copied by owned (Pieces). src must stay as it is
// until the decode is done; PutFresh ends it.
func (f *FreshDecoding) CopyPieces(src []byte, owned func([]byte) []byte) {
	f.copyPieces(src, PieceShift, owned)
}

// copyPieces is CopyPieces with pieces of 1<<shift bytes.
func (f *FreshDecoding) copyPieces(src []byte, shift uint, owned func([]byte) []byte) {
	p := &f.pieces
	p.src, p.base, p.shift, p.owned = src, uintptr(unsafe.Pointer(unsafe.SliceData(src))), shift, owned
	n := (len(src) + 1<<shift - 1) >> shift
	if cap(p.arrs) < n {
		p.arrs = make([]*byte, n)
	} else {
		p.arrs = p.arrs[:n]
	}
	p.st = &f.state
	f.state.pieces, f.ascii.pieces = p, p
}

// drop lets go of the input and the pieces' copies, so that p keeps
// nothing of the decode alive.
func (p *Pieces) drop(f *FreshDecoding) {
	if p.src == nil {
		return
	}
	clear(p.arrs)
	p.arrs = p.arrs[:0]
	p.src, p.base, p.owned, p.st = nil, 0, nil, nil
	f.state.pieces, f.ascii.pieces = nil, nil
	f.state.setWindow(0, 0, nil)
	f.ascii.setWindow(0, 0, nil)
}

// at returns where b starts in the input and whether all of b lies in it:
// every string a decoder makes is a part of its input, but the test costs
// two comparisons, and a view of memory that is not a piece's copy is what
// it must never make.
func (p *Pieces) at(b []byte) (uintptr, bool) {
	off := uintptr(unsafe.Pointer(unsafe.SliceData(b))) - p.base
	return off, off < uintptr(len(p.src)) && uintptr(len(b)) <= uintptr(len(p.src))-off
}

// piece returns the copy of piece i, copying it first if no string was made
// in it yet.
func (p *Pieces) piece(i uintptr) *byte {
	if a := p.arrs[i]; a != nil {
		return a
	}
	lo := i << p.shift
	hi := min(lo+1<<p.shift, uintptr(len(p.src)))
	a := unsafe.SliceData(p.owned(p.src[lo:hi:hi]))
	p.arrs[i] = a
	return a
}

// view returns b, a part of the input of one byte or more, as a view of its
// piece's copy, or false where it straddles two pieces.
func (p *Pieces) view(b []byte) (string, bool) {
	off, ok := p.at(b)
	i := off >> p.shift
	if !ok || (off+uintptr(len(b))-1)>>p.shift != i {
		return "", false
	}
	a := unsafe.Pointer(p.piece(i))
	// The strings after this one are most often in the same piece: the
	// state's window is now this piece, whose strings copied finds first.
	lo := i << p.shift
	n := min(1<<p.shift, uintptr(len(p.src))-lo)
	p.st.setWindow(p.base+lo, n, a)
	p.st.ascii.setWindow(p.base+lo, n, a)
	return unsafe.String((*byte)(unsafe.Add(a, off&(1<<p.shift-1))), len(b)), true
}

// within returns the bytes of b that lie in the piece where b starts, from
// that piece's copy: b's first bytes, equal to them, up to the piece's end
// or b's. It returns nil for an empty b.
func (p *Pieces) within(b []byte) []byte {
	off, ok := p.at(b)
	if !ok || len(b) == 0 {
		return nil
	}
	// b lies in the input, so the bytes from b's start to the input's end
	// bound those to the piece's end.
	i, in := off>>p.shift, off&(1<<p.shift-1)
	n := min(uintptr(len(b)), 1<<p.shift-in)
	return unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(p.piece(i)), in)), n)
}
