package grpcfasttest

// What the end-to-end tests share (receiver_streams_test.go, and most tests that
// run over real gRPC): deterministic messages that the receiving side can
// rebuild from their id, a Kinds server that checks every message it
// receives, clients for every method kind, pools and codecs that count, the
// three kinds of endpoint (grpcfast, the registered codec, gRPC's standard
// codec), and a server and connection on 127.0.0.1 (StartEnv, ServeAndDial).

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/internal/own"
	"github.com/grpcfast/grpcfast/internal/stdcodec"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
)

// ---------------------------------------------------------------------------
// Deterministic messages. Every message is a function of its id, so the
// receiving side can rebuild what it should have received and compare it
// field by field (EqualVT). Consecutive messages of a stream differ in which
// fields are set and in the size of their bytes fields, so that anything a
// reused message kept from the previous one shows up as a mismatch.

// streamSizes are the sizes of the Data fields, cycled through: around 0,
// the 16 KiB HTTP/2 frame (16376 bytes is the largest chunk whose gRPC
// message fits one frame; 16388 spills 13 bytes into the next) and beyond.
var streamSizes = []int{0, 1, 16376, 16384, 16388, 64 << 10, 100, 1024, 4000, 1025}

// noise is random bytes that messages copy their bytes fields from (a copy
// is much cheaper than generating bytes one by one, which matters under
// -race).
var noise = func() []byte {
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, 256<<10)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}()

// NoiseBytes returns n bytes determined by seed; nil if n is 0.
func NoiseBytes(seed int64, n int) []byte {
	if n == 0 {
		return nil
	}
	off := int(uint64(seed) * 7919 % uint64(len(noise)-n))
	return append([]byte(nil), noise[off:off+n]...)
}

// MsgID is the id of message i of stream s.
func MsgID(s, i int) int64 { return int64(s)<<20 | int64(i) }

// GenRich returns the Rich with the given id.
func GenRich(id int64) *kinds.Rich {
	s, i := int(id>>20), int(id&(1<<20-1))
	sel := i + 3*s
	m := &kinds.Rich{Id: id, Data: NoiseBytes(id, streamSizes[sel%len(streamSizes)])}
	switch sel % 3 {
	case 1:
		m.Color = kinds.Color_COLOR_RED
	case 2:
		m.Color = kinds.Color_COLOR_GREEN
	}
	if sel%4 == 1 {
		m.Name = "name-" + strconv.FormatInt(id, 10)
	}
	if n := sel % 4; n > 0 {
		m.Numbers = []int64{id, -id, 1 << 40, int64(sel)}[:n]
		m.Colors = []kinds.Color{kinds.Color_COLOR_GREEN, kinds.Color_COLOR_UNSPECIFIED, kinds.Color_COLOR_RED}[:n%3+1]
	}
	if sel%3 == 0 {
		m.Words = []string{"w", strconv.Itoa(sel), ""}
	}
	if sel%4 == 2 {
		m.Blobs = [][]byte{NoiseBytes(id+1, 10), {}, NoiseBytes(id+2, 300+sel%7)}
	}
	if sel%2 == 1 {
		m.Inner = &kinds.Inner{Label: "in", Payload: NoiseBytes(id+3, sel%50), Values: []uint32{1, 2, 3}[:sel%4]}
	}
	for k := range sel % 5 {
		m.Inners = append(m.Inners, &kinds.Inner{Label: strconv.Itoa(k), Payload: NoiseBytes(id+int64(k), k*k), Values: []uint32{uint32(k)}})
	}
	if sel%3 == 1 {
		m.Counts = map[string]int64{"x": id, "y": int64(sel), "": 0}
	}
	switch sel % 4 {
	case 1:
		m.Choice = &kinds.Rich_Text{Text: "text " + strconv.Itoa(sel)}
	case 2:
		m.Choice = &kinds.Rich_Raw{Raw: NoiseBytes(id+5, sel%20)}
	case 3:
		m.Choice = &kinds.Rich_Nested{Nested: &kinds.Inner{Payload: NoiseBytes(id+6, 40)}}
	}
	switch sel % 3 {
	case 1:
		m.Maybe = []byte{} // present and empty
	case 2:
		m.Maybe = NoiseBytes(id+7, 1+sel%30)
	}
	if sel%2 == 0 {
		level := int32(sel)
		m.Level = &level
		m.Ratio = float64(sel) / 3
		m.F32 = uint32(sel) * 2654435761
		m.Sf64 = -id
		m.Flag = true
	}
	return m
}

