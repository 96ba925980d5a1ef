package grpcfast_test

import (
	"testing"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/example/examplepb"
	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
)

// allocsPerRecv returns the allocations per Receiver.Recv of the message
// that wire encodes, cut at cuts, after a first Recv has sized the reused
// message; it also checks that every Recv decodes the message right.
func allocsPerRecv[M any](t *testing.T, want *M, wire []byte, cuts ...int) float64 {
	t.Helper()
	s := &grpcfasttest.CodecStream[M]{Codec: grpcfast.NewCodec(), Data: grpcfasttest.SliceAt(wire, cuts...)}
	r := grpcfast.NewReceiver[M](s)
	check := func() {
		m, err := r.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if !proto.Equal(any(m).(proto.Message), any(want).(proto.Message)) {
			t.Fatalf("cuts %v: the received message differs from the one sent", cuts)
		}
	}
	check()
	n := testing.AllocsPerRun(200, func() {
		if _, err := r.Recv(); err != nil {
			panic(err)
		}
	})
	check()
	return n
}

// TestRecvAllocsWithCodec: receiving into the Receiver's reused message
// through the grpcfast codec allocates nothing per message, whether the
// message arrives in one buffer or in several (cut inside the field
// framing, inside the bytes, and at the HTTP/2 frame boundary).
func TestRecvAllocsWithCodec(t *testing.T) {
	grpcfasttest.SkipInCheckedBuild(t, "allocation counts: a Receiver's messages keep none of their memory, so each Recv allocates it again")
	chunk := &examplepb.Chunk{Data: grpcfasttest.NoiseBytes(1, 16<<10)}
	chunkWire, err := chunk.MarshalVT()
	if err != nil {
		t.Fatal(err)
	}
	// A Rich with scalars of every wire type, an enum, bytes and a
	// repeated bytes field. Repeated scalars are in TestRecvAllocsKnownCosts.
	flat := &kinds.Rich{
		Id: 42, Data: grpcfasttest.NoiseBytes(2, 16<<10), Color: kinds.Color_COLOR_GREEN,
		Blobs: [][]byte{grpcfasttest.NoiseBytes(6, 0), grpcfasttest.NoiseBytes(7, 0)},
		Ratio: 0.25, F32: 7, Sf64: -9, Flag: true,
	}
	flatWire, err := flat.MarshalVT()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		got  func() float64
	}{
		{"Chunk16K/1buf", func() float64 { return allocsPerRecv(t, chunk, chunkWire) }},
		{"Chunk16K/2buf/frame", func() float64 { return allocsPerRecv(t, chunk, chunkWire, 16384-5) }},
		{"Chunk16K/2buf/tag", func() float64 { return allocsPerRecv(t, chunk, chunkWire, 1) }},
		{"Chunk16K/2buf/length", func() float64 { return allocsPerRecv(t, chunk, chunkWire, 2) }},
		{"Chunk16K/3buf", func() float64 { return allocsPerRecv(t, chunk, chunkWire, 3, 8000) }},
		{"Rich/1buf", func() float64 { return allocsPerRecv(t, flat, flatWire) }},
		{"Rich/2buf/data", func() float64 { return allocsPerRecv(t, flat, flatWire, 100) }},
		{"Rich/2buf/scalars", func() float64 { return allocsPerRecv(t, flat, flatWire, len(flatWire)-10) }},
	} {
		if n := tc.got(); n != 0 {
			t.Errorf("%s: %v allocations per Recv, want 0", tc.name, n)
		}
	}
}

