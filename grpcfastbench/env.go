package grpcfastbench

import (
	"context"
	"fmt"
	"net"
	"sync/atomic"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/internal/stdcodec"
)

// Names of the two paths, as in the sub-benchmark names codec=proto and
// codec=grpcfast.
const (
	PathProto    = "proto"
	PathGrpcfast = "grpcfast"
)

// path is one side of the comparison. Both force their codec on the server
// and on every call, so that both pay the same fixed costs (a forced codec
// makes gRPC-Go build the content-type string per call).
type path struct {
	name      string
	codec     encoding.CodecV2
	receivers bool // receive with the generated receivers, else with the stream's Recv
	callOpts  []grpc.CallOption
}

// wrapCodec, when set (by tests), wraps the codec of each path.
var wrapCodec func(path string, c encoding.CodecV2) encoding.CodecV2

func newPaths() []*path {
	ps := []*path{
		{name: PathProto, codec: stdcodec.Codec()},
		{name: PathGrpcfast, codec: grpcfast.NewCodec(), receivers: true},
	}
	for _, p := range ps {
		if wrapCodec != nil {
			p.codec = wrapCodec(p.name, p.codec)
		}
		p.callOpts = []grpc.CallOption{grpc.ForceCodecV2(p.codec)}
	}
	return ps
}

// msgs holds the filled request and response of one method.
type msgs struct {
	req, res proto.Message
}

func fillMessages(methods []Method, size int) ([]msgs, error) {
	out := make([]msgs, len(methods))
	for i, m := range methods {
		req, res := m.newReq(), m.newRes()
		if err := Fill(req, size); err != nil {
			return nil, fmt.Errorf("grpcfastbench: %s request: %w", m.name, err)
		}
		if err := Fill(res, size); err != nil {
			return nil, fmt.Errorf("grpcfastbench: %s response: %w", m.name, err)
		}
		out[i] = msgs{req, res}
	}
	return out, nil
}

// stub is the server side of one method: it answers with res.
type stub struct {
	cfg *config
	res proto.Message
}

// newServer returns a gRPC server that serves the stub service on path p.
func newServer(service string, methods []Method, ms []msgs, p *path, cfg *config) *grpc.Server {
	desc := &grpc.ServiceDesc{ServiceName: service, HandlerType: (*any)(nil)}
	for i, m := range methods {
		st := &stub{cfg: cfg, res: ms[i].res}
		if m.kind == unary {
			desc.Methods = append(desc.Methods, grpc.MethodDesc{
				MethodName: m.name,
				Handler: func(_ any, _ context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
					return m.unary(st, dec)
				},
			})
			continue
		}
		desc.Streams = append(desc.Streams, grpc.StreamDesc{
			StreamName:    m.name,
			Handler:       func(_ any, ss grpc.ServerStream) error { return m.serve(st, p, ss) },
			ClientStreams: m.kind == clientStreaming || m.kind == bidiStreaming,
			ServerStreams: m.kind == serverStreaming || m.kind == bidiStreaming,
		})
	}
	srv := grpc.NewServer(grpc.ForceServerCodecV2(p.codec))
	srv.RegisterService(desc, struct{}{})
	return srv
}

// listen returns a listener for cfg's transport, and the dial options that
// reach it.
func listen(cfg *config) (net.Listener, string, []grpc.DialOption, error) {
	if cfg.transport == TransportBufconn {
		lis := bufconn.Listen(1 << 20)
		dial := grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) {
			return lis.DialContext(ctx)
		})
		return lis, "passthrough:///bufconn", []grpc.DialOption{dial}, nil
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", nil, err
	}
	return lis, lis.Addr().String(), nil, nil
}

// conns is the client side of one path: the connections calls are spread
// over.
type conns struct {
	cc   []*grpc.ClientConn
	next atomic.Uint32
}

func dial(target string, n int, opts []grpc.DialOption) (*conns, error) {
	c := &conns{}
	opts = append([]grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}, opts...)
	for range n {
		cc, err := grpc.NewClient(target, opts...)
		if err != nil {
			c.close()
			return nil, err
		}
		c.cc = append(c.cc, cc)
	}
	return c, nil
}

func (c *conns) close() {
	for _, cc := range c.cc {
		cc.Close()
	}
}

// client is what a Method's call needs: the connections, the request to
// send and the flags.
type client struct {
	cfg   *config
	req   proto.Message
	conns *conns
	n     int // calls use the first n connections
}

// conn returns the next connection, round robin.
func (c *client) conn() *grpc.ClientConn {
	if c.n == 1 {
		return c.conns.cc[0]
	}
	return c.conns.cc[int(c.conns.next.Add(1))%c.n]
}
