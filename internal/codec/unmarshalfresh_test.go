package codec_test

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/grpcfastimpl"
	"github.com/grpcfast/grpcfast/grpcfastrecord"
	"github.com/grpcfast/grpcfast/internal/codec"
	"github.com/grpcfast/grpcfast/internal/decode"
	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"github.com/grpcfast/grpcfast/internal/own"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
	"github.com/grpcfast/grpcfast/internal/testprotos/otlp"
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

// richOfSize returns a Rich of about size bytes encoded: words of 0 to 140
// bytes (lengths of one and of two bytes), map keys, a nested label, a
// oneof's string, and bytes fields among them.
func richOfSize(size int) *kinds.Rich {
	m := &kinds.Rich{
		Name:   "rich",
		Data:   grpcfasttest.Pattern(300),
		Counts: map[string]int64{},
		Inner:  &kinds.Inner{Label: "inner label", Payload: grpcfasttest.Pattern(40)},
		Choice: &kinds.Rich_Text{Text: "the oneof's text"},
	}
	for i, n := 0, 0; n < size; i++ {
		w := fmt.Sprintf("w%d-", i) + strings.Repeat(string(rune('a'+i%26)), i*7%141)
		m.Words = append(m.Words, w)
		n += len(w) + 2
		if i%50 == 0 {
			m.Counts[fmt.Sprintf("key-%d", i)] = int64(i)
			m.Blobs = append(m.Blobs, grpcfasttest.Pattern(i%300))
			n += 20 + i%300
		}
	}
	return m
}

// richStrings returns every string of m.
func richStrings(m *kinds.Rich) []string {
	s := append([]string{m.Name, m.GetInner().GetLabel(), m.GetText()}, m.Words...)
	for k := range m.Counts {
		s = append(s, k)
	}
	slices.Sort(s[3+len(m.Words):])
	return s
}

// TestFreshPieces: a decode into a new message of 4 KiB or more
// (decode.Pieces) decodes what protobuf-go decodes, in one buffer and in
// several, with strings that straddle its pieces and runs of them that
// cross their ends; nothing of it is a view of the input, which gRPC reuses
// once Unmarshal returns; and its bytes fields, which their owner may write
// into, share nothing with its strings.
func TestFreshPieces(t *testing.T) {
	c := grpcfast.NewCodec()
	for _, size := range []int{3000, decode.PieceMin, 20000, 70000, 300000} {
		want := richOfSize(size)
		wire, err := proto.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		for _, cuts := range [][]int{nil, {len(wire) / 2}, {1, len(wire) / 3, len(wire) - 1}, {decode.PieceSize - 3}} {
			if cuts != nil && cuts[len(cuts)-1] >= len(wire) {
				continue
			}
			in := bytes.Clone(wire)
			got := new(kinds.Rich)
			if err := c.Unmarshal(grpcfasttest.SliceAt(in, cuts...), got); err != nil {
				t.Fatalf("%d bytes, cut at %v: %v", len(wire), cuts, err)
			}
			for i := range in {
				in[i] = 0xaa
			}
			if !proto.Equal(got, want) {
				t.Fatalf("%d bytes, cut at %v: decoded differently, or changed with the input", len(wire), cuts)
			}
			for _, b := range append([][]byte{got.Data, got.Inner.Payload}, got.Blobs...) {
				for i := range b {
					b[i] = 0x55
				}
			}
			if !slices.Equal(richStrings(got), richStrings(want)) {
				t.Fatalf("%d bytes, cut at %v: writing into the bytes fields changed strings", len(wire), cuts)
			}
		}
	}
	// OTLP exports have no bytes field at the top: in several buffers, the
	// codec copies them into one before it decodes, and the pieces are of
	// that copy.
	msgs, err := grpcfastrecord.Read("../testprotos/otlp/testdata/corpus", "grpcfast.testdata.otlp.TraceService", "Export", true,
		func() proto.Message { return new(otlp.ExportTraceServiceRequest) })
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range msgs {
		wire, err := proto.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		in := bytes.Clone(wire)
		got := new(otlp.ExportTraceServiceRequest)
		if err := c.Unmarshal(grpcfasttest.SliceAt(in, 16379, 32763), got); err != nil {
			t.Fatalf("export %d: %v", i, err)
		}
		clear(in)
		if !proto.Equal(got, want) {
			t.Fatalf("export %d: decoded differently, or changed with the input", i)
		}
	}
}

// settleCopies collects until no owned copy waits for its finalizer but
// those that something still refers to, at most pending bytes, and returns
// the bytes that wait.
func settleCopies(pending int64) int64 {
	for range 100 {
		if codec.PendingCopies() <= pending {
			break
		}
		runtime.GC()
		runtime.Gosched()
	}
	return codec.PendingCopies()
}

// TestFreshPiecesRetention: a string kept from a fresh decode holds its
// piece of the input's copy alive, at most decode.PieceSize bytes, and
// nothing else of the decode; the copy is reused once nothing refers to it,
// never while a string does: the kept string stays as it was while later
// decodes of other messages are made in the free arrays.
func TestFreshPiecesRetention(t *testing.T) {
	if own.Quarantine {
		t.Skip("a checked build's owned copies are new arrays with no finalizer")
	}
	if n := settleCopies(0); n != 0 {
		t.Fatalf("%d bytes of copies still wait for their finalizer before the test", n)
	}
	c := grpcfast.NewCodec()
	decoded := func(m *kinds.Rich) *kinds.Rich {
		wire, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		got := new(kinds.Rich)
		if err := c.Unmarshal(grpcfasttest.SliceAt(wire), got); err != nil {
			t.Fatal(err)
		}
		return got
	}
	m := decoded(richOfSize(64 << 10))
	if n := codec.PendingCopies(); n < 3*decode.PieceSize {
		t.Fatalf("a decode of 64 KiB of strings left %d bytes of copies, want its pieces", n)
	}
	keep := m.Words[len(m.Words)/2]
	want := strings.Clone(keep)
	m = nil
	if n := settleCopies(decode.PieceSize * 9 / 8); n == 0 || n > decode.PieceSize*9/8 {
		t.Fatalf("one string kept: %d bytes of copies kept alive, want its piece (at most %d)", n, decode.PieceSize*9/8)
	}
	for i := range 50 {
		other := richOfSize(64 << 10)
		for j := range other.Words {
			other.Words[j] = strings.Repeat("z", len(other.Words[j])) + fmt.Sprint(i)
		}
		decoded(other)
		runtime.GC()
	}
	if keep != want {
		t.Fatalf("the kept string changed: %q, want %q", keep, want)
	}
	runtime.KeepAlive(keep)
	keep = ""
	if n := settleCopies(0); n != 0 {
		t.Fatalf("nothing kept: %d bytes of copies still wait", n)
	}
}
