package grpcfast_test

// TestSendBufPaths locks in the reading of grpc-go v1.85.0 that the comment
// above sendBuf in marshal.go records: Marshal's one-element BufferSlice
// array is recycled (and its bytes returned to the codec's pool) when gRPC
// frees the buffer, which is only safe if gRPC never reads the slice's
// elements, or the bytes, after the final Free.
//
// Every sub-test runs real servers and clients on 127.0.0.1 with the grpcfast
// codec forced on both ends, each with its own auditPool, and with a pooling
// threshold of 0 so that every non-empty message is marshalled into a pooled
// buffer wrapped by a sendBuf (the codec asks the pool for at least
// MinPooledCap bytes, so mem returns every one of them). The pool
//
//   - hands out a new buffer for every Get, filled with junk, and never
//     reuses one, so that a buffer put back stays poisoned;
//   - overwrites a buffer when it is put back (the poison), so that a read of
//     a freed buffer sends garbage to the peer, where every message is
//     checked against what was sent (genRich/checkRich, checkPooled, CRC
//     summaries, binary log copies);
//   - records a Put of a buffer that it did not hand out, or that was already
//     put back (a double Free through sendBuf), and fails the test with it;
//   - must be balanced at the end: every buffer handed out came back once.
//
// The balance is checked exactly, with no slack for the known gRPC-Go
// leaks described in streams_test.go, because no sub-test can hit them: no
// stream is cancelled or ended by one side while the other is still sending
// (TestStreamEndsReleaseEverything), the bidi clients send their second
// message only once the first echo has committed the call (runBidi), and
// the retried calls send everything before they receive.

import (
	"bytes"
	"context"
	"fmt"
	"hash/crc32"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/h2c"
	"google.golang.org/grpc"
	"google.golang.org/grpc/binarylog"
	binlogpb "google.golang.org/grpc/binarylog/grpc_binarylog_v1"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding/gzip"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/stats"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
)

// ---------------------------------------------------------------------------
// The audit pool.

var (
	auditJunk   = bytes.Repeat([]byte{0x5a}, 4096) // what a new buffer holds
	auditPoison = bytes.Repeat([]byte{0xa5}, 4096) // what a freed buffer holds
)

func fillWith(b, pat []byte) {
	for len(b) > 0 {
		b = b[copy(b, pat):]
	}
}

// auditPool is a mem.BufferPool that never reuses a buffer, poisons every
// buffer put back, and records every Get and Put (see the top of the file).
type auditPool struct {
	name string

	mu   sync.Mutex
	out  map[*[]byte]int      // handed out, not yet back: requested size
	back map[*[]byte]struct{} // put back
	gets int
	big  int // Gets of at least 16 KiB
	errs []string
}

func newAuditPool(name string) *auditPool {
	return &auditPool{name: name, out: map[*[]byte]int{}, back: map[*[]byte]struct{}{}}
}

func (p *auditPool) Get(n int) *[]byte {
	b := make([]byte, n)
	fillWith(b, auditJunk) // the codec must overwrite what it uses
	p.mu.Lock()
	defer p.mu.Unlock()
	p.gets++
	if n >= 16<<10 {
		p.big++
	}
	p.out[&b] = n
	return &b
}

func (p *auditPool) Put(b *[]byte) {
	p.mu.Lock()
	if n, ok := p.out[b]; ok {
		delete(p.out, b)
		p.back[b] = struct{}{}
		if cap(*b) != n {
			p.errs = append(p.errs, fmt.Sprintf("buffer of %d bytes came back with capacity %d", n, cap(*b)))
		}
	} else if _, ok := p.back[b]; ok {
		p.errs = append(p.errs, fmt.Sprintf("buffer (cap %d) put back twice", cap(*b)))
	} else {
		p.errs = append(p.errs, fmt.Sprintf("Put of a buffer (cap %d) that the pool did not hand out", cap(*b)))
	}
	p.mu.Unlock()
	fillWith((*b)[:cap(*b)], auditPoison)
}

// counts returns the number of Gets and of buffers out.
func (p *auditPool) counts() (gets, out int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.gets, len(p.out)
}

func (p *auditPool) outstanding() int {
	_, out := p.counts()
	return out
}

// report fails t with the pool's misuse and the buffers still out.
func (p *auditPool) report(t *testing.T, what string) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, e := range p.errs {
		t.Errorf("%s: %s: %s", what, p.name, e)
	}
	p.errs = nil
	if len(p.out) != 0 {
		var sizes []int
		for _, n := range p.out {
			sizes = append(sizes, n)
		}
		sort.Ints(sizes)
		t.Errorf("%s: %s: %d of %d buffers not returned (sizes %v)", what, p.name, len(p.out), p.gets, sizes)
	}
}

