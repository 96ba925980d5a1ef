package codec_test

// The audit catches a read after free (marshal_sendbuf_test.go).

import (
	"context"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
)

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

// TestSendBufReadAfterFreeIsCaught: the checks of the TestSendBuf tests are
// real: a codec that frees its buffer before gRPC writes it (the poison is
// then what is sent) makes every call fail at the peer, and the pools
// still balance.
func TestSendBufReadAfterFreeIsCaught(t *testing.T) {
	cliPool := grpcfasttest.NewAuditPool("client codec pool")
	early := earlyFreeCodec{grpcfast.NewCodec(sbCodecOptions(cliPool)...)}
	e := startSB(t, &grpcfasttest.KindsServer{}, nil, cliPool, nil,
		[]grpc.DialOption{grpc.WithDefaultCallOptions(grpc.ForceCodecV2(early))}, false)
	for _, i := range []int{0, 6} { // 4000 and 16388 data bytes
		_, err := e.client.Unary(context.Background(), grpcfasttest.GenRich(grpcfasttest.MsgID(6, i)))
		if code := status.Code(err); code != codes.Internal && code != codes.DataLoss {
			t.Errorf("message %d sent from a freed buffer: %v, want the server to reject it", i, err)
		}
	}
	if gets, _ := cliPool.Counts(); gets != 2 {
		t.Errorf("the client codec took %d buffers, want 2", gets)
	}
	e.finish(t)
}
