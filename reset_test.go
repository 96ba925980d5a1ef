package grpcfast_test

import (
	"testing"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
)

func pooledMsg(items, data int, one bool) *kinds.Pooled {
	m := &kinds.Pooled{Data: pattern(data), Numbers: []int64{1, 2, 300000}, Name: "a pooled message"}
	for i := range items {
		m.Items = append(m.Items, &kinds.PooledInner{Payload: pattern(10 + i), Values: []int64{int64(i)}})
	}
	if one {
		m.One = &kinds.PooledInner{Payload: []byte("one")}
	}
	return m
}

func decodeInto(t testing.TB, c *grpcfast.Codec, src proto.Message, dst any) {
	t.Helper()
	b, err := proto.Marshal(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Unmarshal(mem.BufferSlice{mem.SliceBuffer(b)}, dst); err != nil {
		t.Fatal(err)
	}
}

// A reused message whose nested types vtprotobuf pools keeps its repeated
// elements and returns its singular message fields to the pool.
func TestResetReusesPooledElements(t *testing.T) {
	c := grpcfast.NewCodec()
	got := new(kinds.Pooled)
	decodeInto(t, c, pooledMsg(3, 4096, true), got)
	items := append([]*kinds.PooledInner(nil), got.Items...)
	data := &got.Data[0]

	want := pooledMsg(2, 100, false)
	decodeInto(t, c, want, got)
	if !proto.Equal(got, want) {
		t.Fatalf("reused decode = %v, want %v", got, want)
	}
	if got.Items[0] != items[0] || got.Items[1] != items[1] {
		t.Error("repeated pooled elements were not reused")
	}
	if got.One != nil {
		t.Error("One left over from the previous message")
	}
	if &got.Data[0] != data {
		t.Error("Data's memory was not reused")
	}
	// The third element, beyond the new length, was reset for later reuse.
	if items[2].Payload == nil || len(items[2].Payload) != 0 || len(items[2].Values) != 0 {
		t.Errorf("element beyond the length was not reset: %v", items[2])
	}
}

// GrpcfastReset keeps memory but not presence: an optional bytes field must
// become nil, a map empty, a oneof unset.
func TestResetKeepsNoPresence(t *testing.T) {
	m := fullRich(64)
	m.Maybe = []byte("x")
	m.Choice = &kinds.Rich_Nested{Nested: &kinds.Inner{Label: "n"}}
	m.GrpcfastReset()
	if m.Maybe != nil {
		t.Errorf("optional bytes = %q after reset, want nil (absent)", m.Maybe)
	}
	if m.Choice != nil || m.Inner != nil || m.Level != nil {
		t.Error("oneof, message or optional scalar field survived the reset")
	}
	if len(m.Counts) != 0 || len(m.Numbers) != 0 || len(m.Data) != 0 || len(m.Inners) != 0 {
		t.Errorf("reset left contents: %v", m)
	}
	if !proto.Equal(m, &kinds.Rich{}) {
		t.Errorf("reset message = %v, want empty", m)
	}
}

func TestResetPooledAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items")
	}
	c := grpcfast.NewCodec()
	b, err := proto.Marshal(pooledMsg(4, 16384, true))
	if err != nil {
		t.Fatal(err)
	}
	got := new(kinds.Pooled)
	data := mem.BufferSlice{mem.SliceBuffer(b)}
	if err := c.Unmarshal(data, got); err != nil {
		t.Fatal(err)
	}
	n := testing.AllocsPerRun(200, func() {
		if err := c.Unmarshal(data, got); err != nil {
			t.Fatal(err)
		}
	})
	// Name is a string: vtprotobuf allocates every string it decodes.
	if n != 1 {
		t.Errorf("decoding into a reused pooled message allocates %v times, want 1 (the string)", n)
	}
}
