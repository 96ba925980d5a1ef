package grpcfast_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"github.com/grpcfast/grpcfast/internal/own"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
)

// replyConn is a grpc.ClientConnInterface whose Invoke decodes the next of
// its replies into the reply message with its codec, as gRPC's Invoke does
// once the transport has read the response: what receiving a unary
// response costs in our code alone. An entry of fail fails that call
// instead: before any decode (a status error), or with a decode of bytes
// that do not parse.
type replyConn struct {
	codec   encoding.CodecV2
	replies []mem.BufferSlice
	fail    map[int]string // "status" or "decode"
	calls   int
	inCall  chan struct{} // if not nil, Invoke signals it and waits on resume
	resume  chan struct{}
}

var errBadStatus = status.Error(codes.Unavailable, "no response")

func (c *replyConn) Invoke(ctx context.Context, method string, in, reply any, opts ...grpc.CallOption) error {
	i := c.calls
	c.calls++
	if c.inCall != nil {
		c.inCall <- struct{}{}
		<-c.resume
	}
	switch c.fail[i] {
	case "status":
		return errBadStatus
	case "decode":
		return c.codec.Unmarshal(mem.BufferSlice{mem.SliceBuffer([]byte{0x0a, 0x7f, 'x'})}, reply)
	}
	return c.codec.Unmarshal(c.replies[i%len(c.replies)], reply)
}

func (c *replyConn) NewStream(context.Context, *grpc.StreamDesc, string, ...grpc.CallOption) (grpc.ClientStream, error) {
	return nil, errors.New("replyConn: no streams")
}

func newReplyConn(t testing.TB, codec encoding.CodecV2, replies ...proto.Message) *replyConn {
	t.Helper()
	c := &replyConn{codec: codec, fail: map[int]string{}}
	for _, m := range replies {
		b, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		c.replies = append(c.replies, grpcfasttest.SliceAt(b, len(b)/2))
	}
	return c
}

// TestResponsesReuse: a Responses decodes each response into one of two
// messages in turn, each equal to the one sent.
func TestResponsesReuse(t *testing.T) {
	sent := reuseResponses()
	cc := newReplyConn(t, grpcfast.NewCodec(), sent...)
	r := grpcfast.NewResponses[kinds.Rich]()
	seen := map[*kinds.Rich]bool{}
	for i := range 6 {
		m, err := r.Invoke(context.Background(), cc, "/grpcfast.testdata.kinds.Kinds/Unary", &kinds.Rich{})
		if err != nil {
			t.Fatal(err)
		}
		if !proto.Equal(m, sent[i%2]) {
			t.Fatalf("call %d: the response differs from the one sent", i)
		}
		seen[m] = true
	}
	if len(seen) != 2 {
		t.Errorf("six calls returned %d distinct messages, want 2", len(seen))
	}
}

// reuseResponses are responses of bytes, nested messages and repeated
// scalars, which a reused response holds without allocating again.
func reuseResponses() []proto.Message {
	return []proto.Message{
		&kinds.Rich{Id: 1, Data: grpcfasttest.Pattern(3000), Inner: &kinds.Inner{Payload: grpcfasttest.Pattern(100), Values: []uint32{1, 2}}, Inners: []*kinds.Inner{{Payload: grpcfasttest.Pattern(5)}}, Numbers: []int64{1, 2, 3}},
		&kinds.Rich{Id: 2, Data: grpcfasttest.Pattern(2000), Inner: &kinds.Inner{Payload: grpcfasttest.Pattern(50), Values: []uint32{3}}},
	}
}

// TestResponsesAllocs: once its two messages hold what the responses need,
// a call through a Responses allocates nothing to receive them.
func TestResponsesAllocs(t *testing.T) {
	if grpcfasttest.Race || own.Quarantine {
		t.Skip("the race detector makes sync.Pool drop items at random; grpcfast_checked builds never reuse memory taken back")
	}
	cc := newReplyConn(t, grpcfast.NewCodec(), reuseResponses()...)
	r := grpcfast.NewResponses[kinds.Rich]()
	n := testing.AllocsPerRun(100, func() {
		if _, err := r.Invoke(context.Background(), cc, "/m", nil); err != nil {
			panic(err)
		}
	})
	if n != 0 {
		t.Errorf("%v allocations per call, want 0", n)
	}
}