// GenPooled returns the Pooled with the given id (carried in Numbers[0]).
func GenPooled(id int64) *kinds.Pooled {
	s, i := int(id>>20), int(id&(1<<20-1))
	sel := i + 3*s
	m := &kinds.Pooled{
		Data:    NoiseBytes(id, streamSizes[sel%len(streamSizes)]),
		Numbers: []int64{id, int64(sel), -1}[:1+sel%3],
	}
	for k := range sel % 3 {
		m.Inners = append(m.Inners, &kinds.Inner{Label: "p", Payload: NoiseBytes(id+int64(k), 1+k*100)})
	}
	if sel%2 == 1 {
		m.Name = "pooled"
	}
	return m
}

func PooledID(m *kinds.Pooled) int64 {
	if len(m.Numbers) == 0 {
		return -1
	}
	return m.Numbers[0]
}

// FailName marks a message that makes the test server's handler fail.
const FailName = "fail"

// CheckRich compares m with the message its id stands for, and its id with
// want unless want is negative.
func CheckRich(m *kinds.Rich, want int64) error {
	if want >= 0 && m.Id != want {
		return fmt.Errorf("received message %#x, want %#x", m.Id, want)
	}
	if g := GenRich(m.Id); !g.EqualVT(m) {
		return fmt.Errorf("message %#x differs from what was sent (data %d bytes, want %d)", m.Id, len(m.Data), len(g.Data))
	}
	return nil
}

func CheckPooled(m *kinds.Pooled, want int64) error {
	id := PooledID(m)
	if want >= 0 && id != want {
		return fmt.Errorf("received pooled message %#x, want %#x", id, want)
	}
	if id < 0 || !GenPooled(id).EqualVT(m) {
		return fmt.Errorf("pooled message %#x differs from what was sent", id)
	}
	return nil
}

// ---------------------------------------------------------------------------
// The test server. Every handler checks every message it receives. With plain
// set it receives with the streams' own Recv, as code without grpcfast does;
// otherwise with the generated helpers.

type KindsServer struct {
	kinds.UnimplementedKindsServer
	Plain bool
}

// RecvFunc returns the function that a handler or client receives with.
func RecvFunc[M any](plain bool, recv func() (*M, error), r *grpcfast.Receiver[M]) func() (*M, error) {
	if plain {
		return recv
	}
	return r.Recv
}

// Release gives r's messages, and the transport buffers their views hold,
// back (Release), if r is not nil: what a handler does when it is done with
// the last message.
func Release[M any](r *grpcfast.Receiver[M]) {
	if r != nil {
		r.Release()
	}
}

func DataLoss(err error) error { return status.Error(codes.DataLoss, err.Error()) }

func (s *KindsServer) Unary(_ context.Context, m *kinds.Rich) (*kinds.Rich, error) {
	if err := CheckRich(m, -1); err != nil {
		return nil, DataLoss(err)
	}
	return m, nil
}

func (s *KindsServer) ClientStream(stream grpc.ClientStreamingServer[kinds.Rich, kinds.Summary]) error {
	r := kinds.NewKinds_ClientStreamRequestReceiver(stream)
	defer Release(r)
	recv := RecvFunc(s.Plain, stream.Recv, r)
	var sum kinds.Summary
	next := int64(-1)
	for {
		m, err := recv()
		if err == io.EOF {
			return stream.SendAndClose(&sum)
		}
		if err != nil {
			return err
		}
		if m.Name == FailName {
			return status.Error(codes.Aborted, "handler failed on request")
		}
		if err := CheckRich(m, next); err != nil {
			return DataLoss(err)
		}
		next = m.Id + 1
		sum.Count++
		sum.Bytes += int64(len(m.Data))
		sum.Crc32C = crc32.Update(sum.Crc32C, Castagnoli, m.Data)
	}
}

