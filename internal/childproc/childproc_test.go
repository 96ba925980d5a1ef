package childproc

import (
	"io"
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
