package childproc

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestReadLineAfterTimeout: once a wait for the child's line has timed out,
// the protocol is out of step (the late answer may still come): every later
// call fails with the timeout, and no second reader reads the child's
// output at the same time as the first (the race detector sees that).
func TestReadLineAfterTimeout(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	p := newProc(nil, "P ", nopCloser{io.Discard}, r)
	p.deadline = 20 * time.Millisecond

	if _, err := p.readLine(statsVerb); err == nil || !strings.Contains(err.Error(), "did not say") {
		t.Fatalf("no answer: %v, want a timeout", err)
	}
	// The late answer arrives; a reader must take it (io.Pipe blocks the
	// writer until one does).
	written := make(chan error, 1)
	go func() {
		_, err := io.WriteString(w, "P stats 1 2 3\n")
		written <- err
	}()
	for range 3 {
		line, err := p.readLine(statsVerb)
		if err == nil || !strings.Contains(err.Error(), "did not say") {
			t.Fatalf("after a timeout: %q, %v; want the timeout again", line, err)
		}
	}
	if err := <-written; err != nil {
		t.Fatal(err)
	}
}

// TestReadLine: lines without the prefix and verb are skipped; the end of
// the output is an error.
func TestReadLine(t *testing.T) {
	out := "noise\nP stats 4 5 6\nP listening a=1\n"
	p := newProc(nil, "P ", nopCloser{io.Discard}, strings.NewReader(out))
	if line, err := p.readLine(statsVerb); err != nil || line != "4 5 6" {
		t.Fatalf("stats: %q, %v", line, err)
	}
	if line, err := p.readLine(listenVerb); err != nil || line != "a=1" {
		t.Fatalf("listening: %q, %v", line, err)
	}
	if line, err := p.readLine(statsVerb); err == nil || !strings.Contains(err.Error(), "ended before") {
		t.Fatalf("at the end: %q, %v; want an error", line, err)
	}
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// TestServeProfile: the child writes its profiles where the parent says,
// answers a request it cannot carry out with an error line and goes on
// serving, and ends a profile still being written when its input closes.
func TestServeProfile(t *testing.T) {
	dir := t.TempDir()
	p, inW, done := serveInTest(t)
	base := filepath.Join(dir, "Svc_Unary_codec=x.server")
	if err := p.StartProfile(base); err != nil {
		if strings.Contains(err.Error(), "-cpuprofile") {
			t.Skip("this test binary writes a CPU profile already:", err)
		}
		t.Fatal(err)
	}
	if err := p.StartProfile(base + "2"); err == nil || !strings.Contains(err.Error(), "already being written") {
		t.Errorf("a second profile at once: %v, want an error", err)
	}
	if _, err := p.Stats(); err != nil {
		t.Fatalf("stats while profiling: %v", err)
	}
	if err := p.StopProfile(); err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"cpu", "allocs-before", "allocs"} {
		if fi, err := os.Stat(base + "." + kind + ".pprof"); err != nil || fi.Size() == 0 {
			t.Errorf("%s profile: %v, size %d", kind, err, size(fi))
		}
	}
	if err := p.StopProfile(); err == nil || !strings.Contains(err.Error(), "no profile") {
		t.Errorf("stop with no profile: %v, want an error", err)
	}
	if err := p.StartProfile(filepath.Join(dir, "missing", "x")); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("a profile in a missing directory: %v, want the file's error", err)
	}
	if err := p.StartProfile("relative/x"); err == nil || !strings.Contains(err.Error(), "absolute path") {
		t.Errorf("a relative path: %v, want an error", err)
	}
	// Still serving after the errors; a profile left running ends with it.
	if err := p.StartProfile(base + "3"); err != nil {
		t.Fatal(err)
	}
	inW.Close()
	for range p.lines {
	}
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
	if fi, err := os.Stat(base + "3.allocs.pprof"); err != nil || fi.Size() == 0 {
		t.Errorf("the profile left running was not ended: %v, size %d", err, size(fi))
	}
}

func size(fi os.FileInfo) int64 {
	if fi == nil {
		return -1
	}
	return fi.Size()
}

// TestServeCollect: "collect" calls the hooks given to serve, then runs a
// garbage collection to its end before the child answers, and the child
// goes on serving after it.
func TestServeCollect(t *testing.T) {
	var hooked []uint32 // NumGC when each hook call ran
	p, inW, done := serveInTest(t, func() { hooked = append(hooked, numGC()) })
	before := numGC()
	if err := p.Collect(); err != nil {
		t.Fatal(err)
	}
	// runtime.GC returns once its cycle and the sweep are done: the count
	// has moved by the time the answer comes.
	after := numGC()
	if after == before {
		t.Errorf("collect answered with no collection run: NumGC %d before and after", before)
	}
	if len(hooked) != 1 || hooked[0] == after {
		t.Errorf("collect called its hook %d times (NumGC %v, %d after the collection), want once, before it", len(hooked), hooked, after)
	}
	if _, err := p.Stats(); err != nil {
		t.Fatalf("stats after collect: %v", err)
	}
	inW.Close()
	for range p.lines {
	}
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
}

// serveInTest runs serve in this process, over pipes, as a child's side
// whose Proc is p, with the hooks beforeCollect: closing in ends it, and
// done gets serve's error.
func serveInTest(t *testing.T, beforeCollect ...func()) (p *Proc, in io.WriteCloser, done <-chan error) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	d := make(chan error, 1)
	go func() {
		d <- serve("P ", []string{"a=1"}, inR, outW, beforeCollect...)
		outW.Close()
	}()
	p = newProc(nil, "P ", inW, outR)
	if _, err := p.readLine(listenVerb); err != nil {
		t.Fatal(err)
	}
	return p, inW, d
}

func numGC() uint32 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.NumGC
}
