package grpcfast_test

import (
	"bytes"
	"testing"
	"unsafe"

	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
)

func pooledMsg(items, data int, one bool) *kinds.Pooled {
	m := &kinds.Pooled{Data: grpcfasttest.Pattern(data), Numbers: []int64{1, 2, 300000}, Name: "a pooled message"}
	for i := range items {
		m.Items = append(m.Items, &kinds.PooledInner{Payload: grpcfasttest.Pattern(10 + i), Values: []int64{int64(i)}})
	}
	if one {
		m.One = &kinds.PooledInner{Payload: []byte("one")}
	}
	return m
}

// A Receiver's message reuses, for the message after next, the nested
// messages of its repeated fields, in the order it used them, and the
// arrays of its fields.
func TestReuseKeepsPooledElements(t *testing.T) {
	grpcfasttest.SkipInCheckedBuild(t, "it asserts that a reset message keeps its elements' and fields' memory")
	// 512 bytes of Data: decoded into the message's own memory, not a view
	// of the transport buffer (reuse.MinView).
	s := grpcfasttest.ListStream[kinds.Pooled](t, pooledMsg(3, 512, true), pooledMsg(1, 10, false), pooledMsg(2, 100, false))
	r := grpcfast.NewReceiver[kinds.Pooled](s)
	first, _ := r.Recv()
	// The nested messages of the first message, in the order its decode
	// took them.
	inners := append([]*kinds.PooledInner{first.One}, first.Items...)
	data := &first.Data[0]
	r.Recv()
	got, err := r.Recv() // decoded into the first message's memory
	if err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(got, pooledMsg(2, 100, false)) {
		t.Fatalf("reused decode = %v, want %v", got, pooledMsg(2, 100, false))
	}
	if got.Items[0] != inners[0] || got.Items[1] != inners[1] {
		t.Error("the nested messages of the first message were not reused, in the order it used them")
	}
	if got.One != nil {
		t.Error("One left over from an earlier message")
	}
	if &got.Data[0] != data {
		t.Error("Data's memory was not reused")
	}
	// The others, unused, were reset for later reuse, keeping their arrays.
	for _, m := range inners[2:] {
		if m.Payload == nil || len(m.Payload) != 0 || len(m.Values) != 0 {
			t.Errorf("an unused nested message was not reset: %v", m)
		}
	}
}

// decodeInto decodes src into slot s's message with the codec.
func decodeInto[M any](t testing.TB, s *grpcfasttest.CopySlot[M], src proto.Message) *M {
	t.Helper()
	b, err := proto.Marshal(src)
	if err != nil {
		t.Fatal(err)
	}
	if generated, err := s.Decode(grpcfast.NewCodec(), grpcfasttest.SliceAt(b)); err != nil || !generated {
		t.Fatalf("decode into a slot: generated %v, error %v", generated, err)
	}
	return s.Msg()
}

// A slot's reset keeps memory but not presence: an optional bytes field
// must become nil, a map empty, a oneof unset.
func TestReuseKeepsNoPresence(t *testing.T) {
	grpcfasttest.SkipInCheckedBuild(t, "it asserts that a reset message keeps the memory its decode allocated")
	src := grpcfasttest.FullRich(64)
	src.Maybe = []byte("x")
	src.Choice = &kinds.Rich_Nested{Nested: &kinds.Inner{Label: "n"}}
	s := grpcfasttest.NewPlainSlot[kinds.Rich]()
	m := decodeInto(t, s, src)
	s.Reset()
	if m.Maybe != nil {
		t.Errorf("optional bytes = %q after reset, want nil (absent)", m.Maybe)
	}
	if m.Choice != nil || m.Inner != nil || m.Level != nil {
		t.Error("oneof, message or optional scalar field survived the reset")
	}
	if len(m.Counts) != 0 || len(m.Numbers) != 0 || len(m.Data) != 0 || len(m.Inners) != 0 {
		t.Errorf("reset left contents: %v", m)
	}
	if cap(m.Data) == 0 || cap(m.Numbers) == 0 || m.Counts == nil {
		t.Error("reset kept no memory that the decode allocated")
	}
	if !proto.Equal(m, &kinds.Rich{}) {
		t.Errorf("reset message = %v, want empty", m)
	}
}

// A slot's reset drops, and never writes into, memory that its decode did
// not leave where it is: what the caller put into the message after the
// decode, and what another slot's decode left.
func TestReuseDropsWhatItDidNotRecord(t *testing.T) {
	s := grpcfasttest.NewPlainSlot[kinds.Rich]()
	m := decodeInto(t, s, richWith(3))
	c := newCallerMemory()
	c.intoRich(m)
	s.Reset()
	if err := c.check(); err != nil {
		t.Fatal(err)
	}
	if m.Data != nil || m.Words != nil || m.Counts != nil || m.Inners != nil || m.Numbers != nil {
		t.Errorf("the reset kept the caller's memory: %v", m)
	}
	// Another slot's memory, put into this slot's message, is dropped too,
	// and stays the other message's.
	o := grpcfasttest.NewPlainSlot[kinds.Rich]()
	other := decodeInto(t, o, richWith(4))
	otherWas := proto.Clone(other)
	m = decodeInto(t, s, richWith(5))
	m.Data, m.Numbers, m.Inners = other.Data, other.Numbers, other.Inners
	s.Reset()
	if m.Data != nil || m.Numbers != nil || m.Inners != nil {
		t.Errorf("the reset kept another slot's memory: %v", m)
	}
	if !proto.Equal(other, otherWas) {
		t.Errorf("another slot's message changed when this slot was reset: %v, was %v", other, otherWas)
	}
}

