package grpcfastbench

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"time"

	"google.golang.org/grpc"
)

// With -grpcfast.server=process, the test binary runs itself again as the
// stub server: the child runs only the same top-level benchmark, with this
// variable set, and Run then serves instead of benchmarking. The two talk
// over the child's standard input and output, one line at a time:
//
//	child:  grpcfastbench: listening proto=ADDR grpcfast=ADDR
//	parent: stats
//	child:  grpcfastbench: stats CPU_NS MALLOCS BYTES
//
// and the child stops when its standard input closes. Other lines the
// child's test framework prints are ignored.
const (
	childEnv      = "GRPCFASTBENCH_CHILD"
	linePrefix    = "grpcfastbench: "
	listenVerb    = "listening"
	statsVerb     = "stats"
	childDeadline = 30 * time.Second
)

// procStats are a process's totals: CPU time (user+system), allocations
// and allocated bytes.
type procStats struct {
	cpuNs, mallocs, bytes uint64
}

func readProcStats() procStats {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return procStats{cpuNs: uint64(CPUTime().Nanoseconds()), mallocs: ms.Mallocs, bytes: ms.TotalAlloc}
}

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
	fmt.Printf("%s%s %s\n", linePrefix, listenVerb, strings.Join(addrs, " "))
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		switch in.Text() {
		case statsVerb:
			s := readProcStats()
			fmt.Printf("%s%s %d %d %d\n", linePrefix, statsVerb, s.cpuNs, s.mallocs, s.bytes)
		default:
			return errorf("child: unknown request %q", in.Text())
		}
	}
	return in.Err()
}

// childProc is the parent's handle on the child server process.
type childProc struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   *bufio.Reader
	done  chan error
	addrs map[string]string
}

// startChild runs the test binary again as the stub server of the top-level
// benchmark named top, with the same -grpcfast.* flags.
func startChild(top string) (*childProc, error) {
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
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, errorf("starting the server process: %v", err)
	}
	c := &childProc{cmd: cmd, in: in, out: bufio.NewReader(out), done: make(chan error, 1), addrs: map[string]string{}}
	line, err := c.readLine(listenVerb)
	if err != nil {
		c.kill()
		return nil, err
	}
	for _, kv := range strings.Fields(line) {
		name, addr, _ := strings.Cut(kv, "=")
		c.addrs[name] = addr
	}
	for _, p := range []string{PathProto, PathGrpcfast} {
		if c.addrs[p] == "" {
			c.kill()
			return nil, errorf("the server process announced no address for codec=%s: %q", p, line)
		}
	}
	return c, nil
}

// readLine returns the rest of the child's next line that starts with the
// protocol prefix and verb, skipping other lines, or an error if the child
// says nothing of the kind within childDeadline.
func (c *childProc) readLine(verb string) (string, error) {
	type result struct {
		line string
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		for {
			s, err := c.out.ReadString('\n')
			if rest, ok := strings.CutPrefix(s, linePrefix+verb+" "); ok {
				ch <- result{strings.TrimSpace(rest), nil}
				return
			}
			if err != nil {
				ch <- result{"", errorf("the server process ended before saying %q: %v", verb, err)}
				return
			}
		}
	}()
	select {
	case r := <-ch:
		return r.line, r.err
	case <-time.After(childDeadline):
		return "", errorf("the server process did not say %q within %v", verb, childDeadline)
	}
}

// stats asks the child for its totals.
func (c *childProc) stats() (procStats, error) {
	var s procStats
	if _, err := io.WriteString(c.in, statsVerb+"\n"); err != nil {
		return s, errorf("asking the server process for its stats: %v", err)
	}
	line, err := c.readLine(statsVerb)
	if err != nil {
		return s, err
	}
	if _, err := fmt.Sscan(line, &s.cpuNs, &s.mallocs, &s.bytes); err != nil {
		return s, errorf("the server process's stats %q: %v", line, err)
	}
	return s, nil
}

// stop closes the child's standard input, which ends it, and waits for it.
func (c *childProc) stop() error {
	c.in.Close()
	go func() {
		io.Copy(io.Discard, c.out) // its test framework's last lines
		c.done <- c.cmd.Wait()
	}()
	select {
	case err := <-c.done:
		if err != nil {
			return errorf("the server process: %v", err)
		}
		return nil
	case <-time.After(childDeadline):
		c.cmd.Process.Kill()
		return errorf("the server process did not stop within %v; killed", childDeadline)
	}
}

func (c *childProc) kill() {
	c.cmd.Process.Kill()
	c.cmd.Wait()
}
