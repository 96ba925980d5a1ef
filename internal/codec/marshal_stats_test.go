package codec_test

// Stats handlers reading every sent payload (marshal_sendbuf_test.go).

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding/gzip"
	"google.golang.org/grpc/stats"
	"google.golang.org/protobuf/proto"
)

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

// TestSendBufStatsHandlers: stats handlers on both ends, reading every
// field of every payload event: Length is read from the data while SendMsg
// holds it.
func TestSendBufStatsHandlers(t *testing.T) {
	srvStats, cliStats, sopts, dopts := statsOptions(false)
	e := startSB(t, &grpcfasttest.KindsServer{}, nil, nil, sopts, dopts, false)
	sbLoad.run(t, e.client)
	requireUsed(t, e.srvPool, e.cliPool)
	e.finish(t)
	srvStats.check(t, sbLoad.rpcs(), sbLoad.serverMsgs(), sbLoad.clientMsgs())
	cliStats.check(t, sbLoad.rpcs(), sbLoad.clientMsgs(), sbLoad.serverMsgs())
}
