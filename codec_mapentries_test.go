package grpcfast_test

import (
	"encoding/hex"
	"testing"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"github.com/grpcfast/grpcfast/internal/testprotos/hostile"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
	"github.com/grpcfast/grpcfast/internal/testprotos/proto2"
)

// mapEntryInputs are valid encodings of proto2.Entries whose map entries
// repeat, reorder or leave out their key and value fields, as the spec lets
// any encoder write them (the last scalar wins, messages merge, a missing
// field is the zero value), with closed enum values the enum does not name.
// id (field 6, required) comes first in each.
func mapEntryInputs(t testing.TB) map[string][]byte {
	t.Helper()
	in := map[string]string{
		// names: map<int32, string> = 3; key 1 then key 2 in one entry.
		"key twice":           "3001" + "1a0708010802120176",
		"value twice":         "3001" + "1a09080112017612027777",
		"value before key":    "3001" + "1a05120176" + "0807",
		"no key":              "3001" + "1a03120176",
		"no value":            "3001" + "1a020805",
		"empty entry":         "3001" + "1a00",
		"unknown field":       "3001" + "1a0808011201762a0178",
		"key wrong wire type": "3001" + "1a07" + "0d01000000" + "1200",
		// children: map<string, Entries> = 4: the value twice merges.
		"message value twice":    "3001" + "220e0a0161" + "12052a01763001" + "12020801",
		"message value, id only": "3001" + "22070a016112023001",
		// by_level: map<int32, Level> = 8, and level, levels: values the
		// closed enum does not name.
		"closed enum values": "3001" + "420408011063" + "0805" + "12030001" + "07",
		// Invalid UTF-8 in a proto2 string: accepted, as protobuf-go does.
		"proto2 invalid UTF-8": "3001" + "1a05080112" + "01ff" + "5201ff",
		// The oneof switching case, then back.
		"oneof": "3001" + "5a0161" + "62023001" + "5a0162",
	}
	out := map[string][]byte{}
	for name, h := range in {
		b, err := hex.DecodeString(h)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = b
	}
	return out
}

// TestMapEntries: map entries and closed enums decode as protobuf-go
// decodes them, through the codec into a new message (whole and split at
// every byte), into a receiver's reused message, and into a pooled
// handler's message, with and without the owned copy.
func TestMapEntries(t *testing.T) {
	c := grpcfast.NewCodec()
	s := grpcfasttest.NewCopySlot[proto2.Entries]()
	p := grpcfasttest.NewPlainSlot[proto2.Entries]()
	for name, b := range mapEntryInputs(t) {
		want := &proto2.Entries{}
		if err := proto.Unmarshal(b, want); err != nil {
			t.Fatalf("%s: protobuf-go: %v", name, err)
		}
		for cut := 0; cut <= len(b); cut++ {
			got := &proto2.Entries{}
			if err := c.Unmarshal(grpcfasttest.SliceAt(b, cut), got); err != nil {
				t.Fatalf("%s, split at %d: %v", name, cut, err)
			}
			if !proto.Equal(got, want) {
				t.Fatalf("%s, split at %d: decoded\n%v\nprotobuf-go:\n%v", name, cut, got, want)
			}
		}
		for round := range 2 {
			for _, slot := range []struct {
				name string
				s    *grpcfasttest.CopySlot[proto2.Entries]
			}{{"owned copy", s}, {"pooled, without the copy", p}} {
				generated, err := slot.s.Decode(c, grpcfasttest.SliceAt(b, len(b)/2))
				if err != nil || !generated {
					t.Fatalf("%s: %s, round %d: %v, generated %v", name, slot.name, round, err, generated)
				}
				if !proto.Equal(slot.s.Msg(), want) {
					t.Fatalf("%s: %s, round %d: decoded\n%v\nprotobuf-go:\n%v", name, slot.name, round, slot.s.Msg(), want)
				}
				slot.s.Reset()
			}
		}
		first, err := proto.Marshal(&proto2.Entries{Id: proto.Int64(9), Names: map[int32]string{1: "x", 7: "y"},
			Children: map[string]*proto2.Entries{"a": {Id: proto.Int64(1), Note: proto.String("n")}}})
		if err != nil {
			t.Fatal(err)
		}
		rs := &grpcfasttest.CodecListStream[proto2.Entries]{Codec: c, Wire: [][]byte{first, b, b}}
		r := grpcfast.NewReceiver[proto2.Entries](rs)
		for i, w := range rs.Wire {
			rs.Split = i == 2
			m, err := r.Recv()
			if err != nil {
				t.Fatalf("%s: receiver, message %d: %v", name, i, err)
			}
			grpcfasttest.CheckOracle(t, w, m, nil)
		}
		r.Release()
	}
}

// TestMapEntryValueNeverNil: a map entry without its message value gives
// an empty message, as protobuf-go does, so a handler that reads through
// it does not panic.
func TestMapEntryValueNeverNil(t *testing.T) {
	b, _ := hex.DecodeString("2a030a0161") // by_name {"a": (no value)}
	m := &hostile.Node{}
	if err := grpcfast.NewCodec().Unmarshal(mem.BufferSlice{mem.SliceBuffer(b)}, m); err != nil {
		t.Fatal(err)
	}
	if v, ok := m.ByName["a"]; !ok || v == nil {
		t.Fatalf("by_name[a] = %v (present %v), want an empty message", v, ok)
	}
}

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
// after a varint, a fixed64 or a bytes field that holds it, or nested, is
// rejected, valid UTF-8 accepted, whole and split, as protobuf-go does.
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
	} {
		t.Run(name, func(t *testing.T) {
			for cut := 0; cut <= len(b); cut += 3 {
				got := &kinds.Rich{}
				grpcfasttest.CheckOracle(t, b, got, c.Unmarshal(grpcfasttest.SliceAt(b, cut), got))
			}
			s := grpcfasttest.NewCopySlot[kinds.Rich]()
			_, err := s.Decode(c, grpcfasttest.SliceAt(b))
			grpcfasttest.CheckOracle(t, b, s.Msg(), err)
		})
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
