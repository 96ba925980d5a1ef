package codec_test

// PreparedMsg (marshal_sendbuf_test.go).

import (
	"context"
	"hash/crc32"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/encoding/gzip"
	"google.golang.org/grpc/status"

	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"github.com/grpcfast/grpcfast/internal/own"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
)

// ---------------------------------------------------------------------------
// PreparedMsg.

// preparedServer sends its server-stream responses as PreparedMsgs and
// checks that Encode returned the codec's buffer at once: nothing else of
// the server's codec pool is out while it runs.
type preparedServer struct {
	grpcfasttest.KindsServer
	pool *grpcfasttest.Pool
}

func (s *preparedServer) ServerStream(req *kinds.Rich, stream grpc.ServerStreamingServer[kinds.Rich]) error {
	for i := range req.Numbers[0] {
		gets, _ := s.pool.Counts()
		var pm grpc.PreparedMsg
		if err := pm.Encode(stream, grpcfasttest.GenRich(req.Id+i)); err != nil {
			return err
		}
		// A grpcfast_checked build gives no buffer back (own.Quarantine).
		if g, out := s.pool.Counts(); g != gets+1 || (out != 0 && !own.Quarantine) {
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
	srvPool := grpcfasttest.NewAuditPool("server codec pool")
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
		m := grpcfasttest.GenRich(grpcfasttest.MsgID(4, i))
		gets, _ := e.cliPool.Counts()
		var pm grpc.PreparedMsg
		if err := pm.Encode(stream, m); err != nil {
			t.Fatalf("Encode %d: %v", i, err)
		}
		// A grpcfast_checked build gives no buffer back (own.Quarantine).
		if g, out := e.cliPool.Counts(); g != gets+1 || (out != 0 && !own.Quarantine) {
			t.Fatalf("PreparedMsg.Encode took %d buffers, %d still out", g-gets, out)
		}
		if err := stream.SendMsg(&pm); err != nil {
			t.Fatalf("send %d: %v", i, err)
		}
		want.Count++
		want.Bytes += int64(len(m.Data))
		want.Crc32C = crc32.Update(want.Crc32C, grpcfasttest.Castagnoli, m.Data)
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
		e.srvPool.Check(t, "before the server stream")
	}
	if err := grpcfasttest.RunServerStream(ctx, withOpts{e.client, copts}, 5, n, false); err != nil {
		t.Error(err)
	}
	requireUsed(t, e.cliPool, e.srvPool)
	e.finish(t)
	srvStats.check(t, 2, 1+n, 1+n)
	cliStats.check(t, 2, 1+n, 1+n)
}

// TestSendBufPreparedMsg: PreparedMsg on both ends, plain and compressed:
// Encode marshals, copies and frees at once; SendMsg then sends only the
// copy.
func TestSendBufPreparedMsg(t *testing.T) {
	t.Run("Plain", func(t *testing.T) { testPreparedMsg(t, false) })
	t.Run("Gzip", func(t *testing.T) { testPreparedMsg(t, true) })
}
