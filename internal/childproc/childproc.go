// Package childproc runs a benchmark's server as a child process of the test
// binary and reads the child's totals (CPU time, allocations, allocated
// bytes), for grpcfastbench's -grpcfast.server=process and the peers
// benchmarks. The two processes talk over the child's standard input and
// output, one line at a time, each of the child's lines starting with a
// prefix that names the protocol:
//
//	child:  PREFIX listening NAME=ADDR NAME=ADDR ...
//	parent: collect
//	child:  PREFIX collect ok
//	parent: stats
//	child:  PREFIX stats CPU_NS MALLOCS BYTES GOMAXPROCS
//	parent: gomaxprocs N
//	child:  PREFIX gomaxprocs N
//	parent: profile start BASE
//	child:  PREFIX profile ok              (or: PREFIX profile error MESSAGE)
//	parent: profile stop
//	child:  PREFIX profile ok              (or: PREFIX profile error MESSAGE)
//
// "collect" has the child run a garbage collection to its end (Collect).
// The child stops when its standard input closes, ending the profile it
// writes, if any. "profile start BASE" has the child write its profiles
// into files named BASE.cpu.pprof and so on (StartProfile): BASE is the
// rest of the line, an absolute path, since the child's working directory
// need not be the parent's. Other lines the child prints (its test
// framework's) are ignored.
package childproc

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

const (
	listenVerb  = "listening"
	collectVerb = "collect"
	statsVerb   = "stats"
	procsVerb   = "gomaxprocs"
	profVerb    = "profile"
	// Deadline bounds every wait for the child.
	Deadline = 30 * time.Second
)

// Stats are a process's totals: CPU time (user+system), allocations and
// allocated bytes; and its GOMAXPROCS.
type Stats struct {
	CPUNs, Mallocs, Bytes uint64
	Procs                 int
}

// ReadStats returns this process's totals.
func ReadStats() Stats {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return Stats{CPUNs: uint64(CPUTime().Nanoseconds()), Mallocs: ms.Mallocs, Bytes: ms.TotalAlloc, Procs: runtime.GOMAXPROCS(0)}
}

// Serve is the child's side: it announces addrs ("NAME=ADDR" each) on
// standard output, then answers collect, stats, gomaxprocs and profile requests
// until standard input closes. A collect request calls each of beforeCollect
// first: what the child keeps for later calls and would carry from one
// measured run into the next (a free list), let go before the collection.
func Serve(prefix string, addrs []string, beforeCollect ...func()) error {
	return serve(prefix, addrs, os.Stdin, os.Stdout, beforeCollect...)
}

func serve(prefix string, addrs []string, r io.Reader, w io.Writer, beforeCollect ...func()) (err error) {
	fmt.Fprintf(w, "%s%s %s\n", prefix, listenVerb, strings.Join(addrs, " "))
	var prof *Profile
	defer func() {
		if prof != nil {
			if perr := prof.Stop(); err == nil && perr != nil {
				err = fmt.Errorf("child: ending its profile: %v", perr)
			}
		}
	}()
	in := bufio.NewScanner(r)
	for in.Scan() {
		line := in.Text()
		if arg, ok := strings.CutPrefix(line, procsVerb+" "); ok {
			n, err := strconv.Atoi(arg)
			if err != nil || n < 1 {
				return fmt.Errorf("child: bad request %q", line)
			}
			runtime.GOMAXPROCS(n)
			fmt.Fprintf(w, "%s%s %d\n", prefix, procsVerb, runtime.GOMAXPROCS(0))
			continue
		}
		if arg, ok := strings.CutPrefix(line, profVerb+" "); ok {
			var err error
			switch base, start := strings.CutPrefix(arg, "start "); {
			case start && prof != nil:
				err = errors.New("a profile is already being written")
			case start:
				prof, err = StartProfile(base)
			case arg != "stop":
				return fmt.Errorf("child: bad request %q", line)
			case prof == nil:
				err = errors.New("no profile is being written")
			default:
				err, prof = prof.Stop(), nil
			}
			if err != nil {
				// One line: the parent reads the child's output by lines.
				fmt.Fprintf(w, "%s%s error %s\n", prefix, profVerb, strings.ReplaceAll(err.Error(), "\n", " "))
				continue
			}
			fmt.Fprintf(w, "%s%s ok\n", prefix, profVerb)
			continue
		}
		if line == collectVerb {
			for _, f := range beforeCollect {
				f()
			}
			runtime.GC()
			fmt.Fprintf(w, "%s%s ok\n", prefix, collectVerb)
			continue
		}
		if line != statsVerb {
			return fmt.Errorf("child: unknown request %q", line)
		}
		s := ReadStats()
		fmt.Fprintf(w, "%s%s %d %d %d %d\n", prefix, statsVerb, s.CPUNs, s.Mallocs, s.Bytes, s.Procs)
	}
	return in.Err()
}

// Proc is the parent's handle on the child.
type Proc struct {
	cmd    *exec.Cmd
	prefix string
	in     io.WriteCloser
	// lines are the child's output, line by line, from the one goroutine
	// that reads it; closed at its end, after outErr is set.
	lines  chan string
	outErr error
	// failed is set once a wait for the child timed out: its answers may
	// still come, so the protocol is out of step, and every later wait
	// fails with it.
	failed error
	// deadline bounds every wait for the child: Deadline, shorter in tests.
	deadline time.Duration
	// Addrs are the addresses the child announced, by name.
	Addrs map[string]string
}

