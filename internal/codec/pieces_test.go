package codec_test

import (
	"bytes"
	"io"
	"testing"
	"unsafe"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/example/examplepb"
	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"github.com/grpcfast/grpcfast/internal/own"
	"github.com/grpcfast/grpcfast/internal/reuse"
	"github.com/grpcfast/grpcfast/internal/testprotos/hostile"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
)

// TestViewsHoldTransportBuffers: a large bytes field that arrives whole in
// one transport buffer is a view of it. The Receiver holds the buffer until
// the message is taken back (the next Recv, Release), and then gives it back
// (poisoned in checked builds); a message handed over by Take keeps its
// buffer for good; the last message stays intact after the end of the
// stream, until Release.
func TestViewsHoldTransportBuffers(t *testing.T) {
	var msgs []proto.Message
	for i := range 4 {
		msgs = append(msgs, &examplepb.Chunk{Data: grpcfasttest.NoiseBytes(int64(i), 4000)})
	}
	pool := grpcfasttest.NewTrackingPool()
	s := grpcfasttest.ListStream[examplepb.Chunk](t, msgs...)
	s.Pool = pool
	r := grpcfast.NewReceiver[examplepb.Chunk](s)
	type got struct {
		m    *examplepb.Chunk
		data []byte // m.Data as received
		buf  []byte // the transport buffer the message arrived in
	}
	var all []got
	recv := func(i int) got {
		t.Helper()
		m, err := r.Recv()
		if err != nil {
			t.Fatalf("Recv %d: %v", i, err)
		}
		if !proto.Equal(m, msgs[i]) {
			t.Fatalf("message %d differs", i)
		}
		if !s.IsView(m.Data) {
			t.Fatalf("message %d: Data is not a view of the transport buffer", i)
		}
		if cap(m.Data) != len(m.Data) {
			t.Errorf("message %d: the view has capacity %d past its length %d: an append would write into the transport buffer", i, cap(m.Data), len(m.Data))
		}
		g := got{m, m.Data, s.Delivered[0]}
		all = append(all, g)
		if !pool.IsOut(g.buf) {
			t.Fatalf("message %d: its transport buffer went back to the pool while the message is live", i)
		}
		return g
	}
	first := recv(0)
	second := recv(1)
	// Quarantine builds never give a buffer back: the poison stays where a
	// view kept too long points.
	if pool.IsOut(first.buf) != own.Quarantine {
		t.Errorf("the first message's buffer out of the pool after the next Recv: %v, want %v", pool.IsOut(first.buf), own.Quarantine)
	}
	switch {
	case own.Quarantine:
		if !grpcfasttest.Poisoned(first.data) {
			t.Error("the first message's view is not poisoned after the next Recv")
		}
	case pool.PoisonedAtPut(unsafe.SliceData(first.buf)) != grpcfast.Checked:
		t.Errorf("the first message's buffer given back poisoned: %v, want %v (checked build)", !grpcfast.Checked, grpcfast.Checked)
	}
	taken := r.Take()
	if taken != second.m {
		t.Fatal("Take did not return the last message")
	}
	recv(2)
	last := recv(3)
	if !pool.IsOut(second.buf) {
		t.Error("the buffer of a message handed over by Take went back to the pool")
	}
	if !bytes.Equal(taken.Data, grpcfasttest.NoiseBytes(1, 4000)) {
		t.Error("a message handed over by Take changed")
	}
	data := last.m.Data
	if _, err := r.Recv(); err != io.EOF {
		t.Fatalf("Recv at the end = %v, want io.EOF", err)
	}
	if !pool.IsOut(last.buf) || !bytes.Equal(data, grpcfasttest.NoiseBytes(3, 4000)) {
		t.Error("the end of the stream let go of the last message's buffer")
	}
	r.Release()
	if pool.IsOut(last.buf) != own.Quarantine {
		t.Errorf("the last message's buffer out of the pool after Release: %v, want %v", pool.IsOut(last.buf), own.Quarantine)
	}
	if grpcfast.Checked && !grpcfasttest.Poisoned(data) {
		t.Errorf("the last message's view after Release reads %x..., want the poison pattern", data[:8])
	}
	r.Release() // idempotent: nothing is freed twice (mem.Buffer panics if it is)
	if !pool.IsOut(second.buf) {
		t.Error("Release gave back the buffer of a message handed over by Take")
	}
}

