package decode

import (
	"encoding/binary"
	"math/bits"
	"sync"
	"unsafe"

	"github.com/grpcfast/grpcfast/internal/own"
)

// MaxSlab is the number of messages of one type that a decode into a fresh
// message asks the allocator for at once, at most (Slabs). The allocator
// rounds the array up to its size class, and up to an eighth of it would
// then be left unused: 32 of a 56-byte message and the malloc header (1,800
// bytes) take 2,048. A slab fills that room instead, up to MaxSlabFilled
// messages, so that the memory a slab takes is what MaxSlab of them take
// anyway: a message that a caller keeps holds at most MaxSlabFilled-1
// others of its type alive, all from the same decode.
const MaxSlab = 32

// MaxSlabFilled is the most messages of one slab: MaxSlab, and those that
// fit in what its size class adds (at most an eighth).
const MaxSlabFilled = MaxSlab + MaxSlab/8

// slabKinds is how many message types one decode allocates in slabs; the
// others' messages are allocated one by one.
const slabKinds = 32

// Slabs' table has 2*slabKinds entries, found with a mask: this fails to
// compile unless that is a power of two, and of at most 64 (Slabs.filled).
const _ uint = -((2 * slabKinds) & (2*slabKinds - 1))

const _ uint = 64 - 2*slabKinds

// Slabs allocates the nested messages and oneof wrappers of one decode into
// a fresh message, of each type together: the first one alone, then 2, 4
// and so on up to MaxSlab at a time (each filling its size class), so that
// a message of a few nested messages costs what it did, and one of
// thousands (an OTLP export's attribute values) a few dozen allocations;
// and its short strings and bytes side by side in chunks (Chunks). Nothing
// of a decode is handed to another: a decode takes its Slabs from a pool
// empty, and drops every slab, chunk and string before it gives them back.
type Slabs struct {
	e [2 * slabKinds]slab // open addressing by kind; a power of two
	// filled marks the entries of e in use (at most slabKinds), for drop:
	// clearing only those costs a small decode a few stores where the
	// whole table (its pointers under the collector's write barrier) cost
	// more than the decode's own work.
	filled uint64
	// ptrs is where the decode's short repeated message fields take their
	// pointers (Pointers); its first pfilled were handed out.
	ptrs    []unsafe.Pointer
	pfilled int
	Chunks
}

// MaxCarved is the longest first run of a repeated message field whose
// pointers a decode into a fresh message takes from its pointer chunks
// (Pointers) rather than from an array of their own: most such fields (an
// OTLP span's attributes, events and links) are short, and an array each
// was a third of an export's allocations.
const MaxCarved = 32

// MaxPointers is the largest pointer chunk (Pointers): a repeated message
// field that a caller keeps holds at most MaxPointers-1 other pointers of
// the same decode alive, those of other short fields, and the messages
// they point to. Chunks of 64 left an export's bytes as they were with an
// array per field; of 256, 1.5% more (the last chunk's room unused).
const MaxPointers = 64

// The pointers of a run of MaxCarved elements fit in one chunk.
const _ uint = MaxPointers - MaxCarved

// Pointers returns the first of n (0 < n <= MaxCarved) zero pointer slots
// side by side in s's current pointer chunk, taking a new chunk, twice the
// last from 16 up to MaxPointers, where the current one has less room than
// n: nothing else is handed them, so a slice of exactly n made from them
// (its capacity n) writes into no other field when appended to. A chunk
// holds no more pointers than the input (less what was copied from it) has
// room for elements (2 bytes each at least: a tag and a length), so that a
// small message's short field costs little more than an array of its own.
func (s *Slabs) Pointers(n int) unsafe.Pointer {
	i := s.pfilled
	if n > len(s.ptrs)-i {
		s.ptrs = make([]unsafe.Pointer, max(min(max(2*len(s.ptrs), 16), MaxPointers, s.left/2), n))
		i = 0
	}
	s.pfilled = i + n
	return unsafe.Pointer(&s.ptrs[i])
}

