package grpcfast_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"testing"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"github.com/grpcfast/grpcfast/internal/own"
	"github.com/grpcfast/grpcfast/internal/reuse"
	"github.com/grpcfast/grpcfast/internal/stdcodec"
	"github.com/grpcfast/grpcfast/internal/testprotos/editions"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
	"github.com/grpcfast/grpcfast/internal/testprotos/proto2"
)

// testSizes returns the encoded message sizes to test: small sizes, the
// pooling threshold, every class edge of the pool up to 4 MiB, 16 KiB chunk
// sizes and 4 MiB.
func testSizes() []int {
	sizes := []int{0, 2, 3, 4, 5, 10, 100, 127, 128, 129}
	for _, s := range []int{grpcfasttest.DefaultPoolingThreshold, 1024} {
		sizes = append(sizes, s-1, s, s+1)
	}
	// Class edges: 256 · (8+k)/8 · 2^e.
	for e := 8; e < 22; e++ {
		for k := range 8 {
			edge := (8 + k) << (e - 3)
			sizes = append(sizes, edge-1, edge, edge+1)
		}
	}
	sizes = append(sizes,
		16376+4, 16384, 16384+4, 16392, // 16 KiB chunks with and without framing
		4<<20, 4<<20+5)
	return sizes
}

// decodeAll decodes b with c whole, split at every position (small
// messages), in three pieces at every pair of positions (tiny messages) and
// at random positions, into a fresh and into a dirty reused message, and
// checks each result against want.
func decodeAll(t *testing.T, c *grpcfast.Codec, b []byte, want proto.Message, r *rand.Rand) {
	t.Helper()
	fresh := func() proto.Message { return want.ProtoReflect().New().Interface() }
	dirty := fresh()
	if rich, ok := dirty.(*kinds.Rich); ok {
		proto.Merge(rich, grpcfasttest.FullRich(5000))
	}
	check := func(what string, data mem.BufferSlice) {
		t.Helper()
		for _, got := range []proto.Message{fresh(), dirty} {
			if err := c.Unmarshal(data, got); err != nil {
				t.Fatalf("%s: Unmarshal: %v", what, err)
			}
			if !proto.Equal(got, want) {
				t.Fatalf("%s: decoded message differs from the original", what)
			}
		}
	}
	check("whole", mem.BufferSlice{mem.SliceBuffer(b)})
	check("no buffers or empty ones", grpcfasttest.SliceAt(b, 0, 0, len(b), len(b)))
	n := len(b)
	switch {
	case n <= 2100:
		// Every position in the field headers at both ends (and everywhere
		// in small messages), a sample of the others.
		for i := 0; i <= n; i++ {
			if n <= 300 || i <= 40 || i >= n-40 || i%61 == 0 {
				check(fmt.Sprintf("split at %d", i), grpcfasttest.SliceAt(b, i))
			}
		}
		if n <= 64 {
			for i := 0; i <= n; i++ {
				for j := i; j <= n; j++ {
					check(fmt.Sprintf("split at %d, %d", i, j), grpcfasttest.SliceAt(b, i, j))
				}
			}
		}
	default:
		tries := 20
		if n > 64<<10 {
			tries = 3 // the race detector makes large copies slow
		}
		for range tries {
			cuts := grpcfasttest.RandomCuts(r, n, 1+r.IntN(6))
			check(fmt.Sprintf("split at %v", cuts), grpcfasttest.SliceAt(b, cuts...))
		}
		// As the transport delivers it: 16 KiB frames, the first shortened by
		// gRPC's 5-byte message header.
		var cuts []int
		for c := 16384 - 5; c < n; c += 16384 {
			cuts = append(cuts, c)
		}
		check("16 KiB frames", grpcfasttest.SliceAt(b, cuts...))
	}
}