// TestViewsSmallFieldsCopied: a bytes field below reuse.MinView is copied
// into the message's own memory, and a message in pieces holds no buffer
// whose view it does not hold.
func TestViewsSmallFieldsCopied(t *testing.T) {
	for _, split := range []bool{false, true} {
		msgs := []proto.Message{
			&examplepb.Chunk{Data: grpcfasttest.NoiseBytes(1, reuse.MinView-1)},
			&examplepb.Chunk{Data: grpcfasttest.NoiseBytes(2, reuse.MinView)},
			&examplepb.Chunk{Data: grpcfasttest.NoiseBytes(3, 3*reuse.MinView)},
		}
		pool := grpcfasttest.NewTrackingPool()
		s := grpcfasttest.ListStream[examplepb.Chunk](t, msgs...)
		s.Pool, s.Split = pool, split
		r := grpcfast.NewReceiver[examplepb.Chunk](s)
		for i := range msgs {
			m, err := r.Recv()
			if err != nil {
				t.Fatal(err)
			}
			if !proto.Equal(m, msgs[i]) {
				t.Fatalf("split=%v: message %d differs", split, i)
			}
			// In two pieces cut in the middle, the field straddles: copied.
			want := !split && len(m.Data) >= reuse.MinView
			if got := s.IsView(m.Data); got != want {
				t.Errorf("split=%v: message %d of %d bytes: a view %v, want %v", split, i, len(m.Data), got, want)
			}
			held := 0
			for _, d := range s.Delivered {
				if pool.IsOut(d) {
					held++
				}
			}
			if want && held != 1 || !want && held != 0 {
				t.Errorf("split=%v: message %d: %d delivered buffers held, want %v", split, i, held, want)
			}
		}
		r.Release()
		if n := pool.NumOut(); n != 0 && !own.Quarantine {
			t.Errorf("split=%v: %d buffers not given back after Release", split, n)
		}
	}
}

// TestViewsRepeatedField: a peer may send a singular bytes field more than
// once (the last wins). A later occurrence of a field decoded as a view
// must land in memory of the message's own, never in the view's transport
// buffer, which gRPC may still show to stats handlers and binary logs: the
// delivered bytes are unchanged, and the message is what protobuf-go
// decodes.
func TestViewsRepeatedField(t *testing.T) {
	field := func(b []byte, data []byte) []byte {
		b = protowire.AppendTag(b, 3, protowire.BytesType) // Rich.data
		return protowire.AppendBytes(b, data)
	}
	id := func(b []byte, v uint64) []byte {
		b = protowire.AppendTag(b, 1, protowire.VarintType) // Rich.id
		return protowire.AppendVarint(b, v)
	}
	cases := map[string][]byte{
		"large then small":      id(field(field(nil, grpcfasttest.NoiseBytes(1, 2000)), []byte("small")), 7),
		"large then empty":      field(id(field(nil, grpcfasttest.NoiseBytes(1, 2000)), 7), nil),
		"large then large":      field(field(nil, grpcfasttest.NoiseBytes(1, 2000)), grpcfasttest.NoiseBytes(2, 3000)),
		"large then straddling": field(field(nil, grpcfasttest.NoiseBytes(1, 2000)), grpcfasttest.NoiseBytes(2, 1500)),
	}
	for name, wire := range cases {
		for _, split := range []bool{false, true} {
			want := new(kinds.Rich)
			if err := proto.Unmarshal(wire, want); err != nil {
				t.Fatal(err)
			}
			pool := grpcfasttest.NewTrackingPool()
			s := &grpcfasttest.CodecListStream[kinds.Rich]{Codec: grpcfast.NewCodec(), Wire: [][]byte{wire}, Pool: pool}
			if split {
				// Cut inside the second occurrence, after the first.
				s.Split = true
			}
			r := grpcfast.NewReceiver[kinds.Rich](s)
			m, err := r.Recv()
			if err != nil {
				t.Fatalf("%s, split=%v: %v", name, split, err)
			}
			if !proto.Equal(m, want) {
				t.Errorf("%s, split=%v: decoded %d bytes of data, protobuf-go %d", name, split, len(m.Data), len(want.Data))
			}
			var delivered []byte
			for _, d := range s.Delivered {
				delivered = append(delivered, d...)
			}
			if !bytes.Equal(delivered, wire) {
				t.Errorf("%s, split=%v: decoding wrote into the transport buffer", name, split)
			}
			r.Release()
		}
	}
}

