package peers

import (
	"context"
	"errors"
	"io"
	"net"
	"slices"

	"google.golang.org/protobuf/proto"
	"storj.io/drpc"
	"storj.io/drpc/drpcconn"
	"storj.io/drpc/drpcmux"
	"storj.io/drpc/drpcserver"

	"github.com/grpcfast/grpcfast/example"
	"github.com/grpcfast/grpcfast/example/examplepb"
	"github.com/grpcfast/grpcfast/peers/drpcpb"
)

// drpcPeer is drpc with its generated code (drpcpb, generated with
// vtprotobuf's codec/drpc: MarshalVT and UnmarshalVT), used as generated, or
// tuned by hand (reuse): streams receive into one reused message per stream
// (MsgRecv), and send their chunks, and the unary calls are made and
// answered, with vtEncoding, whose MarshalAppend lets drpc marshal into its
// reused write buffer instead of a new buffer per message.
func drpcPeer(name string, reuse bool, h hooks) Peer {
	return Peer{
		Name: name,
		Serve: func(lis net.Listener) func() {
			mux := drpcmux.New()
			var user drpc.Description = drpcpb.DRPCUserServiceDescription{}
			if reuse {
				user = vtDescription{user}
			}
			if err := mux.Register(example.NewUserServer(), user); err != nil {
				panic(err) // a programming error: the descriptions are generated
			}
			if err := drpcpb.DRPCRegisterChunkService(mux, &drpcChunkServer{reuse: reuse}); err != nil {
				panic(err)
			}
			var handler drpc.Handler = mux
			if h.drpcHandler != nil {
				handler = h.drpcHandler(name, handler)
			}
			srv := drpcserver.New(handler)
			ctx, cancel := context.WithCancel(context.Background())
			served := make(chan struct{})
			go func() {
				defer close(served)
				srv.Serve(ctx, lis)
			}()
			return func() {
				cancel()
				<-served
			}
		},
		Dial: func(addr string) (Client, error) {
			nc, err := net.Dial("tcp", addr)
			if err != nil {
				return nil, err
			}
			var conn drpc.Conn = drpcconn.New(nc)
			if h.drpcConn != nil {
				conn = h.drpcConn(name, conn)
			}
			return &drpcClient{
				reuse: reuse,
				conn:  conn,
				chunk: drpcpb.NewDRPCChunkServiceClient(conn),
				user:  drpcpb.NewDRPCUserServiceClient(conn),
			}, nil
		},
	}
}

// vtMessage is what protoc-gen-go-vtproto generates for every message.
type vtMessage interface {
	SizeVT() int
	MarshalToSizedBufferVT([]byte) (int, error)
	MarshalVT() ([]byte, error)
	UnmarshalVT([]byte) error
}

// vtEncoding is the drpc encoding of drpc-reuse: vtprotobuf's methods, and
// MarshalAppend, which drpc's stream and connection call, when the encoding
// has it, to marshal into their reused write buffers. Messages without
// vtprotobuf's methods are encoded with protobuf-go.
type vtEncoding struct{}

func (vtEncoding) Marshal(msg drpc.Message) ([]byte, error) {
	return vtEncoding{}.MarshalAppend(nil, msg)
}

func (vtEncoding) MarshalAppend(buf []byte, msg drpc.Message) ([]byte, error) {
	return vtMarshalAppend(buf, msg)
}

func (vtEncoding) Unmarshal(buf []byte, msg drpc.Message) error {
	return vtUnmarshal(buf, msg)
}

func vtMarshalAppend(buf []byte, msg any) ([]byte, error) {
	m, ok := msg.(vtMessage)
	if !ok {
		return proto.MarshalOptions{}.MarshalAppend(buf, msg.(proto.Message))
	}
	n := m.SizeVT()
	buf = slices.Grow(buf, n)
	// MarshalToSizedBufferVT writes backwards from the end of what it is
	// given: exactly the message's size.
	if _, err := m.MarshalToSizedBufferVT(buf[len(buf) : len(buf)+n]); err != nil {
		return nil, err
	}
	return buf[:len(buf)+n], nil
}

