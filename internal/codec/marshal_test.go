package codec_test

import (
	"testing"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
)

// lyingSize reports one byte more than it encodes, as a message modified
// between SizeVT and MarshalToSizedBufferVT might.
type lyingSize struct{ *kinds.Rich }

func (m lyingSize) SizeVT() int { return m.Rich.SizeVT() + 1 }

// TestMarshalSizeMismatch checks that Marshal fails rather than send a
// buffer whose start was never written, and returns the buffer to the pool.
func TestMarshalSizeMismatch(t *testing.T) {
	pool := grpcfasttest.NewPoisonPool()
	for _, threshold := range []int{0, 1 << 30} {
		c := grpcfast.NewCodec(grpcfast.WithBufferPool(pool), grpcfast.WithPoolingThreshold(threshold))
		for _, n := range []int{10, 5000} {
			if out, err := c.Marshal(lyingSize{&kinds.Rich{Data: grpcfasttest.Pattern(n)}}); err == nil {
				out.Free()
				t.Errorf("threshold %d, %d bytes: no error", threshold, n)
			}
		}
	}
	pool.Check(t, "pool")
}