// TestResponsesFailedCallKeepsLast: a failed call, with no response or with
// one that fails to decode, returns nil and leaves the last response as it
// was, still the caller's; the next call decodes right.
func TestResponsesFailedCallKeepsLast(t *testing.T) {
	sent := &kinds.Rich{Id: 7, Name: "seven", Data: grpcfasttest.Pattern(4000), Words: []string{"a", "b"}}
	for _, copy := range []bool{false, true} {
		cc := newReplyConn(t, grpcfast.NewCodec(), sent)
		cc.fail[1], cc.fail[2], cc.fail[3] = "status", "decode", "decode"
		var opts []grpcfast.PooledOption
		if copy {
			opts = append(opts, grpcfast.WithStringsInOneCopy())
		}
		r := grpcfast.NewResponses[kinds.Rich](opts...)
		first, err := r.Invoke(context.Background(), cc, "/m", nil)
		if err != nil {
			t.Fatal(err)
		}
		want := proto.Clone(first)
		for i := 1; i <= 3; i++ {
			m, err := r.Invoke(context.Background(), cc, "/m", nil)
			if m != nil || err == nil || (i == 1) != (err == errBadStatus) {
				t.Fatalf("copy %v, call %d: %v, %v; want nil and its error", copy, i, m, err)
			}
			if !proto.Equal(first, want) || !bytes.Equal(first.Data, grpcfasttest.Pattern(4000)) {
				t.Fatalf("copy %v: a failed call changed the last response", copy)
			}
			if r.Take() != nil {
				t.Fatalf("copy %v: Take after a failed call returned a response", copy)
			}
		}
		m, err := r.Invoke(context.Background(), cc, "/m", nil)
		if err != nil || !proto.Equal(m, sent) {
			t.Fatalf("copy %v: the call after the failures: %v, equal %v", copy, err, proto.Equal(m, sent))
		}
	}
}

// TestResponsesTake: a taken response is the caller's: later calls never
// change it (in checked builds, never poison it), and Release does not.
func TestResponsesTake(t *testing.T) {
	sent := []proto.Message{
		&kinds.Rich{Id: 1, Data: grpcfasttest.Pattern(5000), Inner: &kinds.Inner{Payload: grpcfasttest.Pattern(300)}},
		&kinds.Rich{Id: 2, Data: grpcfasttest.Pattern(6000)},
	}
	cc := newReplyConn(t, grpcfast.NewCodec(), sent...)
	r := grpcfast.NewResponses[kinds.Rich]()
	m, err := r.Invoke(context.Background(), cc, "/m", nil)
	if err != nil {
		t.Fatal(err)
	}
	taken := r.Take()
	if taken != m || r.Take() != nil {
		t.Fatal("Take did not return the last response once")
	}
	for range 4 {
		if _, err := r.Invoke(context.Background(), cc, "/m", nil); err != nil {
			t.Fatal(err)
		}
	}
	r.Release()
	if !proto.Equal(taken, sent[0]) {
		t.Error("later calls or Release changed a taken response")
	}
}

// TestResponsesCallerMemory: what the caller put into a response is dropped
// at the next call, never written into.
func TestResponsesCallerMemory(t *testing.T) {
	sent := &kinds.Rich{Data: grpcfasttest.Pattern(3000), Inner: &kinds.Inner{Payload: grpcfasttest.Pattern(200)}, Blobs: [][]byte{grpcfasttest.Pattern(40)}}
	cc := newReplyConn(t, grpcfast.NewCodec(), sent)
	r := grpcfast.NewResponses[kinds.Rich]()
	mine := bytes.Repeat([]byte{'m'}, 8000)
	inner := &kinds.Inner{Payload: bytes.Repeat([]byte{'i'}, 500)}
	blobs := [][]byte{bytes.Repeat([]byte{'b'}, 100)}
	for i := range 4 {
		m, err := r.Invoke(context.Background(), cc, "/m", nil)
		if err != nil {
			t.Fatal(err)
		}
		if !proto.Equal(m, sent) {
			t.Fatalf("call %d: the response differs from the one sent", i)
		}
		m.Data, m.Inner, m.Blobs = mine[:0], inner, blobs
	}
	if !bytes.Equal(mine, bytes.Repeat([]byte{'m'}, 8000)) || inner.Payload[0] != 'i' || len(inner.Payload) != 500 || blobs[0][0] != 'b' {
		t.Error("a call wrote into memory that the caller put into a response")
	}
}

