package codec_test

import (
	"encoding/hex"
	"fmt"
	"sync"
	"testing"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/grpcfastimpl"
	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
	"github.com/grpcfast/grpcfast/internal/testprotos/proto2"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// TestRequiredChecked: a generated decoder leaves required fields to the
// end of the decode, as protobuf-go does: missing in one occurrence of a
// nested message and present in another that merges into it is accepted;
// missing from the whole tree is rejected; and what the linked protobuf-go
// decides for a message that lacks a required field only in a oneof's
// message, is decided the same, fresh and into slots, whole and split.
func TestRequiredChecked(t *testing.T) {
	c := grpcfast.NewCodec()
	const oracle = -1 // accepted as the linked protobuf-go decides
	for _, tc := range []struct {
		name string
		hex  string
		ok   int
	}{
		{"top-level id missing", "1a020801", 0},
		{"next without id, then with it", "3001" + "3a020801" + "3a023005", 1},
		{"next without id", "3001" + "3a020801", 0},
		{"map value without id", "3001" + "22050a01611200", 0},
		{"map value missing: an empty message without id", "3001" + "22030a0161", 0},
		// protobuf-go (v1.36) checks the required fields of a message in a
		// oneof only when it is the oneof's first field, or when another
		// part of the decode lacked one: sub is choice's second field.
		{"oneof sub without id", "3001" + "6200", oracle},
		{"oneof sub without id, unknown and packed fields in it", "3001" + "62070a016112023001", oracle},
		{"oneof sub without id, next without id then with it", "3001" + "3a020801" + "3a023005" + "6200", oracle},
		{"oneof sub with id", "3001" + "62023005", 1},
		{"oneof sub without id, in a next without id", "3001" + "3a04" + "6202" + "3a00", 0},
	} {
		b, _ := hex.DecodeString(tc.hex)
		want := tc.ok == 1
		if tc.ok == oracle {
			want = proto.Unmarshal(b, &proto2.Entries{}) == nil
		}
		copied, plain := grpcfasttest.NewCopySlot[proto2.Entries](), grpcfasttest.NewPlainSlot[proto2.Entries]()
		for cut := 0; cut <= len(b); cut++ {
			m := &proto2.Entries{}
			err := c.Unmarshal(grpcfasttest.SliceAt(b, cut), m)
			grpcfasttest.CheckOracle(t, b, m, err)
			if (err == nil) != want {
				t.Fatalf("%s, split at %d: %v, want accepted: %v", tc.name, cut, err, want)
			}
			for _, s := range []*grpcfasttest.CopySlot[proto2.Entries]{copied, plain} {
				s.Reset()
				_, err := s.Decode(c, grpcfasttest.SliceAt(b, cut))
				grpcfasttest.CheckOracle(t, b, s.Msg(), err)
			}
		}
	}
}

// TestFlatDecode: a message of a flat type (grpcfastimpl.Flat: no nested
// messages, at most two string or bytes values) is decoded into a new
// message without the pooled slabs and chunks, in one state that every
// decode shares: each value gets an array of its own, whole or cut at any
// byte, copied from the input; the UTF-8 check is the codec's; and decodes on
// many goroutines at once share nothing they write (run with -race).
func TestFlatDecode(t *testing.T) {
	if _, ok := any(new(kinds.Inner)).(grpcfastimpl.Flat); !ok {
		t.Fatal("kinds.Inner is not flat")
	}
	if _, ok := any(new(kinds.Rich)).(grpcfastimpl.Flat); ok {
		t.Fatal("kinds.Rich is flat")
	}
	want := &kinds.Inner{Label: "label-1", Payload: []byte("payload"), Values: []uint32{1, 300}}
	wire, err := proto.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	c := grpcfast.NewCodec()
	// Whole, and cut at every byte, once and twice.
	cutsAt := [][]int{nil}
	for i := 1; i < len(wire); i++ {
		cutsAt = append(cutsAt, []int{i})
		for j := i + 1; j < len(wire); j++ {
			cutsAt = append(cutsAt, []int{i, j})
		}
	}
	for _, cuts := range cutsAt {
		in := append([]byte(nil), wire...)
		got := new(kinds.Inner)
		if err := c.Unmarshal(grpcfasttest.SliceAt(in, cuts...), got); err != nil {
			t.Fatalf("cut at %v: %v", cuts, err)
		}
		clear(in)
		if !proto.Equal(got, want) {
			t.Fatalf("cut at %v: decoded %v, want %v", cuts, got, want)
		}
	}

	// Two values, two arrays: the pooled path would copy both into one
	// chunk. Rich's name and words, not flat, share one.
	if !grpcfasttest.Race {
		data := grpcfasttest.SliceAt(wire)
		allocs := testing.AllocsPerRun(50, func() {
			if err := c.Unmarshal(data, new(kinds.Inner)); err != nil {
				t.Fatal(err)
			}
		})
		// The message, its label, payload and values.
		if allocs != 4 {
			t.Errorf("a flat message's decode: %v allocations, want 4", allocs)
		}
	}

	bad := append(protowire.AppendTag(nil, 1, protowire.BytesType), 2, 0xff, 0xfe)
	if err := c.Unmarshal(grpcfasttest.SliceAt(bad), new(kinds.Inner)); err == nil {
		t.Error("invalid UTF-8 in a string of a flat message: accepted")
	}
	got := new(kinds.Inner)
	if err := grpcfast.NewCodec(grpcfast.WithoutUTF8Validation()).Unmarshal(grpcfasttest.SliceAt(bad), got); err != nil || got.Label != "\xff\xfe" {
		t.Errorf("without the UTF-8 check: %q, %v", got.Label, err)
	}

	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				m := &kinds.Inner{Label: fmt.Sprintf("g%d-%d", g, i), Payload: []byte{byte(g), byte(i)}, Values: []uint32{uint32(i)}}
				b, err := proto.Marshal(m)
				if err != nil {
					t.Error(err)
					return
				}
				got := new(kinds.Inner)
				if err := c.Unmarshal(grpcfasttest.SliceAt(b), got); err != nil || !proto.Equal(got, m) {
					t.Errorf("goroutine %d, decode %d: %v, %v", g, i, got, err)
					return
				}
			}
		}()
	}
	wg.Wait()
}