// waitQuiet waits, at most 5 s, until no buffer of pools is out, and
// reports whether that happened.
func waitQuiet(pools ...*auditPool) bool {
	deadline := time.Now().Add(5 * time.Second)
	for {
		n := 0
		for _, p := range pools {
			n += p.outstanding()
		}
		if n == 0 {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// waitAudit waits until every buffer of pools is back and fails t with
// anything the pools recorded.
func waitAudit(t *testing.T, what string, pools ...*auditPool) {
	t.Helper()
	waitQuiet(pools...)
	for _, p := range pools {
		p.report(t, what)
	}
}

// requireUsed fails t if a pool never handed out a buffer (the codec was not
// used) or none of at least 16 KiB (no message spanned HTTP/2 frames).
func requireUsed(t *testing.T, pools ...*auditPool) {
	t.Helper()
	for _, p := range pools {
		p.mu.Lock()
		gets, big := p.gets, p.big
		p.mu.Unlock()
		if gets == 0 {
			t.Errorf("%s: no buffer was taken: was the grpcfast codec used?", p.name)
		} else if big == 0 {
			t.Errorf("%s: no buffer of 16 KiB or more was taken", p.name)
		}
	}
}

// ---------------------------------------------------------------------------
// Servers and connections.

// sbEnv is a server and a connection with the grpcfast codec forced on both
// ends, with a pooling threshold of 0 and an auditPool each.
type sbEnv struct {
	srvPool, cliPool *auditPool
	client           kinds.KindsClient
	h2Requests       atomic.Int64 // ServeHTTP: requests served over HTTP/2
	closeOnce        sync.Once
	closeFn          func()
}

func (e *sbEnv) close() { e.closeOnce.Do(e.closeFn) }

func sbCodecOptions(p *auditPool) []grpcfast.Option {
	return []grpcfast.Option{grpcfast.WithBufferPool(p), grpcfast.WithPoolingThreshold(0)}
}

// startSB serves impl and dials it; srvPool and cliPool may be nil for new
// ones. With serveHTTP, the grpc.Server is served by net/http (unencrypted
// HTTP/2 with prior knowledge) through Server.ServeHTTP instead of
// Server.Serve.
func startSB(t *testing.T, impl kinds.KindsServer, srvPool, cliPool *auditPool,
	sopts []grpc.ServerOption, dopts []grpc.DialOption, serveHTTP bool,
) *sbEnv {
	t.Helper()
	if srvPool == nil {
		srvPool = newAuditPool("server codec pool")
	}
	if cliPool == nil {
		cliPool = newAuditPool("client codec pool")
	}
	e := &sbEnv{srvPool: srvPool, cliPool: cliPool}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(append([]grpc.ServerOption{grpcfast.ServerOption(sbCodecOptions(srvPool)...)}, sopts...)...)
	kinds.RegisterKindsServer(srv, impl)
	served := make(chan struct{})
	var stopServing func()
	if serveHTTP {
		// Unencrypted HTTP/2 through x/net's h2c: net/http's own
		// (http.Protocols) needs Go 1.24, and the module supports Go 1.23.
		hs := &http.Server{
			Handler: h2c.NewHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.ProtoMajor == 2 {
					e.h2Requests.Add(1)
				}
				srv.ServeHTTP(w, r)
			}), &http2.Server{}),
			ErrorLog: log.New(io.Discard, "", 0),
		}
		go func() {
			defer close(served)
			hs.Serve(lis)
		}()
		stopServing = func() {
			hs.Close()
			srv.Stop()
		}
	} else {
		go func() {
			defer close(served)
			srv.Serve(lis)
		}()
		stopServing = srv.Stop
	}
	conn, err := grpc.NewClient(lis.Addr().String(), append([]grpc.DialOption{
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpcfast.DialOption(sbCodecOptions(cliPool)...),
	}, dopts...)...)
	if err != nil {
		stopServing()
		t.Fatal(err)
	}
	e.client = kinds.NewKindsClient(conn)
	e.closeFn = func() {
		conn.Close()
		stopServing()
		<-served
	}
	t.Cleanup(e.close)
	return e
}

// finish checks that every buffer came back once the calls ended, then
// closes the connection and the server and checks again.
func (e *sbEnv) finish(t *testing.T) {
	t.Helper()
	waitAudit(t, "after the calls", e.srvPool, e.cliPool)
	failed := t.Failed()
	e.close()
	if !failed {
		waitAudit(t, "after closing", e.srvPool, e.cliPool)
	}
}

// ---------------------------------------------------------------------------
// The workload: every method kind, from concurrent streams, every message
// checked by the receiver (the helpers of streams_test.go).

type sbWorkload struct{ streams, unary, msgs int }

var sbLoad = sbWorkload{streams: 2, unary: 4, msgs: 12}

func (w sbWorkload) rpcs() int { return w.streams * (w.unary + 4) }

// clientMsgs is the number of messages the clients send: unary requests,
// client-stream messages, the server-stream request, bidi and pooled bidi
// messages.
func (w sbWorkload) clientMsgs() int { return w.streams * (w.unary + w.msgs + 1 + 2*w.msgs) }

