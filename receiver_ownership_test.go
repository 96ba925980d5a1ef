package grpcfast_test

// Memory has one owner. These tests, over real gRPC on 127.0.0.1 with many
// streams at once, check that nothing a receiver returns crosses to another
// stream, that receivers are right whatever codec decodes, and that neither
// the codec nor a receiver writes into memory that the caller put into a
// message.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	vtcodec "github.com/planetscale/vtprotobuf/codec/grpc"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
)

// lastServer's handlers keep the last message of a stream in the most common
// shape (var last *M; for { m, err := r.Recv(); ...; last = m }), use it
// after io.EOF while other streams run, and then wipe it, as a handler that
// believes it owns it may.
type lastServer struct {
	kinds.UnimplementedKindsServer
	plain bool // receive with the stream's own Recv
}

// useLast checks last after the end of its stream, giving other goroutines
// the processor in between, then wipes it.
func useLast(last *kinds.Rich, id int64) error {
	if last == nil {
		return nil
	}
	for range 10 {
		runtime.Gosched()
		if err := grpcfasttest.CheckRich(last, id); err != nil {
			return fmt.Errorf("after the end of the stream, the last message changed: %w", err)
		}
	}
	clear(last.Data)
	last.Name = "wiped"
	for _, in := range last.Inners {
		clear(in.Payload)
	}
	return nil
}

func (s *lastServer) ClientStream(stream grpc.ClientStreamingServer[kinds.Rich, kinds.Summary]) error {
	recv := grpcfasttest.RecvFunc(s.plain, stream.Recv, kinds.NewKinds_ClientStreamRequestReceiver(stream))
	var last *kinds.Rich
	var lastID int64
	n := int64(0)
	for {
		m, err := recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if err := grpcfasttest.CheckRich(m, -1); err != nil {
			return grpcfasttest.DataLoss(err)
		}
		last, lastID = m, m.Id
		n++
	}
	if err := useLast(last, lastID); err != nil {
		return grpcfasttest.DataLoss(err)
	}
	return stream.SendAndClose(&kinds.Summary{Count: n})
}

func (s *lastServer) ServerStream(req *kinds.Rich, stream grpc.ServerStreamingServer[kinds.Rich]) error {
	for i := range int(req.Id) {
		if err := stream.Send(grpcfasttest.GenRich(grpcfasttest.MsgID(int(req.F32), i))); err != nil {
			return err
		}
	}
	return nil
}

// shortStreams runs streams client-streaming calls of msgs messages, 16 at
// once, and as many server-streaming calls whose client keeps the last
// message as lastServer's handlers do.
func shortStreams(t *testing.T, client kinds.KindsClient, streams, msgs int, plainClient bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var next atomic.Int64
	work := func(ctx context.Context, _ int) error {
		for {
			s := int(next.Add(1))
			if s > streams {
				return nil
			}
			cs, err := client.ClientStream(ctx)
			if err != nil {
				return err
			}
			for i := range msgs {
				if err := cs.Send(grpcfasttest.GenRich(grpcfasttest.MsgID(s, i))); err != nil {
					return err
				}
			}
			sum, err := cs.CloseAndRecv()
			if err != nil {
				return fmt.Errorf("client stream %d: %w", s, err)
			}
			if sum.Count != int64(msgs) {
				return fmt.Errorf("client stream %d: server counted %d messages, want %d", s, sum.Count, msgs)
			}
			ss, err := client.ServerStream(ctx, &kinds.Rich{Id: int64(msgs), F32: uint32(s)})
			if err != nil {
				return err
			}
			recv := grpcfasttest.RecvFunc(plainClient, ss.Recv, kinds.NewKinds_ServerStreamResponseReceiver(ss))
			var last *kinds.Rich
			var lastID int64
			for i := 0; ; i++ {
				m, err := recv()
				if err == io.EOF {
					break
				}
				if err != nil {
					return err
				}
				if err := grpcfasttest.CheckRich(m, grpcfasttest.MsgID(s, i)); err != nil {
					return err
				}
				last, lastID = m, m.Id
			}
			if err := useLast(last, lastID); err != nil {
				return fmt.Errorf("server stream %d, client side: %w", s, err)
			}
		}
	}
	if err := grpcfasttest.Concurrently(ctx, 16, work); err != nil {
		t.Error(err)
	}
}

// TestLastMessageAfterEnd: after io.EOF, the last message a receiver
// returned stays exactly as it was, on both ends, with 16 streams at once;
// wiping it afterwards corrupts no other stream's message. The streams' own
// Recv is the reference.
func TestLastMessageAfterEnd(t *testing.T) {
	streams := 400
	if testing.Short() || grpcfasttest.Race {
		streams = 160
	}
	for _, plain := range []bool{true, false} {
		t.Run(fmt.Sprint("plain=", plain), func(t *testing.T) {
			env := grpcfasttest.StartEnv(t, &lastServer{plain: plain}, nil, nil)
			shortStreams(t, env.Client, streams, 3, plain)
		})
	}
}