// TestViewsThenStraddling: a later occurrence of a field decoded as a
// view, which straddles two transport buffers, is copied into memory of
// the message's own, though the view's array would have room for it: the
// delivered bytes are unchanged, and the message is what protobuf-go
// decodes. (TestViewsRepeatedField's split cuts the first occurrence.)
func TestViewsThenStraddling(t *testing.T) {
	first := protowire.AppendTag(nil, 3, protowire.BytesType) // Rich.data
	first = protowire.AppendBytes(first, grpcfasttest.NoiseBytes(1, 2000))
	wire := protowire.AppendTag(first, 3, protowire.BytesType)
	wire = protowire.AppendBytes(wire, grpcfasttest.NoiseBytes(2, 1500))
	want := new(kinds.Rich)
	if err := proto.Unmarshal(wire, want); err != nil {
		t.Fatal(err)
	}
	// The first occurrence whole in the first buffer, the second cut.
	s := &grpcfasttest.CodecListStream[kinds.Rich]{Codec: grpcfast.NewCodec(), Wire: [][]byte{wire},
		Pool: grpcfasttest.NewTrackingPool(), Cuts: []int{len(first) + 100}}
	r := grpcfast.NewReceiver[kinds.Rich](s)
	m, err := r.Recv()
	if err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(m, want) {
		t.Errorf("decoded %d bytes of data, protobuf-go %d", len(m.Data), len(want.Data))
	}
	if s.IsView(m.Data) {
		t.Error("the straddling occurrence was copied into the first one's view")
	}
	var delivered []byte
	for _, d := range s.Delivered {
		delivered = append(delivered, d...)
	}
	if !bytes.Equal(delivered, wire) {
		t.Error("decoding wrote into the transport buffer")
	}
	r.Release()
}

// TestViewsEndAtTheirField: a large bytes field that is a view of its
// transport buffer, followed in that buffer by other fields, has no
// capacity past its length: an append to the field (a handler that adds to
// what it received) makes a new array, and never writes over the fields
// that follow it in the buffer, which gRPC may still show to binary logs.
func TestViewsEndAtTheirField(t *testing.T) {
	wire := protowire.AppendTag(nil, 3, protowire.BytesType) // Rich.data
	wire = protowire.AppendBytes(wire, grpcfasttest.NoiseBytes(1, 2000))
	wire = protowire.AppendTag(wire, 1, protowire.VarintType) // Rich.id
	wire = protowire.AppendVarint(wire, 7)
	wire = protowire.AppendTag(wire, 2, protowire.BytesType) // Rich.name
	wire = protowire.AppendString(wire, "after the view")
	for _, cuts := range [][]int{nil, {len(wire) - 3}} {
		pool := grpcfasttest.NewTrackingPool()
		s := &grpcfasttest.CodecListStream[kinds.Rich]{Codec: grpcfast.NewCodec(), Wire: [][]byte{wire}, Pool: pool, Cuts: cuts}
		r := grpcfast.NewReceiver[kinds.Rich](s)
		m, err := r.Recv()
		if err != nil {
			t.Fatalf("cut at %v: %v", cuts, err)
		}
		grpcfasttest.CheckOracle(t, wire, m, nil)
		if !s.IsView(m.Data) {
			t.Fatalf("cut at %v: Data is not a view of the transport buffer", cuts)
		}
		if cap(m.Data) != len(m.Data) {
			t.Errorf("cut at %v: the view has capacity %d past its length %d", cuts, cap(m.Data), len(m.Data))
		}
		_ = append(m.Data, 0xee)
		var delivered []byte
		for _, d := range s.Delivered {
			delivered = append(delivered, d...)
		}
		if !bytes.Equal(delivered, wire) {
			t.Errorf("cut at %v: an append to the view wrote into the transport buffer", cuts)
		}
		r.Release()
	}
}

