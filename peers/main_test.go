package peers

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/grpcfast/grpcfast/grpcfastbench"
)

// With server=process, the test binary runs itself again as the server of
// every peer (TestMain sees childEnv). The two talk over the child's
// standard input and output, one line at a time:
//
//	child:  peers: listening NAME=ADDR NAME=ADDR ...
//	parent: stats
//	child:  peers: stats CPU_NS MALLOCS BYTES
//
// and the child stops when its standard input closes.
const (
	childEnv      = "GRPCFAST_PEERS_CHILD"
	linePrefix    = "peers: "
	childDeadline = 30 * time.Second
)

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		if err := serveChild(); err != nil {
			fmt.Fprintln(os.Stderr, "peers: server process:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	code := m.Run()
	if err := stopChild(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

// procStats are a process's totals: CPU time (user+system), allocations
// and allocated bytes.
type procStats struct {
	cpuNs, mallocs, bytes uint64
}

func readProcStats() procStats {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return procStats{cpuNs: uint64(grpcfastbench.CPUTime().Nanoseconds()), mallocs: ms.Mallocs, bytes: ms.TotalAlloc}
}

// serveChild serves every peer on loopback TCP until standard input
// closes, and answers stats requests.
func serveChild() error {
	var addrs []string
	for _, p := range All() {
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		defer p.Serve(lis)()
		addrs = append(addrs, p.Name+"="+lis.Addr().String())
	}
	fmt.Printf("%slistening %s\n", linePrefix, strings.Join(addrs, " "))
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		if in.Text() != "stats" {
			return fmt.Errorf("unknown request %q", in.Text())
		}
		s := readProcStats()
		fmt.Printf("%sstats %d %d %d\n", linePrefix, s.cpuNs, s.mallocs, s.bytes)
	}
	return in.Err()
}

// childProc is the parent's handle on the server process.
type childProc struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   *bufio.Reader
	addrs map[string]string
}

var child struct {
	once sync.Once
	c    *childProc
	err  error
}

// theChild starts the server process the first time it is called, and
// returns it.
func theChild() (*childProc, error) {
	child.once.Do(func() { child.c, child.err = startChild() })
	return child.c, child.err
}

// stopChild stops the server process, if it was started.
func stopChild() error {
	child.once.Do(func() {}) // none from now on
	if child.c == nil {
		return nil
	}
	return child.c.stop()
}

func startChild() (*childProc, error) {
	cmd := exec.Command(os.Args[0])
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
		return nil, fmt.Errorf("starting the server process: %v", err)
	}
	c := &childProc{cmd: cmd, in: in, out: bufio.NewReader(out), addrs: map[string]string{}}
	line, err := c.readLine("listening")
	if err != nil {
		c.in.Close()
		cmd.Process.Kill()
		cmd.Wait()
		return nil, err
	}
	for _, kv := range strings.Fields(line) {
		name, addr, _ := strings.Cut(kv, "=")
		c.addrs[name] = addr
	}
	return c, nil
}

// readLine returns the rest of the child's next line that starts with the
// prefix and verb, or an error if none comes within childDeadline.
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
				ch <- result{"", fmt.Errorf("the server process ended before saying %q: %v", verb, err)}
				return
			}
		}
	}()
	select {
	case r := <-ch:
		return r.line, r.err
	case <-time.After(childDeadline):
		return "", fmt.Errorf("the server process did not say %q within %v", verb, childDeadline)
	}
}

func (c *childProc) stats() (procStats, error) {
	var s procStats
	if _, err := io.WriteString(c.in, "stats\n"); err != nil {
		return s, fmt.Errorf("asking the server process for its stats: %v", err)
	}
	line, err := c.readLine("stats")
	if err != nil {
		return s, err
	}
	if _, err := fmt.Sscan(line, &s.cpuNs, &s.mallocs, &s.bytes); err != nil {
		return s, fmt.Errorf("the server process's stats %q: %v", line, err)
	}
	return s, nil
}

// stop closes the child's standard input, which ends it, and waits.
func (c *childProc) stop() error {
	c.in.Close()
	done := make(chan error, 1)
	go func() {
		io.Copy(io.Discard, c.out)
		done <- c.cmd.Wait()
	}()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("the server process: %v", err)
		}
		return nil
	case <-time.After(childDeadline):
		c.cmd.Process.Kill()
		return fmt.Errorf("the server process did not stop within %v; killed", childDeadline)
	}
}
