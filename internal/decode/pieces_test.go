package decode

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"google.golang.org/protobuf/encoding/protowire"
)

// piecesState returns a fresh decode's state whose strings are views of
// pieces of src of 1<<shift bytes, copied by a clone that counts its calls
// in *copies; the state goes back to the pool when t ends.
func piecesState(t *testing.T, src []byte, shift uint, copies *int) (*FreshDecoding, *Decoding) {
	f, st := GetFresh(len(src), false)
	t.Cleanup(func() { PutFresh(f) })
	f.copyPieces(src, shift, func(b []byte) []byte {
		*copies++
		return bytes.Clone(b)
	})
	return f, st
}

// within reports whether s's bytes lie in b's array.
func within(s string, b []byte) bool {
	p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return p >= lo && p < lo+uintptr(len(b))
}

// A string that lies in one piece is a view of that piece's copy, at its
// place in it, and never of the input; one that straddles two pieces is a
// copy of its own; a piece is copied once, when the first string in it is
// made, and the pieces where no string is made are never copied.
func TestPiecesView(t *testing.T) {
	const shift = 4
	src := []byte(strings.Repeat("0123456789abcdefghijklmnopqrstuv", 4)[:100])
	for off := range len(src) {
		for n := 1; off+n <= len(src); n++ {
			copies := 0
			f, st := piecesState(t, src, shift, &copies)
			b := src[off : off+n]
			got := st.String(b)
			if got != string(b) {
				t.Fatalf("src[%d:%d]: %q, want %q", off, off+n, got, b)
			}
			if within(got, src) {
				t.Fatalf("src[%d:%d] is a view of the input", off, off+n)
			}
			oneMore := st.String(b)
			i := off >> shift
			if (off+n-1)>>shift != i {
				if copies != 0 || oneMore != string(b) {
					t.Fatalf("src[%d:%d] straddles two pieces: %d pieces copied, decoded again %q", off, off+n, copies, oneMore)
				}
				continue
			}
			if copies != 1 {
				t.Fatalf("src[%d:%d], decoded twice: %d pieces copied, want 1", off, off+n, copies)
			}
			want := unsafe.Add(unsafe.Pointer(f.pieces.arrs[i]), off&(1<<shift-1))
			if unsafe.Pointer(unsafe.StringData(got)) != want || unsafe.StringData(oneMore) != unsafe.StringData(got) {
				t.Fatalf("src[%d:%d] is not a view of its piece's copy at its place", off, off+n)
			}
			for j, a := range f.pieces.arrs {
				if (a != nil) != (j == i) {
					t.Fatalf("src[%d:%d]: piece %d copied %v", off, off+n, j, a != nil)
				}
			}
		}
	}
}

// Bytes that are not a part of the input, or only partly, are copied, never
// viewed: a view must be of a piece's copy.
func TestPiecesOutside(t *testing.T) {
	under := []byte(strings.Repeat("x", 64))
	src := under[:32]
	copies := 0
	_, st := piecesState(t, src, 4, &copies)
	for _, b := range [][]byte{under[30:40], under[32:34], bytes.Clone(src[:8])} {
		if got := st.String(b); got != string(b) || within(got, under) || within(got, src) {
			t.Fatalf("%q: %q, a view of the input or past it", b, got)
		}
		if st.pieces.within(b) != nil {
			t.Fatalf("%q: within returned bytes outside the input", b)
		}
	}
	if copies != 0 {
		t.Fatalf("%d pieces copied for bytes outside the input", copies)
	}
}

// A fresh decode given back keeps nothing of its pieces: neither the input
// nor a copy, and the next decode from the pool has no pieces.
func TestPiecesDrop(t *testing.T) {
	src := bytes.Repeat([]byte("abcdefgh"), 10)
	f, st := GetFresh(len(src), false)
	copies := 0
	f.copyPieces(src, 4, func(b []byte) []byte { copies++; return bytes.Clone(b) })
	st.String(src[1:5])
	st.String(src[40:44])
	p := &f.pieces
	arrs := p.arrs[:cap(p.arrs)]
	PutFresh(f)
	if p.src != nil || p.owned != nil || len(p.arrs) != 0 || f.state.pieces != nil || f.ascii.pieces != nil {
		t.Fatal("a fresh decode given back kept its pieces")
	}
	for i, a := range arrs {
		if a != nil {
			t.Fatalf("a fresh decode given back kept the copy of piece %d", i)
		}
	}
	if copies != 2 {
		t.Fatalf("%d pieces copied, want 2", copies)
	}
}