// TestViewsOnePerField: a hostile peer that repeats a large singular bytes
// field thousands of times in one message makes the receiver hold at most
// one transport buffer per field once the decode is over, not one per
// occurrence (which would also make every later occurrence scan them all).
func TestViewsOnePerField(t *testing.T) {
	var wire []byte
	for i := range 2000 {
		wire = protowire.AppendTag(wire, 3, protowire.BytesType) // Rich.data
		wire = protowire.AppendBytes(wire, grpcfasttest.NoiseBytes(int64(i), reuse.MinView+i%7))
	}
	want := new(kinds.Rich)
	if err := proto.Unmarshal(wire, want); err != nil {
		t.Fatal(err)
	}
	// In frames of 16 KiB, as gRPC delivers a 2 MiB message.
	var cuts []int
	for c := 16 << 10; c < len(wire); c += 16 << 10 {
		cuts = append(cuts, c)
	}
	pool := grpcfasttest.NewTrackingPool()
	s := &grpcfasttest.CodecListStream[kinds.Rich]{Codec: grpcfast.NewCodec(), Wire: [][]byte{wire}, Pool: pool, Cuts: cuts}
	r := grpcfast.NewReceiver[kinds.Rich](s)
	m, err := r.Recv()
	if err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(m, want) {
		t.Fatal("the message differs from protobuf-go's decode")
	}
	if n := pool.NumOut(); n > 1 {
		t.Errorf("%d transport buffers held after the decode, want at most 1 (one view per field)", n)
	}
	r.Release()
	if n := pool.NumOut(); n != 0 && !own.Quarantine {
		t.Errorf("%d transport buffers held after Release", n)
	}
}

// TestViewsLaterOccurrence: a singular bytes field decoded as a view of a
// transport buffer, then sent again later in the message (the last wins),
// takes the later value in an array of its own, wherever the codec decodes
// that later occurrence: in a short run, in what it gathers after a group or
// a malformed field, after a group in the same buffer, or as an empty value
// whose tag ends a buffer. The codec never writes into gRPC's transport
// buffers, which are read-only (binary logging reads them after the
// decode), and the field never keeps capacity in one: a handler's append
// to it would write there.
func TestViewsLaterOccurrence(t *testing.T) {
	first, err := proto.Marshal(&kinds.Rich{Data: grpcfasttest.Pattern(2000)})
	if err != nil {
		t.Fatal(err)
	}
	second, err := proto.Marshal(&kinds.Rich{Data: []byte("hello")})
	if err != nil {
		t.Fatal(err)
	}
	group := protowire.AppendTag(nil, 1000, protowire.StartGroupType)
	group = protowire.AppendTag(group, 1000, protowire.EndGroupType)
	emptyTag := protowire.AppendTag(nil, 3, protowire.BytesType) // Rich.data
	join := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	for _, tc := range []struct {
		name string
		wire []byte
		cuts []int
	}{
		{"in a short run, in the next buffer", join(first, second), []int{len(first)}},
		{"gathered after a group, in the next buffer", join(first, group, second), []int{len(first)}},
		{"after a group, in the same buffer", join(first, group, second), nil},
		{"empty, its tag at the end of the first buffer", join(first, emptyTag, []byte{0}), []int{len(first) + 1}},
		{"in a short run, before a malformed field", join(first, second, bytes.Repeat([]byte{0xff}, 11)), []int{len(first)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pool := grpcfasttest.NewTrackingPool()
			data := grpcfasttest.PooledAt(pool, tc.wire, tc.cuts...)
			s := reuse.New[kinds.Rich]() // as a receiver or a pooled handler without the owned copy decodes
			s.Prepare()
			err := grpcfast.NewCodec().Unmarshal(data, s.Msg)
			// Before Settle, which lets go of the views of a failed decode
			// (poisoned in checked builds), as gRPC reads the buffers
			// before a receiver settles.
			if got := data.Materialize(); !bytes.Equal(got, tc.wire) {
				t.Errorf("the codec wrote into the transport buffers: %d bytes of the %d differ", diffCount(got, tc.wire), len(tc.wire))
			}
			if d := s.Msg.Data; err == nil {
				for i, buf := range data {
					if overlaps(d[:cap(d)], buf.ReadOnlyData()) {
						t.Errorf("Data (%d bytes, capacity %d) lies in transport buffer %d", len(d), cap(d), i)
					}
				}
			}
			grpcfasttest.CheckOracle(t, tc.wire, s.Msg, err)
			s.Settle(err)
			data.Free()
			s.Prepare()
		})
	}
}

