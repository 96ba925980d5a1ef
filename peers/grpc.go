package peers

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"

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
//
// With floor, it is grpcfast's peer with a codec that sends chunks without
// copying them (floorCodec): what no codec can beat on gRPC-Go.
func grpcPeer(name string, fast, floor bool, h hooks) Peer {
	codec := stdcodec.Codec()
	if fast {
		codec = grpcfast.NewCodec()
	}
	if floor {
		codec = floorCodec{codec}
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

// floorCodec is grpcfast's codec, except that it encodes a Chunk without
// copying its bytes: the encoding it returns is the field's tag and length,
// then the chunk's Data itself, which gRPC-Go's transport reads when it
// writes the frame, after Send has returned. That is safe here only because
// every chunk sent points into a blob that is never written (getBlob): a
// program that refills or reuses what it sent would send the new bytes, or a
// mix. It shows what the sending side of gRPC-Go costs when the codec costs
// nothing: the floor for any codec, and what an API that took the caller's
// bytes without a copy could at best save.
type floorCodec struct{ encoding.CodecV2 }

// floorBuf is the encoding of one chunk, in one allocation: the header
// bytes, the two buffers (*mem.SliceBuffer is a mem.Buffer; Ref and Free
// do nothing) and the slice's backing array.
type floorBuf struct {
	hdr  [1 + binary.MaxVarintLen64]byte
	h, d mem.SliceBuffer
	bufs [2]mem.Buffer
}

func (c floorCodec) Marshal(v any) (mem.BufferSlice, error) {
	m, ok := v.(*examplepb.Chunk)
	if !ok || len(m.Data) == 0 || len(m.ProtoReflect().GetUnknown()) != 0 {
		return c.CodecV2.Marshal(v)
	}
	b := new(floorBuf)
	b.h = protowire.AppendVarint(protowire.AppendTag(b.hdr[:0], 1, protowire.BytesType), uint64(len(m.Data)))
	b.d = m.Data
	b.bufs = [2]mem.Buffer{&b.h, &b.d}
	return b.bufs[:], nil
}
