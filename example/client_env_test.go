package example_test

import (
	"net"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/example"
	"github.com/grpcfast/grpcfast/example/examplepb"
	"github.com/grpcfast/grpcfast/internal/stdcodec"
)

// paths are the two ways to run the example, in the order reported.
var paths = []string{"std", "grpcfast"}

// transports are the transport configurations that benchmarks run each path
// on, in the order reported: gRPC's defaults, and bulkServerOptions
// with bulkDialOptions.
var transports = []string{"default", "bulk"}

// transportOptions returns the server and dial options of a transport
// configuration. They are the same for every path.
func transportOptions(transport string) ([]grpc.ServerOption, []grpc.DialOption) {
	switch transport {
	case "default":
		return nil, nil
	case "bulk":
		return bulkServerOptions(), bulkDialOptions()
	}
	panic("unknown transport " + transport)
}

// testEnv is a server on 127.0.0.1 and a connection to it.
type testEnv struct {
	conn  *grpc.ClientConn
	chunk examplepb.ChunkServiceClient
	echo  examplepb.EchoServiceClient
	user  examplepb.UserServiceClient
	// opts are the client helpers' options for the path.
	opts []example.Option
}

// pathOptions returns the server, dial and example options of a path.
func pathOptions(path string) ([]grpc.ServerOption, []grpc.DialOption, []example.Option) {
	switch path {
	case "std":
		std := stdcodec.Codec()
		return []grpc.ServerOption{grpc.ForceServerCodecV2(std)},
			[]grpc.DialOption{grpc.WithDefaultCallOptions(grpc.ForceCodecV2(std))},
			[]example.Option{example.WithStandardRecv()}
	case "grpcfast":
		return []grpc.ServerOption{grpcfast.ServerOption()},
			[]grpc.DialOption{grpcfast.DialOption()}, nil
	}
	panic("unknown path " + path)
}

// startEnv serves the example on 127.0.0.1 the way path says and dials it.
// Extra options are appended to the path's; extra example options apply to
// the servers and to the client helpers (testEnv.opts).
func startEnv(tb testing.TB, path string, sopts []grpc.ServerOption, dopts []grpc.DialOption, extra ...example.Option) *testEnv {
	tb.Helper()
	ps, pd, opts := pathOptions(path)
	opts = append(opts, extra...)
	srv := grpc.NewServer(append(ps, sopts...)...)
	example.Register(srv, opts...)
	conn := serve(tb, srv, append(pd, dopts...)...)
	return &testEnv{
		conn:  conn,
		chunk: examplepb.NewChunkServiceClient(conn),
		echo:  examplepb.NewEchoServiceClient(conn),
		user:  examplepb.NewUserServiceClient(conn),
		opts:  opts,
	}
}

// serve serves srv on 127.0.0.1 and returns a connection to it; both are
// closed when the test ends.
func serve(tb testing.TB, srv *grpc.Server, dopts ...grpc.DialOption) *grpc.ClientConn {
	tb.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	served := make(chan struct{})
	go func() {
		defer close(served)
		srv.Serve(lis)
	}()
	conn, err := grpc.NewClient(lis.Addr().String(),
		append([]grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}, dopts...)...)
	if err != nil {
		srv.Stop()
		<-served
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		conn.Close()
		srv.Stop()
		<-served
	})
	return conn
}