// diffCount counts the bytes at which a and b, of one length, differ.
func diffCount(a, b []byte) int {
	n := 0
	for i := range a {
		if a[i] != b[i] {
			n++
		}
	}
	return n
}

// overlaps reports whether a and b share memory.
func overlaps(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	a0, b0 := uintptr(unsafe.Pointer(unsafe.SliceData(a))), uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return a0 < b0+uintptr(len(b)) && b0 < a0+uintptr(len(a))
}

// TestViewsTakeCountsBuffers: a message handed over by Take keeps the
// transport buffers its views point into, and the audit of gRPC's pools
// (reuse.Dropped) counts each such buffer once, however many fields view
// it: two views of one buffer, or a view beside a field that was one and
// was sent again. Counted per field, the audit read one buffer too few out,
// and would have hidden a buffer that never came back.
func TestViewsTakeCountsBuffers(t *testing.T) {
	if own.Quarantine {
		t.Skip("quarantine builds never give transport buffers back")
	}
	field := func(num protowire.Number, v []byte) []byte {
		return protowire.AppendBytes(protowire.AppendTag(nil, num, protowire.BytesType), v)
	}
	data, maybe := field(3, grpcfasttest.NoiseBytes(1, 2000)), field(14, grpcfasttest.NoiseBytes(2, 1500)) // Rich.data, Rich.maybe
	for name, wire := range map[string][]byte{
		"two views":                   bytes.Join([][]byte{data, maybe}, nil),
		"a view sent again, a view":   bytes.Join([][]byte{data, field(3, []byte("x")), maybe}, nil),
		"a view sent again, no other": bytes.Join([][]byte{data, field(3, []byte("x"))}, nil),
	} {
		pool := grpcfasttest.NewTrackingPool()
		s := &grpcfasttest.CodecListStream[kinds.Rich]{Codec: grpcfast.NewCodec(), Wire: [][]byte{wire}, Pool: pool}
		r := grpcfast.NewReceiver[kinds.Rich](s)
		m, err := r.Recv()
		grpcfasttest.CheckOracle(t, wire, m, err)
		r.Take()
		r.Release()
		if u := pool.Unreturned(); u != 0 {
			t.Errorf("%s: the pool's audit reads %d buffers out after Take, want 0", name, u)
		}
	}
}

