package grpcfastimpl_test

import (
	"fmt"
	"runtime"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
)

// A repeated field gets, when it grows, the capacity for the elements that
// follow in the input, and the elements of a repeated message field that
// follow each other are allocated together in a decode into a fresh
// message: decoding n elements costs the allocations of one.
func TestRepeatedAllocs(t *testing.T) {
	grpcfasttest.SkipIfRace(t)
	c := grpcfast.NewCodec()
	cases := []struct {
		name string
		of   func(n int) *kinds.Rich
	}{
		{"messages", func(n int) *kinds.Rich {
			m := &kinds.Rich{}
			for range n {
				m.Inners = append(m.Inners, &kinds.Inner{})
			}
			return m
		}},
		{"strings", func(n int) *kinds.Rich { return &kinds.Rich{Words: make([]string, n)} }},
		{"packed", func(n int) *kinds.Rich {
			m := &kinds.Rich{}
			for i := range n {
				m.Numbers = append(m.Numbers, int64(i)<<(i%60))
			}
			return m
		}},
		{"packed fixed", func(n int) *kinds.Rich {
			m := &kinds.Rich{Inner: &kinds.Inner{}}
			for i := range n {
				m.Inner.Values = append(m.Inner.Values, uint32(i))
			}
			return m
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			allocs := func(n int) float64 {
				b, err := proto.Marshal(tc.of(n))
				if err != nil {
					t.Fatal(err)
				}
				data := grpcfasttest.SliceAt(b)
				return testing.AllocsPerRun(50, func() {
					m := &kinds.Rich{}
					if err := c.Unmarshal(data, m); err != nil {
						t.Fatal(err)
					}
				})
			}
			one, many := allocs(1), allocs(200)
			if many != one {
				t.Errorf("200 elements: %v allocations, 1 element: %v; want the same", many, one)
			}
		})
	}
}

// Elements of a repeated field that do not follow each other (other fields
// between them, an element cut short, a packed and an unpacked run of the
// same field) decode as protobuf-go decodes them: the capacity the decoder
// gives a field is a hint, never a count it relies on.
func TestRepeatedRuns(t *testing.T) {
	inner := func(label string) []byte {
		// Written by hand: proto.Marshal refuses invalid UTF-8.
		b := protowire.AppendTag(nil, 1, protowire.BytesType)
		return protowire.AppendString(b, label)
	}
	inners := func(b []byte, labels ...string) []byte {
		for _, l := range labels {
			b = protowire.AppendTag(b, 9, protowire.BytesType)
			b = protowire.AppendBytes(b, inner(l))
		}
		return b
	}
	word := func(b []byte, w string) []byte {
		b = protowire.AppendTag(b, 6, protowire.BytesType)
		return protowire.AppendString(b, w)
	}
	number := func(b []byte, v uint64) []byte {
		b = protowire.AppendTag(b, 5, protowire.VarintType)
		return protowire.AppendVarint(b, v)
	}
	packed := func(b []byte, vs ...uint64) []byte {
		var p []byte
		for _, v := range vs {
			p = protowire.AppendVarint(p, v)
		}
		b = protowire.AppendTag(b, 5, protowire.BytesType)
		return protowire.AppendBytes(b, p)
	}
	var interleaved []byte
	for i := range 40 {
		interleaved = inners(interleaved, fmt.Sprint(i))
		interleaved = word(interleaved, fmt.Sprint(i))
		interleaved = number(interleaved, uint64(i)<<40)
	}
	inputs := map[string][]byte{
		"interleaved":         interleaved,
		"runs":                word(inners(word(inners(nil, "a", "b", "c"), "w"), "d", "e"), "x"),
		"last cut short":      inners(nil, "a", "b", "c")[:len(inners(nil, "a", "b", "c"))-1],
		"length past the end": append(inners(nil, "a", "b"), 9<<3|2, 0x7f, 0x0a),
		"bad element":         append(inners(nil, "a", "b"), 9<<3|2, 2, 0x0a, 0x05),
		"invalid UTF-8 third": inners(nil, "a", "b", "\xff", "d"),
		"packed and not":      number(packed(number(packed(nil, 1, 1<<63, 3), 4), 5, 6), 7),
		"packed cut":          append(packed(nil, 1, 2), 5<<3|2, 3, 0x80, 0x80, 0x80),
		"packed overlong":     append(packed(nil, 1), 5<<3|2, 11, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01),
		"unpacked cut":        append(number(nil, 1), 5<<3, 0x80),
		"other wire type":     append(inners(nil, "a"), 9<<3 /* varint */, 1, 9<<3|2, 0),
	}
	c := grpcfast.NewCodec()
	for name, b := range inputs {
		t.Run(name, func(t *testing.T) {
			for cut := 0; cut <= len(b); cut++ {
				m := &kinds.Rich{}
				grpcfasttest.CheckOracleAt(t, fmt.Sprintf("%s, split at %d", name, cut), b, m, c.Unmarshal(grpcfasttest.SliceAt(b, cut), m))
			}
		})
	}
}

// A hostile peer cannot make the decoder allocate for elements it has not
// decoded beyond decode.MaxRun of them: 100000 empty elements after one
// that fails cost the decode that fails at the first a bounded allocation,
// as they cost protobuf-go.
func TestRepeatedRunBounded(t *testing.T) {
	grpcfasttest.SkipIfRace(t)
	b := protowire.AppendTag(nil, 9, protowire.BytesType)
	b = protowire.AppendBytes(b, []byte{1<<3 | 2, 1, 0xff}) // a label of invalid UTF-8
	for range 100000 {
		b = append(b, 9<<3|2, 0)
	}
	c := grpcfast.NewCodec()
	data := grpcfasttest.SliceAt(b)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := c.Unmarshal(data, &kinds.Rich{}); err == nil {
		t.Fatal("invalid UTF-8 accepted")
	}
	runtime.ReadMemStats(&after)
	// 1025 elements and their pointers, at most 100 bytes each.
	if got := after.TotalAlloc - before.TotalAlloc; got > 1025*100+64<<10 {
		t.Errorf("a %d-byte input that fails at its first element: %d bytes allocated", len(b), got)
	}
}
