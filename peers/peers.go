package peers

import (
	"context"
	"net"
	"net/http"

	"connectrpc.com/connect"
	"google.golang.org/grpc/encoding"
	"storj.io/drpc"

	"github.com/grpcfast/grpcfast/example/examplepb"
)

// Names of the peers, as in the sub-benchmark names peer=NAME.
const (
	PeerGrpcfast       = "grpcfast"
	PeerGRPCStd        = "grpc-std"
	PeerGRPCFloor      = "grpc-floor"
	PeerDRPCVTProto    = "drpc-vtproto"
	PeerDRPCReuse      = "drpc-reuse"
	PeerConnect        = "connect"
	PeerConnectVTProto = "connect-vtproto"
)

// Peer is one RPC stack serving and calling the example's services.
type Peer struct {
	Name string
	// Serve serves ChunkService and UserService on lis until stop is
	// called; stop closes lis.
	Serve func(lis net.Listener) (stop func())
	// Dial connects a client to a server of the same peer at addr
	// (host:port).
	Dial func(addr string) (Client, error)
}

// Client calls the example's services on one peer, over one connection.
type Client interface {
	// Put sends size bytes of the blob in chunks of chunkSize bytes on
	// ChunkService.Put and checks the size and CRC-32C the server answers.
	Put(ctx context.Context, size int64, chunkSize int) error
	// Get receives size bytes on ChunkService.Get in chunks of chunkSize
	// bytes and checks every byte against the blob.
	Get(ctx context.Context, size int64, chunkSize int) error
	// CreateUser calls UserService.CreateUser.
	CreateUser(ctx context.Context, req *examplepb.CreateUserRequest) (*examplepb.CreateUserResponse, error)
	Close() error
}

// hooks let tests watch what the peers do: each wraps what it is given. The
// zero value wraps nothing, which is what the benchmarks use.
type hooks struct {
	grpcCodec    func(peer string, c encoding.CodecV2) encoding.CodecV2
	drpcConn     func(peer string, c drpc.Conn) drpc.Conn
	drpcHandler  func(peer string, h drpc.Handler) drpc.Handler
	connectCodec func(peer string, c connect.Codec) connect.Codec
	httpHandler  func(peer string, h http.Handler) http.Handler
}

// All returns every peer, grpcfast first (benchstat's first column is the
// one the others are compared with).
func All() []Peer { return newPeers(hooks{}) }

func newPeers(h hooks) []Peer {
	return []Peer{
		grpcPeer(PeerGrpcfast, true, false, h),
		grpcPeer(PeerGRPCStd, false, false, h),
		grpcPeer(PeerGRPCFloor, true, true, h),
		drpcPeer(PeerDRPCVTProto, false, h),
		drpcPeer(PeerDRPCReuse, true, h),
		connectPeer(PeerConnect, false, h),
		connectPeer(PeerConnectVTProto, true, h),
	}
}