// TestRecvAllocsKnownCosts pins what a receiver of a message type with a
// generated decoder still allocates per Recv, so that a change is noticed
// in either direction: the generated decoder decodes into the nested
// messages, repeated elements and arrays that the slot's last reset kept or
// gave back (spares), so only what Go cannot reuse is allocated: strings,
// presence-tracking scalars (proto3 optional) and repeated bytes elements.
func TestRecvAllocsKnownCosts(t *testing.T) {
	grpcfasttest.SkipInCheckedBuild(t, "allocation counts: a Receiver's messages keep none of their memory, so each Recv allocates it again")
	inner := func() *kinds.Inner {
		return &kinds.Inner{Payload: grpcfasttest.NoiseBytes(3, 100), Values: []uint32{1, 2}}
	}
	level := int32(5)
	for _, tc := range []struct {
		name string
		msg  *kinds.Rich
		want float64
	}{
		// The Inner, its Payload and its Values: all kept or spare.
		{"Inner", &kinds.Rich{Id: 1, Data: grpcfasttest.NoiseBytes(4, 1000), Inner: inner()}, 0},
		{"Inners2", &kinds.Rich{Id: 1, Inners: []*kinds.Inner{inner(), inner()}}, 0},
		{"Numbers", &kinds.Rich{Id: 1, Numbers: []int64{1, -2, 1 << 40}}, 0},
		{"Colors", &kinds.Rich{Id: 1, Colors: []kinds.Color{kinds.Color_COLOR_RED, kinds.Color_COLOR_GREEN}}, 0},
		{"Name", &kinds.Rich{Id: 1, Name: "name"}, 1},
		{"Level", &kinds.Rich{Id: 1, Level: &level}, 1},
		{"Blobs2", &kinds.Rich{Id: 1, Blobs: [][]byte{grpcfasttest.NoiseBytes(8, 10), grpcfasttest.NoiseBytes(9, 20)}}, 2},
	} {
		wire, err := tc.msg.MarshalVT()
		if err != nil {
			t.Fatal(err)
		}
		got := allocsPerRecv(t, tc.msg, wire)
		t.Logf("Rich with %s: %v allocations per Recv", tc.name, got)
		if got != tc.want {
			t.Errorf("Rich with %s: %v allocations per Recv, want %v", tc.name, got, tc.want)
		}
	}
	pooled := &kinds.Pooled{Data: grpcfasttest.NoiseBytes(5, 2000), Inners: []*kinds.Inner{inner(), inner()}}
	wire, err := pooled.MarshalVT()
	if err != nil {
		t.Fatal(err)
	}
	got := allocsPerRecv(t, pooled, wire)
	t.Logf("Pooled with Inners2: %v allocations per Recv", got)
	if got != 0 {
		t.Errorf("Pooled with Inners2: %v allocations per Recv, want 0", got)
	}
	// Nested types pooled by vtprotobuf too: nothing is allocated either.
	allPooled := &kinds.Pooled{
		Data:    grpcfasttest.NoiseBytes(6, 2000),
		Numbers: []int64{1, -2, 1 << 40},
		One:     &kinds.PooledInner{Payload: grpcfasttest.NoiseBytes(7, 100), Values: []int64{3, 4}},
		Items: []*kinds.PooledInner{
			{Payload: grpcfasttest.NoiseBytes(8, 100), Values: []int64{5}},
			{Payload: grpcfasttest.NoiseBytes(9, 50), Values: []int64{6, 7}},
		},
	}
	if grpcfasttest.Race {
		return // the race detector makes sync.Pool drop items
	}
	if wire, err = allPooled.MarshalVT(); err != nil {
		t.Fatal(err)
	}
	got = allocsPerRecv(t, allPooled, wire)
	t.Logf("Pooled with pooled nested messages: %v allocations per Recv", got)
	if got != 0 {
		t.Errorf("Pooled with pooled nested messages: %v allocations per Recv, want 0", got)
	}
}

// cyclingStream is a grpcfasttest.CodecStream whose messages take turns among several.
type cyclingStream[M any] struct {
	codec *grpcfast.Codec
	data  []mem.BufferSlice
	i     int
}

func (s *cyclingStream[M]) RecvMsg(m any) error {
	d := s.data[s.i%len(s.data)]
	s.i++
	return s.codec.Unmarshal(d, m)
}

func (s *cyclingStream[M]) Recv() (*M, error) {
	m := new(M)
	return m, s.RecvMsg(m)
}

// TestRecvAllocsVaryingCounts: a stream of vtprotobuf-pooled messages whose
// repeated message fields take turns at 10, 3 and 3 elements allocates
// nothing per Recv once warm: the elements a short message leaves unused
// wait in the receiver's record, where the next long one takes them from,
// and a receiver's message keeps no more than a few times what its last two
// messages used.
func TestRecvAllocsVaryingCounts(t *testing.T) {
	grpcfasttest.SkipInCheckedBuild(t, "allocation counts: a Receiver's messages keep none of their memory, so each Recv allocates it again")
	grpcfasttest.SkipIfRace(t)
	var data []mem.BufferSlice
	for _, n := range []int{10, 3, 3} {
		m := &kinds.Pooled{Name: "p"}
		for i := range n {
			m.Items = append(m.Items, &kinds.PooledInner{Values: []int64{int64(i)}})
		}
		data = append(data, grpcfasttest.SliceAt(marshalOK(t, m)))
	}
	s := &cyclingStream[kinds.Pooled]{codec: grpcfast.NewCodec(), data: data}
	r := grpcfast.NewReceiver[kinds.Pooled](s)
	for range 6 {
		if _, err := r.Recv(); err != nil {
			t.Fatal(err)
		}
	}
	got := testing.AllocsPerRun(300, func() {
		if _, err := r.Recv(); err != nil {
			panic(err)
		}
	})
	if got > 0.1 { // sync.Pool's own chain grows now and then
		t.Errorf("%v allocations per Recv of messages of 10, 3 and 3 elements in turn, want 0", got)
	}
}
