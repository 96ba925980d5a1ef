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

// stringRunRef is what StringRun must do, value by value: append the values
// with a length of one byte while dst has room, and report where the run
// ends.
func stringRunRef(dst []string, b []byte, tag byte) ([]string, []byte, bool) {
	for len(dst) < cap(dst) && len(b) > 0 && b[0] < 0x80 && int(b[0]) < len(b) {
		n := int(b[0])
		dst = append(dst, string(b[1:1+n]))
		b = b[1+n:]
		if len(b) == 0 || b[0] != tag {
			return dst, b, true
		}
		b = b[1:]
	}
	return dst, b, false
}

// runInputs are runs of a string field of tag 0x32 (field 6), starting at
// the length of the first value, as a generated decoder calls StringRun:
// ended by the input, by another field, by a value of 128 bytes (a length
// of two bytes), by a length past the end, and empty values among them.
func runInputs() map[string][]byte {
	const tag = 6<<3 | 2
	run := func(vals ...string) []byte {
		var b []byte
		for _, v := range vals {
			b = protowire.AppendString(protowire.AppendTag(b, 6, protowire.BytesType), v)
		}
		return b[1:]
	}
	four := slices.Repeat([]string{"abcd"}, 10)
	words := make([]string, 40)
	for i := range words {
		words[i] = fmt.Sprintf("w%d-%s", i, strings.Repeat("x", i%9))
	}
	in := map[string][]byte{
		"one":                run("a"),
		"words":              run(words...),
		"empty values":       run("", "a", "", ""),
		"another field":      append(run("a", "bc"), 7<<3, 1),
		"long value":         run("a", strings.Repeat("y", 128), "b"),
		"longest short":      run(strings.Repeat("y", 127), "b"),
		"past the end":       append(run("a", "b"), tag, 5, 'x'),
		"one byte short":     append(run("a"), tag, 2, 'x'),
		"tag at the end":     append(run("a"), tag),
		"high bytes":         run("é", "\xff", "ok"),
		"empty input":        nil,
		"only a length":      {3},
		"empty, another tag": {0, 7 << 3, 1},
		// Runs of values of one length, which viewRun and copyRun take in
		// loops of their own, ended in each of the ways above, and long
		// enough for copyRun's (more than 16 bytes left).
		"equal lengths":                 run(four...),
		"equal lengths, another field":  append(run(four...), 7<<3, 1),
		"equal lengths, then longer":    run(append(four, "abcdef", "ab", "ab")...),
		"equal lengths, then long":      run(append(four, strings.Repeat("y", 128), "ab")...),
		"equal lengths, past the end":   append(run(four...), tag, 4, 'x'),
		"equal lengths, tag at the end": append(run(four...), tag),
		"equal lengths, a byte after":   append(run(four...), 7<<3),
		"equal lengths of 16":           run(slices.Repeat([]string{strings.Repeat("s", 16)}, 6)...),
		"equal lengths of 17":           run(slices.Repeat([]string{strings.Repeat("s", 17)}, 4)...),
		"equal longest short":           run(slices.Repeat([]string{strings.Repeat("z", 127)}, 4)...),
		"equal empty values":            run("", "", "", "", "a"),
		"equal one-byte values":         run("a", "b", "c", "d", "e", "f"),
	}
	return in
}

// runState returns the state of a decode in mode (views: the owned copy's;
// fresh: a decode of size bytes into a fresh message; slot: a slot's
// without the copy, its strings in chunks; the chunks given back when t
// ends) that StringRun runs in.
func runState(t *testing.T, mode string, size int) *Decoding {
	switch mode {
	case "views":
		return new(Decodings).Init(nil, true, false)
	case "fresh":
		f, s := GetFresh(size, false)
		t.Cleanup(func() { PutFresh(f) })
		return s
	}
	st := new(Decodings).Init(nil, false, false)
	strs := ChunkStrings(st, size)
	t.Cleanup(func() { EndStrings(st, strs) })
	return st
}