// ServerStream sends the messages req.Id, req.Id+1, … : req.Numbers[0] of
// them (forever if negative). With a second number n, it fails after n.
func (s *KindsServer) ServerStream(req *kinds.Rich, stream grpc.ServerStreamingServer[kinds.Rich]) error {
	if len(req.Numbers) == 0 {
		return status.Error(codes.InvalidArgument, "no count")
	}
	count, failAt := req.Numbers[0], int64(-1)
	if len(req.Numbers) > 1 {
		failAt = req.Numbers[1]
	}
	for i := int64(0); count < 0 || i < count; i++ {
		if i == failAt {
			return status.Error(codes.Aborted, "handler failed mid-stream")
		}
		if err := stream.Send(GenRich(req.Id + i)); err != nil {
			return err
		}
	}
	return nil
}

func (s *KindsServer) Bidi(stream grpc.BidiStreamingServer[kinds.Rich, kinds.Rich]) error {
	r := kinds.NewKinds_BidiRequestReceiver(stream)
	defer Release(r)
	recv := RecvFunc(s.Plain, stream.Recv, r)
	next := int64(-1)
	for {
		m, err := recv()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if m.Name == FailName {
			return status.Error(codes.Aborted, "handler failed on request")
		}
		if err := CheckRich(m, next); err != nil {
			return DataLoss(err)
		}
		next = m.Id + 1
		// Sending the reused message back is safe here: no stats handler
		// or tracing keeps it after Send returns.
		if err := stream.Send(m); err != nil {
			return err
		}
	}
}

func (s *KindsServer) PooledBidi(stream grpc.BidiStreamingServer[kinds.Pooled, kinds.Pooled]) error {
	r := kinds.NewKinds_PooledBidiRequestReceiver(stream)
	defer Release(r)
	recv := RecvFunc(s.Plain, stream.Recv, r)
	next := int64(-1)
	for {
		m, err := recv()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := CheckPooled(m, next); err != nil {
			return DataLoss(err)
		}
		next = PooledID(m) + 1
		if err := stream.Send(m); err != nil {
			return err
		}
	}
}

var Castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ---------------------------------------------------------------------------
// Clients. Each runs stream s with n messages and checks everything it
// receives. With plain set, they receive with the streams' own Recv.

func RunUnary(ctx context.Context, c kinds.KindsClient, s, n int) error {
	for i := range n {
		m, err := c.Unary(ctx, GenRich(MsgID(s, i)))
		if err != nil {
			return fmt.Errorf("unary %d: %w", i, err)
		}
		if err := CheckRich(m, MsgID(s, i)); err != nil {
			return fmt.Errorf("unary: %w", err)
		}
	}
	return nil
}

func RunClientStream(ctx context.Context, c kinds.KindsClient, s, n int) error {
	stream, err := c.ClientStream(ctx)
	if err != nil {
		return err
	}
	var want kinds.Summary
	for i := range n {
		m := GenRich(MsgID(s, i))
		if err := stream.Send(m); err != nil {
			_, err = stream.CloseAndRecv()
			return fmt.Errorf("client stream: send %d: %w", i, err)
		}
		want.Count++
		want.Bytes += int64(len(m.Data))
		want.Crc32C = crc32.Update(want.Crc32C, Castagnoli, m.Data)
	}
	got, err := stream.CloseAndRecv()
	if err != nil {
		return fmt.Errorf("client stream: %w", err)
	}
	if !got.EqualVT(&want) {
		return fmt.Errorf("client stream: server summed %v, want %v", got, &want)
	}
	return nil
}

// keeper takes every 17th message from a Receiver and checks at the end
// that the taken messages did not change while the stream went on: a codec
// that aliased the transport's buffers, or a Receiver that kept decoding into
// a taken message, would fail it.
type keeper[M any] struct {
	kept  []*M
	ids   []int64
	check func(*M, int64) error
}

func (k *keeper[M]) maybeTake(r *grpcfast.Receiver[M], i int, id int64) error {
	if r == nil || i%17 != 5 {
		return nil
	}
	m := r.Take()
	if m == nil {
		//lint:ignore ST1005 it starts with the name of the method, Take
		return errors.New("Take after a successful Recv returned nil")
	}
	k.kept = append(k.kept, m)
	k.ids = append(k.ids, id)
	return nil
}

func (k *keeper[M]) verify() error {
	for i, m := range k.kept {
		if err := k.check(m, k.ids[i]); err != nil {
			return fmt.Errorf("taken message changed after later receives: %w", err)
		}
	}
	return nil
}

