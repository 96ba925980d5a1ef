package grpcfastbench

import (
	"flag"
	"net"
	"os"
	"os/exec"
	"regexp"
	"strings"

	"google.golang.org/grpc"

	"github.com/grpcfast/grpcfast/internal/childproc"
)

// With -grpcfast.server=process, the test binary runs itself again as the
// stub server: the child runs only the same top-level benchmark, with this
// variable set, and Run then serves instead of benchmarking. The two talk
// through package childproc's protocol, its lines prefixed with linePrefix.
const (
	childEnv   = "GRPCFASTBENCH_CHILD"
	linePrefix = "grpcfastbench: "
)

// serveChild is Run in the child process: it serves both paths on loopback
// TCP until its standard input closes, and answers stats requests.
func serveChild(service string, methods []Method, ms []msgs, cfg *config) error {
	var addrs []string
	var servers []*grpc.Server
	defer func() {
		for _, s := range servers {
			s.Stop()
		}
	}()
	for _, p := range newPaths() {
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		srv := newServer(service, methods, ms, p, cfg)
		servers = append(servers, srv)
		go srv.Serve(lis)
		addrs = append(addrs, p.name+"="+lis.Addr().String())
	}
	if err := childproc.Serve(linePrefix, addrs); err != nil {
		return errorf("%v", err)
	}
	return nil
}

// startChild runs the test binary again as the stub server of the top-level
// benchmark named top, with the same -grpcfast.* flags.
func startChild(top string) (*childproc.Proc, error) {
	args := []string{
		"-test.run=^$",
		"-test.bench=^" + regexp.QuoteMeta(top) + "$",
		"-test.benchtime=1x",
		"-test.count=1",
	}
	flag.Visit(func(f *flag.Flag) {
		if strings.HasPrefix(f.Name, FlagPrefix) {
			args = append(args, "-"+f.Name+"="+f.Value.String())
		}
	})
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	p, err := childproc.Start(cmd, linePrefix, PathProto, PathGrpcfast)
	if err != nil {
		return nil, errorf("%v", err)
	}
	return p, nil
}
