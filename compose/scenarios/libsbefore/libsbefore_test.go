// The generated package registers grpcfast's codec after the libraries
// registered theirs (latepb imports them): grpcfast's registers in front of
// them and hands them every value it does not decode itself.
package libsbefore_test

import (
	"testing"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/compose/internal/check"
	"github.com/grpcfast/grpcfast/compose/internal/lateprobe"
)

func TestChain(t *testing.T) {
	check.WantChain(t, "*grpcfast.Codec", "*otelgrpc.codecV2", "*keepbuf.Codec", "*proto.codecV2")
}

func TestPData(t *testing.T)       { check.PData(t) }
func TestKeptBuffers(t *testing.T) { check.KeptBuffers(t) }
func TestStreams(t *testing.T)     { check.Streams(t, lateprobe.Stream) }
func TestInEffect(t *testing.T)    { check.InEffect(t, lateprobe.Stream, grpcfast.StandardCodec()) }
func TestPooled(t *testing.T)      { check.Pooled(t, lateprobe.Stream) }