func RunServerStream(ctx context.Context, c kinds.KindsClient, s, n int, plain bool) error {
	stream, err := c.ServerStream(ctx, &kinds.Rich{Id: MsgID(s, 0), Numbers: []int64{int64(n)}})
	if err != nil {
		return err
	}
	var r *grpcfast.Receiver[kinds.Rich]
	if !plain {
		r = kinds.NewKinds_ServerStreamResponseReceiver(stream)
	}
	defer Release(r)
	recv := RecvFunc(plain, stream.Recv, r)
	k := keeper[kinds.Rich]{check: CheckRich}
	for i := 0; ; i++ {
		m, err := recv()
		if err == io.EOF {
			if i != n {
				return fmt.Errorf("server stream: %d messages, want %d", i, n)
			}
			return k.verify()
		}
		if err != nil {
			return fmt.Errorf("server stream: recv %d: %w", i, err)
		}
		if err := CheckRich(m, MsgID(s, i)); err != nil {
			return fmt.Errorf("server stream: %w", err)
		}
		if err := k.maybeTake(r, i, m.Id); err != nil {
			return err
		}
	}
}

// WaitFirst waits until first is closed or ctx is done.
func WaitFirst(ctx context.Context, first <-chan struct{}) {
	select {
	case <-first:
	case <-ctx.Done():
	}
}

// RunBidi sends from one goroutine while it receives and checks the echoes.
//
// The first message is sent before anything receives, and the sender sends
// the second only once the first echo has arrived, so that no SendMsg runs
// while the call commits. This works around a race in gRPC-Go (v1.85.0,
// stream.go) that would make the pool checks flaky: a client stream keeps
// an extra reference to each sent message's buffers for retries until the
// call commits, and the first successful RecvMsg commits it. If that commit
// happens while another goroutine's SendMsg is between its write and its
// bookkeeping (withRetry runs op unlocked, then onSuccess),
// bufferForRetryLocked sees the stream committed and returns without
// calling the cleanup, while SendMsg believes the buffer was kept for replay
// and skips its Free: that message's buffer is never returned to the pool
// (the garbage collector reclaims it). At most one message per stream is
// affected, with any codec. (Sending the first message from the sender
// goroutine too left that race open for it, and CI lost one buffer so.)
func RunBidi(ctx context.Context, c kinds.KindsClient, s, n int, plain bool) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := c.Bidi(ctx)
	if err != nil {
		return err
	}
	send := func(i int) error { return stream.Send(GenRich(MsgID(s, i))) }
	var r *grpcfast.Receiver[kinds.Rich]
	if !plain {
		r = kinds.NewKinds_BidiResponseReceiver(stream)
	}
	idOf := func(m *kinds.Rich) int64 { return m.Id }
	return runEcho(ctx, "bidi", stream, r, send, CheckRich, idOf, s, n, plain)
}

func RunPooledBidi(ctx context.Context, c kinds.KindsClient, s, n int, plain bool) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := c.PooledBidi(ctx)
	if err != nil {
		return err
	}
	// Send from vtprotobuf's pool, as code that uses pooled messages does.
	// The message goes back to the pool after Send: gRPC has marshalled it
	// by then and nothing else here keeps it.
	send := func(i int) error {
		m := kinds.PooledFromVTPool()
		g := GenPooled(MsgID(s, i))
		m.Data = append(m.Data, g.Data...)
		m.Numbers = append(m.Numbers, g.Numbers...)
		m.Inners = append(m.Inners, g.Inners...)
		m.Name = g.Name
		err := stream.Send(m)
		m.ReturnToVTPool()
		return err
	}
	var r *grpcfast.Receiver[kinds.Pooled]
	if !plain {
		r = kinds.NewKinds_PooledBidiResponseReceiver(stream)
	}
	return runEcho(ctx, "pooled bidi", stream, r, send, CheckPooled, PooledID, s, n, plain)
}

