package grpcfastbench

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// TestSettleWarmUp: with -grpcfast.warmup, settle makes untimed calls for
// at least that long before a timed run, and none before the first run, of
// one call, nor without the flag; the first error of a call stops it and
// is its error.
func TestSettleWarmUp(t *testing.T) {
	const d = 30 * time.Millisecond
	for _, tc := range []struct {
		warmup time.Duration
		n      int
		calls  bool
	}{
		{0, 100, false},
		{d, 1, false},
		{d, 100, true},
	} {
		for _, streams := range []int{1, 4} {
			var calls atomic.Int64
			cfg := &config{warmup: tc.warmup}
			start := time.Now()
			err := settle(&testing.B{N: tc.n}, cfg, nil, streams, func() error {
				calls.Add(1)
				return nil
			})
			took := time.Since(start)
			if err != nil {
				t.Fatalf("warmup %v, b.N %d, streams %d: %v", tc.warmup, tc.n, streams, err)
			}
			if got := calls.Load() > 0; got != tc.calls || tc.calls && took < tc.warmup {
				t.Errorf("warmup %v, b.N %d, streams %d: %d calls in %v", tc.warmup, tc.n, streams, calls.Load(), took)
			}
		}
	}
	broken := errors.New("broken")
	err := settle(&testing.B{N: 100}, &config{warmup: d}, nil, 1, func() error { return broken })
	if err == nil || err.Error() != "warming up: broken" {
		t.Errorf("a failing call: %v, want it as the warm-up's error", err)
	}
}