// StringRun appends what a value-by-value decode appends, leaves the rest
// of the input where it does, in every mode (views, a fresh decode's chunks,
// a slot's chunks) and whatever room dst has; a state without chunks
// appends nothing, for the caller to decode each value.
func TestStringRun(t *testing.T) {
	const tag = 6<<3 | 2
	for name, b := range runInputs() {
		for _, room := range []int{0, 1, 3, 100} {
			for _, mode := range []string{"views", "fresh", "slot"} {
				t.Run(fmt.Sprintf("%s/room=%d/%s", name, room, mode), func(t *testing.T) {
					st := runState(t, mode, len(b))
					in := bytes.Clone(b)
					want, wantRest, wantDone := stringRunRef(make([]string, 1, 1+room), in, tag)
					got, rest, done := st.StringRun(make([]string, 1, 1+room), in, tag)
					if !slices.Equal(got, want) || !bytes.Equal(rest, wantRest) || done != wantDone {
						t.Fatalf("StringRun = %q, rest %x, done %v; want %q, %x, %v", got, rest, done, want, wantRest, wantDone)
					}
					if plain, rest, done := new(Decodings).Init(nil, false, false).StringRun(make([]string, 1, 1+room), in, tag); len(plain) != 1 || len(rest) != len(in) || done {
						t.Fatalf("a state without chunks appended %d values, left %d of %d bytes, done %v", len(plain)-1, len(rest), len(in), done)
					}
					if len(rest) > 0 && unsafe.SliceData(rest) != &in[len(in)-len(rest)] {
						t.Fatal("the rest is not the input's own tail")
					}
					// Views are of the input; the other modes copy.
					for i, v := range got[1:] {
						if v == "" {
							continue
						}
						p := uintptr(unsafe.Pointer(unsafe.StringData(v)))
						inside := p >= uintptr(unsafe.Pointer(&in[0])) && p < uintptr(unsafe.Pointer(&in[0]))+uintptr(len(in))
						if inside != (mode == "views") {
							t.Fatalf("value %d: within the input %v, in mode %s", i, inside, mode)
						}
					}
				})
			}
		}
	}
}

// In a fresh decode, a run's values share the decode's chunks as copy's
// do: side by side, each with no capacity beyond it, new chunks of bounded
// size as they fill, and what is left to copy counted down.
func TestStringRunChunks(t *testing.T) {
	const tag = 6<<3 | 2
	var b []byte
	var want []string
	for i := range 2000 {
		v := fmt.Sprintf("value-%04d", i)
		want = append(want, v)
		b = protowire.AppendString(protowire.AppendTag(b, 6, protowire.BytesType), v)
	}
	b = b[1:]
	f, st := GetFresh(len(b), false)
	defer PutFresh(f)
	got, rest, done := st.StringRun(make([]string, 0, len(want)), b, tag)
	if !done || len(rest) != 0 || !slices.Equal(got, want) {
		t.Fatalf("StringRun: done %v, %d bytes left, %d values; want the run of %d", done, len(rest), len(got), len(want))
	}
	if st.Slabs.left != len(b)-10*len(want) {
		t.Fatalf("left to copy: %d, want %d", st.Slabs.left, len(b)-10*len(want))
	}
	chunks := map[uintptr]bool{}
	for i, v := range got {
		p := uintptr(unsafe.Pointer(unsafe.StringData(v)))
		if i > 0 {
			prev := uintptr(unsafe.Pointer(unsafe.StringData(got[i-1])))
			if p != prev+10 {
				chunks[p] = true
			}
		}
	}
	// 20,000 bytes in chunks of 64, 128, ... 2048 (400 values), then 4
	// of 4096 (409 values each).
	if n := len(chunks) + 1; n != 10 {
		t.Fatalf("2000 values of 10 bytes in %d chunks, want 10", n)
	}
}