// newProc returns the Proc of a child that reads in and writes out, and
// starts the goroutine that reads out: the only one that does, so that a
// wait that times out leaves no reader behind to race the next.
func newProc(cmd *exec.Cmd, prefix string, in io.WriteCloser, out io.Reader) *Proc {
	p := &Proc{cmd: cmd, prefix: prefix, in: in, lines: make(chan string, 16), deadline: Deadline, Addrs: map[string]string{}}
	go func() {
		r := bufio.NewReader(out)
		for {
			s, err := r.ReadString('\n')
			if s != "" {
				p.lines <- s
			}
			if err != nil {
				p.outErr = err
				close(p.lines)
				return
			}
		}
	}()
	return p
}

// Start starts cmd (its standard error goes to this process's) and waits
// for it to announce its addresses, which must include every name in want.
func Start(cmd *exec.Cmd, prefix string, want ...string) (*Proc, error) {
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
	p := newProc(cmd, prefix, in, out)
	line, err := p.readLine(listenVerb)
	if err != nil {
		p.Kill()
		return nil, err
	}
	for _, kv := range strings.Fields(line) {
		name, addr, _ := strings.Cut(kv, "=")
		p.Addrs[name] = addr
	}
	for _, name := range want {
		if p.Addrs[name] == "" {
			p.Kill()
			return nil, fmt.Errorf("the server process announced no address for %s: %q", name, line)
		}
	}
	return p, nil
}

// readLine returns the rest of the child's next line that starts with the
// prefix and verb, skipping other lines, or an error if the child says
// nothing of the kind within Deadline.
func (p *Proc) readLine(verb string) (string, error) {
	if p.failed != nil {
		return "", p.failed
	}
	timer := time.NewTimer(p.deadline)
	defer timer.Stop()
	for {
		select {
		case s, ok := <-p.lines:
			if !ok {
				return "", fmt.Errorf("the server process ended before saying %q: %v", verb, p.outErr)
			}
			if rest, ok := strings.CutPrefix(s, p.prefix+verb+" "); ok {
				return strings.TrimSpace(rest), nil
			}
		case <-timer.C:
			p.failed = fmt.Errorf("the server process did not say %q within %v", verb, p.deadline)
			return "", p.failed
		}
	}
}

// Collect has the child run a garbage collection to its end
// (runtime.GC) and waits for it. Call it before the Stats that starts a
// measured run, as the testing package collects before each run of a
// benchmark in the process that runs it: otherwise the child's CPU in the
// run includes collecting the garbage of what it served before (another
// path's benchmark, or the shorter runs by which go test sizes b.N).
func (p *Proc) Collect() error {
	line, err := p.ask(collectVerb, "", "asking the server process to collect its garbage")
	if err != nil {
		return err
	}
	if line != "ok" {
		return fmt.Errorf("the server process's collection: %q", line)
	}
	return nil
}

// Stats asks the child for its totals.
func (p *Proc) Stats() (Stats, error) {
	var s Stats
	line, err := p.ask(statsVerb, "", "asking the server process for its stats")
	if err != nil {
		return s, err
	}
	if _, err := fmt.Sscan(line, &s.CPUNs, &s.Mallocs, &s.Bytes, &s.Procs); err != nil {
		return s, fmt.Errorf("the server process's stats %q: %v", line, err)
	}
	return s, nil
}

// SetProcs sets the child's GOMAXPROCS to n, as go test sets this
// process's for each -test.cpu value.
func (p *Proc) SetProcs(n int) error {
	line, err := p.ask(procsVerb, strconv.Itoa(n), "setting the server process's GOMAXPROCS")
	if err != nil {
		return err
	}
	if line != strconv.Itoa(n) {
		return fmt.Errorf("the server process runs with GOMAXPROCS=%s, want %d", line, n)
	}
	return nil
}

// StartProfile has the child start writing its profiles into files named
// base.cpu.pprof, base.allocs-before.pprof and, at StopProfile,
// base.allocs.pprof (package function StartProfile). base must be an
// absolute path.
func (p *Proc) StartProfile(base string) error {
	if !filepath.IsAbs(base) || strings.ContainsAny(base, "\r\n") {
		return fmt.Errorf("the server process's profile: want an absolute path on one line, not %q", base)
	}
	return p.profile("start " + base)
}

// StopProfile has the child end the profile that StartProfile began.
func (p *Proc) StopProfile() error { return p.profile("stop") }

func (p *Proc) profile(req string) error {
	line, err := p.ask(profVerb, req, "the server process's profile")
	if err != nil {
		return err
	}
	if line != "ok" {
		return fmt.Errorf("the server process's profile: %s", strings.TrimPrefix(line, "error "))
	}
	return nil
}

// ask sends the child the request verb, with arg unless it is empty, and
// returns the rest of the child's answer, the line that starts with the
// same verb. what names the request in the error of a failed write.
func (p *Proc) ask(verb, arg, what string) (string, error) {
	req := verb
	if arg != "" {
		req += " " + arg
	}
	if _, err := io.WriteString(p.in, req+"\n"); err != nil {
		return "", fmt.Errorf("%s: %v", what, err)
	}
	return p.readLine(verb)
}

// Stop closes the child's standard input, which ends it, and waits for it,
// killing it after Deadline.
func (p *Proc) Stop() error {
	p.in.Close()
	done := make(chan error, 1)
	go func() {
		for range p.lines { // its test framework's last lines
		}
		done <- p.cmd.Wait()
	}()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("the server process: %v", err)
		}
		return nil
	case <-time.After(p.deadline):
		p.cmd.Process.Kill()
		return fmt.Errorf("the server process did not stop within %v; killed", p.deadline)
	}
}

// Kill ends the child at once.
func (p *Proc) Kill() {
	p.cmd.Process.Kill()
	p.cmd.Wait()
	go func() { // let the reader end, whatever is left unread
		for range p.lines {
		}
	}()
}