// TestReceiverWithMergingCodec: vtprotobuf's own gRPC codec, which many
// services register in main() and which merges into the message it is given,
// forced on the server, on the client, or on both: every message the
// receivers return equals the one sent, and the last one is intact after
// io.EOF.
func TestReceiverWithMergingCodec(t *testing.T) {
	streams := 64
	for _, tc := range []struct {
		name   string
		server bool
		client bool
	}{{"server", true, false}, {"client", false, true}, {"both", true, true}} {
		t.Run(tc.name, func(t *testing.T) {
			var sopts []grpc.ServerOption
			var dopts []grpc.DialOption
			if tc.server {
				sopts = append(sopts, grpc.ForceServerCodec(vtcodec.Codec{}))
			}
			if tc.client {
				dopts = append(dopts, grpc.WithDefaultCallOptions(grpc.ForceCodec(vtcodec.Codec{})))
			}
			env := grpcfasttest.StartEnv(t, &lastServer{}, sopts, dopts)
			shortStreams(t, env.Client, streams, 6, false)
			// And the general stream test, every kind, receivers on both ends.
			env2 := grpcfasttest.StartEnv(t, &grpcfasttest.KindsServer{}, sopts, dopts)
			grpcfasttest.RunAllKinds(t, env2.Client, 4, 40, false)
		})
	}
}

// callerMemory is memory that a caller puts into a message before it is
// decoded into: a buffer with spare capacity, a slice of strings, a map, a
// nested message and a slice of nested messages, each also held by the
// caller.
type callerMemory struct {
	buf     []byte
	words   []string
	counts  map[string]int64
	inner   *kinds.Inner
	inners  []*kinds.Inner
	one     *kinds.PooledInner
	items   []*kinds.PooledInner
	numbers []int64

	// What each held when it was put in.
	bufWas     []byte
	wordsWas   []string
	countsWas  map[string]int64
	innerWas   *kinds.Inner
	innersWas  []*kinds.Inner
	oneWas     *kinds.PooledInner
	itemsWas   []*kinds.PooledInner
	numbersWas []int64
}

func newCallerMemory() *callerMemory {
	c := &callerMemory{
		buf:     bytes.Repeat([]byte{0xAA}, 64<<10),
		words:   []string{"mine", "also mine", "and this"},
		counts:  map[string]int64{"mine": 1},
		inner:   &kinds.Inner{Label: "mine", Payload: bytes.Repeat([]byte{0xBB}, 100), Values: []uint32{7, 8, 9}},
		inners:  []*kinds.Inner{{Label: "a", Payload: []byte("aaaa")}, {Label: "b", Payload: []byte("bbbb")}, {Label: "c"}},
		one:     &kinds.PooledInner{Payload: bytes.Repeat([]byte{0xCC}, 100), Values: []int64{1, 2, 3}},
		items:   []*kinds.PooledInner{{Payload: []byte("item0")}, {Payload: []byte("item1")}, {Payload: []byte("item2")}},
		numbers: []int64{11, 12, 13, 14, 15, 16},
	}
	c.bufWas = slices.Clone(c.buf)
	c.wordsWas = slices.Clone(c.words)
	c.countsWas = maps.Clone(c.counts)
	c.innerWas = proto.Clone(c.inner).(*kinds.Inner)
	c.innersWas = cloneAll(c.inners)
	c.oneWas = proto.Clone(c.one).(*kinds.PooledInner)
	c.itemsWas = cloneAll(c.items)
	c.numbersWas = slices.Clone(c.numbers)
	return c
}

func cloneAll[M proto.Message](ms []M) []M {
	out := make([]M, len(ms))
	for i, m := range ms {
		out[i] = proto.Clone(m).(M)
	}
	return out
}

// intoRich puts the caller's memory into m, with spare capacity everywhere.
func (c *callerMemory) intoRich(m *kinds.Rich) {
	m.Data = c.buf[20:24]
	m.Words = c.words[:1]
	m.Counts = c.counts
	m.Inner = c.inner
	m.Inners = c.inners[:1]
	m.Numbers = c.numbers[:2]
	m.Choice = &kinds.Rich_Nested{Nested: c.inner}
}

// intoPooled puts the caller's memory into a pooled message.
func (c *callerMemory) intoPooled(m *kinds.Pooled) {
	m.Data = c.buf[100:101]
	m.Numbers = c.numbers[:1]
	m.Inners = c.inners[:1]
	m.One = c.one
	m.Items = c.items[:1]
}