func TestRoundTripSizes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pool := grpcfasttest.NewCountingPool(grpcfast.NewBufferPool())
	poisoned := grpcfasttest.NewPoisonPool()
	codecs := map[string]*grpcfast.Codec{
		"default":       grpcfast.NewCodec(grpcfast.WithBufferPool(pool)),
		"pool-all":      grpcfast.NewCodec(grpcfast.WithBufferPool(poisoned), grpcfast.WithPoolingThreshold(0)),
		"pool-none":     grpcfast.NewCodec(grpcfast.WithBufferPool(pool), grpcfast.WithPoolingThreshold(math.MaxInt)),
		"default-pool":  grpcfast.NewCodec(),
		"grpc-mem-pool": grpcfast.NewCodec(grpcfast.WithBufferPool(mem.DefaultBufferPool())),
	}
	var msgs []*kinds.Rich
	for _, size := range testSizes() {
		if size == 1 {
			continue
		}
		msgs = append(msgs, grpcfasttest.RichOfSize(t, size))
	}
	for _, n := range []int{0, 1, 2, 1000, 16376, 16384} { // Data lengths
		msgs = append(msgs, &kinds.Rich{Data: grpcfasttest.Pattern(n)})
	}
	msgs = append(msgs, grpcfasttest.FullRich(0), grpcfasttest.FullRich(20000))
	for i, m := range msgs {
		size := m.SizeVT()
		want, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		for name, c := range codecs {
			if size > 64<<10 && name != "default" && name != "pool-all" {
				continue // the race detector makes large copies slow
			}
			out, err := c.Marshal(m)
			if err != nil {
				t.Fatalf("%s: Marshal of %d bytes: %v", name, size, err)
			}
			// The zero-length-buffer trap: the output must be exactly the
			// encoding, at every size.
			if got := out.Len(); got != size {
				t.Fatalf("%s: Marshal of a %d-byte message returned %d bytes", name, size, got)
			}
			got := out.Materialize()
			if !bytes.Equal(got, want) {
				t.Fatalf("%s: Marshal of %d bytes differs from proto.Marshal", name, size)
			}
			out.Free()
		}
		// Decoding does not depend on the threshold; the poisoned pool
		// catches reads of scratch buffers after they are returned, the
		// counting pool scratch buffers that are not returned.
		// Class edges matter to marshalling; above 64 KiB decode a sample,
		// as the race detector makes large copies slow.
		if size <= 64<<10 || i%6 == 0 || size >= 4<<20 {
			decodeAll(t, codecs["pool-all"], want, m, r)
		}
	}
	pool.Check(t, "counting pool")
	poisoned.Check(t, "poisoned pool")
}

// TestReuse decodes many different messages into one reused message and
// compares each with a fresh decode by protobuf-go: nothing of an earlier
// message may be left over.
func TestReuse(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	pool := grpcfasttest.NewCountingPool(grpcfast.NewBufferPool())
	c := grpcfast.NewCodec(grpcfast.WithBufferPool(pool))
	reused := &kinds.Rich{}
	reusedSplit := &kinds.Rich{}
	for i := range 2000 {
		m := grpcfasttest.RandomRich(r)
		b, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		fresh := &kinds.Rich{}
		if err := proto.Unmarshal(b, fresh); err != nil {
			t.Fatal(err)
		}
		if err := c.Unmarshal(mem.BufferSlice{mem.SliceBuffer(b)}, reused); err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		if !proto.Equal(reused, fresh) {
			t.Fatalf("message %d: reused message differs from a fresh decode:\n got %v\nwant %v", i, reused, fresh)
		}
		cuts := grpcfasttest.RandomCuts(r, len(b), 1+r.IntN(4))
		if err := c.Unmarshal(grpcfasttest.SliceAt(b, cuts...), reusedSplit); err != nil {
			t.Fatalf("message %d split at %v: %v", i, cuts, err)
		}
		if !proto.Equal(reusedSplit, fresh) {
			t.Fatalf("message %d split at %v: reused message differs from a fresh decode:\n got %v\nwant %v", i, cuts, reusedSplit, fresh)
		}
	}
	pool.Check(t, "counting pool")
}

// Wrappers that expose only some of the reset methods, to check that the
// codec resets every message as Reset does and leaves nothing behind.
type (
	// onlyResetVT has vtprotobuf's ResetVT but no Reset: the codec resets
	// it through protobuf-go (proto.Reset), never with ResetVT, which
	// keeps the memory the message holds.
	onlyResetVT struct{ m *kinds.Pooled }
	// onlyReset has Reset.
	onlyReset struct{ m *kinds.Rich }
)

