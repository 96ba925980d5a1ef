package grpcfastbench

import (
	"flag"
	"net"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"

	"google.golang.org/grpc"

	"github.com/grpcfast/grpcfast/internal/childproc"
)

// With -grpcfast.server=process, the test binary runs itself again as the
// stub server of each path: the child runs only the same top-level
// benchmark, with this variable set to the path's name, and Run then serves
// that path instead of benchmarking. The two talk
// through package childproc's protocol, its lines prefixed with linePrefix.
const (
	childEnv   = "GRPCFASTBENCH_CHILD"
	linePrefix = "grpcfastbench: "
)

// serveChild is Run in the child process: it serves the path named path on
// loopback TCP until its standard input closes, and answers stats requests.
func serveChild(service string, methods []Method, ms []msgs, cfg *config, path string) error {
	if len(cfg.serverCPUs) > 0 {
		if err := pin("servercpus", cfg.serverCPUs); err != nil {
			return errorf("%v", err)
		}
	}
	var addrs []string
	var servers []*grpc.Server
	defer func() {
		for _, s := range servers {
			s.Stop()
		}
	}()
	for _, p := range newPaths(cfg) {
		if p.name != path {
			continue
		}
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		srv := newServer(service, methods, ms, p, cfg)
		servers = append(servers, srv)
		go srv.Serve(lis)
		addrs = append(addrs, p.name+"="+lis.Addr().String())
	}
	if len(addrs) == 0 {
		return errorf("the server process was asked for path %q, which this benchmark does not have", path)
	}
	// The parent checks that this process runs on as many threads as it
	// does (startChild).
	addrs = append(addrs, gomaxprocsName+"="+strconv.Itoa(runtime.GOMAXPROCS(0)),
		transportName+"="+cfg.transportKey())
	if len(cfg.serverCPUs) > 0 {
		// And that it runs where -servercpus says.
		cpus, err := allowedCPUs()
		if err != nil {
			return errorf("%v", err)
		}
		addrs = append(addrs, cpusName+"="+formatCPUs(cpus))
	}
	// The process serves one path: what it keeps from one measured run to
	// the next (the owned copies' free list of a path with
	// WithStringsInOneCopy) is that path's, and stays.
	if err := childproc.Serve(linePrefix, addrs); err != nil {
		return errorf("%v", err)
	}
	return nil
}

// gomaxprocsName, transportName and cpusName are the names under which the
// child announces its GOMAXPROCS, its transport flags (config.transportKey)
// and, with -servercpus, the CPUs it runs on, among its addresses.
const (
	gomaxprocsName = "gomaxprocs"
	transportName  = "transport"
	cpusName       = "cpus"
)

// startChild runs the test binary again as the stub server of the top-level
// benchmark named top, with the same -grpcfast.* flags and this process's
// GOMAXPROCS, and waits for it to serve the path named path. go test sets
// GOMAXPROCS again for each -test.cpu value of a sub-benchmark: runMethod
// then sets the child's to match (childproc.Proc.SetProcs) and fails if the
// child's differed while it measured.
func startChild(top, path string, cfg *config) (*childproc.Proc, error) {
	procs := strconv.Itoa(runtime.GOMAXPROCS(0))
	args := []string{
		"-test.run=^$",
		"-test.bench=^" + regexp.QuoteMeta(top) + "$",
		"-test.benchtime=1x",
		"-test.count=1",
		"-test.cpu=" + procs,
	}
	flag.Visit(func(f *flag.Flag) {
		if strings.HasPrefix(f.Name, FlagPrefix) {
			args = append(args, "-"+f.Name+"="+f.Value.String())
		}
	})
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), childEnv+"="+path, "GOMAXPROCS="+procs)
	names := []string{path, gomaxprocsName, transportName}
	if len(cfg.serverCPUs) > 0 {
		names = append(names, cpusName)
	}
	p, err := childproc.Start(cmd, linePrefix, names...)
	if err != nil {
		return nil, errorf("%v", err)
	}
	if got := p.Addrs[gomaxprocsName]; got != procs {
		p.Kill()
		return nil, errorf("the server process runs with GOMAXPROCS=%s, want %s as this one", got, procs)
	}
	if got, want := p.Addrs[transportName], cfg.transportKey(); got != want {
		p.Kill()
		return nil, errorf("the server process runs with transport flags %q, want %q as this one", got, want)
	}
	if want := formatCPUs(cfg.serverCPUs); want != "" && p.Addrs[cpusName] != want {
		p.Kill()
		return nil, errorf("the server process runs on CPUs %s, want %s (-%sservercpus)", p.Addrs[cpusName], want, FlagPrefix)
	}
	return p, nil
}