// serverMsgs is the number of messages the server sends.
func (w sbWorkload) serverMsgs() int { return w.streams * (w.unary + 1 + 3*w.msgs) }

func (w sbWorkload) run(t *testing.T, c kinds.KindsClient, opts ...grpc.CallOption) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, k := range []struct {
		name string
		run  func(ctx context.Context, s int) error
	}{
		{"Unary", func(ctx context.Context, s int) error { return runUnary(ctx, withOpts{c, opts}, s, w.unary) }},
		{"ClientStream", func(ctx context.Context, s int) error { return runClientStream(ctx, withOpts{c, opts}, s, w.msgs) }},
		{"ServerStream", func(ctx context.Context, s int) error {
			return runServerStream(ctx, withOpts{c, opts}, s, w.msgs, false)
		}},
		{"Bidi", func(ctx context.Context, s int) error { return runBidi(ctx, withOpts{c, opts}, s, w.msgs, false) }},
		{"PooledBidi", func(ctx context.Context, s int) error {
			return runPooledBidi(ctx, withOpts{c, opts}, s, w.msgs, false)
		}},
	} {
		if err := concurrently(ctx, w.streams, k.run); err != nil {
			t.Errorf("%s: %v", k.name, err)
		}
	}
}

// withOpts adds call options to every call of a client.
type withOpts struct {
	kinds.KindsClient
	opts []grpc.CallOption
}

func (c withOpts) Unary(ctx context.Context, in *kinds.Rich, opts ...grpc.CallOption) (*kinds.Rich, error) {
	return c.KindsClient.Unary(ctx, in, append(c.opts, opts...)...)
}

func (c withOpts) ClientStream(ctx context.Context, opts ...grpc.CallOption) (grpc.ClientStreamingClient[kinds.Rich, kinds.Summary], error) {
	return c.KindsClient.ClientStream(ctx, append(c.opts, opts...)...)
}

func (c withOpts) ServerStream(ctx context.Context, in *kinds.Rich, opts ...grpc.CallOption) (grpc.ServerStreamingClient[kinds.Rich], error) {
	return c.KindsClient.ServerStream(ctx, in, append(c.opts, opts...)...)
}

func (c withOpts) Bidi(ctx context.Context, opts ...grpc.CallOption) (grpc.BidiStreamingClient[kinds.Rich, kinds.Rich], error) {
	return c.KindsClient.Bidi(ctx, append(c.opts, opts...)...)
}

func (c withOpts) PooledBidi(ctx context.Context, opts ...grpc.CallOption) (grpc.BidiStreamingClient[kinds.Pooled, kinds.Pooled], error) {
	return c.KindsClient.PooledBidi(ctx, append(c.opts, opts...)...)
}

// ---------------------------------------------------------------------------
// Retries: a server that fails the first attempts of a call.

// sbRetryConfig retries every method of Kinds on UNAVAILABLE, up to 4
// attempts, with short backoffs.
const sbRetryConfig = `{"methodConfig": [{
	"name": [{"service": "grpcfast.testdata.kinds.Kinds"}],
	"retryPolicy": {
		"maxAttempts": 4,
		"initialBackoff": "0.01s",
		"maxBackoff": "0.05s",
		"backoffMultiplier": 2,
		"retryableStatusCodes": ["UNAVAILABLE"]
	}
}]}`

// retryServer reads every message of a call's attempt and checks it. An
// attempt whose number (grpc-previous-rpc-attempts, 0 for the first) is
// below the call's x-fail-attempts then fails with UNAVAILABLE before
// sending anything: a trailers-only response, which the client may retry,
// replaying the messages it keeps for that. Because the handler reads
// everything first (up to the client's half-close), the client is never
// still sending when an attempt fails, so no message can be lost to
// gRPC-Go's loopy writer (see TestStreamEndsReleaseEverything).
type retryServer struct {
	kinds.UnimplementedKindsServer
	mu       sync.Mutex
	attempts map[string][]string // call → "attempt N: M messages" per attempt
}

func (s *retryServer) attempt(ctx context.Context, n int, err error) (fail bool) {
	md, _ := metadata.FromIncomingContext(ctx)
	get := func(k string) int {
		if v := md.Get(k); len(v) == 1 {
			n, _ := strconv.Atoi(v[0])
			return n
		}
		return 0
	}
	prev, failures := get("grpc-previous-rpc-attempts"), get("x-fail-attempts")
	call := "?"
	if v := md.Get("x-call"); len(v) == 1 {
		call = v[0]
	}
	rec := fmt.Sprintf("attempt %d: %d messages", prev, n)
	if err != nil {
		rec += fmt.Sprintf(" (%v)", err)
	}
	s.mu.Lock()
	s.attempts[call] = append(s.attempts[call], rec)
	s.mu.Unlock()
	return prev < failures
}

func (s *retryServer) calls(call string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.attempts[call]
}

