// Libraries register their "proto" codecs after the generated package has
// registered grpcfast's, and wrap it: pdata's (its package initialised after
// earlypb's, as go.opentelemetry.io sorts after github.com) and keepbuf's
// (initialised by a package that imports earlypb).
package libsafter_test

import (
	"testing"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/compose/internal/check"
	"github.com/grpcfast/grpcfast/compose/internal/earlyprobe"
	_ "github.com/grpcfast/grpcfast/compose/internal/wrapafter"
)

func TestChain(t *testing.T) {
	check.WantChain(t, "*otelgrpc.codecV2", "*keepbuf.Codec", "*grpcfast.Codec", "*proto.codecV2")
}

func TestPData(t *testing.T)       { check.PData(t) }
func TestKeptBuffers(t *testing.T) { check.KeptBuffers(t) }
func TestStreams(t *testing.T)     { check.Streams(t, earlyprobe.Stream) }
func TestInEffect(t *testing.T)    { check.InEffect(t, earlyprobe.Stream, grpcfast.StandardCodec()) }
func TestPooled(t *testing.T)      { check.Pooled(t, earlyprobe.Stream) }