// Chunks copies the short strings and bytes of one decode side by side
// into chunks made for that decode alone, equal strings once: a fresh
// message's decode (in its Slabs), or a slot's, whose record keeps its
// nested messages and bytes, for its strings (ChunkStrings).
type Chunks struct {
	// chunk is where the decode's short strings and bytes are copied
	// (copy); its first filled bytes were handed out.
	chunk  []byte
	filled int
	// left bounds what the rest of the decode copies: the input's length
	// less what was copied, so that no chunk is larger than what could
	// still fill it.
	left int
	// seen holds strings this decode copied, each at an entry found by a
	// hash of its bytes (seenAt), so that a value seen again (an OTLP
	// export's attribute keys, span names, values) shares the first copy:
	// strings cannot be changed, so sharing one shows in nothing but the
	// bytes it saves. inSeen marks the entries filled, for drop.
	seen   [seenSize]string
	inSeen [seenSize / 64]uint64
	// looked and found count the lookups in seen and the values found
	// there, since the last check (seenWindow lookups): where fewer than
	// one in seenHits were found, as among distinct values, the decode
	// copies the next seenPause strings without looking (paused).
	looked, found, paused int32
}

// seenSize is the number of entries of Chunks.seen: a power of two.
const seenSize = 256

const _ uint = -(seenSize & (seenSize - 1))

// A decode copies seenPause strings without looking for them among those
// it copied before (Chunks.copyString) once, of seenWindow lookups, fewer
// than seenWindow/seenHits found one: among distinct values, a string in
// 17 is looked for.
const (
	seenWindow = 64
	seenHits   = 8
	seenPause  = 16 * seenWindow
)

// seenFirst is how many strings a decode copies before it looks for any
// among those it copied (Chunks.paused, set by GetFresh and ChunkStrings):
// a small message's few strings seldom repeat, and a lookup, the entry it
// fills and its clearing when the decode ends cost it more than a few
// bytes saved; in a large one (an OTLP export's keys and values), a few
// strings more are copied. With 8, a list of 9 spans of one 8-byte name
// took a chunk more than a list of one (TestFreshDecodeOneShortRun).
const seenFirst = 4

// MaxChunked is the longest string or bytes value that a decode into a
// fresh message copies into a chunk shared with others of the same decode;
// a longer one is allocated alone.
const MaxChunked = 256

// MaxChunk is the largest chunk of strings and bytes: a value that a caller
// keeps holds at most MaxChunk bytes alive, all from the same decode.
const MaxChunk = 4096

// MinChunk is the first chunk's size, unless the input is shorter or the
// first value copied longer: a message of a few short strings allocates
// one chunk of their size, and a string alone beside a payload (a stream
// of writes, each naming its resource) one of its size or little more; a
// message of thousands, a chunk of 64 bytes, then twice the last, up to
// MaxChunk.
const MinChunk = 64

// copy returns a copy of b (0 < len(b) <= MaxChunked) in s's current
// chunk, with no capacity beyond it, taking a new chunk when it is full.
// Only a new chunk writes a pointer into s: the garbage collector's write
// barrier is paid once a chunk, not once a value.
func (s *Chunks) copy(b []byte) []byte {
	i := s.filled
	if len(b) > len(s.chunk)-i {
		s.newChunk(len(b))
		i = 0
	}
	j := i + len(b)
	s.filled = j
	s.left -= len(b)
	c := s.chunk[i:j:j]
	copy(c, b)
	return c
}

// newChunk gives s a new, empty chunk of room for n bytes at least: twice
// the last one, from MinChunk up to MaxChunk, and no more than what is left
// to copy.
func (s *Chunks) newChunk(n int) {
	s.chunk = make([]byte, max(min(max(2*len(s.chunk), MinChunk), MaxChunk, s.left), n))
	s.filled = 0
}

// oneByte holds every byte value, for strings of one byte that take no
// room in a chunk (as the runtime's string conversion gives them).
var oneByte = func() (a [256]byte) {
	for i := range a {
		a[i] = byte(i)
	}
	return a
}()

// copyString returns a copy of b (1 < len(b) <= MaxChunked) as a string:
// a string this decode copied before with the same bytes, or a new copy in
// s's chunk (copy). Equal values of one decode share their bytes, which a
// string's reader cannot tell; bytes fields, which can be changed, never
// do. A value kept still holds one chunk of its own decode alive.
// Decoding.copied looks for a value of 8 bytes or more itself, in the same
// entry (seenHash), without the calls, and calls it for the others.
func (s *Chunks) copyString(b []byte) string {
	if s.paused > 0 {
		s.paused--
		c := s.copy(b)
		return unsafe.String(unsafe.SliceData(c), len(c))
	}
	h := seenAt(b)
	s.looked++
	if v := s.seen[h]; v == string(b) {
		return s.hit(v)
	}
	return s.copySeen(b, h)
}