// recvAllChecked receives until EOF and checks that the messages are
// consecutive and intact.
func recvAllChecked(recv func() (*kinds.Rich, error)) ([]*kinds.Rich, error) {
	var msgs []*kinds.Rich
	next := int64(-1)
	for {
		m, err := recv()
		if err == io.EOF {
			return msgs, nil
		}
		if err != nil {
			return msgs, err
		}
		if err := checkRich(m, next); err != nil {
			return msgs, dataLoss(err)
		}
		next = m.Id + 1
		msgs = append(msgs, m)
	}
}

func (s *retryServer) ClientStream(stream grpc.ClientStreamingServer[kinds.Rich, kinds.Summary]) error {
	msgs, err := recvAllChecked(stream.Recv)
	if s.attempt(stream.Context(), len(msgs), err) {
		return status.Error(codes.Unavailable, "attempt failed on purpose")
	}
	if err != nil {
		return err
	}
	return stream.SendAndClose(summaryOf(msgs))
}

func (s *retryServer) Bidi(stream grpc.BidiStreamingServer[kinds.Rich, kinds.Rich]) error {
	msgs, err := recvAllChecked(stream.Recv)
	if s.attempt(stream.Context(), len(msgs), err) {
		return status.Error(codes.Unavailable, "attempt failed on purpose")
	}
	if err != nil {
		return err
	}
	for _, m := range msgs {
		if err := stream.Send(m); err != nil {
			return err
		}
	}
	return nil
}

func summaryOf(msgs []*kinds.Rich) *kinds.Summary {
	var sum kinds.Summary
	for _, m := range msgs {
		sum.Count++
		sum.Bytes += int64(len(m.Data))
		sum.Crc32C = crc32.Update(sum.Crc32C, castagnoli, m.Data)
	}
	return &sum
}

func retryCtx(call string, failures int) context.Context {
	return metadata.AppendToOutgoingContext(context.Background(), "x-call", call, "x-fail-attempts", strconv.Itoa(failures))
}

// wantAttempts checks that the server saw the attempts numbered 0 to
// len(want)-1, each with every message of the call intact.
func wantAttempts(t *testing.T, got []string, attempts, msgs int) {
	t.Helper()
	var want []string
	for i := range attempts {
		want = append(want, fmt.Sprintf("attempt %d: %d messages", i, msgs))
	}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("server saw %q, want %q", got, want)
	}
}

func testRetryReplay(t *testing.T) {
	t.Run("ClientStream", func(t *testing.T) {
		// 12 messages of 0 to 64 KiB (about 155 KB: within the default
		// 256 KiB replay buffer), replayed twice.
		const n, failures = 12, 2
		srv := &retryServer{attempts: map[string][]string{}}
		e := startSB(t, srv, nil, nil, nil, []grpc.DialOption{grpc.WithDefaultServiceConfig(sbRetryConfig)}, false)
		stream, err := e.client.ClientStream(retryCtx("cs", failures))
		if err != nil {
			t.Fatal(err)
		}
		var sent []*kinds.Rich
		for i := range n {
			m := genRich(msgID(1, i))
			sent = append(sent, m)
			if err := stream.Send(m); err != nil {
				t.Fatalf("send %d: %v", i, err)
			}
		}
		got, err := stream.CloseAndRecv()
		if err != nil {
			t.Fatalf("CloseAndRecv: %v", err)
		}
		if want := summaryOf(sent); !got.EqualVT(want) {
			t.Errorf("the last attempt summed %v, want %v", got, want)
		}
		wantAttempts(t, srv.calls("cs"), failures+1, n)
		requireUsed(t, e.cliPool)
		e.finish(t)
	})
	t.Run("Bidi", func(t *testing.T) {
		// Every attempt the policy allows: 3 failures, then the echoes.
		const n, failures = 10, 3
		srv := &retryServer{attempts: map[string][]string{}}
		e := startSB(t, srv, nil, nil, nil, []grpc.DialOption{grpc.WithDefaultServiceConfig(sbRetryConfig)}, false)
		stream, err := e.client.Bidi(retryCtx("bidi", failures))
		if err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if err := stream.Send(genRich(msgID(2, i))); err != nil {
				t.Fatalf("send %d: %v", i, err)
			}
		}
		if err := stream.CloseSend(); err != nil {
			t.Fatal(err)
		}
		for i := 0; ; i++ {
			m, err := stream.Recv()
			if err == io.EOF {
				if i != n {
					t.Errorf("%d echoes, want %d", i, n)
				}
				break
			}
			if err != nil {
				t.Fatalf("recv %d: %v", i, err)
			}
			if err := checkRich(m, msgID(2, i)); err != nil {
				t.Fatal(err)
			}
		}
		wantAttempts(t, srv.calls("bidi"), failures+1, n)
		requireUsed(t, e.cliPool, e.srvPool)
		e.finish(t)
	})
	t.Run("ReplayBufferOverflow", func(t *testing.T) {
		// A 40 KiB replay buffer overflows at the 6th message: the call is
		// committed, the buffered messages are released, and the failed
		// attempt is not retried.
		const n = 12
		srv := &retryServer{attempts: map[string][]string{}}
		e := startSB(t, srv, nil, nil, nil, []grpc.DialOption{grpc.WithDefaultServiceConfig(sbRetryConfig)}, false)
		stream, err := e.client.ClientStream(retryCtx("overflow", 1), grpc.MaxRetryRPCBufferSize(40<<10))
		if err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if err := stream.Send(genRich(msgID(3, i))); err != nil {
				t.Fatalf("send %d: %v", i, err)
			}
		}
		if _, err := stream.CloseAndRecv(); status.Code(err) != codes.Unavailable {
			t.Errorf("CloseAndRecv = %v, want the first attempt's UNAVAILABLE", err)
		}
		wantAttempts(t, srv.calls("overflow"), 1, n)
		requireUsed(t, e.cliPool)
		e.finish(t)
	})
}

