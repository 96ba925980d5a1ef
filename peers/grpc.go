package peers

import (
	"context"
	"errors"
	"io"
	"net"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/example"
	"github.com/grpcfast/grpcfast/example/examplepb"
	"github.com/grpcfast/grpcfast/internal/stdcodec"
)

// grpcPeer is gRPC-Go with grpcfast's codec and receivers (fast), or with
// its standard codec and the streams' own Recv. Both force their codec on
// both ends, as make bench's two paths do, so both pay the same fixed costs
// of a forced codec; importing examplepb registers grpcfast's codec under
// "proto", so the standard path must be forced anyway.
func grpcPeer(name string, fast bool, h hooks) Peer {
	codec := stdcodec.Codec()
	if fast {
		codec = grpcfast.NewCodec()
	}
	if h.grpcCodec != nil {
		codec = h.grpcCodec(name, codec)
	}
	return Peer{
		Name: name,
		Serve: func(lis net.Listener) func() {
			srv := grpc.NewServer(grpc.ForceServerCodecV2(codec))
			examplepb.RegisterChunkServiceServer(srv, &grpcChunkServer{fast: fast})
			examplepb.RegisterUserServiceServer(srv, example.NewUserServer())
			return serveGRPC(srv, lis)
		},
		Dial: func(addr string) (Client, error) {
			cc, err := grpc.NewClient(addr,
				grpc.WithTransportCredentials(insecure.NewCredentials()),
				grpc.WithDefaultCallOptions(grpc.ForceCodecV2(codec)))
			if err != nil {
				return nil, err
			}
			return &grpcClient{
				fast:  fast,
				cc:    cc,
				chunk: examplepb.NewChunkServiceClient(cc),
				user:  examplepb.NewUserServiceClient(cc),
			}, nil
		},
	}
}

func serveGRPC(srv *grpc.Server, lis net.Listener) func() {
	served := make(chan struct{})
	go func() {
		defer close(served)
		srv.Serve(lis)
	}()
	return func() {
		srv.Stop()
		<-served
	}
}

type grpcChunkServer struct {
	examplepb.UnimplementedChunkServiceServer
	fast bool
}

func (s *grpcChunkServer) Put(stream grpc.ClientStreamingServer[examplepb.Chunk, examplepb.PutResponse]) error {
	var sum putSum
	if s.fast {
		r := examplepb.NewChunkService_PutRequestReceiver(stream)
		for c, err := range r.All() {
			if err != nil {
				return err
			}
			sum.add(c.Data)
		}
	} else {
		for {
			c, err := stream.Recv()
			if err == io.EOF {
				break
			}
			if err != nil {
				return err
			}
			sum.add(c.Data)
		}
	}
	return stream.SendAndClose(sum.response())
}

func (s *grpcChunkServer) Get(req *examplepb.GetRequest, stream grpc.ServerStreamingServer[examplepb.Chunk]) error {
	b, chunkSize, err := checkGetRequest(req)
	if err != nil {
		return err
	}
	return sendBlob(b.data, chunkSize, stream.Send)
}

type grpcClient struct {
	fast  bool
	cc    *grpc.ClientConn
	chunk examplepb.ChunkServiceClient
	user  examplepb.UserServiceClient
}

func (c *grpcClient) Put(ctx context.Context, size int64, chunkSize int) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := c.chunk.Put(ctx)
	if err != nil {
		return err
	}
	b := getBlob(size)
	if err := sendBlob(b.data, chunkSize, stream.Send); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	// On io.EOF the server ended the call: CloseAndRecv has its status.
	resp, err := stream.CloseAndRecv()
	if err != nil {
		return err
	}
	return checkPut(b, resp)
}

func (c *grpcClient) Get(ctx context.Context, size int64, chunkSize int) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := c.chunk.Get(ctx, &examplepb.GetRequest{Size: size, ChunkSize: int32(chunkSize)})
	if err != nil {
		return err
	}
	check := newGetCheck(size, chunkSize)
	if c.fast {
		r := examplepb.NewChunkService_GetResponseReceiver(stream)
		for m, err := range r.All() {
			if err != nil {
				return err
			}
			if err := check.add(m); err != nil {
				return err
			}
		}
	} else {
		for {
			m, err := stream.Recv()
			if err == io.EOF {
				break
			}
			if err != nil {
				return err
			}
			if err := check.add(m); err != nil {
				return err
			}
		}
	}
	return check.done()
}

func (c *grpcClient) CreateUser(ctx context.Context, req *examplepb.CreateUserRequest) (*examplepb.CreateUserResponse, error) {
	return c.user.CreateUser(ctx, req)
}

func (c *grpcClient) Close() error { return c.cc.Close() }
