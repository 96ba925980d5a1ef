package grpcfast_test

import (
	"encoding/hex"
	"testing"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"github.com/grpcfast/grpcfast/internal/testprotos/hostile"
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
