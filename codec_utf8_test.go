package grpcfast_test

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
	"github.com/grpcfast/grpcfast/internal/testprotos/otlp"
)

// The UTF-8 check of generated decoders, through the codec: the sweep of a
// message's input for 7-bit bytes and the strings it spares
// (internal/decode.Decoding.Sweep, grpcfastimpl.Unswept, the generator's
// decodeGen.utf8).

// TestUTF8AfterASCII: a generated decoder that has found the rest of its
// input 7-bit checks no string in it again; any byte of 0x80 or more in
// that rest, in a later string or a nested message's, means it checks each
// string as before. Invalid UTF-8 after valid ASCII strings, at the top or
// nested, is rejected and valid UTF-8 accepted, whole and split.
func TestUTF8AfterASCII(t *testing.T) {
	c := grpcfast.NewCodec()
	words := func(last string) []string {
		w := make([]string, 50)
		for i := range w {
			w[i] = "word"
		}
		return append(w, last)
	}
	for _, tc := range []struct {
		name string
		m    *kinds.Rich
	}{
		{"invalid last word", &kinds.Rich{Name: "ascii", Words: words("\xff")}},
		{"valid last word", &kinds.Rich{Name: "ascii", Words: words("é")}},
		{"invalid nested label", &kinds.Rich{Name: "ascii", Inner: &kinds.Inner{Label: "x\xffy"}}},
		{"invalid oneof text", &kinds.Rich{Name: "ascii", Words: words("w"), Choice: &kinds.Rich_Text{Text: "\xc3"}}},
		{"invalid map key", &kinds.Rich{Name: "ascii", Counts: map[string]int64{"\xfe": 1}}},
		{"all ASCII", &kinds.Rich{Name: "ascii", Words: words("w"), Inner: &kinds.Inner{Label: "l"}}},
	} {
		b, err := proto.MarshalOptions{}.Marshal(tc.m)
		if err != nil {
			// protobuf-go refuses to encode invalid UTF-8: encode the
			// valid message and replace the marker bytes.
			b = marshalInvalid(t, tc.m)
		}
		for cut := 0; cut <= len(b); cut += 7 {
			got := &kinds.Rich{}
			grpcfasttest.CheckOracle(t, b, got, c.Unmarshal(grpcfasttest.SliceAt(b, cut), got))
		}
		s := grpcfasttest.NewCopySlot[kinds.Rich]()
		_, err = s.Decode(c, grpcfasttest.SliceAt(b))
		grpcfasttest.CheckOracle(t, b, s.Msg(), err)
	}
}

// TestUTF8AroundFirstHighByte: a generated decoder that finds a byte of
// 0x80 or more in the rest of its input checks only the strings that end
// after it; those before it are 7-bit. A hostile peer orders fields as it
// likes: invalid UTF-8 in a string that holds the first high byte, in one
// after a varint, a fixed64 or a bytes field that holds it, nested, or in a
// run of a repeated field, is rejected, valid UTF-8 accepted, whole and
// split at every byte, into a new message and into slots with and without
// the owned copy, as protobuf-go does.
func TestUTF8AroundFirstHighByte(t *testing.T) {
	c := grpcfast.NewCodec()
	str := func(num protowire.Number, v string) []byte {
		return protowire.AppendString(protowire.AppendTag(nil, num, protowire.BytesType), v)
	}
	high := protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), 1<<40)                  // id
	fixed := protowire.AppendFixed64(protowire.AppendTag(nil, 18, protowire.Fixed64Type), 0x8899aabbccddeeff) // sf64
	raw := str(3, "\x80\x81")                                                                                 // data
	cat := func(parts ...[]byte) []byte {
		var b []byte
		for _, p := range parts {
			b = append(b, p...)
		}
		return b
	}
	for name, b := range map[string][]byte{
		"high byte ends the first string, invalid": cat(str(2, "abc\xc3"), str(6, "w")),
		"high byte ends the first string, valid":   cat(str(2, "abc\xc3\xa9"), str(6, "w")),
		"invalid word after a varint":              cat(str(2, "ascii"), str(6, "ok"), high, str(6, "ok"), str(6, "\xff")),
		"valid word after a varint":                cat(str(2, "ascii"), str(6, "ok"), high, str(6, "é")),
		"invalid name after a fixed64":             cat(str(6, "ok"), fixed, str(2, "x\xffy")),
		"invalid text after bytes":                 cat(str(2, "ok"), raw, str(11, "\xc3")),
		"valid strings up to bytes":                cat(str(2, "ok"), str(6, "ok"), raw, str(6, "ok")),
		"invalid nested label after a fixed64":     cat(str(2, "ok"), fixed, str(8, string(str(1, "\xfe")))),
		"invalid nested label before a fixed64":    cat(str(2, "ok"), str(8, string(str(1, "\xfe"))), fixed),
		"invalid map key after a varint":           cat(str(2, "ok"), high, str(10, string(str(1, "\xfe")))),
		// Runs of words (AppendStrings).
		"invalid word in a run after its first high byte": cat(str(6, "ok"), str(6, "é"), str(6, "ok"), str(6, "\xff"), str(6, "ok")),
		"valid run with a high byte":                      cat(str(6, "ok"), str(6, "é"), str(6, "ok")),
		"invalid word first in a run":                     cat(str(2, "ascii"), str(6, "\xc3"), str(6, "ok")),
		"7-bit run, then an invalid name":                 cat(str(6, "a"), str(6, "b"), str(2, "\xff")),
		"run broken by a long word, then invalid":         cat(str(6, "a"), str(6, strings.Repeat("x", 130)), str(6, "b"), str(6, "\xff")),
		"run cut off by an invalid length":                cat(str(6, "a"), str(6, "b"), []byte{6<<3 | 2, 9, 'x'}),
	} {
		t.Run(name, func(t *testing.T) {
			for cut := 0; cut <= len(b); cut++ {
				got := &kinds.Rich{}
				grpcfasttest.CheckOracle(t, b, got, c.Unmarshal(grpcfasttest.SliceAt(b, cut), got))
			}
			for _, s := range []*grpcfasttest.CopySlot[kinds.Rich]{grpcfasttest.NewCopySlot[kinds.Rich](), grpcfasttest.NewPlainSlot[kinds.Rich]()} {
				_, err := s.Decode(c, grpcfasttest.SliceAt(b))
				grpcfasttest.CheckOracle(t, b, s.Msg(), err)
			}
		})
	}
}

