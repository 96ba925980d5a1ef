// Package lateprobe adapts the generated package latepb to the checks of
// package check.
package lateprobe

import (
	"context"

	"google.golang.org/grpc"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/compose/internal/check"
	"github.com/grpcfast/grpcfast/compose/latepb"
)

type server struct {
	latepb.UnimplementedProbeServer
	put   func(grpc.ClientStreamingServer[latepb.Chunk, latepb.Ack]) error
	check func(context.Context, *latepb.Chunk) (*latepb.Ack, error)
}

func (s server) Check(ctx context.Context, m *latepb.Chunk) (*latepb.Ack, error) {
	return s.check(ctx, m)
}

func (s server) Put(stream grpc.ClientStreamingServer[latepb.Chunk, latepb.Ack]) error {
	return s.put(stream)
}

// Stream is latepb's Probe service for the checks.
var Stream = check.Stream[latepb.Chunk, latepb.Ack]{
	Register: func(r grpc.ServiceRegistrar, put func(grpc.ClientStreamingServer[latepb.Chunk, latepb.Ack]) error) {
		latepb.RegisterProbeServer(r, server{put: put})
	},
	RegisterPooled: func(r grpc.ServiceRegistrar, check func(context.Context, *latepb.Chunk) (*latepb.Ack, error), opts ...grpcfast.PooledOption) {
		latepb.RegisterProbeServerPooled(r, server{check: check}, opts...)
	},
	NewReusingClient: func(cc grpc.ClientConnInterface, opts ...grpcfast.PooledOption) (func(context.Context, *latepb.Chunk) (*latepb.Ack, error), func()) {
		c := latepb.NewProbeReusingClient(cc, opts...)
		return func(ctx context.Context, m *latepb.Chunk) (*latepb.Ack, error) { return c.Check(ctx, m) }, c.Release
	},
	NewReceiver: func(s grpc.ClientStreamingServer[latepb.Chunk, latepb.Ack]) interface {
		Recv() (*latepb.Chunk, error)
		Release()
	} {
		return latepb.NewProbe_PutRequestReceiver(s)
	},
	Open: func(ctx context.Context, cc grpc.ClientConnInterface) (grpc.ClientStreamingClient[latepb.Chunk, latepb.Ack], error) {
		return latepb.NewProbeClient(cc).Put(ctx)
	},
	NewChunk: func(seq int64, data []byte) *latepb.Chunk { return &latepb.Chunk{Seq: seq, Data: data} },
	Chunk:    func(m *latepb.Chunk) (int64, []byte) { return m.Seq, m.Data },
	NewAck:   func(count, size int64) *latepb.Ack { return &latepb.Ack{Count: count, Bytes: size} },
	Ack:      func(m *latepb.Ack) (int64, int64) { return m.Count, m.Bytes },
}