// FuzzStringRun: on any input, StringRun appends what a value-by-value
// decode appends and stops where it stops, in every mode and with any room
// in dst, and never reads or writes outside b and dst's array.
func FuzzStringRun(f *testing.F) {
	for _, b := range runInputs() {
		f.Add(b, uint8(3))
	}
	f.Fuzz(func(t *testing.T, b []byte, room uint8) {
		const tag = 6<<3 | 2
		for _, mode := range []string{"views", "fresh", "slot"} {
			st := runState(t, mode, len(b))
			in := bytes.Clone(b) // its exact length: a read past it is out of bounds
			want, wantRest, wantDone := stringRunRef(make([]string, 0, int(room)), in, tag)
			got, rest, done := st.StringRun(make([]string, 0, int(room)), in, tag)
			if !slices.Equal(got, want) || !bytes.Equal(rest, wantRest) || done != wantDone {
				t.Fatalf("%s: StringRun = %q, rest %x, done %v; want %q, %x, %v", mode, got, rest, done, want, wantRest, wantDone)
			}
		}
	})
}

// A run that starts where the decode's chunk is exactly full takes a new
// chunk for its first value of more than one byte, and keeps no pointer to
// the full chunk's end: under -race, checkptr fails pointer arithmetic
// that ends past an allocation, which a pointer to the first byte not
// handed out of a full chunk would.
func TestStringRunFullChunk(t *testing.T) {
	const tag = 6<<3 | 2
	for _, mode := range []string{"fresh", "slot"} {
		t.Run(mode, func(t *testing.T) {
			st := runState(t, mode, 16)
			st.strs.copy(bytes.Repeat([]byte{'f'}, 16)) // the first chunk: 16 bytes, all handed out
			if len(st.strs.chunk) != 16 || st.strs.filled != 16 {
				t.Fatalf("a chunk of %d bytes, %d handed out; want 16, 16", len(st.strs.chunk), st.strs.filled)
			}
			b := append(protowire.AppendString(nil, "abc"), tag, 2, 'd', 'e')
			want, wantRest, wantDone := stringRunRef(make([]string, 0, 4), bytes.Clone(b), tag)
			got, rest, done := st.StringRun(make([]string, 0, 4), b, tag)
			if !slices.Equal(got, want) || !bytes.Equal(rest, wantRest) || done != wantDone {
				t.Fatalf("StringRun = %q, rest %x, done %v; want %q, %x, %v", got, rest, done, want, wantRest, wantDone)
			}
		})
	}
}

// copyRun's loop over values of one length keeps its pointer into the
// chunk within it, as the loop over other values does: runs of values of
// each length it takes (2 to 16 bytes) into chunks of 17 to 48 bytes, some
// of which the run fills exactly. Under -race, checkptr fails a pointer
// moved to a chunk's end; the values must be the reference's either way.
func TestStringRunEqualLengthsChunkEnd(t *testing.T) {
	const tag = 6<<3 | 2
	for n := 2; n <= 16; n++ {
		var b []byte
		for i := range 8 {
			b = protowire.AppendString(protowire.AppendTag(b, 6, protowire.BytesType), strings.Repeat(string(rune('a'+i)), n))
		}
		b = b[1:]
		for size := 17; size <= 48; size++ {
			for _, mode := range []string{"fresh", "slot"} {
				st := runState(t, mode, len(b))
				st.strs.chunk, st.strs.filled = make([]byte, size), 0
				want, wantRest, wantDone := stringRunRef(make([]string, 0, 8), bytes.Clone(b), tag)
				got, rest, done := st.StringRun(make([]string, 0, 8), b, tag)
				if !slices.Equal(got, want) || !bytes.Equal(rest, wantRest) || done != wantDone {
					t.Fatalf("values of %d bytes, a chunk of %d, %s: StringRun = %q, rest %x, done %v; want %q, %x, %v", n, size, mode, got, rest, done, want, wantRest, wantDone)
				}
			}
		}
	}
}
