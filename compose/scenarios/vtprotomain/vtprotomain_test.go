// main() registers vtprotobuf's own codec, a V1 codec: gRPC then uses it for
// "proto" in place of every CodecV2, grpcfast's included, whatever is
// registered after it. Receivers stay correct but reuse nothing
// (internal/vtregistered in the root module checks them). grpcfast is in
// effect where ServerOption and DialOption force it, and its codec hands
// vtprotobuf's the values without a generated decoder.
package vtprotomain_test

import (
	"os"
	"testing"

	vtcodec "github.com/planetscale/vtprotobuf/codec/grpc"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/compose/earlypb"
	"github.com/grpcfast/grpcfast/compose/internal/check"
	"github.com/grpcfast/grpcfast/compose/internal/earlyprobe"
)

func TestMain(m *testing.M) {
	encoding.RegisterCodec(vtcodec.Codec{})
	os.Exit(m.Run())
}

// TestStreams: the generated receivers over servers and clients that force
// grpcfast's codec.
func TestStreams(t *testing.T) {
	check.Streams(t, earlyprobe.Stream, grpcfast.ServerOption())
}

// TestNotInEffect: the registered codec is shadowed; a forced one is not.
func TestNotInEffect(t *testing.T) {
	registered := check.RecvAllocs(earlyprobe.Stream, grpcfast.NewCodec())
	if registered >= 0.5 {
		t.Errorf("a grpcfast codec made while vtprotobuf's is registered: %.1f allocations per received message, want none", registered)
	}
}

// vtOnlyChunk is a Chunk without its generated decoder (the promoted
// GrpcfastDecode is ambiguous): a vtprotobuf type that the plugin did not
// generate, whose UnmarshalVT counts its calls.
type vtOnlyChunk struct {
	*earlypb.Chunk
	//lint:ignore U1000 embedded for its method, which hides Chunk's GrpcfastDecode
	hide
	calls *int
}

//lint:ignore U1000 embedded in vtOnlyChunk for its method alone
type hide struct{}

//lint:ignore U1000 never called: it makes vtOnlyChunk's GrpcfastDecode ambiguous
func (hide) GrpcfastDecode() {}

func (m vtOnlyChunk) UnmarshalVT(b []byte) error {
	*m.calls++
	return m.Chunk.UnmarshalVT(b)
}

// TestOtherTypesToVTProto: a grpcfast codec hands a type without a
// generated decoder to the codec gRPC uses for "proto", here vtprotobuf's.
func TestOtherTypesToVTProto(t *testing.T) {
	wire, err := proto.Marshal(&earlypb.Chunk{Seq: 3, Data: []byte("abc")})
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	m := vtOnlyChunk{Chunk: &earlypb.Chunk{}, calls: &calls}
	if err := grpcfast.NewCodec().Unmarshal(mem.BufferSlice{mem.SliceBuffer(wire)}, m); err != nil {
		t.Fatal(err)
	}
	if calls != 1 || m.Seq != 3 || string(m.Data) != "abc" {
		t.Fatalf("UnmarshalVT called %d times, decoded %v; want once, seq 3, data abc", calls, m.Chunk)
	}
}
func TestPooled(t *testing.T) { check.Pooled(t, earlyprobe.Stream) }