// TestViewsHostile: hostile input after a bytes field large enough to be a
// view, split at every byte (the deep one at a few places), decoded through
// a Receiver (views of reference-counted transport buffers) and into a
// message marked for the owned copy, accepts, rejects and decodes exactly
// as protobuf-go does: nesting past 10,000, a field number of 2^32+6 that
// vtprotobuf would read as the bytes field 6, a field number of 2^29, a
// varint too long, an unclosed group.
func TestViewsHostile(t *testing.T) {
	data := protowire.AppendBytes(grpcfasttest.Tag(6, protowire.BytesType), grpcfasttest.NoiseBytes(1, 1500)) // Node.data
	lenField := func(tag []byte, n int) []byte {
		return protowire.AppendBytes(append([]byte{}, tag...), grpcfasttest.NoiseBytes(2, n))
	}
	cases := []struct {
		name string
		b    []byte
		step int
	}{
		{"valid", append(append([]byte{}, data...), lenField(grpcfasttest.Tag(6, protowire.BytesType), 1100)...), 1},
		{"field 2^32+6", append(append([]byte{}, data...), lenField(grpcfasttest.BigTag(grpcfasttest.Pow2(32, 6), protowire.BytesType), 1100)...), 1},
		{"field 2^29", append(append([]byte{}, data...), lenField(grpcfasttest.BigTag(grpcfasttest.Pow2(29, 0), protowire.BytesType), 10)...), 1},
		{"varint too long", append(append(append([]byte{}, data...), grpcfasttest.Tag(3, protowire.VarintType)...), bytes.Repeat([]byte{0xff}, 11)...), 1},
		{"unclosed group", append(append([]byte{}, data...), grpcfasttest.Tag(40, protowire.StartGroupType)...), 1},
		{"nested 10,001", append(append([]byte{}, data...), grpcfasttest.Nested(grpcfasttest.RepeatTags(10001, grpcfasttest.Tag(1, protowire.BytesType)), nil)...), 7919},
	}
	c := grpcfast.NewCodec()
	for _, tc := range cases {
		want := new(hostile.Node)
		stdErr := proto.Unmarshal(tc.b, want)
		check := func(how string, cuts []int, got *hostile.Node, err error) {
			t.Helper()
			if (err == nil) != (stdErr == nil) {
				t.Fatalf("%s, %s, split at %v: %v; protobuf-go: %v", tc.name, how, cuts, err, stdErr)
			}
			if err == nil && !proto.Equal(got, want) {
				t.Fatalf("%s, %s, split at %v: decoded differently from protobuf-go", tc.name, how, cuts)
			}
		}
		for cut := 0; cut < len(tc.b); cut += tc.step {
			var cuts []int
			if cut > 0 {
				cuts = []int{cut}
			}
			s := &grpcfasttest.CodecListStream[hostile.Node]{Codec: c, Wire: [][]byte{tc.b}, Cuts: cuts}
			r := grpcfast.NewReceiver[hostile.Node](s)
			got, err := r.Recv()
			check("through a Receiver", cuts, got, err)
			r.Release()

			data := grpcfasttest.PooledAt(mem.DefaultBufferPool(), tc.b, cuts...)
			m, _, err := grpcfasttest.UnmarshalCopy[hostile.Node](c, data)
			data.Free()
			check("into the owned copy", cuts, m, err)
		}
	}
}

// TestViewsCallerBuffer: a handler that puts its own buffer where a view
// was, or re-slices the view to nothing, gets neither written into nor
// poisoned at the next Recv, and the transport buffer still goes back.
func TestViewsCallerBuffer(t *testing.T) {
	msgs := []proto.Message{
		&examplepb.Chunk{Data: grpcfasttest.NoiseBytes(1, 4000)},
		&examplepb.Chunk{Data: grpcfasttest.NoiseBytes(2, 4000)},
		&examplepb.Chunk{Data: grpcfasttest.NoiseBytes(3, 100)},
		&examplepb.Chunk{Data: grpcfasttest.NoiseBytes(4, 200)},
	}
	pool := grpcfasttest.NewTrackingPool()
	s := grpcfasttest.ListStream[examplepb.Chunk](t, msgs...)
	s.Pool = pool
	r := grpcfast.NewReceiver[examplepb.Chunk](s)
	mine := bytes.Repeat([]byte{7}, 4096)
	first, _ := r.Recv()
	firstBuf := s.Delivered[0]
	first.Data = mine[:10] // the caller's own buffer, with room to spare
	second, _ := r.Recv()
	secondBuf := s.Delivered[0]
	second.Data = second.Data[:0] // the view, emptied: its capacity is the transport buffer's
	for i := 2; i < len(msgs); i++ {
		m, err := r.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if !proto.Equal(m, msgs[i]) {
			t.Fatalf("message %d differs", i)
		}
		if len(m.Data) > 0 && (&m.Data[0] == &mine[0]) {
			t.Fatal("a decode wrote into the caller's buffer")
		}
	}
	if !bytes.Equal(mine, bytes.Repeat([]byte{7}, 4096)) {
		t.Error("the caller's buffer changed")
	}
	if wire, _ := proto.Marshal(msgs[1]); !grpcfast.Checked && !bytes.Equal(secondBuf, wire) {
		// Unchecked builds never poison: any change is a decode's.
		t.Error("a later decode wrote into the transport buffer of an emptied view")
	}
	if pool.IsOut(firstBuf) != own.Quarantine || pool.IsOut(secondBuf) != own.Quarantine {
		t.Errorf("transport buffers out after the next Recvs: %v, %v; want %v", pool.IsOut(firstBuf), pool.IsOut(secondBuf), own.Quarantine)
	}
	r.Release()
}

