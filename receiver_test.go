package grpcfast

import (
	"github.com/grpcfast/grpcfast/internal/own"

	"errors"
	"io"
	"testing"
)

type item struct{ n int }

// fakeStream delivers the numbers 1..count into *item, then err.
type fakeStream struct {
	count, sent int
	err         error
	targets     []*item
}

func (s *fakeStream) Recv() (*item, error) {
	m := new(item)
	return m, s.RecvMsg(m)
}

func (s *fakeStream) RecvMsg(m any) error {
	if s.sent == s.count {
		return s.err
	}
	s.sent++
	it := m.(*item)
	s.targets = append(s.targets, it)
	it.n = s.sent
	return nil
}

func TestReceiverReusesMessage(t *testing.T) {
	s := &fakeStream{count: 3, err: io.EOF}
	r := NewReceiver[item](s)
	var got []*item
	for i := 1; ; i++ {
		m, err := r.Recv()
		if err == io.EOF {
			if i != 4 {
				t.Fatalf("EOF after %d messages, want 3", i-1)
			}
			break
		}
		if err != nil || m.n != i {
			t.Fatalf("Recv %d = %v, %v", i, m, err)
		}
		// The Receiver alternates between two messages: the one it
		// returned last stays intact until the next one has arrived.
		got = append(got, m)
		if i > 2 && m != got[i-3] {
			t.Fatalf("Recv %d decoded into a new message", i)
		}
		if i > 1 && m == got[i-2] {
			t.Fatalf("Recv %d decoded into the message Recv %d returned", i, i-1)
		}
	}
	if m, err := r.Recv(); m != nil || err != io.EOF {
		t.Errorf("Recv after EOF = %v, %v; want nil, io.EOF", m, err)
	}
}

func TestReceiverTake(t *testing.T) {
	s := &fakeStream{count: 3, err: io.EOF}
	r := NewReceiver[item](s)
	if r.Take() != nil {
		t.Error("Take before any Recv is not nil")
	}
	a, _ := r.Recv()
	kept := r.Take()
	if kept != a || kept.n != 1 {
		t.Fatalf("Take = %v, want the message received (%v)", kept, a)
	}
	if r.Take() != nil {
		t.Error("second Take of the same message is not nil")
	}
	b, _ := r.Recv()
	if b == kept {
		t.Fatal("Recv after Take decoded into the taken message")
	}
	if kept.n != 1 || b.n != 2 {
		t.Errorf("taken message changed to %d; new one is %d", kept.n, b.n)
	}
	r.Recv()
	if _, err := r.Recv(); err != io.EOF {
		t.Fatal(err)
	}
	if r.Take() != nil {
		t.Error("Take after a failed Recv is not nil")
	}
}

func TestReceiverAll(t *testing.T) {
	boom := errors.New("boom")
	for _, tc := range []struct {
		err      error
		wantErrs int
	}{{io.EOF, 0}, {boom, 1}} {
		r := NewReceiver[item](&fakeStream{count: 4, err: tc.err})
		var got []int
		errs := 0
		for m, err := range r.All() {
			if err != nil {
				if m != nil || err != tc.err {
					t.Errorf("yielded %v, %v; want nil, %v", m, err, tc.err)
				}
				errs++
				continue
			}
			got = append(got, m.n)
		}
		if len(got) != 4 || got[3] != 4 || errs != tc.wantErrs {
			t.Errorf("end %v: got %v and %d errors, want [1 2 3 4] and %d", tc.err, got, errs, tc.wantErrs)
		}
	}
	// Breaking out of the loop stops receiving.
	s := &fakeStream{count: 10, err: io.EOF}
	for m := range NewReceiver[item](s).All() {
		if m.n == 2 {
			break
		}
	}
	if s.sent != 2 {
		t.Errorf("received %d messages after break at 2", s.sent)
	}
}

func TestReceiverRecvAllocatesNothing(t *testing.T) {
	s := &fakeStream{count: 1 << 30, err: io.EOF}
	r := NewReceiver[item](s)
	r.Recv()
	s.targets = make([]*item, 0, 1000)
	if n := testing.AllocsPerRun(500, func() { r.Recv() }); n != 0 {
		t.Errorf("Recv allocates %v per message, want 0", n)
	}
}

