// Package example is a runnable gRPC service written with the code that
// protoc-gen-go-grpcfast generates for example/examplepb: a unary service
// (UserService), a chunked blob service (ChunkService: a client stream and a
// server stream) and a bidirectional echo (EchoService).
//
// The handlers receive with the generated receive helpers
// (examplepb.NewChunkService_PutRequestReceiver and friends), which decode
// every message of a stream into one reused message. The codec needs no code
// at all: importing examplepb registers it, and grpcfast.ServerOption and
// grpcfast.DialOption force it on one server or connection.
//
// The handlers also send from one reused message, which grpcfast does not
// require but which keeps a server stream from allocating. When something may
// read a sent message after Send returns ("Sending the same message again"
// in docs/receivers.md lists what can), use WithFreshSends.
package example

import (
	"context"
	"io"
	"strconv"
	"sync/atomic"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/grpcfast/grpcfast/example/examplepb"
)

const (
	// DefaultChunkSize is the chunk size of Get when the request gives none,
	// and of PutBlob and GetBlob when given 0: 16 KiB.
	DefaultChunkSize = 16 << 10

	// FrameChunkSize is the largest chunk whose gRPC message, with its 5-byte
	// gRPC header, fits one 16 KiB HTTP/2 DATA frame (16376 data bytes + 3
	// bytes of field framing + 5 = 16384). A 16 KiB chunk spills 9 bytes into
	// a second frame, which costs the receiving transport two more small
	// allocations per message.
	FrameChunkSize = 16376

	// MaxChunkSize is the largest chunk_size that Get accepts: 1 MiB, well
	// under gRPC's default 4 MiB limit on a received message.
	MaxChunkSize = 1 << 20
)

// Option configures the servers made by NewChunkServer, NewEchoServer and
// Register, and the client helpers PutBlob and GetBlob.
type Option func(*options)

type options struct {
	freshSends   bool
	standardRecv bool
}