// runEcho sends n messages with send from one goroutine while it receives
// and checks their echoes, with r or, if plain, the stream's own Recv.
func runEcho[M any](ctx context.Context, name string, stream grpc.BidiStreamingClient[M, M], r *grpcfast.Receiver[M],
	send func(i int) error, check func(*M, int64) error, idOf func(*M) int64, s, n int, plain bool,
) error {
	if n > 0 {
		// Before the receiver starts: see RunBidi.
		if err := send(0); err != nil {
			return fmt.Errorf("%s: send 0: %w", name, err)
		}
	}
	sendErr := make(chan error, 1)
	firstEcho := make(chan struct{})
	go func() {
		for i := 1; i < n; i++ {
			if i == 1 {
				WaitFirst(ctx, firstEcho)
			}
			if err := send(i); err != nil {
				sendErr <- fmt.Errorf("%s: send %d: %w", name, i, err)
				return
			}
		}
		sendErr <- stream.CloseSend()
	}()
	defer Release(r)
	recv := RecvFunc(plain, stream.Recv, r)
	k := keeper[M]{check: check}
	for i := 0; ; i++ {
		m, err := recv()
		if err == io.EOF {
			if i != n {
				return fmt.Errorf("%s: %d echoes, want %d", name, i, n)
			}
			if err := <-sendErr; err != nil {
				return err
			}
			return k.verify()
		}
		if err != nil {
			return fmt.Errorf("%s: recv %d: %w", name, i, err)
		}
		if i == 0 {
			close(firstEcho)
		}
		if err := check(m, MsgID(s, i)); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if err := k.maybeTake(r, i, idOf(m)); err != nil {
			return err
		}
	}
}

// WaitBalanced waits, at most 15 s, until every buffer taken from pools has
// been returned. After a failure it does nothing: buffers that a failed
// stream left behind would only add noise, and waiting would slow down the
// failing run. Nor in a grpcfast_checked build, which gives no buffer back
// (own.Quarantine: poisoned, never reused).
func WaitBalanced(t *testing.T, what string, pools ...*Pool) {
	t.Helper()
	WaitBalancedSlack(t, what, 0, pools...)
}

// WaitBalancedSlack is WaitBalanced allowing up to slack buffers per pool
// not to come back.
func WaitBalancedSlack(t *testing.T, what string, slack int64, pools ...*Pool) {
	t.Helper()
	if t.Failed() || own.Quarantine {
		return
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		var bad []string
		for _, p := range pools {
			if n := p.Unreturned(); n > slack {
				bad = append(bad, fmt.Sprintf("%s: %d of %d buffers not returned", p.Name, n, p.LargeGets.Load()))
			}
		}
		if len(bad) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %s", what, strings.Join(bad, "; "))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// CountingCodec counts the calls to the codec it wraps; it proves that a
// Side of a call really used gRPC's standard codec.
type CountingCodec struct {
	encoding.CodecV2
	Calls atomic.Int64
}

func (c *CountingCodec) Marshal(v any) (mem.BufferSlice, error) {
	c.Calls.Add(1)
	return c.CodecV2.Marshal(v)
}

func (c *CountingCodec) Unmarshal(data mem.BufferSlice, v any) error {
	c.Calls.Add(1)
	return c.CodecV2.Unmarshal(data, v)
}

// Side is how one end of a call encodes and receives.
type Side int

const (
	// FastSide forces grpcfast's codec (ServerOption, DialOption) with a
	// counted pool, and receives with the generated helpers.
	FastSide Side = iota
	// RegisteredSide relies on the codec that the generated package
	// registered under "proto", and receives with the generated helpers.
	RegisteredSide
	// StdSide forces gRPC's standard codec and receives with the streams'
	// own Recv, as a program without grpcfast does.
	StdSide
)

func (s Side) String() string { return [...]string{"grpcfast", "registered", "std"}[s] }

// Endpoint is one end's configuration: its codec pool or standard codec.
type Endpoint struct {
	Side  Side
	Pool  *Pool          // FastSide: the codec's pool
	Std   *CountingCodec // StdSide: the standard codec
	Plain bool
}

func NewEndpoint(s Side, name string) *Endpoint {
	e := &Endpoint{Side: s, Plain: s == StdSide}
	switch s {
	case FastSide:
		e.Pool = NewBalancePool(name+" codec pool", grpcfast.NewBufferPool())
	case StdSide:
		e.Std = &CountingCodec{CodecV2: stdcodec.Codec()}
	}
	return e
}

func (e *Endpoint) ServerOptions() []grpc.ServerOption {
	switch e.Side {
	case FastSide:
		return []grpc.ServerOption{grpcfast.ServerOption(grpcfast.WithBufferPool(e.Pool))}
	case StdSide:
		return []grpc.ServerOption{grpc.ForceServerCodecV2(e.Std)}
	}
	return nil
}

func (e *Endpoint) DialOptions() []grpc.DialOption {
	switch e.Side {
	case FastSide:
		return []grpc.DialOption{grpcfast.DialOption(grpcfast.WithBufferPool(e.Pool))}
	case StdSide:
		return []grpc.DialOption{grpc.WithDefaultCallOptions(grpc.ForceCodecV2(e.Std))}
	}
	return nil
}

// CheckUsed fails the test if the end's codec was not used at all.
func (e *Endpoint) CheckUsed(t *testing.T, what string) {
	t.Helper()
	switch e.Side {
	case FastSide:
		if e.Pool.LargeGets.Load() == 0 {
			t.Errorf("%s: the grpcfast codec took no buffer from its pool: was it used?", what)
		}
	case StdSide:
		if e.Std.Calls.Load() == 0 {
			t.Errorf("%s: the standard codec was never called", what)
		}
	}
}

type Env struct {
	srv    *grpc.Server
	Conn   *grpc.ClientConn
	Client kinds.KindsClient
}

// StartEnv serves impl on 127.0.0.1 and dials it.
func StartEnv(t testing.TB, impl kinds.KindsServer, sopts []grpc.ServerOption, dopts []grpc.DialOption) *Env {
	t.Helper()
	srv, conn := ServeAndDial(t, func(s *grpc.Server) { kinds.RegisterKindsServer(s, impl) }, sopts, dopts)
	return &Env{srv: srv, Conn: conn, Client: kinds.NewKindsClient(conn)}
}

// ServeAndDial starts a server on 127.0.0.1 with the services register
// adds, and dials it; both are stopped when the test ends.
func ServeAndDial(t testing.TB, register func(*grpc.Server), sopts []grpc.ServerOption, dopts []grpc.DialOption) (*grpc.Server, *grpc.ClientConn) {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(sopts...)
	register(srv)
	served := make(chan struct{})
	go func() {
		defer close(served)
		srv.Serve(lis)
	}()
	conn, err := grpc.NewClient(lis.Addr().String(),
		append([]grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}, dopts...)...)
	if err != nil {
		srv.Stop()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn.Close()
		srv.Stop()
		<-served
	})
	return srv, conn
}