func vtUnmarshal(buf []byte, msg any) error {
	if m, ok := msg.(vtMessage); ok {
		return m.UnmarshalVT(buf)
	}
	return proto.Unmarshal(buf, msg.(proto.Message))
}

// vtDescription is a generated drpc description whose methods use
// vtEncoding: drpc's server decodes a unary request, and encodes its
// response, with the description's encoding.
type vtDescription struct{ drpc.Description }

func (d vtDescription) Method(n int) (string, drpc.Encoding, drpc.Receiver, any, bool) {
	rpc, _, receiver, method, ok := d.Description.Method(n)
	return rpc, vtEncoding{}, receiver, method, ok
}

type drpcChunkServer struct {
	drpcpb.DRPCChunkServiceUnimplementedServer
	reuse bool
}

func (s *drpcChunkServer) Put(stream drpcpb.DRPCChunkService_PutStream) error {
	var sum putSum
	var reused examplepb.Chunk
	for {
		c, err := drpcRecv(stream, stream.Recv, &reused, s.reuse)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		sum.add(c.Data)
	}
	return stream.SendAndClose(sum.response())
}

func (s *drpcChunkServer) Get(req *examplepb.GetRequest, stream drpcpb.DRPCChunkService_GetStream) error {
	b, chunkSize, err := checkGetRequest(req)
	if err != nil {
		return err
	}
	return sendBlob(b.data, chunkSize, drpcSend(stream, stream.Send, s.reuse))
}

// drpcRecv receives the next message of a stream: with the generated Recv,
// which allocates a message per call, or, to reuse, into reused with
// MsgRecv.
func drpcRecv(stream drpc.Stream, recv func() (*examplepb.Chunk, error), reused *examplepb.Chunk, reuse bool) (*examplepb.Chunk, error) {
	if !reuse {
		return recv()
	}
	// UnmarshalVT merges: reset what it may not overwrite, and keep the
	// capacity of Data, which it decodes into.
	reused.Data = reused.Data[:0]
	if err := stream.MsgRecv(reused, vtEncoding{}); err != nil {
		return nil, err
	}
	return reused, nil
}

// drpcSend returns the generated Send, or, to reuse, a Send with
// vtEncoding.
func drpcSend(stream drpc.Stream, send func(*examplepb.Chunk) error, reuse bool) func(*examplepb.Chunk) error {
	if !reuse {
		return send
	}
	return func(c *examplepb.Chunk) error { return stream.MsgSend(c, vtEncoding{}) }
}

type drpcClient struct {
	reuse bool
	conn  drpc.Conn
	chunk drpcpb.DRPCChunkServiceClient
	user  drpcpb.DRPCUserServiceClient
}

func (c *drpcClient) Put(ctx context.Context, size int64, chunkSize int) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := c.chunk.Put(ctx)
	if err != nil {
		return err
	}
	defer stream.Close()
	b := getBlob(size)
	if err := sendBlob(b.data, chunkSize, drpcSend(stream, stream.Send, c.reuse)); err != nil {
		return err
	}
	resp, err := stream.CloseAndRecv()
	if err != nil {
		return err
	}
	return checkPut(b, resp)
}

func (c *drpcClient) Get(ctx context.Context, size int64, chunkSize int) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := c.chunk.Get(ctx, &examplepb.GetRequest{Size: size, ChunkSize: int32(chunkSize)})
	if err != nil {
		return err
	}
	defer stream.Close()
	check := newGetCheck(size, chunkSize)
	var reused examplepb.Chunk
	for {
		m, err := drpcRecv(stream, stream.Recv, &reused, c.reuse)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if err := check.add(m); err != nil {
			return err
		}
	}
	return check.done()
}

func (c *drpcClient) CreateUser(ctx context.Context, req *examplepb.CreateUserRequest) (*examplepb.CreateUserResponse, error) {
	if !c.reuse {
		return c.user.CreateUser(ctx, req)
	}
	// The generated CreateUser, with vtEncoding.
	out := new(examplepb.CreateUserResponse)
	if err := c.conn.Invoke(ctx, "/grpcfast.example.v1.UserService/CreateUser", vtEncoding{}, req, out); err != nil {
		return nil, err
	}
	return out, nil
}

func (c *drpcClient) Close() error { return c.conn.Close() }