// TestUTF8FewStrings: the sweep of a message that holds a string or two
// (kinds.Inner; OTLP's InstrumentationScope, like its KeyValue and Span),
// whose input is short enough to be read whole (shortASCII) or whose 7-bit
// prefix ends at a varint, a fixed64 or a string with a high byte. Values
// of every length up to 20 bytes, and of 130, with a high byte of an
// invalid, truncated or valid sequence at every position, in each string
// field, before or after a varint or a fixed64 with high bytes, at the top
// and nested in a message that sweeps and found its input 7-bit or not:
// rejected or accepted as protobuf-go does, whole and split, into a new
// message and into slots with and without the owned copy.
func TestUTF8FewStrings(t *testing.T) {
	c := grpcfast.NewCodec()
	str := func(num protowire.Number, v string) []byte {
		return protowire.AppendString(protowire.AppendTag(nil, num, protowire.BytesType), v)
	}
	varint := func(num protowire.Number, v uint64) []byte {
		return protowire.AppendVarint(protowire.AppendTag(nil, num, protowire.VarintType), v)
	}
	cat := func(parts ...[]byte) []byte {
		var b []byte
		for _, p := range parts {
			b = append(b, p...)
		}
		return b
	}
	var values []string
	for _, n := range []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 20, 130} {
		values = append(values, strings.Repeat("a", n))
		for i := range n {
			if n > 20 && i%50 != 0 && i != n-1 {
				continue // a long value: a few positions of its high byte
			}
			for _, seq := range []string{"\xff", "\xc3", "é", "\xe2\x82", "€"} {
				if i+len(seq) <= n {
					values = append(values, strings.Repeat("a", i)+seq+strings.Repeat("a", n-i-len(seq)))
				}
			}
		}
	}
	// check decodes b into a new message, whole and split, and with each
	// of decodes (into slots), against protobuf-go.
	check := func(t *testing.T, b []byte, newMsg func() proto.Message, decodes ...func() (proto.Message, error)) {
		t.Helper()
		for _, cut := range []int{0, len(b) / 2, len(b)} {
			got := newMsg()
			grpcfasttest.CheckOracle(t, b, got, c.Unmarshal(grpcfasttest.SliceAt(b, cut), got))
		}
		for _, decode := range decodes {
			m, err := decode()
			grpcfasttest.CheckOracle(t, b, m, err)
		}
	}
	innerCopy, innerPlain := grpcfasttest.NewCopySlot[kinds.Inner](), grpcfasttest.NewPlainSlot[kinds.Inner]()
	richCopy := grpcfasttest.NewCopySlot[kinds.Rich]()
	scopeCopy := grpcfasttest.NewCopySlot[otlp.InstrumentationScope]()
	high := varint(3, 1<<40) // Inner.values: a varint with high bytes
	fixed := protowire.AppendFixed64(protowire.AppendTag(nil, 18, protowire.Fixed64Type), 0x8899aabbccddeeff)
	dropped := varint(4, 1<<20) // InstrumentationScope.dropped_attributes_count
	for _, v := range values {
		inner := str(1, v)
		for _, b := range [][]byte{inner, cat(high, inner), cat(inner, high)} {
			check(t, b, func() proto.Message { return &kinds.Inner{} },
				func() (proto.Message, error) {
					_, err := innerCopy.Decode(c, grpcfasttest.SliceAt(b))
					return innerCopy.Msg(), err
				},
				func() (proto.Message, error) {
					_, err := innerPlain.Decode(c, grpcfasttest.SliceAt(b))
					return innerPlain.Msg(), err
				})
		}
		// Nested in kinds.Rich, which sweeps: 7-bit around the Inner, or
		// a fixed64 with high bytes before it.
		for _, b := range [][]byte{cat(str(2, "ascii"), str(8, string(inner))), cat(str(2, "ascii"), fixed, str(8, string(inner)))} {
			check(t, b, func() proto.Message { return &kinds.Rich{} },
				func() (proto.Message, error) {
					_, err := richCopy.Decode(c, grpcfasttest.SliceAt(b))
					return richCopy.Msg(), err
				})
		}
		// Two strings: the name and the version, either one v, in either
		// order, before and after a varint with high bytes.
		for _, b := range [][]byte{
			cat(str(1, v), str(2, "1.0.0")), cat(str(2, v), str(1, "scope")),
			cat(dropped, str(1, "scope"), str(2, v)), cat(str(1, v), dropped),
		} {
			check(t, b, func() proto.Message { return &otlp.InstrumentationScope{} },
				func() (proto.Message, error) {
					_, err := scopeCopy.Decode(c, grpcfasttest.SliceAt(b))
					return scopeCopy.Msg(), err
				})
		}
	}
}

// marshalInvalid encodes m, whose strings may hold invalid UTF-8, with
// vtprotobuf's encoder, which does not check.
func marshalInvalid(t *testing.T, m *kinds.Rich) []byte {
	t.Helper()
	b, err := m.MarshalVT()
	if err != nil {
		t.Fatal(err)
	}
	return b
}