// check reports what of the caller's memory was written.
func (c *callerMemory) check() error {
	var errs []error
	if !bytes.Equal(c.buf, c.bufWas) {
		errs = append(errs, errors.New("the caller's buffer was overwritten"))
	}
	if !slices.Equal(c.words, c.wordsWas) {
		errs = append(errs, fmt.Errorf("the caller's []string was overwritten: %q", c.words))
	}
	if !maps.Equal(c.counts, c.countsWas) {
		errs = append(errs, fmt.Errorf("the caller's map was changed: %v", c.counts))
	}
	if !proto.Equal(c.inner, c.innerWas) {
		errs = append(errs, fmt.Errorf("the caller's nested message was changed: %v", c.inner))
	}
	for i := range c.inners {
		if !proto.Equal(c.inners[i], c.innersWas[i]) {
			errs = append(errs, fmt.Errorf("the caller's nested message %d was changed: %v", i, c.inners[i]))
		}
	}
	if !proto.Equal(c.one, c.oneWas) {
		errs = append(errs, fmt.Errorf("the caller's pooled nested message was changed: %v", c.one))
	}
	for i := range c.items {
		if !proto.Equal(c.items[i], c.itemsWas[i]) {
			errs = append(errs, fmt.Errorf("the caller's pooled element %d was changed: %v", i, c.items[i]))
		}
	}
	if !slices.Equal(c.numbers, c.numbersWas) {
		errs = append(errs, fmt.Errorf("the caller's []int64 was overwritten: %v", c.numbers))
	}
	return errors.Join(errs...)
}

// richWith returns a message that has every field callerMemory fills, with
// other contents, so that a decode that reused the caller's memory would
// write there.
func richWith(seed int64) *kinds.Rich {
	return &kinds.Rich{
		Id: seed, Data: grpcfasttest.NoiseBytes(seed, 30000),
		Words:   []string{"theirs", "x", "y", "z"},
		Counts:  map[string]int64{"theirs": seed, "mine": 99},
		Inner:   &kinds.Inner{Label: "theirs", Payload: grpcfasttest.NoiseBytes(seed+1, 90), Values: []uint32{1}},
		Inners:  []*kinds.Inner{{Label: "t0", Payload: grpcfasttest.NoiseBytes(seed+2, 3)}, {Label: "t1", Payload: grpcfasttest.NoiseBytes(seed+3, 5)}, {Label: "t2"}},
		Numbers: []int64{-1, -2, -3, -4, -5},
		Choice:  &kinds.Rich_Nested{Nested: &kinds.Inner{Label: "theirs too", Payload: grpcfasttest.NoiseBytes(seed+4, 50)}},
	}
}

func pooledWith(seed int64) *kinds.Pooled {
	return &kinds.Pooled{
		Data: grpcfasttest.NoiseBytes(seed, 30000), Numbers: []int64{seed, -2, -3},
		Inners: []*kinds.Inner{{Label: "t0", Payload: grpcfasttest.NoiseBytes(seed+2, 3)}, {Label: "t1"}},
		One:    &kinds.PooledInner{Payload: grpcfasttest.NoiseBytes(seed+5, 80), Values: []int64{9, 9}},
		Items:  []*kinds.PooledInner{{Payload: grpcfasttest.NoiseBytes(seed+6, 7)}, {Payload: grpcfasttest.NoiseBytes(seed+7, 9)}, {}},
	}
}

// TestCodecLeavesCallerMemory: decoding into a message that holds the
// caller's memory, through the codec in one buffer and in pieces, leaves that
// memory as it was, as gRPC's standard codec does, and decodes right.
func TestCodecLeavesCallerMemory(t *testing.T) {
	c := grpcfast.NewCodec()
	for _, cuts := range [][]int{nil, {7}, {10, 20000}} {
		mem := newCallerMemory()
		rich := new(kinds.Rich)
		mem.intoRich(rich)
		want := richWith(1)
		b, _ := proto.Marshal(want)
		if err := c.Unmarshal(grpcfasttest.SliceAt(b, cuts...), rich); err != nil {
			t.Fatal(err)
		}
		if !proto.Equal(rich, want) {
			t.Errorf("cuts %v: decoded Rich differs", cuts)
		}
		if err := mem.check(); err != nil {
			t.Errorf("cuts %v: Rich: %v", cuts, err)
		}

		mem = newCallerMemory()
		pooled := new(kinds.Pooled)
		mem.intoPooled(pooled)
		wantP := pooledWith(2)
		b, _ = proto.Marshal(wantP)
		if err := c.Unmarshal(grpcfasttest.SliceAt(b, cuts...), pooled); err != nil {
			t.Fatal(err)
		}
		if !proto.Equal(pooled, wantP) {
			t.Errorf("cuts %v: decoded Pooled differs", cuts)
		}
		if err := mem.check(); err != nil {
			t.Errorf("cuts %v: Pooled: %v", cuts, err)
		}
	}
}