func (w onlyResetVT) UnmarshalVT(b []byte) error                { return w.m.UnmarshalVT(b) }
func (w onlyResetVT) ResetVT()                                  { w.m.ResetVT() }
func (w onlyResetVT) ProtoReflect() protoreflect.Message        { return w.m.ProtoReflect() }
func (w onlyReset) UnmarshalVT(b []byte) error                  { return w.m.UnmarshalVT(b) }
func (w onlyReset) Reset()                                      { w.m.Reset() }
func (w onlyReset) ProtoReflect() protoreflect.Message          { return w.m.ProtoReflect() }
func (w onlyReset) GrpcfastBytesField(protowire.Number) *[]byte { return nil }

func TestResetChoices(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	c := grpcfast.NewCodec()
	pooled := onlyResetVT{&kinds.Pooled{}}
	rich := onlyReset{&kinds.Rich{}}
	for i := range 300 {
		rm := grpcfasttest.RandomRich(r)
		pm := &kinds.Pooled{Data: rm.Data, Numbers: rm.Numbers, Inners: rm.Inners, Name: rm.Name}
		for _, tc := range []struct {
			target any
			got    proto.Message
			want   proto.Message
		}{
			{pooled, pooled.m, pm},
			{rich, rich.m, rm},
		} {
			b, err := proto.Marshal(tc.want)
			if err != nil {
				t.Fatal(err)
			}
			cuts := grpcfasttest.RandomCuts(r, len(b), r.IntN(3))
			if err := c.Unmarshal(grpcfasttest.SliceAt(b, cuts...), tc.target); err != nil {
				t.Fatalf("%d: %T: %v", i, tc.target, err)
			}
			if !proto.Equal(tc.got, tc.want) {
				t.Fatalf("%d: %T: got %v, want %v", i, tc.target, tc.got, tc.want)
			}
		}
	}
}

// TestCapacityKept checks that a Receiver decodes into the memory of a
// bytes field that an earlier decode allocated (it alternates between two
// messages), whether the message arrives whole or in pieces.
func TestCapacityKept(t *testing.T) {
	sizes := []int{16384, 16384, 16000, 100, 5000, 16384, 1}
	for _, split := range []bool{false, true} {
		t.Run(fmt.Sprint("split=", split), func(t *testing.T) {
			var rich, pooled []proto.Message
			for i, n := range sizes {
				data := grpcfasttest.Pattern(n)
				data[0] = byte(i)
				rich = append(rich, &kinds.Rich{Data: data, Words: []string{"a"}})
				pooled = append(pooled, &kinds.Pooled{Data: data, Numbers: []int64{int64(i)}})
			}
			rs := grpcfasttest.ListStream[kinds.Rich](t, rich...)
			ps := grpcfasttest.ListStream[kinds.Pooled](t, pooled...)
			if split {
				rs.Split, ps.Split = true, true // the data field straddles
			}
			rr, pr := grpcfast.NewReceiver[kinds.Rich](rs), grpcfast.NewReceiver[kinds.Pooled](ps)
			var richData, pooledData []*byte
			for i := range sizes {
				r, err := rr.Recv()
				if err != nil {
					t.Fatal(err)
				}
				p, err := pr.Recv()
				if err != nil {
					t.Fatal(err)
				}
				if !proto.Equal(r, rich[i]) || !proto.Equal(p, pooled[i]) {
					t.Fatalf("message %d differs", i)
				}
				richData = append(richData, &r.Data[0])
				pooledData = append(pooledData, &p.Data[0])
				if !split {
					// Whole in one buffer: a large Data is a view of it
					// (internal/codec/pieces_test.go); a small one is copied into memory
					// of the message's own, new after a view.
					for name, v := range map[string]bool{"Rich": rs.IsView(r.Data), "Pooled": ps.IsView(p.Data)} {
						if (sizes[i] >= reuse.MinView) != v {
							t.Errorf("message %d: %s.Data of %d bytes: view %v, want %v", i, name, sizes[i], v, sizes[i] >= reuse.MinView)
						}
					}
					continue
				}
				// A grpcfast_checked build keeps no memory of a message (own.Quarantine).
				if i >= 2 && !own.Quarantine && (richData[i] != richData[i-2] || pooledData[i] != pooledData[i-2]) {
					t.Fatalf("message %d: data was reallocated", i)
				}
			}
		})
	}
}