// A field that a handler gave the array of another field of the same
// message is dropped, and the array is kept once, in the field that the
// decode put it in: the next decode never writes two fields into one array.
func TestReuseDropsAliasedArrays(t *testing.T) {
	s := grpcfasttest.NewPlainSlot[kinds.Rich]()
	src := &kinds.Rich{Data: bytes.Repeat([]byte{1}, 64), Inner: &kinds.Inner{Payload: bytes.Repeat([]byte{2}, 64)}}
	m := decodeInto(t, s, src)
	m.Data = m.Inner.Payload
	s.Reset()
	next := &kinds.Rich{Data: bytes.Repeat([]byte{3}, 32), Inner: &kinds.Inner{Payload: bytes.Repeat([]byte{4}, 32)}}
	m = decodeInto(t, s, next)
	if !proto.Equal(m, next) {
		t.Fatalf("decode after a handler aliased two fields = %v, want %v", m, next)
	}
	if &m.Data[0] == &m.Inner.Payload[0] {
		t.Error("two fields decoded into one array")
	}
}

func TestReusePooledAllocs(t *testing.T) {
	grpcfasttest.SkipInCheckedBuild(t, "allocation counts: a reset message keeps none of its memory, so each decode allocates it again")
	if grpcfasttest.Race {
		t.Skip("the race detector makes sync.Pool drop items")
	}
	want := pooledMsg(4, 16384, true)
	wire, err := proto.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	// Name is a string: a copy, as protobuf-go decodes it.
	if n := allocsPerRecv(t, want, wire); n != 1 {
		t.Errorf("receiving a pooled message allocates %v times, want 1 (the string)", n)
	}
}

// Nested messages that a handler moved, shared between fields or dropped
// are each reset once and decoded into once again: the next decode gets
// distinct messages, each as the input says.
func TestReuseAfterHandlerMovedMessages(t *testing.T) {
	s := grpcfasttest.NewPlainSlot[kinds.Rich]()
	in := func(label string, n int) *kinds.Inner {
		return &kinds.Inner{Label: label, Payload: bytes.Repeat([]byte(label), n), Values: []uint32{uint32(n)}}
	}
	m := decodeInto(t, s, &kinds.Rich{Inner: in("a", 8), Inners: []*kinds.Inner{in("b", 9), in("c", 10)},
		Choice: &kinds.Rich_Nested{Nested: in("d", 11)}})
	// The handler: Inner now shares Inners[1], the oneof's message moved
	// into Inners, Inners[1] dropped from the message.
	m.Inner = m.Inners[1]
	m.Inners[1] = m.GetNested()
	m.Choice = nil
	s.Reset()
	next := &kinds.Rich{Inner: in("e", 12), Inners: []*kinds.Inner{in("f", 13), in("g", 14), in("h", 15)},
		Choice: &kinds.Rich_Nested{Nested: in("i", 16)}}
	m = decodeInto(t, s, next)
	if !proto.Equal(m, next) {
		t.Fatalf("decode after a handler moved nested messages = %v, want %v", m, next)
	}
	seen := map[*kinds.Inner]bool{}
	for _, x := range append([]*kinds.Inner{m.Inner, m.GetNested()}, m.Inners...) {
		if seen[x] {
			t.Fatalf("one nested message is in two places: %p", x)
		}
		seen[x] = true
	}
}

// A bytes field decoded as a view of a buffer that no pool owns (a
// SliceBuffer, whose memory may still be its maker's) is let go by the
// slot's reset, in every build: never kept for the next decode to write
// into, nor poisoned.
func TestReuseLeavesUnpooledViewsAlone(t *testing.T) {
	s := grpcfasttest.NewPlainSlot[kinds.Rich]()
	wire, err := proto.Marshal(&kinds.Rich{Data: grpcfasttest.Pattern(4096)})
	if err != nil {
		t.Fatal(err)
	}
	was := bytes.Clone(wire)
	if _, err := s.Decode(grpcfast.NewCodec(), grpcfasttest.SliceAt(wire)); err != nil {
		t.Fatal(err)
	}
	m := s.Msg()
	if len(m.Data) != 4096 || !bytes.Contains(wire, m.Data[:64]) || unsafe.SliceData(m.Data) != unsafe.SliceData(wire[len(wire)-4096:]) {
		t.Fatal("Data was not decoded as a view of the buffer")
	}
	s.Reset()
	if !bytes.Equal(wire, was) {
		t.Fatal("the slot's reset wrote into the buffer its message viewed, a buffer of no pool")
	}
	decodeInto(t, s, &kinds.Rich{Data: bytes.Repeat([]byte{7}, 100)})
	if !bytes.Equal(wire, was) {
		t.Fatal("the next decode wrote into the buffer the message before viewed")
	}
}
