package codec_test

// The TestSendBuf tests (sendbuf_*_test.go) lock in the reading of grpc-go v1.85.0 that the comment
// above sendBuf in marshal.go records: Marshal's one-element BufferSlice
// array is recycled (and its bytes returned to the codec's pool) when gRPC
// frees the buffer, which is only safe if gRPC never reads the slice's
// elements, or the bytes, after the final Free.
//
// Every test runs real servers and clients on 127.0.0.1 with the grpcfast
// codec forced on both ends, each with its own auditPool, and with a pooling
// threshold of 0 so that every non-empty message is marshalled into a pooled
// buffer wrapped by a sendBuf (the codec asks the pool for at least
// MinPooledCap bytes, so mem returns every one of them). The pool
//
//   - hands out a new buffer for every Get, filled with junk, and never
//     reuses one, so that a buffer put back stays poisoned;
//   - overwrites a buffer when it is put back (the poison), so that a read of
//     a freed buffer sends garbage to the peer, where every message is
//     checked against what was sent (GenRich/CheckRich, CheckPooled, CRC
//     summaries, binary log copies);
//   - records a Put of a buffer that it did not hand out, or that was already
//     put back (a double Free through sendBuf), and fails the test with it;
//   - must be balanced at the end: every buffer handed out came back once.
//
// The balance is checked exactly, with no slack for the known gRPC-Go
// leaks described in receiver_streams_test.go (the root package), because no test can hit them: no
// stream is cancelled or ended by one side while the other is still sending
// (TestStreamEndsReleaseEverything), the bidi clients send their second
// message only once the first echo has committed the call (grpcfasttest.RunBidi), and
// the retried calls send everything before they receive.

import (
	"context"
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/h2c"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding/gzip"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"github.com/grpcfast/grpcfast/internal/own"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
)

// ---------------------------------------------------------------------------
// The audit pool.