// valueStarts returns where each value of a run that stringRunRef takes
// from b has its length.
func valueStarts(b []byte, tag byte) []int {
	var at []int
	for i := 0; i < len(b) && b[i] < 0x80 && i+int(b[i]) < len(b); {
		at = append(at, i)
		i += 1 + int(b[i])
		if i == len(b) || b[i] != tag {
			break
		}
		i++
	}
	return at
}

// checkPiecesRun runs StringRun in a state whose strings are views of
// pieces of 1<<shift bytes of in, and checks it against stringRunRef: it
// takes what the reference takes, or the first values of it, stopped at a
// piece's end at the next value's length (done false), as where dst is
// full; every value it takes is a copy, of its piece or its own.
func checkPiecesRun(t *testing.T, in []byte, shift uint, room int) {
	t.Helper()
	const tag = 6<<3 | 2
	copies := 0
	_, st := piecesState(t, in, shift, &copies)
	want, wantRest, wantDone := stringRunRef(make([]string, 0, room), in, tag)
	got, rest, done := st.StringRun(make([]string, 0, room), in, tag)
	if len(rest) > 0 && unsafe.SliceData(rest) != &in[len(in)-len(rest)] {
		t.Fatal("the rest is not the input's own tail")
	}
	switch {
	case len(got) > len(want) || !slices.Equal(got, want[:len(got)]):
		t.Fatalf("StringRun = %q; want %q or its first values", got, want)
	case len(got) == len(want):
		if !bytes.Equal(rest, wantRest) || done != wantDone {
			t.Fatalf("StringRun took all %d values: rest %x, done %v; want %x, %v", len(got), rest, done, wantRest, wantDone)
		}
	default:
		if at := valueStarts(in, tag); done || len(in)-len(rest) != at[len(got)] {
			t.Fatalf("StringRun stopped after %d of %d values at %d, done %v; want at the next value's length, %d", len(got), len(want), len(in)-len(rest), done, at[len(got)])
		}
	}
	for i, v := range got {
		if v != "" && within(v, in) {
			t.Fatalf("value %d is a view of the input", i)
		}
	}
}

// StringRun in a fresh decode with pieces takes each run's values up to the
// end of the piece it starts in, and stops there for the caller, which
// decodes the next value alone: at every place that the runs of
// TestStringRun's inputs (and long runs of equal and of varied lengths)
// can have in pieces of 16, 32 and 64 bytes.
func TestStringRunPieces(t *testing.T) {
	run := func(vals ...string) []byte {
		var b []byte
		for _, v := range vals {
			b = protowire.AppendString(protowire.AppendTag(b, 6, protowire.BytesType), v)
		}
		return b[1:]
	}
	var varied []string
	for i := range 60 {
		varied = append(varied, strings.Repeat("v", i%23))
	}
	inputs := runInputs()
	inputs["long, equal lengths"] = run(slices.Repeat([]string{"0123456"}, 50)...)
	inputs["long, varied lengths"] = run(varied...)
	for name, b := range inputs {
		for _, shift := range []uint{4, 5, 6} {
			for pad := range 1 << shift {
				for _, room := range []int{0, 3, 1000} {
					t.Run(fmt.Sprintf("%s/shift=%d/pad=%d/room=%d", name, shift, pad, room), func(t *testing.T) {
						// The run at offset pad of the input: its pieces
						// begin pad bytes before it.
						in := append(bytes.Repeat([]byte{0xee}, pad), b...)
						checkPiecesRun(t, in[pad:len(in):len(in)], shift, room)
					})
				}
			}
		}
	}
}

// FuzzStringRunPieces: on any input, in pieces of any size from 2 to 128
// bytes, StringRun takes what checkPiecesRun allows, and never reads or
// writes outside the input, its pieces' copies and dst's array.
func FuzzStringRunPieces(f *testing.F) {
	for _, b := range runInputs() {
		f.Add(b, uint8(3), uint8(4))
	}
	f.Fuzz(func(t *testing.T, b []byte, room, shift uint8) {
		checkPiecesRun(t, bytes.Clone(b), uint(1+shift%7), int(room))
	})
}