// TestReceiverGivesBackOnlyOnRelease: a Receiver gives its messages to later
// Receivers of the type only when Release is called, never when its stream
// ends (the last message stays the caller's, intact), never a message handed
// out by Take, and Release is idempotent.
func TestReceiverGivesBackOnlyOnRelease(t *testing.T) {
	drain := func(r *Receiver[item]) *item {
		var last *item
		for m, err := range r.All() {
			if err != nil {
				break
			}
			last = m
		}
		return last
	}
	live := NewReceiver[item](&fakeStream{count: 5, err: io.EOF})
	liveMsg, _ := live.Recv()
	taker := NewReceiver[item](&fakeStream{count: 2, err: io.EOF})
	taker.Recv()
	kept := taker.Take()
	drain(taker)
	taker.Release()
	var ended []*item // last messages of streams that ended without Release
	for range 20 {
		ended = append(ended, drain(NewReceiver[item](&fakeStream{count: 2, err: errors.New("reset")})))
		ended = append(ended, drain(NewReceiver[item](&fakeStream{count: 3, err: io.EOF})))
	}
	released := map[*item]bool{}
	reused := false
	for range 50 {
		s := &fakeStream{count: 2, err: io.EOF}
		r := NewReceiver[item](s)
		drain(r)
		for _, m := range s.targets {
			for _, e := range ended {
				if m == e {
					t.Fatal("a Receiver decoded into the last message of a stream that ended without Release")
				}
			}
			if m == kept || m == liveMsg {
				t.Fatal("a Receiver decoded into a taken message or a live Receiver's")
			}
			reused = reused || released[m]
		}
		for _, m := range s.targets {
			released[m] = true
		}
		r.Release()
		r.Release() // idempotent: nothing is given back twice
	}
	switch {
	case own.Quarantine && reused:
		// Quarantine builds drop what Release gives back, so that a
		// message used after Release stays reset instead of showing
		// another stream's data.
		t.Error("a Receiver decoded into a message that Release gave back, in a quarantine build")
	case !own.Quarantine && !reused:
		// sync.Pool may drop what it is given (a collection, the race
		// detector), but not 50 times in a row.
		t.Error("no Receiver decoded into a message that Release gave back")
	}
	if kept.n != 1 || liveMsg.n != 1 {
		t.Errorf("the taken message holds %d, the live one %d; want 1 and 1", kept.n, liveMsg.n)
	}
	for i, e := range ended {
		if want := 2 + i%2; e.n != want {
			t.Errorf("the last message of ended stream %d holds %d, want %d", i, e.n, want)
		}
	}
}

// TestReceiverReleaseTwiceGivesOnce: two Releases in a row put each message
// into the pool once, so that two Receivers never share one.
func TestReceiverReleaseTwiceGivesOnce(t *testing.T) {
	for range 20 {
		r := NewReceiver[item](&fakeStream{count: 3, err: io.EOF})
		r.Recv()
		r.Recv()
		r.Release()
		r.Release()
		a, b := NewReceiver[item](&fakeStream{count: 3, err: io.EOF}), NewReceiver[item](&fakeStream{count: 3, err: io.EOF})
		ma, _ := a.Recv()
		mb, _ := b.Recv()
		ma2, _ := a.Recv()
		mb2, _ := b.Recv()
		for _, x := range []*item{ma, ma2} {
			for _, y := range []*item{mb, mb2} {
				if x == y {
					t.Fatal("two Receivers decode into the same message")
				}
			}
		}
	}
}

// failingStream decodes a partial message, then fails, as a codec does on
// malformed input; the next call delivers a whole one.
type failingStream struct {
	calls   int
	targets []*item
}

func (s *failingStream) Recv() (*item, error) {
	m := new(item)
	return m, s.RecvMsg(m)
}

func (s *failingStream) RecvMsg(m any) error {
	s.calls++
	it := m.(*item)
	s.targets = append(s.targets, it)
	if s.calls == 2 {
		it.n = -1 // what a failed decode left
		return errors.New("malformed")
	}
	if it.n != 0 {
		return errors.New("decoding into a message that was not reset")
	}
	it.n = s.calls
	return nil
}

// Reset makes item resettable, as every proto message is.
func (m *item) Reset() { *m = item{} }

// TestReceiverAfterFailedDecode: a failed decode leaves the last message as
// it was, and the message it failed in is reset before anything decodes into
// it again (a codec that merges would otherwise see the leftovers).
func TestReceiverAfterFailedDecode(t *testing.T) {
	s := &failingStream{}
	r := NewReceiver[item](s)
	first, err := r.Recv()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Recv(); err == nil {
		t.Fatal("the failed decode was not reported")
	}
	if first.n != 1 {
		t.Errorf("the last message holds %d after a failed Recv, want 1", first.n)
	}
	third, err := r.Recv()
	if err != nil {
		t.Fatal(err)
	}
	if third.n != 3 || third != s.targets[1] {
		t.Errorf("Recv after the failure returned %d in %p, want 3 in the reused %p", third.n, third, s.targets[1])
	}
}
