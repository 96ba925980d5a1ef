// main() calls grpcfast.Register with options after libraries wrapped the
// codec that the generated package registered: the new codec goes in front
// of them all, and the generated package's stays where it was, so grpcfast
// stacks at most once per Register.
package mainregister_test

import (
	"os"
	"testing"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/compose/internal/check"
	"github.com/grpcfast/grpcfast/compose/internal/earlyprobe"
	_ "github.com/grpcfast/grpcfast/compose/internal/wrapafter"
)

func TestMain(m *testing.M) {
	grpcfast.Register(grpcfast.WithPoolingThreshold(0))
	os.Exit(m.Run())
}

func TestChain(t *testing.T) {
	check.WantChain(t, "*grpcfast.Codec", "*otelgrpc.codecV2", "*keepbuf.Codec", "*grpcfast.Codec", "*proto.codecV2")
}

func TestPData(t *testing.T)       { check.PData(t) }
func TestKeptBuffers(t *testing.T) { check.KeptBuffers(t) }
func TestStreams(t *testing.T)     { check.Streams(t, earlyprobe.Stream) }
func TestInEffect(t *testing.T)    { check.InEffect(t, earlyprobe.Stream, grpcfast.StandardCodec()) }
func TestPooled(t *testing.T)      { check.Pooled(t, earlyprobe.Stream) }