// hit returns v, the value that the lookup of an equal one (counted in
// looked) found in seen, and counts it.
func (s *Chunks) hit(v string) string {
	s.found++
	s.endWindow()
	return v
}

// copySeen copies b into s's chunk (copy) and into entry h of seen, where
// the lookup of b (counted in looked) found another value or none.
func (s *Chunks) copySeen(b []byte, h uint) string {
	s.endWindow()
	c := s.copy(b)
	v := unsafe.String(unsafe.SliceData(c), len(c))
	s.seen[h] = v
	s.inSeen[h/64] |= 1 << (h % 64)
	return v
}

// endWindow ends a window of seenWindow lookups, once looked counts that
// many: it pauses lookups where fewer than seenWindow/seenHits of them
// found a value.
func (s *Chunks) endWindow() {
	if s.looked == seenWindow {
		if s.found < seenWindow/seenHits {
			s.paused = seenPause
		}
		s.looked, s.found = 0, 0
	}
}

// seenAt returns the entry of Chunks.seen for a value b (0 < len(b)): a
// hash of its length and of its first and last 8 bytes (seenHash), or of
// all of them in a shorter value.
func seenAt(b []byte) uint {
	n := len(b)
	if n >= 8 {
		return seenHash(binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[n-8:]), n)
	}
	var w uint64
	if n >= 4 {
		w = uint64(binary.LittleEndian.Uint32(b))<<32 | uint64(binary.LittleEndian.Uint32(b[n-4:]))
	} else {
		w = uint64(b[0])<<16 | uint64(b[n/2])<<8 | uint64(b[n-1])
	}
	return seenMix(w, n)
}

// seenHash is the entry of Chunks.seen for a value of n >= 8 bytes whose
// first and last 8 are lo and hi.
func seenHash(lo, hi uint64, n int) uint { return seenMix(lo*0x9e3779b97f4a7c15^hi, n) }

// seenMix mixes w, read from a value of n bytes, into an entry of
// Chunks.seen.
func seenMix(w uint64, n int) uint {
	w = (w ^ uint64(n)*0x9e3779b97f4a7c15) * 0xff51afd7ed558ccd
	return uint(w >> (64 - bits.Len(seenSize-1)))
}

type slab struct {
	kind int32          // the SpareKind plus one; 0: an empty entry
	p    unsafe.Pointer // the array being handed out
	i, n int32          // elements handed out, and in the array
}

// Next returns the next message of kind k, of size bytes, from the slab at
// the kind's own entry, or nil where that entry holds no slab of the kind
// with a message left: Take's common case, without its type, so that it
// inlines into generated decoders (grpcfastimpl.NextSpare), which call Take
// (grpcfastimpl.NewSpare) only where it returns nil.
func (s *Slabs) Next(k own.SpareKind, size uintptr) unsafe.Pointer {
	if e := &s.e[int(k)&(len(s.e)-1)]; e.kind == int32(k)+1 && e.i < e.n {
		p := unsafe.Add(e.p, uintptr(e.i)*size)
		e.i++
		return p
	}
	return nil
}

// Take returns a new, zero *T of kind k from s: it finds the kind's entry
// (open addressing) and hands out the next message of its slab, starts a
// slab there or a new one where the last is used up, or allocates the
// message alone where the table is full.
func Take[T any](s *Slabs, k own.SpareKind) *T {
	var zero T
	size := unsafe.Sizeof(zero)
	if size == 0 {
		return new(T)
	}
	h := int(k)
	for j := range len(s.e) {
		e := &s.e[(h+j)&(len(s.e)-1)]
		switch e.kind {
		case int32(k) + 1:
			if e.i == e.n {
				// append rounds the capacity up to the allocator's size
				// class, as make allocates it without using it.
				a := append([]T(nil), make([]T, min(2*e.n, MaxSlab))...)
				e.p, e.i, e.n = unsafe.Pointer(unsafe.SliceData(a)), 0, int32(min(cap(a), MaxSlabFilled))
			}
			p := (*T)(unsafe.Add(e.p, uintptr(e.i)*size))
			e.i++
			return p
		case 0:
			if s.kinds() == slabKinds {
				return new(T)
			}
			s.filled |= 1 << ((h + j) & (len(s.e) - 1))
			p := new(T)
			*e = slab{kind: int32(k) + 1, p: unsafe.Pointer(p), i: 1, n: 1}
			return p
		}
	}
	return new(T)
}

