package grpcfast_test

import (
	"bytes"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/grpcfastimpl"
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

// decodeOwned decodes src into dst with the codec and returns the record of
// what the decode left in dst, as a Receiver makes it.
func decodeOwned(t testing.TB, src proto.Message, dst interface {
	proto.Message
	grpcfastimpl.Owner
}) *grpcfastimpl.Record {
	t.Helper()
	b, err := proto.Marshal(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := grpcfast.NewCodec().Unmarshal(grpcfasttest.SliceAt(b), dst); err != nil {
		t.Fatal(err)
	}
	o := new(grpcfastimpl.Record)
	dst.GrpcfastRecord(o)
	return o
}

// A Receiver's message whose nested types vtprotobuf pools keeps its
// repeated elements, and returns its singular message fields to the pool.
func TestReuseKeepsPooledElements(t *testing.T) {
	grpcfasttest.SkipInCheckedBuild(t, "it asserts that a reset message keeps its elements' and fields' memory")
	// 512 bytes of Data: decoded into the message's own memory, not a view
	// of the transport buffer (reuse.MinView).
	s := grpcfasttest.ListStream[kinds.Pooled](t, pooledMsg(3, 512, true), pooledMsg(1, 10, false), pooledMsg(2, 100, false))
	r := grpcfast.NewReceiver[kinds.Pooled](s)
	first, _ := r.Recv()
	items := append([]*kinds.PooledInner(nil), first.Items...)
	data := &first.Data[0]
	r.Recv()
	got, err := r.Recv() // decoded into the first message's memory
	if err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(got, pooledMsg(2, 100, false)) {
		t.Fatalf("reused decode = %v, want %v", got, pooledMsg(2, 100, false))
	}
	if got.Items[0] != items[0] || got.Items[1] != items[1] {
		t.Error("repeated pooled elements were not reused")
	}
	if got.One != nil {
		t.Error("One left over from an earlier message")
	}
	if &got.Data[0] != data {
		t.Error("Data's memory was not reused")
	}
	// The third element, beyond the new length, was reset for later reuse.
	if items[2].Payload == nil || len(items[2].Payload) != 0 || len(items[2].Values) != 0 {
		t.Errorf("element beyond the length was not reset: %v", items[2])
	}
}

// GrpcfastReuse keeps memory but not presence: an optional bytes field must
// become nil, a map empty, a oneof unset.
func TestReuseKeepsNoPresence(t *testing.T) {
	grpcfasttest.SkipInCheckedBuild(t, "it asserts that a reset message keeps the memory its decode allocated")
	src := grpcfasttest.FullRich(64)
	src.Maybe = []byte("x")
	src.Choice = &kinds.Rich_Nested{Nested: &kinds.Inner{Label: "n"}}
	m := new(kinds.Rich)
	o := decodeOwned(t, src, m)
	o.Rewind()
	m.GrpcfastReuse(o)
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

// GrpcfastReuse drops, and never writes into, memory that the record does
// not hold: what the caller put into the message after the decode.
func TestReuseDropsWhatItDidNotRecord(t *testing.T) {
	m := new(kinds.Rich)
	o := decodeOwned(t, richWith(3), m)
	c := newCallerMemory()
	c.intoRich(m)
	o.Rewind()
	m.GrpcfastReuse(o)
	if err := c.check(); err != nil {
		t.Fatal(err)
	}
	if m.Data != nil || m.Words != nil || m.Counts != nil || m.Inners != nil || m.Numbers != nil {
		t.Errorf("the reset kept the caller's memory: %v", m)
	}
	// A record of another message drops everything too.
	other := new(kinds.Rich)
	o2 := decodeOwned(t, richWith(4), other)
	c = newCallerMemory()
	c.intoRich(m)
	m.Data = bytes.Clone(other.Data)
	o2.Rewind()
	m.GrpcfastReuse(o2)
	if err := c.check(); err != nil {
		t.Fatal(err)
	}
	if m.Data != nil {
		t.Error("the reset kept a slice that another message's record holds")
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