// waitQuiet waits, at most 5 s, until no buffer of pools is out, and
// reports whether that happened. In a grpcfast_checked build, which gives no
// buffer back (own.Quarantine: poisoned, never reused), it reports false at
// once.
func waitQuiet(pools ...*grpcfasttest.Pool) bool {
	if own.Quarantine {
		return false
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		n := 0
		for _, p := range pools {
			n += p.NumOut()
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
func waitAudit(t *testing.T, what string, pools ...*grpcfasttest.Pool) {
	t.Helper()
	waitQuiet(pools...)
	for _, p := range pools {
		p.Check(t, what)
	}
}

// requireUsed fails t if a pool never handed out a buffer (the codec was not
// used) or none of at least 16 KiB (no message spanned HTTP/2 frames).
func requireUsed(t *testing.T, pools ...*grpcfasttest.Pool) {
	t.Helper()
	for _, p := range pools {
		gets, big := p.Gets()
		if gets == 0 {
			t.Errorf("%s: no buffer was taken: was the grpcfast codec used?", p.Name)
		} else if big == 0 {
			t.Errorf("%s: no buffer of 16 KiB or more was taken", p.Name)
		}
	}
}

// ---------------------------------------------------------------------------
// Servers and connections.

// sbEnv is a server and a connection with the grpcfast codec forced on both
// ends, with a pooling threshold of 0 and an auditPool each.
type sbEnv struct {
	srvPool, cliPool *grpcfasttest.Pool
	client           kinds.KindsClient
	h2Requests       atomic.Int64 // ServeHTTP: requests served over HTTP/2
	closeOnce        sync.Once
	closeFn          func()
}

func (e *sbEnv) close() { e.closeOnce.Do(e.closeFn) }

func sbCodecOptions(p *grpcfasttest.Pool) []grpcfast.Option {
	return []grpcfast.Option{grpcfast.WithBufferPool(p), grpcfast.WithPoolingThreshold(0)}
}

// startSB serves impl and dials it; srvPool and cliPool may be nil for new
// ones. With serveHTTP, the grpc.Server is served by net/http (unencrypted
// HTTP/2 with prior knowledge) through Server.ServeHTTP instead of
// Server.Serve.
func startSB(t *testing.T, impl kinds.KindsServer, srvPool, cliPool *grpcfasttest.Pool,
	sopts []grpc.ServerOption, dopts []grpc.DialOption, serveHTTP bool,
) *sbEnv {
	t.Helper()
	if srvPool == nil {
		srvPool = grpcfasttest.NewAuditPool("server codec pool")
	}
	if cliPool == nil {
		cliPool = grpcfasttest.NewAuditPool("client codec pool")
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
// checked by the receiver (the helpers of internal/grpcfasttest).

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
		{"Unary", func(ctx context.Context, s int) error {
			return grpcfasttest.RunUnary(ctx, withOpts{c, opts}, s, w.unary)
		}},
		{"ClientStream", func(ctx context.Context, s int) error {
			return grpcfasttest.RunClientStream(ctx, withOpts{c, opts}, s, w.msgs)
		}},
		{"ServerStream", func(ctx context.Context, s int) error {
			return grpcfasttest.RunServerStream(ctx, withOpts{c, opts}, s, w.msgs, false)
		}},
		{"Bidi", func(ctx context.Context, s int) error {
			return grpcfasttest.RunBidi(ctx, withOpts{c, opts}, s, w.msgs, false)
		}},
		{"PooledBidi", func(ctx context.Context, s int) error {
			return grpcfasttest.RunPooledBidi(ctx, withOpts{c, opts}, s, w.msgs, false)
		}},
	} {
		if err := grpcfasttest.Concurrently(ctx, w.streams, k.run); err != nil {
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
// The common paths.

// TestSendBufBaseline: every method kind, nothing else on: the common path
// (encode, SendMsg's references, the HTTP/2 transports and loopy writer,
// the one-commit bookkeeping of client streams).
func TestSendBufBaseline(t *testing.T) {
	e := startSB(t, &grpcfasttest.KindsServer{}, nil, nil, nil, nil, false)
	sbLoad.run(t, e.client)
	requireUsed(t, e.srvPool, e.cliPool)
	e.finish(t)
}

// TestSendBufGzip: gzip both ways: the client compresses with
// UseCompressor, the server answers with the request's compressor. SendMsg
// frees the codec's buffer after compress has read it; the transport holds
// only the compressed buffers. The stats handlers prove both directions
// were compressed.
func TestSendBufGzip(t *testing.T) {
	srvStats, cliStats, sopts, dopts := statsOptions(true)
	dopts = append(dopts, grpc.WithDefaultCallOptions(grpc.UseCompressor(gzip.Name)))
	e := startSB(t, &grpcfasttest.KindsServer{}, nil, nil, sopts, dopts, false)
	sbLoad.run(t, e.client)
	requireUsed(t, e.srvPool, e.cliPool)
	e.finish(t)
	srvStats.check(t, sbLoad.rpcs(), sbLoad.serverMsgs(), sbLoad.clientMsgs())
	cliStats.check(t, sbLoad.rpcs(), sbLoad.clientMsgs(), sbLoad.serverMsgs())
}

// TestSendBufServeHTTP: Server.ServeHTTP under net/http's HTTP/2 server:
// the handler transport takes a reference in Write and frees it once the
// write closure, run on the ServeHTTP goroutine, has copied the bytes out.
func TestSendBufServeHTTP(t *testing.T) {
	e := startSB(t, &grpcfasttest.KindsServer{}, nil, nil, nil, nil, true)
	sbLoad.run(t, e.client)
	if n := e.h2Requests.Load(); n != int64(sbLoad.rpcs()) {
		t.Errorf("net/http served %d HTTP/2 requests, want %d", n, sbLoad.rpcs())
	}
	requireUsed(t, e.srvPool, e.cliPool)
	e.finish(t)
}