func newOptions(opts []Option) options {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// WithFreshSends makes every Send use a message and memory of its own
// instead of refilling one reused message, and makes Echo hand each received
// message over (Receiver.Take) instead of sending the reused one. Use it when
// something may read a sent message after Send returns: a stats handler or
// an interceptor that keeps it, tracing, or a client stream's retry buffer
// ("Sending the same message again" in docs/receivers.md). It costs one message and
// one chunk of memory per Send.
func WithFreshSends() Option {
	return func(o *options) { o.freshSends = true }
}

// Register registers a UserServer, a ChunkServer and an EchoServer, made
// with opts, on s (a *grpc.Server, for one).
func Register(s grpc.ServiceRegistrar, opts ...Option) {
	examplepb.RegisterUserServiceServer(s, NewUserServer())
	examplepb.RegisterChunkServiceServer(s, NewChunkServer(opts...))
	examplepb.RegisterEchoServiceServer(s, NewEchoServer(opts...))
}

// UserServer implements examplepb.UserServiceServer: the unary,
// small-message case.
type UserServer struct {
	examplepb.UnimplementedUserServiceServer
	last atomic.Uint64
}

// NewUserServer returns a UserServer whose first id is "user-1".
func NewUserServer() *UserServer { return new(UserServer) }

// CreateUser answers with a new id, "user-" and a sequence number. The
// request must have a name.
func (s *UserServer) CreateUser(_ context.Context, req *examplepb.CreateUserRequest) (*examplepb.CreateUserResponse, error) {
	if req.GetName() == "" {
		return nil, status.Error(codes.InvalidArgument, "name is required")
	}
	var b [32]byte
	id := strconv.AppendUint(append(b[:0], "user-"...), s.last.Add(1), 10)
	return &examplepb.CreateUserResponse{Id: string(id)}, nil
}

// CreateUsers answers with a new id per user, in order, as CreateUser
// does. Every user must have a name: if one has none, it registers none.
func (s *UserServer) CreateUsers(_ context.Context, req *examplepb.CreateUsersRequest) (*examplepb.CreateUsersResponse, error) {
	users := req.GetUsers()
	for i, u := range users {
		if u.GetName() == "" {
			return nil, status.Errorf(codes.InvalidArgument, "users[%d]: name is required", i)
		}
	}
	first := s.last.Add(uint64(len(users))) - uint64(len(users))
	out := make([]examplepb.CreateUserResponse, len(users))
	resp := &examplepb.CreateUsersResponse{Users: make([]*examplepb.CreateUserResponse, len(users))}
	var b [32]byte
	for i := range users {
		out[i].Id = string(strconv.AppendUint(append(b[:0], "user-"...), first+uint64(i)+1, 10))
		resp.Users[i] = &out[i]
	}
	return resp, nil
}

// ChunkServer implements examplepb.ChunkServiceServer: Put checksums the
// chunks it receives, Get sends the example pattern (see fillPattern).
type ChunkServer struct {
	examplepb.UnimplementedChunkServiceServer
	opts options
}

// NewChunkServer returns a ChunkServer. By default it receives with the
// generated helper and sends from one reused Chunk.
func NewChunkServer(opts ...Option) *ChunkServer {
	return &ChunkServer{opts: newOptions(opts)}
}

// Put receives a blob and answers with its size and CRC-32C (Castagnoli).
func (s *ChunkServer) Put(stream grpc.ClientStreamingServer[examplepb.Chunk, examplepb.PutResponse]) error {
	var sum blobSum
	if s.opts.standardRecv {
		for {
			c, err := stream.Recv()
			if err != nil {
				if err != io.EOF {
					return err
				}
				break
			}
			sum.add(c.Data)
		}
	} else {
		r := examplepb.NewChunkService_PutRequestReceiver(stream)
		defer r.Release() // the last message is not used after the stream
		for c, err := range r.All() {
			if err != nil {
				return err
			}
			sum.add(c.Data)
		}
	}
	return stream.SendAndClose(&examplepb.PutResponse{Size: sum.size, Crc32C: sum.crc})
}

// Get sends req.Size bytes of the example pattern (fillPattern) in chunks of
// req.ChunkSize bytes (DefaultChunkSize if 0; at most MaxChunkSize); the
// last chunk may be shorter.
//
// Unless the server was made WithFreshSends, every chunk is filled into the
// same reused Chunk: see WithFreshSends for when that is unsafe.
func (s *ChunkServer) Get(req *examplepb.GetRequest, stream grpc.ServerStreamingServer[examplepb.Chunk]) error {
	chunkSize, err := checkGet(req.GetSize(), int64(req.GetChunkSize()))
	if err != nil {
		return err
	}
	return sendBlob(req.GetSize(), chunkSize, s.opts.freshSends, stream.Send)
}

// checkGet validates a blob's size and chunk size and returns the chunk size
// to use.
func checkGet(size, chunkSize int64) (int, error) {
	switch {
	case size < 0:
		return 0, status.Errorf(codes.InvalidArgument, "size %d is negative", size)
	case chunkSize < 0 || chunkSize > MaxChunkSize:
		return 0, status.Errorf(codes.InvalidArgument, "chunk size %d is not in [0, %d]", chunkSize, MaxChunkSize)
	case chunkSize == 0:
		return DefaultChunkSize, nil
	}
	return int(chunkSize), nil
}

// sendBlob sends size bytes of the pattern in chunks of chunkSize bytes.
// Without fresh it refills one Chunk and its memory for every Send.
func sendBlob(size int64, chunkSize int, fresh bool, send func(*examplepb.Chunk) error) error {
	var c examplepb.Chunk
	for off := int64(0); off < size; {
		n := int(min(int64(chunkSize), size-off))
		m := &c
		if fresh {
			m = &examplepb.Chunk{Data: make([]byte, n)}
		} else if cap(c.Data) < n {
			c.Data = make([]byte, n)
		}
		m.Data = m.Data[:n]
		fillPattern(m.Data, off)
		if err := send(m); err != nil {
			return err
		}
		off += int64(n)
	}
	return nil
}

// EchoServer implements examplepb.EchoServiceServer.
type EchoServer struct {
	examplepb.UnimplementedEchoServiceServer
	opts options
}

// NewEchoServer returns an EchoServer. By default it receives with the
// generated helper and sends back the reused message it received into.
func NewEchoServer(opts ...Option) *EchoServer {
	return &EchoServer{opts: newOptions(opts)}
}

// Echo sends every chunk back as it arrives, until the client closes its
// side.
//
// Unless the server was made WithFreshSends, it sends the Receiver's reused
// message, which the next Recv overwrites: see WithFreshSends for
// when that is unsafe. With WithFreshSends it sends r.Take(), which hands the
// message over and makes the next Recv decode into a new one.
func (s *EchoServer) Echo(stream grpc.BidiStreamingServer[examplepb.Chunk, examplepb.Chunk]) error {
	if s.opts.standardRecv {
		for {
			c, err := stream.Recv()
			if err != nil {
				if err == io.EOF {
					return nil
				}
				return err
			}
			if err := stream.Send(c); err != nil {
				return err
			}
		}
	}
	r := examplepb.NewEchoService_EchoRequestReceiver(stream)
	defer r.Release() // the last message is not used after the stream
	for c, err := range r.All() {
		if err != nil {
			return err
		}
		if s.opts.freshSends {
			c = r.Take()
		}
		if err := stream.Send(c); err != nil {
			return err
		}
	}
	return nil
}