// TestResponsesOtherCodecs: responses decoded by gRPC's standard codec, or by
// vtprotobuf's merging codec as main() may register it, are right call
// after call; their memory is not reused, so a response kept by mistake is
// never overwritten by a later decode.
func TestResponsesOtherCodecs(t *testing.T) {
	sent := []proto.Message{
		&kinds.Rich{Id: 1, Data: grpcfasttest.Pattern(3000), Words: []string{"x"}, Inner: &kinds.Inner{Payload: grpcfasttest.Pattern(10)}},
		&kinds.Rich{Id: 2, Blobs: [][]byte{grpcfasttest.Pattern(7)}},
	}
	for name, codec := range map[string]encoding.CodecV2{"standard": grpcfast.StandardCodec(), "vtproto": vtMergingCodec{}} {
		cc := newReplyConn(t, codec, sent...)
		r := grpcfast.NewResponses[kinds.Rich]()
		var kept []*kinds.Rich
		var keptData [][]byte
		for i := range 6 {
			m, err := r.Invoke(context.Background(), cc, "/m", nil)
			if err != nil {
				t.Fatal(err)
			}
			if !proto.Equal(m, sent[i%2]) {
				t.Fatalf("%s, call %d: got %v", name, i, m)
			}
			kept = append(kept, m)
			keptData = append(keptData, m.Data)
		}
		for i, d := range keptData {
			if want := sent[i%2].(*kinds.Rich).Data; !bytes.Equal(d, want) {
				t.Errorf("%s: the data of response %d was overwritten by a later call", name, i)
			}
		}
		_ = kept
		r.Release()
	}
}

// vtMergingCodec is vtprotobuf's codec/grpc as a CodecV2: UnmarshalVT,
// which merges into the message.
type vtMergingCodec struct{}

func (vtMergingCodec) Marshal(v any) (mem.BufferSlice, error) {
	b, err := v.(interface{ MarshalVT() ([]byte, error) }).MarshalVT()
	return mem.BufferSlice{mem.SliceBuffer(b)}, err
}

func (vtMergingCodec) Unmarshal(data mem.BufferSlice, v any) error {
	return v.(interface{ UnmarshalVT([]byte) error }).UnmarshalVT(data.Materialize())
}

func (vtMergingCodec) Name() string { return "proto" }

// TestResponsesOneGoroutine: a call through a Responses while another is in
// progress panics, rather than decoding into the message the other returns.
func TestResponsesOneGoroutine(t *testing.T) {
	cc := newReplyConn(t, grpcfast.NewCodec(), &kinds.Rich{Id: 1})
	cc.inCall, cc.resume = make(chan struct{}), make(chan struct{})
	r := grpcfast.NewResponses[kinds.Rich]()
	done := make(chan error)
	go func() {
		_, err := r.Invoke(context.Background(), cc, "/m", nil)
		done <- err
	}()
	<-cc.inCall
	func() {
		defer func() {
			if p := recover(); p == nil {
				t.Error("a second call during the first did not panic")
			}
		}()
		r.Invoke(context.Background(), cc, "/m", nil)
	}()
	close(cc.resume)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	cc.inCall = nil
	if m, err := r.Invoke(context.Background(), cc, "/m", nil); err != nil || m.Id != 1 {
		t.Fatalf("after the panic: %v, %v", m, err)
	}
}