// ---------------------------------------------------------------------------
// Stats handlers.

// auditStats is a stats.Handler that reads every field of every payload
// event and checks the lengths against the message.
type auditStats struct {
	client bool
	gzip   bool // payloads must be compressed (else must not be)

	mu                          sync.Mutex
	begins, ends, outs, ins     int
	inHeaders, gzipInHeaders    int
	errs                        []string
	outBytes, inBytes, outWired int64
}

func (h *auditStats) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context { return ctx }
func (h *auditStats) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context {
	return ctx
}
func (h *auditStats) HandleConn(context.Context, stats.ConnStats) {}

func (h *auditStats) HandleRPC(_ context.Context, s stats.RPCStats) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if s.IsClient() != h.client {
		h.errs = append(h.errs, fmt.Sprintf("%T: IsClient() = %v", s, s.IsClient()))
	}
	switch s := s.(type) {
	case *stats.Begin:
		h.begins++
	case *stats.End:
		h.ends++
		if s.Error != nil {
			h.errs = append(h.errs, fmt.Sprintf("RPC ended with %v", s.Error))
		}
	case *stats.InHeader:
		h.inHeaders++
		if s.Compression == gzip.Name {
			h.gzipInHeaders++
		}
	case *stats.OutPayload:
		h.outs++
		h.outBytes += int64(s.Length)
		h.outWired += int64(s.WireLength)
		h.checkPayload("OutPayload", s.Payload, s.Length, s.CompressedLength, s.WireLength)
	case *stats.InPayload:
		h.ins++
		h.inBytes += int64(s.Length)
		h.checkPayload("InPayload", s.Payload, s.Length, s.CompressedLength, s.WireLength)
	}
}

func (h *auditStats) checkPayload(what string, payload any, length, compressed, wire int) {
	switch m := payload.(type) {
	case *grpc.PreparedMsg:
		// Encoded already: no message to measure.
	case proto.Message:
		if size := proto.Size(m); size != length {
			h.errs = append(h.errs, fmt.Sprintf("%s: Length %d, the %T encodes in %d bytes", what, length, m, size))
		}
	default:
		h.errs = append(h.errs, fmt.Sprintf("%s: payload is a %T", what, payload))
	}
	if wire != compressed+5 {
		h.errs = append(h.errs, fmt.Sprintf("%s: WireLength %d, CompressedLength %d", what, wire, compressed))
	}
	if (compressed != length) != h.gzip {
		h.errs = append(h.errs, fmt.Sprintf("%s: Length %d, CompressedLength %d (compression expected: %v)", what, length, compressed, h.gzip))
	}
}

// check fails t with the handler's errors and if it did not see rpcs RPCs,
// outs messages sent and ins received.
func (h *auditStats) check(t *testing.T, rpcs, outs, ins int) {
	t.Helper()
	// A server's End event may come after the client has seen the call
	// end, and Server.Stop does not wait for handlers.
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		h.mu.Lock()
		done := h.ends >= rpcs && h.outs >= outs && h.ins >= ins
		h.mu.Unlock()
		if done {
			break
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	side := "server"
	if h.client {
		side = "client"
	}
	for _, e := range h.errs {
		t.Errorf("%s stats: %s", side, e)
	}
	if h.begins != rpcs || h.ends != rpcs {
		t.Errorf("%s stats: %d Begin and %d End events, want %d", side, h.begins, h.ends, rpcs)
	}
	if h.outs != outs || h.ins != ins {
		t.Errorf("%s stats: %d OutPayload and %d InPayload events, want %d and %d", side, h.outs, h.ins, outs, ins)
	}
	if h.gzip && h.gzipInHeaders != rpcs {
		t.Errorf("%s stats: %d of %d calls received headers declaring gzip, want all %d", side, h.gzipInHeaders, h.inHeaders, rpcs)
	}
	if !h.gzip && h.gzipInHeaders != 0 {
		t.Errorf("%s stats: %d calls received with gzip", side, h.gzipInHeaders)
	}
}

func statsOptions(gz bool) (*auditStats, *auditStats, []grpc.ServerOption, []grpc.DialOption) {
	srv, cli := &auditStats{gzip: gz}, &auditStats{client: true, gzip: gz}
	return srv, cli, []grpc.ServerOption{grpc.StatsHandler(srv)}, []grpc.DialOption{grpc.WithStatsHandler(cli)}
}

// ---------------------------------------------------------------------------
// Binary logging.

// Binary logging has no exported per-server or per-connection switch in
// grpc-go v1.85.0 (grpc.binaryLogger and withBinaryLogger are reachable only
// through google.golang.org/grpc/internal): the global logger is built from
// GRPC_BINARY_LOG_FILTER when internal/binarylog is initialised. So the
// BinaryLog sub-test re-runs itself in a child process of this test binary
// with GRPC_BINARY_LOG_FILTER=* in its environment, and there sets a sink
// (binarylog.SetSink, before any server or client exists) that keeps every
// log entry to check it at the end.
const sbBinlogChildEnv = "GRPCFAST_SENDBUF_BINLOG_CHILD"

type recordingSink struct {
	mu      sync.Mutex
	entries []*binlogpb.GrpcLogEntry
}

func (s *recordingSink) Write(e *binlogpb.GrpcLogEntry) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.entries = append(s.entries, e)
	return nil
}

