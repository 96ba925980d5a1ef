package peers

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"

	"github.com/grpcfast/grpcfast/internal/childproc"
)

// Each OTLP collector runs in a server process of its own (the test binary
// run again with collectorChildEnv naming it), so that its figures are its
// own (its heap, its collections) and pdata's pooling gate, which is
// process-wide, has the collector's value. The process announces, beside
// the collector's address, the gate's value it runs with (as the entry
// PdataPoolingGate=true or false), which the parent checks.
const collectorChildEnv = "GRPCFAST_PEERS_OTLP_CHILD"

// serveCollectorChild is the collector process's side: it sets pdata's
// gate to the collector's value, serves the collector on loopback TCP and
// answers stats requests until standard input closes.
func serveCollectorChild(name string) error {
	c, err := findCollector(name)
	if err != nil {
		return err
	}
	if err := setPdataPooling(c.PdataPooling); err != nil {
		return err
	}
	on, err := pdataPooling()
	if err != nil {
		return err
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer c.Serve(lis)()
	return childproc.Serve(linePrefix, []string{
		name + "=" + lis.Addr().String(),
		PdataPoolingGate + "=" + strconv.FormatBool(on),
	})
}

var collectorChildren struct {
	mu      sync.Mutex
	stopped bool
	procs   map[string]*childproc.Proc
}

// collectorChild returns the server process of collector c, started the
// first time it is asked for, and the address it serves c on.
func collectorChild(c Collector) (*childproc.Proc, string, error) {
	cc := &collectorChildren
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if cc.stopped {
		return nil, "", errors.New("the collector processes were stopped")
	}
	p := cc.procs[c.Name]
	if p == nil {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), collectorChildEnv+"="+c.Name)
		var err error
		if p, err = childproc.Start(cmd, linePrefix, c.Name, PdataPoolingGate); err != nil {
			return nil, "", err
		}
		if got, want := p.Addrs[PdataPoolingGate], strconv.FormatBool(c.PdataPooling); got != want {
			return nil, "", errors.Join(fmt.Errorf("the process of collector %s runs with %s=%s, want %s", c.Name, PdataPoolingGate, got, want), p.Stop())
		}
		if cc.procs == nil {
			cc.procs = map[string]*childproc.Proc{}
		}
		cc.procs[c.Name] = p
	}
	return p, p.Addrs[c.Name], nil
}

// stopCollectorChildren stops the collector processes that were started.
func stopCollectorChildren() error {
	cc := &collectorChildren
	cc.mu.Lock()
	defer cc.mu.Unlock()
	cc.stopped = true
	var errs []error
	for name, p := range cc.procs {
		if err := p.Stop(); err != nil {
			errs = append(errs, fmt.Errorf("the process of collector %s: %v", name, err))
		}
	}
	cc.procs = nil
	return errors.Join(errs...)
}