// requiredMsg is a proto2 message with a required field that decodes as
// vtprotobuf's generated UnmarshalVT does: it merges into the message and
// fails if the bytes of this one call lack a required field. (The only
// generated proto2 message, proto2.Item, has a group, and the codec decodes
// it with protobuf-go because vtprotobuf cannot decode groups.)
type requiredMsg struct{ *dynamicpb.Message }

func (m requiredMsg) UnmarshalVT(b []byte) error {
	tmp := dynamicpb.NewMessage(m.Descriptor())
	if err := (proto.UnmarshalOptions{AllowPartial: true}).Unmarshal(b, tmp); err != nil {
		return err
	}
	if err := proto.CheckInitialized(tmp); err != nil {
		return err
	}
	proto.Merge(m.Message, tmp)
	return nil
}

func requiredDescriptor(t *testing.T) protoreflect.MessageDescriptor {
	t.Helper()
	fd, err := protodesc.NewFile(&descriptorpb.FileDescriptorProto{
		Name:    proto.String("grpcfast_required_test.proto"),
		Package: proto.String("grpcfast.test"),
		Syntax:  proto.String("proto2"),
		MessageType: []*descriptorpb.DescriptorProto{{
			Name: proto.String("Req"),
			Field: []*descriptorpb.FieldDescriptorProto{{
				Name:   proto.String("id"),
				Number: proto.Int32(1),
				Label:  descriptorpb.FieldDescriptorProto_LABEL_REQUIRED.Enum(),
				Type:   descriptorpb.FieldDescriptorProto_TYPE_INT32.Enum(),
			}, {
				Name:   proto.String("data"),
				Number: proto.Int32(2),
				Label:  descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(),
				Type:   descriptorpb.FieldDescriptorProto_TYPE_BYTES.Enum(),
			}},
		}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return fd.Messages().Get(0)
}

// TestRequiredFields checks that a message with required fields is decoded in
// one piece when it arrives in several: vtprotobuf checks required fields at
// the end of every UnmarshalVT call.
func TestRequiredFields(t *testing.T) {
	md := requiredDescriptor(t)
	want := dynamicpb.NewMessage(md)
	want.Set(md.Fields().ByName("id"), protoreflect.ValueOfInt32(5))
	want.Set(md.Fields().ByName("data"), protoreflect.ValueOfBytes(grpcfasttest.Pattern(20000)))
	b, err := proto.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	pool := grpcfasttest.NewCountingPool(grpcfast.NewBufferPool())
	c := grpcfast.NewCodec(grpcfast.WithBufferPool(pool))
	for _, cut := range []int{0, 1, 2, 5, 100, 10000, len(b) - 1} {
		got := requiredMsg{dynamicpb.NewMessage(md)}
		if err := c.Unmarshal(grpcfasttest.SliceAt(b, cut), got); err != nil {
			t.Fatalf("split at %d: %v", cut, err)
		}
		if !proto.Equal(got.Message, want) {
			t.Fatalf("split at %d: decoded message differs", cut)
		}
	}
	// Without the required field: an error, whole and in pieces.
	partial, _ := proto.MarshalOptions{AllowPartial: true}.Marshal(&kinds.Rich{Data: grpcfasttest.Pattern(100)}) // field 3: unknown here
	for _, data := range []mem.BufferSlice{grpcfasttest.SliceAt(partial), grpcfasttest.SliceAt(partial, 50)} {
		if err := c.Unmarshal(data, requiredMsg{dynamicpb.NewMessage(md)}); err == nil {
			t.Errorf("message without its required field in %d buffers: no error", len(data))
		}
	}
	pool.Check(t, "counting pool")
}