func (s *recordingSink) Close() error { return nil }

func runBinlogChild(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestSendBufPaths$/^BinaryLog$", "-test.count=1", "-test.v", "-test.timeout=2m")
	cmd.Env = append(os.Environ(), sbBinlogChildEnv+"=1", "GRPC_BINARY_LOG_FILTER=*")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child process with GRPC_BINARY_LOG_FILTER=*: %v\n%s", err, out)
	}
	if !bytes.Contains(out, []byte("--- PASS: TestSendBufPaths/BinaryLog")) {
		t.Fatalf("the child process did not run the sub-test:\n%s", out)
	}
	t.Logf("child process:\n%s", out)
}

func testBinaryLogChild(t *testing.T) {
	if os.Getenv("GRPC_BINARY_LOG_FILTER") != "*" {
		t.Fatal("child process started without GRPC_BINARY_LOG_FILTER=*")
	}
	sink := &recordingSink{}
	binarylog.SetSink(sink)
	e := startSB(t, &kindsServer{}, nil, nil, nil, nil, false)
	sbLoad.run(t, e.client)
	requireUsed(t, e.srvPool, e.cliPool)
	e.finish(t)
	if t.Failed() {
		return
	}

	// Every buffer has come back and been poisoned: the logged copies
	// must still be the messages sent.
	sink.mu.Lock()
	defer sink.mu.Unlock()
	methods := map[uint64]string{}
	for _, en := range sink.entries {
		if h := en.GetClientHeader(); h != nil {
			methods[en.CallId] = h.MethodName
		}
	}
	counts := map[string]int{}
	bad := 0
	for _, en := range sink.entries {
		msg := en.GetMessage()
		if msg == nil {
			continue
		}
		key := en.Logger.String() + " " + en.Type.String()
		counts[key]++
		method := strings.TrimPrefix(methods[en.CallId], "/grpcfast.testdata.kinds.Kinds/")
		fromClient := en.Type == binlogpb.GrpcLogEntry_EVENT_TYPE_CLIENT_MESSAGE
		err := checkLogged(method, fromClient, msg.Data)
		if err == nil && (en.PayloadTruncated || int(msg.Length) != len(msg.Data)) {
			err = fmt.Errorf("truncated: %d of %d bytes", len(msg.Data), msg.Length)
		}
		if err != nil {
			if bad++; bad <= 5 {
				t.Errorf("%s of %s (call %d): %v", key, method, en.CallId, err)
			}
		}
	}
	if bad > 5 {
		t.Errorf("%d logged messages were wrong", bad)
	}
	for _, c := range []struct {
		key  string
		want int
	}{
		{"LOGGER_CLIENT EVENT_TYPE_CLIENT_MESSAGE", sbLoad.clientMsgs()},
		{"LOGGER_SERVER EVENT_TYPE_CLIENT_MESSAGE", sbLoad.clientMsgs()},
		{"LOGGER_SERVER EVENT_TYPE_SERVER_MESSAGE", sbLoad.serverMsgs()},
		{"LOGGER_CLIENT EVENT_TYPE_SERVER_MESSAGE", sbLoad.serverMsgs()},
	} {
		if counts[c.key] != c.want {
			t.Errorf("%d %s entries, want %d", counts[c.key], c.key, c.want)
		}
	}
	t.Logf("binary log: %d entries, messages %v", len(sink.entries), counts)
}