// unaryEcho answers every unary call with the message it was sent.
type unaryEcho struct{ kinds.UnimplementedKindsServer }

func (unaryEcho) Unary(_ context.Context, m *kinds.Rich) (*kinds.Rich, error) { return m, nil }

// TestInvokeLeavesCallerMemory: a reply message that the caller fills with
// its own memory before conn.Invoke, 16 calls at once, keeps that memory
// untouched.
func TestInvokeLeavesCallerMemory(t *testing.T) {
	env := grpcfasttest.StartEnv(t, unaryEcho{}, nil, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := grpcfasttest.Concurrently(ctx, 16, func(ctx context.Context, s int) error {
		for i := range 20 {
			mem := newCallerMemory()
			reply := new(kinds.Rich)
			mem.intoRich(reply)
			want := richWith(int64(s*100 + i))
			if err := env.Conn.Invoke(ctx, kinds.Kinds_Unary_FullMethodName, want, reply); err != nil {
				return err
			}
			if !proto.Equal(reply, want) {
				return errors.New("the reply differs from what was sent")
			}
			if err := mem.check(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// assigningServer's handlers put their own memory into each received
// message, as the receivers' documentation allows (the message is theirs to
// modify until the next Recv), and check after each Recv that it is intact.
type assigningServer struct{ kinds.UnimplementedKindsServer }

func (assigningServer) ClientStream(stream grpc.ClientStreamingServer[kinds.Rich, kinds.Summary]) error {
	r := kinds.NewKinds_ClientStreamRequestReceiver(stream)
	var mems []*callerMemory
	n := int64(0)
	for m, err := range r.All() {
		if err != nil {
			return err
		}
		if !proto.Equal(m, richWith(m.Id)) {
			return grpcfasttest.DataLoss(fmt.Errorf("message %d differs from what was sent", m.Id))
		}
		for _, c := range mems {
			if err := c.check(); err != nil {
				return grpcfasttest.DataLoss(err)
			}
		}
		c := newCallerMemory()
		c.intoRich(m)
		mems = append(mems, c)
		n++
	}
	for _, c := range mems {
		if err := c.check(); err != nil {
			return grpcfasttest.DataLoss(err)
		}
	}
	return stream.SendAndClose(&kinds.Summary{Count: n})
}

func (assigningServer) PooledBidi(stream grpc.BidiStreamingServer[kinds.Pooled, kinds.Pooled]) error {
	r := kinds.NewKinds_PooledBidiRequestReceiver(stream)
	var mems []*callerMemory
	for m, err := range r.All() {
		if err != nil {
			return err
		}
		if len(m.Numbers) == 0 || !proto.Equal(m, pooledWith(m.Numbers[0])) {
			return grpcfasttest.DataLoss(errors.New("pooled message differs from what was sent"))
		}
		for _, c := range mems {
			if err := c.check(); err != nil {
				return grpcfasttest.DataLoss(err)
			}
		}
		c := newCallerMemory()
		c.intoPooled(m)
		mems = append(mems, c)
	}
	for _, c := range mems {
		if err := c.check(); err != nil {
			return grpcfasttest.DataLoss(err)
		}
	}
	return nil
}

// TestHandlerMemoryKept: a handler that assigns its own buffer, slices, map
// and nested messages into the message a receiver returned finds them
// untouched by the following Recvs, 16 streams at once.
func TestHandlerMemoryKept(t *testing.T) {
	env := grpcfasttest.StartEnv(t, assigningServer{}, nil, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := grpcfasttest.Concurrently(ctx, 16, func(ctx context.Context, s int) error {
		cs, err := env.Client.ClientStream(ctx)
		if err != nil {
			return err
		}
		for i := range 8 {
			// Send fails with io.EOF once the server has ended the call;
			// CloseAndRecv then returns the server's status.
			if err := cs.Send(richWith(int64(s*100 + i))); err != nil && err != io.EOF {
				return err
			}
		}
		if _, err := cs.CloseAndRecv(); err != nil {
			return err
		}
		bs, err := env.Client.PooledBidi(ctx)
		if err != nil {
			return err
		}
		for i := range 8 {
			if err := bs.Send(pooledWith(int64(s*100 + i))); err != nil && err != io.EOF {
				return err
			}
		}
		bs.CloseSend()
		if _, err := bs.Recv(); err != io.EOF {
			return fmt.Errorf("PooledBidi ended with %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