// kinds is how many kinds have an entry in s's table.
func (s *Slabs) kinds() int { return bits.OnesCount64(s.filled) }

// drop lets go of every slab, so that s keeps nothing of the decode alive.
func (s *Slabs) drop() {
	for w := s.filled; w != 0; w &= w - 1 {
		s.e[bits.TrailingZeros64(w)] = slab{}
	}
	s.filled = 0
	s.ptrs, s.pfilled = nil, 0
	s.Chunks.drop()
}

// drop lets go of the chunk and of the strings seen, so that s keeps
// nothing of the decode alive.
func (s *Chunks) drop() {
	s.chunk, s.filled, s.left = nil, 0, 0
	// A decode of at most seenFirst strings (most small messages) filled
	// no entry: one comparison, not a loop over the words.
	if s.inSeen != [len(s.inSeen)]uint64{} {
		for i := range s.inSeen {
			for w := s.inSeen[i]; w != 0; w &= w - 1 {
				s.seen[i*64+bits.TrailingZeros64(w)] = ""
			}
			s.inSeen[i] = 0
		}
	}
	s.looked, s.found, s.paused = 0, 0, 0
}

// FreshDecoding is the state of one decode into a fresh message, and its
// slabs.
type FreshDecoding struct {
	Decodings
	slabs  Slabs
	pieces Pieces
}

// freshPool holds FreshDecodings set up once, when made: a decode reads its
// state and writes only the slabs, so the next decode needs only its own
// length and UTF-8 check set, not the state's pointers written again under
// the collector's write barrier.
var freshPool = sync.Pool{New: func() any {
	f := new(FreshDecoding)
	st := f.Init(nil, false, false)
	st.Slabs, st.strs = &f.slabs, &f.slabs.Chunks
	f.ascii.Slabs, f.ascii.strs = &f.slabs, &f.slabs.Chunks
	return f
}}

// GetFresh returns the state of a decode of size bytes into a fresh
// message, which allocates its nested messages in slabs and copies its
// short strings and bytes into chunks. PutFresh gives it back once the
// decode is done.
func GetFresh(size int, noUTF8 bool) (*FreshDecoding, *Decoding) {
	f := freshPool.Get().(*FreshDecoding)
	f.slabs.left = size
	f.slabs.paused = seenFirst
	f.state.noUTF8 = noUTF8
	return f, &f.state
}

// PutFresh gives f back, dropping its slabs.
func PutFresh(f *FreshDecoding) {
	f.slabs.drop()
	f.pieces.drop(f)
	freshPool.Put(f)
}

var chunksPool = sync.Pool{New: func() any { return new(Chunks) }}

// ChunkStrings makes st, a slot's state for a decode of size bytes without
// views (and its 7-bit twin), copy short strings as a decode into a fresh
// message does: side by side into chunks of this decode alone, equal ones
// once (Chunks.copyString, Chunks.copyRun), where each was allocated alone.
// A string that a caller keeps holds at most MaxChunk bytes alive, all
// strings of the same decode; its bytes and nested messages stay the
// slot's. EndStrings takes the chunks back from st once the decode is done.
func ChunkStrings(st *Decoding, size int) *Chunks {
	s := chunksPool.Get().(*Chunks)
	s.left = size
	s.paused = seenFirst
	st.strs, st.ascii.strs = s, s
	return s
}

// EndStrings ends what ChunkStrings began: st copies no more strings into
// s, and s, dropping its chunk and the strings it saw, goes back to the
// pool.
func EndStrings(st *Decoding, s *Chunks) {
	st.strs, st.ascii.strs = nil, nil
	s.drop()
	chunksPool.Put(s)
}
