package codec_test

import (
	"bytes"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"github.com/grpcfast/grpcfast/internal/own"
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

// TestMarshalNilOneofWrapper checks that a message whose oneof holds a nil
// wrapper, which vtprotobuf's MarshalToSizedBufferVT dereferences, is
// encoded by protobuf-go rather than panic, in a buffer of its own or a
// pooled one, and that the pooled buffer vtprotobuf began to write into
// goes back to the pool.
func TestMarshalNilOneofWrapper(t *testing.T) {
	pool := grpcfasttest.NewPoisonPool()
	for _, threshold := range []int{0, 1 << 30} {
		c := grpcfast.NewCodec(grpcfast.WithBufferPool(pool), grpcfast.WithPoolingThreshold(threshold))
		for _, n := range []int{10, 5000} {
			m := &kinds.Rich{Data: grpcfasttest.Pattern(n), Choice: (*kinds.Rich_Nested)(nil)}
			out, err := c.Marshal(m)
			if err != nil {
				t.Fatalf("threshold %d, %d bytes: %v", threshold, n, err)
			}
			back := new(kinds.Rich)
			if err := proto.Unmarshal(out.Materialize(), back); err != nil || !bytes.Equal(back.Data, m.Data) || back.Choice != nil {
				t.Errorf("threshold %d, %d bytes: sent %v (%v), want the data and no oneof", threshold, n, back, err)
			}
			out.Free()
		}
	}
	pool.Check(t, "pool")
}

// TestFreedEncodingQuarantined: the pooled buffer of an encoding goes back
// to the codec's pool once gRPC frees it; in grpcfast_checked builds
// (own.Quarantine) it is poisoned and never given back, so that a read
// after the free finds the poison, never the next message's bytes.
func TestFreedEncodingQuarantined(t *testing.T) {
	pool := grpcfasttest.NewTrackingPool()
	c := grpcfast.NewCodec(grpcfast.WithBufferPool(pool), grpcfast.WithPoolingThreshold(0))
	out, err := c.Marshal(&kinds.Rich{Data: grpcfasttest.Pattern(5000)})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 1 || !pool.IsOut(out[0].ReadOnlyData()) {
		t.Fatal("the encoding is not one buffer of the codec's pool")
	}
	sent := out[0].ReadOnlyData()
	out.Free()
	if pool.IsOut(sent) != own.Quarantine {
		t.Errorf("the freed encoding's buffer out of the pool: %v, want %v (quarantine build)", pool.IsOut(sent), own.Quarantine)
	}
	if own.Quarantine && !grpcfasttest.Poisoned(sent) {
		t.Error("the freed encoding's buffer is not poisoned")
	}
}