// TestNoReadAfterFree decodes from buffers that are overwritten as soon as
// they are freed: the decoded message must not refer to them.
func TestNoReadAfterFree(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	pool := grpcfasttest.NewPoisonPool()
	c := grpcfast.NewCodec(grpcfast.WithBufferPool(pool))
	msgs := []*kinds.Rich{grpcfasttest.FullRich(0), grpcfasttest.FullRich(3000), grpcfasttest.FullRich(40000), {Data: grpcfasttest.Pattern(16384)}}
	for range 300 {
		msgs = append(msgs, grpcfasttest.RandomRich(r))
	}
	transport := grpcfasttest.NewPoisonPool() // gRPC's receive buffers, poisoned when freed
	for i, m := range msgs {
		b, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		for _, cuts := range [][]int{nil, {len(b) / 2}, grpcfasttest.RandomCuts(r, len(b), 1+r.IntN(5))} {
			var data mem.BufferSlice
			prev := 0
			for _, cut := range append(cuts, len(b)) {
				p := transport.Get(cut - prev)
				copy(*p, b[prev:cut])
				data = append(data, mem.NewBuffer(p, transport))
				prev = cut
			}
			got := &kinds.Rich{}
			if err := c.Unmarshal(data, got); err != nil {
				t.Fatalf("message %d split at %v: %v", i, cuts, err)
			}
			data.Free()
			if !proto.Equal(got, m) {
				t.Fatalf("message %d split at %v: message changed when the received buffers were freed", i, cuts)
			}
		}
	}
	pool.Check(t, "scratch buffers")
}

// TestMalformed checks that malformed input fails, whole and in pieces, with
// the same error, and that every scratch buffer goes back to the pool.
func TestMalformed(t *testing.T) {
	pool := grpcfasttest.NewCountingPool(grpcfast.NewBufferPool())
	c := grpcfast.NewCodec(grpcfast.WithBufferPool(pool))
	for name, b := range grpcfasttest.Malformed() {
		whole := c.Unmarshal(mem.BufferSlice{mem.SliceBuffer(b)}, &kinds.Rich{})
		if whole == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		step := 1
		if len(b) > 300 {
			step = 97
		}
		for i := 0; i <= len(b); i += step {
			for _, data := range []mem.BufferSlice{grpcfasttest.SliceAt(b, i), grpcfasttest.SliceAt(b, i/2, i)} {
				err := c.Unmarshal(data, &kinds.Rich{})
				if err == nil || err.Error() != whole.Error() {
					t.Errorf("%s, split at %d: error %v, whole: %v", name, i, err, whole)
				}
			}
		}
	}
	pool.Check(t, "counting pool")
}

// TestTruncated checks that a message cut short at any point, whole or in
// pieces, is an error where the cut is inside a field, and that truncation
// inside a large field is reported as io.ErrUnexpectedEOF.
func TestTruncated(t *testing.T) {
	c := grpcfast.NewCodec()
	m := grpcfasttest.FullRich(300)
	b, _ := proto.Marshal(m)
	boundaries := map[int]bool{}
	for off := 0; off < len(b); {
		_, _, n := protowire.ConsumeField(b[off:])
		if n < 0 {
			t.Fatal("bad test message")
		}
		off += n
		boundaries[off] = true
	}
	for end := 1; end < len(b); end++ {
		p := b[:end]
		whole := c.Unmarshal(mem.BufferSlice{mem.SliceBuffer(p)}, &kinds.Rich{})
		if (whole == nil) != boundaries[end] {
			t.Fatalf("cut at %d: error %v, field boundary %v", end, whole, boundaries[end])
		}
		for i := 0; i <= end; i += 7 {
			err := c.Unmarshal(grpcfasttest.SliceAt(p, i), &kinds.Rich{})
			if (err == nil) != (whole == nil) || (err != nil && err.Error() != whole.Error()) {
				t.Fatalf("cut at %d, split at %d: error %v, whole: %v", end, i, err, whole)
			}
		}
	}
	big, _ := proto.Marshal(&kinds.Rich{Data: grpcfasttest.Pattern(40000)})
	for _, data := range []mem.BufferSlice{grpcfasttest.SliceAt(big[:30000]), grpcfasttest.SliceAt(big[:30000], 16379)} {
		if err := c.Unmarshal(data, &kinds.Rich{}); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("truncated 16 KiB chunk in %d buffers: error %v, want io.ErrUnexpectedEOF", len(data), err)
		}
	}
}