// checkLogged checks a message copied by binary logging.
func checkLogged(method string, fromClient bool, data []byte) error {
	switch {
	case method == "PooledBidi":
		m := &kinds.Pooled{}
		if err := m.UnmarshalVT(data); err != nil {
			return err
		}
		return checkPooled(m, -1)
	case method == "ClientStream" && !fromClient:
		m := &kinds.Summary{}
		if err := m.UnmarshalVT(data); err != nil {
			return err
		}
		if m.Count != int64(sbLoad.msgs) {
			return fmt.Errorf("summary of %d messages, want %d", m.Count, sbLoad.msgs)
		}
		return nil
	case method == "ServerStream" && fromClient:
		m := &kinds.Rich{}
		if err := m.UnmarshalVT(data); err != nil {
			return err
		}
		if len(m.Numbers) != 1 || m.Numbers[0] != int64(sbLoad.msgs) {
			return fmt.Errorf("server-stream request %v", m)
		}
		return nil
	case method == "Unary" || method == "ClientStream" || method == "ServerStream" || method == "Bidi":
		m := &kinds.Rich{}
		if err := m.UnmarshalVT(data); err != nil {
			return err
		}
		return checkRich(m, -1)
	}
	return fmt.Errorf("unknown method %q", method)
}

// ---------------------------------------------------------------------------
// PreparedMsg.

// preparedServer sends its server-stream responses as PreparedMsgs and
// checks that Encode returned the codec's buffer at once: nothing else of
// the server's codec pool is out while it runs.
type preparedServer struct {
	kindsServer
	pool *auditPool
}

func (s *preparedServer) ServerStream(req *kinds.Rich, stream grpc.ServerStreamingServer[kinds.Rich]) error {
	for i := range req.Numbers[0] {
		gets, _ := s.pool.counts()
		var pm grpc.PreparedMsg
		if err := pm.Encode(stream, genRich(req.Id+i)); err != nil {
			return err
		}
		if g, out := s.pool.counts(); g != gets+1 || out != 0 {
			return status.Errorf(codes.Internal, "PreparedMsg.Encode took %d buffers, %d still out", g-gets, out)
		}
		if err := stream.SendMsg(&pm); err != nil {
			return err
		}
	}
	return nil
}

func testPreparedMsg(t *testing.T, gz bool) {
	var copts []grpc.CallOption
	if gz {
		copts = append(copts, grpc.UseCompressor(gzip.Name))
	}
	srvStats, cliStats, sopts, dopts := statsOptions(gz)
	srvPool := newAuditPool("server codec pool")
	e := startSB(t, &preparedServer{pool: srvPool}, srvPool, nil, sopts, dopts, false)
	ctx := context.Background()

	// The client sends PreparedMsgs on a client stream.
	const n = 12
	stream, err := e.client.ClientStream(ctx, copts...)
	if err != nil {
		t.Fatal(err)
	}
	var want kinds.Summary
	for i := range n {
		m := genRich(msgID(4, i))
		gets, _ := e.cliPool.counts()
		var pm grpc.PreparedMsg
		if err := pm.Encode(stream, m); err != nil {
			t.Fatalf("Encode %d: %v", i, err)
		}
		if g, out := e.cliPool.counts(); g != gets+1 || out != 0 {
			t.Fatalf("PreparedMsg.Encode took %d buffers, %d still out", g-gets, out)
		}
		if err := stream.SendMsg(&pm); err != nil {
			t.Fatalf("send %d: %v", i, err)
		}
		want.Count++
		want.Bytes += int64(len(m.Data))
		want.Crc32C = crc32.Update(want.Crc32C, castagnoli, m.Data)
	}
	got, err := stream.CloseAndRecv()
	if err != nil {
		t.Fatal(err)
	}
	if !got.EqualVT(&want) {
		t.Errorf("server summed %v, want %v", got, &want)
	}

	// The server sends PreparedMsgs on a server stream, once its pool is
	// quiet (the summary's buffer may still be on its way out).
	if !waitQuiet(e.srvPool) {
		e.srvPool.report(t, "before the server stream")
	}
	if err := runServerStream(ctx, withOpts{e.client, copts}, 5, n, false); err != nil {
		t.Error(err)
	}
	requireUsed(t, e.cliPool, e.srvPool)
	e.finish(t)
	srvStats.check(t, 2, 1+n, 1+n)
	cliStats.check(t, 2, 1+n, 1+n)
}

// ---------------------------------------------------------------------------
// A read after free must be caught.

// earlyFreeCodec frees Marshal's buffer before gRPC writes it, keeping an
// alias of its bytes: what gRPC would do if it read a sent buffer after its
// final Free.
type earlyFreeCodec struct{ *grpcfast.Codec }

func (c earlyFreeCodec) Marshal(v any) (mem.BufferSlice, error) {
	data, err := c.Codec.Marshal(v)
	if err != nil || len(data) != 1 {
		return data, err
	}
	alias := data[0].ReadOnlyData()
	data.Free()
	return mem.BufferSlice{mem.SliceBuffer(alias)}, nil
}

// ---------------------------------------------------------------------------

