// Package earlyprobe adapts the generated package earlypb to the checks of
// package check.
package earlyprobe

import (
	"context"

	"google.golang.org/grpc"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/compose/earlypb"
	"github.com/grpcfast/grpcfast/compose/internal/check"
)

type server struct {
	earlypb.UnimplementedProbeServer
	put   func(grpc.ClientStreamingServer[earlypb.Chunk, earlypb.Ack]) error
	check func(context.Context, *earlypb.Chunk) (*earlypb.Ack, error)
}

func (s server) Check(ctx context.Context, m *earlypb.Chunk) (*earlypb.Ack, error) {
	return s.check(ctx, m)
}

func (s server) Put(stream grpc.ClientStreamingServer[earlypb.Chunk, earlypb.Ack]) error {
	return s.put(stream)
}

// Stream is earlypb's Probe service for the checks.
var Stream = check.Stream[earlypb.Chunk, earlypb.Ack]{
	Register: func(r grpc.ServiceRegistrar, put func(grpc.ClientStreamingServer[earlypb.Chunk, earlypb.Ack]) error) {
		earlypb.RegisterProbeServer(r, server{put: put})
	},
	RegisterPooled: func(r grpc.ServiceRegistrar, check func(context.Context, *earlypb.Chunk) (*earlypb.Ack, error), opts ...grpcfast.PooledOption) {
		earlypb.RegisterProbeServerPooled(r, server{check: check}, opts...)
	},
	NewReusingClient: func(cc grpc.ClientConnInterface, opts ...grpcfast.PooledOption) (func(context.Context, *earlypb.Chunk) (*earlypb.Ack, error), func()) {
		c := earlypb.NewProbeReusingClient(cc, opts...)
		return func(ctx context.Context, m *earlypb.Chunk) (*earlypb.Ack, error) { return c.Check(ctx, m) }, c.Release
	},
	NewReceiver: func(s grpc.ClientStreamingServer[earlypb.Chunk, earlypb.Ack]) interface {
		Recv() (*earlypb.Chunk, error)
		Release()
	} {
		return earlypb.NewProbe_PutRequestReceiver(s)
	},
	Open: func(ctx context.Context, cc grpc.ClientConnInterface) (grpc.ClientStreamingClient[earlypb.Chunk, earlypb.Ack], error) {
		return earlypb.NewProbeClient(cc).Put(ctx)
	},
	NewChunk: func(seq int64, data []byte) *earlypb.Chunk { return &earlypb.Chunk{Seq: seq, Data: data} },
	Chunk:    func(m *earlypb.Chunk) (int64, []byte) { return m.Seq, m.Data },
	NewAck:   func(count, size int64) *earlypb.Ack { return &earlypb.Ack{Count: count, Bytes: size} },
	Ack:      func(m *earlypb.Ack) (int64, int64) { return m.Count, m.Bytes },
}
