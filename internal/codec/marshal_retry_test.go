package codec_test

// Retries: the replay of a client stream's messages (marshal_sendbuf_test.go).

import (
	"context"
	"fmt"
	"hash/crc32"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
)

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
		if err := grpcfasttest.CheckRich(m, next); err != nil {
			return msgs, grpcfasttest.DataLoss(err)
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
		sum.Crc32C = crc32.Update(sum.Crc32C, grpcfasttest.Castagnoli, m.Data)
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
			m := grpcfasttest.GenRich(grpcfasttest.MsgID(1, i))
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
			if err := stream.Send(grpcfasttest.GenRich(grpcfasttest.MsgID(2, i))); err != nil {
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
			if err := grpcfasttest.CheckRich(m, grpcfasttest.MsgID(2, i)); err != nil {
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
			if err := stream.Send(grpcfasttest.GenRich(grpcfasttest.MsgID(3, i))); err != nil {
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

// TestSendBufRetryReplay: client-stream retry replay: the client keeps a
// reference to every message it sent until the call commits, and replays
// the same buffers on each new attempt.
func TestSendBufRetryReplay(t *testing.T) { testRetryReplay(t) }