// TestSendBufPaths runs every path of grpc-go v1.85.0 that touches a sent
// buffer, with poisoning audit pools on both ends (see the top of the file).
func TestSendBufPaths(t *testing.T) {
	if os.Getenv(sbBinlogChildEnv) != "" {
		// The child process of the BinaryLog sub-test runs only that.
		t.Run("BinaryLog", testBinaryLogChild)
		return
	}

	// Every method kind, nothing else on: the common path (encode,
	// SendMsg's references, the HTTP/2 transports and loopy writer, the
	// one-commit bookkeeping of client streams).
	t.Run("Baseline", func(t *testing.T) {
		e := startSB(t, &kindsServer{}, nil, nil, nil, nil, false)
		sbLoad.run(t, e.client)
		requireUsed(t, e.srvPool, e.cliPool)
		e.finish(t)
	})

	// Client-stream retry replay: the client keeps a reference to every
	// message it sent until the call commits, and replays the same buffers
	// on each new attempt.
	t.Run("RetryReplay", testRetryReplay)

	// gzip both ways: the client compresses with UseCompressor, the server
	// answers with the request's compressor. SendMsg frees the codec's
	// buffer after compress has read it; the transport holds only the
	// compressed buffers. The stats handlers prove both directions were
	// compressed.
	t.Run("Gzip", func(t *testing.T) {
		srvStats, cliStats, sopts, dopts := statsOptions(true)
		dopts = append(dopts, grpc.WithDefaultCallOptions(grpc.UseCompressor(gzip.Name)))
		e := startSB(t, &kindsServer{}, nil, nil, sopts, dopts, false)
		sbLoad.run(t, e.client)
		requireUsed(t, e.srvPool, e.cliPool)
		e.finish(t)
		srvStats.check(t, sbLoad.rpcs(), sbLoad.serverMsgs(), sbLoad.clientMsgs())
		cliStats.check(t, sbLoad.rpcs(), sbLoad.clientMsgs(), sbLoad.serverMsgs())
	})

	// Binary logging on, on both ends: SendMsg copies (Materialize) each
	// sent message for the log after its write. Every logged copy is
	// checked once every buffer has been poisoned.
	t.Run("BinaryLog", runBinlogChild)

	// Stats handlers on both ends, reading every field of every payload
	// event: Length is read from the data while SendMsg holds it.
	t.Run("StatsHandlers", func(t *testing.T) {
		srvStats, cliStats, sopts, dopts := statsOptions(false)
		e := startSB(t, &kindsServer{}, nil, nil, sopts, dopts, false)
		sbLoad.run(t, e.client)
		requireUsed(t, e.srvPool, e.cliPool)
		e.finish(t)
		srvStats.check(t, sbLoad.rpcs(), sbLoad.serverMsgs(), sbLoad.clientMsgs())
		cliStats.check(t, sbLoad.rpcs(), sbLoad.clientMsgs(), sbLoad.serverMsgs())
	})

	// Server.ServeHTTP under net/http's HTTP/2 server: the handler
	// transport takes a reference in Write and frees it once the write
	// closure, run on the ServeHTTP goroutine, has copied the bytes out.
	t.Run("ServeHTTP", func(t *testing.T) {
		e := startSB(t, &kindsServer{}, nil, nil, nil, nil, true)
		sbLoad.run(t, e.client)
		if n := e.h2Requests.Load(); n != int64(sbLoad.rpcs()) {
			t.Errorf("net/http served %d HTTP/2 requests, want %d", n, sbLoad.rpcs())
		}
		requireUsed(t, e.srvPool, e.cliPool)
		e.finish(t)
	})

	// PreparedMsg on both ends, plain and compressed: Encode marshals,
	// copies and frees at once; SendMsg then sends only the copy.
	t.Run("PreparedMsg", func(t *testing.T) {
		t.Run("Plain", func(t *testing.T) { testPreparedMsg(t, false) })
		t.Run("Gzip", func(t *testing.T) { testPreparedMsg(t, true) })
	})

	// The checks above are real: a codec that frees its buffer before gRPC
	// writes it (the poison is then what is sent) makes every call fail
	// at the peer, and the pools still balance.
	t.Run("ReadAfterFreeIsCaught", func(t *testing.T) {
		cliPool := newAuditPool("client codec pool")
		early := earlyFreeCodec{grpcfast.NewCodec(sbCodecOptions(cliPool)...)}
		e := startSB(t, &kindsServer{}, nil, cliPool, nil,
			[]grpc.DialOption{grpc.WithDefaultCallOptions(grpc.ForceCodecV2(early))}, false)
		for _, i := range []int{0, 6} { // 4000 and 16388 data bytes
			_, err := e.client.Unary(context.Background(), genRich(msgID(6, i)))
			if code := status.Code(err); code != codes.Internal && code != codes.DataLoss {
				t.Errorf("message %d sent from a freed buffer: %v, want the server to reject it", i, err)
			}
		}
		if gets, _ := cliPool.counts(); gets != 2 {
			t.Errorf("the client codec took %d buffers, want 2", gets)
		}
		e.finish(t)
	})
}