// TestResponsesStringsInOneCopy: with WithStringsInOneCopy the strings and
// bytes of a response view one copy of it; a taken response keeps them
// intact through later calls.
func TestResponsesStringsInOneCopy(t *testing.T) {
	sent := []proto.Message{
		&kinds.Rich{Name: "first", Words: []string{"alpha", "beta"}, Data: grpcfasttest.Pattern(2000)},
		&kinds.Rich{Name: "second", Words: []string{"gamma"}, Data: grpcfasttest.Pattern(1000)},
	}
	cc := newReplyConn(t, grpcfast.NewCodec(), sent...)
	r := grpcfast.NewResponses[kinds.Rich](grpcfast.WithStringsInOneCopy())
	m, err := r.Invoke(context.Background(), cc, "/m", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(m, sent[0]) {
		t.Fatal("the response differs from the one sent")
	}
	base := uintptr(unsafe.Pointer(unsafe.StringData(m.Name)))
	for _, p := range []uintptr{uintptr(unsafe.Pointer(unsafe.StringData(m.Words[1]))), uintptr(unsafe.Pointer(unsafe.SliceData(m.Data)))} {
		if max(p, base)-min(p, base) > uintptr(proto.Size(sent[0])) {
			t.Fatal("strings and bytes of the response are not views of one copy")
		}
	}
	taken := r.Take()
	for range 3 {
		if _, err := r.Invoke(context.Background(), cc, "/m", nil); err != nil {
			t.Fatal(err)
		}
	}
	if !proto.Equal(taken, sent[0]) {
		t.Error("later calls changed a taken response")
	}
}

// TestCheckedResponseKeptPastNextCall: in checked builds, a slice of a
// response kept past the next call reads the poison pattern, and so does
// the last response's after Release.
func TestCheckedResponseKeptPastNextCall(t *testing.T) {
	grpcfasttest.NeedChecked(t)
	sent := &kinds.Rich{Data: grpcfasttest.Pattern(5000), Inner: &kinds.Inner{Payload: grpcfasttest.Pattern(300)}}
	cc := newReplyConn(t, grpcfast.NewCodec(), sent)
	r := grpcfast.NewResponses[kinds.Rich]()
	m, err := r.Invoke(context.Background(), cc, "/m", nil)
	if err != nil {
		t.Fatal(err)
	}
	data, payload := m.Data, m.Inner.Payload
	m2, err := r.Invoke(context.Background(), cc, "/m", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !grpcfasttest.Poisoned(data) || !grpcfasttest.Poisoned(payload) {
		t.Errorf("slices kept past the next call read %x..., %x...; want the poison pattern", data[:8], payload[:8])
	}
	last := m2.Data
	r.Release()
	if !grpcfasttest.Poisoned(last) {
		t.Errorf("the last response's data after Release reads %x..., want the poison pattern", last[:8])
	}
}

// reusingServer answers Unary with the request it got, after checking the
// metadata, and fails on request; ClientStream with the count.
type reusingServer struct {
	kinds.UnimplementedKindsServer
}

func (reusingServer) Unary(ctx context.Context, in *kinds.Rich) (*kinds.Rich, error) {
	if in.Name == "fail" {
		return nil, status.Error(codes.FailedPrecondition, "asked to fail")
	}
	md, _ := metadata.FromIncomingContext(ctx)
	grpc.SetHeader(ctx, metadata.Pairs("seen", fmt.Sprint(md.Get("who"))))
	grpc.SetTrailer(ctx, metadata.Pairs("id", fmt.Sprint(in.Id)))
	return in, nil
}

func (reusingServer) ClientStream(stream kinds.Kinds_ClientStreamServer) error {
	var n int64
	for {
		_, err := stream.Recv()
		if err == io.EOF {
			return stream.SendAndClose(&kinds.Summary{Count: n})
		}
		if err != nil {
			return err
		}
		n++
	}
}

// TestReusingClientOverGRPC: the generated reusing client over a real gRPC
// connection, 4 goroutines with a client each: every response is the one
// the server sent (decoded by the grpcfast codec, or by gRPC's standard
// codec forced on a call), the interceptors see every call, metadata and trailers
// arrive, status errors come back as they are and leave the last response
// intact; responses kept with Take stay right to the end; client-streaming
// responses are received into reused messages too.
func TestReusingClientOverGRPC(t *testing.T) {
	var intercepted atomic.Int64
	count := func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		if method == "/grpcfast.testdata.kinds.Kinds/Unary" {
			intercepted.Add(1)
		}
		return invoker(ctx, method, req, reply, cc, opts...)
	}
	env := grpcfasttest.StartEnv(t, reusingServer{}, nil, []grpc.DialOption{grpc.WithUnaryInterceptor(count)})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const calls = 40
	var failures atomic.Int64
	err := grpcfasttest.Concurrently(ctx, 4, func(ctx context.Context, g int) error {
		c := kinds.NewKindsReusingClient(env.Conn)
		defer c.Release()
		var kept []*kinds.Rich
		var last *kinds.Rich
		for i := range calls {
			want := &kinds.Rich{Id: int64(g*1000 + i), Name: fmt.Sprint("call ", i), Data: grpcfasttest.NoiseBytes(int64(i), 100*i), Words: []string{"w", fmt.Sprint(g)}}
			if i%7 == 3 && last != nil {
				// A failed call leaves the last response as it was.
				failures.Add(1)
				before := proto.Clone(last)
				m, err := c.Unary(ctx, &kinds.Rich{Name: "fail"})
				if status.Code(err) != codes.FailedPrecondition || m != nil {
					return fmt.Errorf("a failing call: %v, %v", m, err)
				}
				if !proto.Equal(last, before) {
					return errors.New("a failed call changed the last response")
				}
			}
			var header, trailer metadata.MD
			out := metadata.AppendToOutgoingContext(ctx, "who", fmt.Sprint(g))
			opts := []grpc.CallOption{grpc.Header(&header), grpc.Trailer(&trailer)}
			if i%5 == 4 {
				// Decoded by gRPC's standard codec: right, and not reused.
				opts = append(opts, grpc.ForceCodecV2(grpcfast.StandardCodec()))
			}
			m, err := c.Unary(out, want, opts...)
			if err != nil {
				return err
			}
			if !proto.Equal(m, want) {
				return fmt.Errorf("goroutine %d, call %d: the response differs from the one sent", g, i)
			}
			if got := header.Get("seen"); len(got) != 1 || got[0] != fmt.Sprint([]string{fmt.Sprint(g)}) {
				return fmt.Errorf("header: %v", got)
			}
			if got := trailer.Get("id"); len(got) != 1 || got[0] != fmt.Sprint(want.Id) {
				return fmt.Errorf("trailer: %v", got)
			}
			last = m
			if i%10 == 0 {
				kept = append(kept, c.TakeUnary())
				last = nil
			}
		}
		for j, m := range kept {
			if m.Id != int64(g*1000+j*10) || m.Name != fmt.Sprint("call ", j*10) || !bytes.Equal(m.Data, grpcfasttest.NoiseBytes(int64(j*10), 100*j*10)) {
				return fmt.Errorf("goroutine %d: the response kept with Take at call %d changed", g, j*10)
			}
		}
		for n := range 3 {
			cs, err := env.Client.ClientStream(ctx)
			if err != nil {
				return err
			}
			for range n {
				if err := cs.Send(&kinds.Rich{Id: 1}); err != nil {
					return err
				}
			}
			sum, err := c.CloseAndRecvClientStream(cs)
			if err != nil || sum.Count != int64(n) {
				return fmt.Errorf("client stream of %d: %v, %v", n, sum, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := intercepted.Load(), 4*calls+failures.Load(); got != want || failures.Load() == 0 {
		t.Errorf("the interceptor saw %d calls of Unary, want %d (%d failing)", got, want, failures.Load())
	}
}

// closingStream is the part of a client-streaming call that CloseAndRecv
// uses: CloseSend fails with closeErr, else RecvMsg decodes reply.
type closingStream struct {
	grpc.ClientStream
	codec    encoding.CodecV2
	reply    mem.BufferSlice
	closeErr error
}

func (s *closingStream) CloseSend() error    { return s.closeErr }
func (s *closingStream) RecvMsg(m any) error { return s.codec.Unmarshal(s.reply, m) }

// TestResponsesCloseAndRecv: CloseAndRecv receives a client stream's
// response into a reused message; when closing the stream fails, the call
// fails: it returns nil, the last response stays as it was, and Take
// returns nil, as after any failed call.
func TestResponsesCloseAndRecv(t *testing.T) {
	sent := &kinds.Summary{Count: 42}
	b, err := proto.Marshal(sent)
	if err != nil {
		t.Fatal(err)
	}
	st := &closingStream{codec: grpcfast.NewCodec(), reply: grpcfasttest.SliceAt(b)}
	r := grpcfast.NewResponses[kinds.Summary]()
	m, err := r.CloseAndRecv(st)
	if err != nil || !proto.Equal(m, sent) {
		t.Fatalf("CloseAndRecv: %v, %v", m, err)
	}
	st.closeErr = io.ErrClosedPipe
	if got, err := r.CloseAndRecv(st); got != nil || err != io.ErrClosedPipe {
		t.Fatalf("CloseAndRecv with a failing CloseSend: %v, %v", got, err)
	}
	if !proto.Equal(m, sent) {
		t.Error("a failed call changed the last response")
	}
	if r.Take() != nil {
		t.Error("Take after a failed call returned a response")
	}
}