func (e *Env) Close() {
	e.Conn.Close()
	e.srv.Stop()
}

// Concurrently runs fn for streams 0 to n-1 at once and returns the errors.
// The first error cancels the context that the other streams run with, so
// that a failing run ends quickly.
func Concurrently(ctx context.Context, n int, fn func(ctx context.Context, s int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu     sync.Mutex
		first  error
		failed int
		wg     sync.WaitGroup
	)
	for s := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := fn(ctx, s); err != nil {
				mu.Lock()
				defer mu.Unlock()
				if first == nil {
					first = fmt.Errorf("stream %d: %w", s, err)
					cancel()
				}
				failed++
			}
		}()
	}
	wg.Wait()
	if failed > 1 {
		return fmt.Errorf("%w (%d of %d streams failed; the first failure cancelled the others)", first, failed, n)
	}
	return first
}

// RunAllKinds runs every method kind with streams concurrent streams of msgs
// messages (unary: streams goroutines of msgs/8 calls). clientPlain makes the
// client receive with the streams' own Recv.
func RunAllKinds(t *testing.T, client kinds.KindsClient, streams, msgs int, clientPlain bool) {
	t.Helper()
	// Generous: under the race detector, on a loaded 2-core machine, all
	// of it takes about 12 s.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	kindsToRun := []struct {
		name string
		run  func(ctx context.Context, s int) error
	}{
		{"Unary", func(ctx context.Context, s int) error { return RunUnary(ctx, client, s, max(msgs/8, 1)) }},
		{"ClientStream", func(ctx context.Context, s int) error { return RunClientStream(ctx, client, s, msgs) }},
		{"ServerStream", func(ctx context.Context, s int) error { return RunServerStream(ctx, client, s, msgs, clientPlain) }},
		{"Bidi", func(ctx context.Context, s int) error { return RunBidi(ctx, client, s, msgs, clientPlain) }},
		{"PooledBidi", func(ctx context.Context, s int) error { return RunPooledBidi(ctx, client, s, msgs, clientPlain) }},
	}
	for _, k := range kindsToRun {
		if err := Concurrently(ctx, streams, k.run); err != nil {
			t.Errorf("%s: %v", k.name, err)
		}
	}
}
