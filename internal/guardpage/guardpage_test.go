package guardpage

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"unsafe"
)

// failure is a testing.TB whose Fatalf records its message and ends the
// goroutine, as testing.T's does.
type failure struct {
	testing.TB
	msg string
}

func (f *failure) Helper() {}

func (f *failure) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (f *failure) Errorf(format string, args ...any) { f.msg += fmt.Sprintf(format, args...) }

// checkAside calls Check with a failure on a goroutine of its own, and
// returns what it reported.
func checkAside(pieces [][]byte, f func(in [][]byte)) string {
	tb := &failure{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Check(tb, "aside", pieces, f)
	}()
	<-done
	return tb.msg
}

// Check's copies hold the pieces with no room beyond them; reading within
// them does not fault, and reading the byte after any of them does, which
// Check reports.
func TestCheckGuards(t *testing.T) {
	if !Guarded {
		t.Skip("no guard pages on this system")
	}
	var pieces [][]byte
	for _, n := range []int{0, 1, 7, 4095, 4096, 4097, 10000} {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(i)
		}
		pieces = append(pieces, b)
	}
	for k := range pieces {
		sum := 0
		if msg := checkAside(pieces, func(in [][]byte) {
			for i, p := range in {
				if string(p) != string(pieces[i]) || cap(p) != len(pieces[i]) {
					panic(fmt.Sprintf("piece %d: %d bytes of capacity %d, not the input", i, len(p), cap(p)))
				}
				for _, c := range p {
					sum += int(c)
				}
			}
		}); msg != "" {
			t.Fatalf("reading the pieces: %s", msg)
		}
		if msg := checkAside(pieces, func(in [][]byte) {
			sum += int(*(*byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(in[k])), len(in[k]))))
		}); !strings.HasPrefix(msg, "aside: faulted at") {
			t.Fatalf("reading the byte after piece %d (%d bytes) reported %q, not a fault", k, len(pieces[k]), msg)
		}
	}
}

// Check reports a panic that is not a fault too, and nothing when f
// returns.
func TestCheckReportsPanics(t *testing.T) {
	if msg := checkAside(nil, func([][]byte) { panic("boom") }); msg != "aside: panicked: boom" {
		t.Fatalf("a panic reported %q", msg)
	}
	if msg := checkAside([][]byte{{1}}, func(in [][]byte) { _ = in[0][len(in[0])] }); !strings.Contains(msg, "index out of range") {
		t.Fatalf("an index out of range reported %q", msg)
	}
	if msg := checkAside([][]byte{{1}}, func([][]byte) {}); msg != "" {
		t.Fatalf("a call that returned reported %q", msg)
	}
}