// TestFallback checks messages without vtprotobuf methods (editions),
// with groups (proto2, which vtprotobuf v0.6 cannot decode) and values that
// are not messages: the codec must behave as gRPC's standard codec.
func TestFallback(t *testing.T) {
	pool := grpcfasttest.NewCountingPool(grpcfast.NewBufferPool())
	c := grpcfast.NewCodec(grpcfast.WithBufferPool(pool))
	std := stdcodec.Codec()
	msgs := []proto.Message{
		&editions.Note{},
		&editions.Note{Text: proto.String("hello"), Body: grpcfasttest.Pattern(10), Rank: 3},
		&editions.Note{Text: proto.String("x"), Body: grpcfasttest.Pattern(50000)},
		&proto2.Item{Id: proto.Int32(0)},
		&proto2.Item{Id: proto.Int32(7), Data: grpcfasttest.Pattern(3000), Tags: []int32{1, 2, 3}},
		&proto2.Item{Id: proto.Int32(7), Data: grpcfasttest.Pattern(30), Extra: &proto2.Item_Extra{Note: proto.String("group")}},
		&proto2.Item{Id: proto.Int32(7), Data: grpcfasttest.Pattern(20000), Extra: &proto2.Item_Extra{}},
	}
	r := rand.New(rand.NewPCG(9, 10))
	for i, m := range msgs {
		got, err := c.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		want, err := std.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Materialize(), want.Materialize()) {
			t.Errorf("message %d: Marshal differs from the standard codec", i)
		}
		b := want.Materialize()
		got.Free()
		want.Free()
		decodeAll(t, c, b, m, r)
	}
	// A message missing a required field fails, whole and in pieces.
	b, _ := proto.MarshalOptions{AllowPartial: true}.Marshal(&proto2.Item{Data: grpcfasttest.Pattern(100)})
	for _, data := range []mem.BufferSlice{grpcfasttest.SliceAt(b), grpcfasttest.SliceAt(b, 50)} {
		if err := c.Unmarshal(data, &proto2.Item{}); err == nil {
			t.Errorf("missing required field in %d buffers: no error", len(data))
		}
	}
	// Values that are not messages.
	for _, v := range []any{struct{}{}, 42, nil} {
		_, err := c.Marshal(v)
		_, stdErr := std.Marshal(v)
		if err == nil || err.Error() != stdErr.Error() {
			t.Errorf("Marshal(%T): error %v, standard codec: %v", v, err, stdErr)
		}
		err = c.Unmarshal(mem.BufferSlice{mem.SliceBuffer{8, 1}}, v)
		stdErr = std.Unmarshal(mem.BufferSlice{mem.SliceBuffer{8, 1}}, v)
		if err == nil || err.Error() != stdErr.Error() {
			t.Errorf("Unmarshal(%T): error %v, standard codec: %v", v, err, stdErr)
		}
	}
	pool.Check(t, "counting pool")
}

// legacyMessage is an APIv1 message (protoadapt.MessageV1) with no
// ProtoReflect method, as old generated code had.
type legacyMessage struct {
	Text string `protobuf:"bytes,1,opt,name=text,proto3" json:"text,omitempty"`
	Num  int64  `protobuf:"varint,2,opt,name=num,proto3" json:"num,omitempty"`
}

func (m *legacyMessage) Reset()         { *m = legacyMessage{} }
func (m *legacyMessage) String() string { return fmt.Sprintf("%+v", *m) }
func (*legacyMessage) ProtoMessage()    {}

func TestMessageV1(t *testing.T) {
	c := grpcfast.NewCodec()
	in := &legacyMessage{Text: "legacy", Num: 99}
	got, err := c.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	want, err := stdcodec.Codec().Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	b := want.Materialize()
	if !bytes.Equal(got.Materialize(), b) {
		t.Fatal("Marshal differs from the standard codec")
	}
	out := &legacyMessage{Num: 5}
	if err := c.Unmarshal(grpcfasttest.SliceAt(b, 3), out); err != nil {
		t.Fatal(err)
	}
	if *out != *in {
		t.Fatalf("got %+v, want %+v", out, in)
	}
}
