package peers

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime/pprof"
	"sync"
	"testing"

	"github.com/grpcfast/grpcfast/internal/childproc"
)

// With server=process, the test binary runs itself again as the server of
// every peer (TestMain sees childEnv). The two talk through package
// childproc's protocol, its lines prefixed with linePrefix.
const (
	childEnv   = "GRPCFAST_PEERS_CHILD"
	linePrefix = "peers: "
	// profileEnv, when set to a file name, makes the server process write
	// its CPU profile there (the servers' side of server=process, which
	// -cpuprofile does not see): run one peer's sub-benchmark, e.g.
	// -bench 'Peers/Get/server=process/peer=grpcfast$'.
	profileEnv = "GRPCFAST_PEERS_SERVER_CPUPROFILE"
)

func TestMain(m *testing.M) {
	if name := os.Getenv(collectorChildEnv); name != "" {
		if err := serveCollectorChild(name); err != nil {
			fmt.Fprintln(os.Stderr, "peers: OTLP collector process:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if os.Getenv(childEnv) != "" {
		if err := serveChild(); err != nil {
			fmt.Fprintln(os.Stderr, "peers: server process:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	code := m.Run()
	for _, err := range []error{stopChild(), stopCollectorChildren()} {
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			if code == 0 {
				code = 1
			}
		}
	}
	os.Exit(code)
}

// serveChild serves every peer on loopback TCP until standard input
// closes, and answers stats requests.
func serveChild() error {
	if name := os.Getenv(profileEnv); name != "" {
		f, err := os.Create(name)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	var addrs []string
	for _, p := range All() {
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		defer p.Serve(lis)()
		addrs = append(addrs, p.Name+"="+lis.Addr().String())
	}
	return childproc.Serve(linePrefix, addrs)
}

var child struct {
	once sync.Once
	p    *childproc.Proc
	err  error
}

// theChild starts the server process the first time it is called, and
// returns it.
func theChild() (*childproc.Proc, error) {
	child.once.Do(func() {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), childEnv+"=1")
		child.p, child.err = childproc.Start(cmd, linePrefix)
	})
	return child.p, child.err
}

// stopChild stops the server process, if it was started.
func stopChild() error {
	child.once.Do(func() {}) // none from now on
	if child.p == nil {
		return nil
	}
	return child.p.Stop()
}
