package grpcfast_test

import (
	"testing"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
)

func skipIfRace(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items at random")
	}
}

func TestMarshalAllocs(t *testing.T) {
	skipIfRace(t)
	c := grpcfast.NewCodec()
	for _, m := range []proto.Message{
		&kinds.Rich{Data: pattern(16384)},
		richOfSize(t, grpcfast.DefaultPoolingThreshold+1),
		&kinds.Pooled{Data: pattern(1 << 20)},
		fullRich(3000),
	} {
		allocs := testing.AllocsPerRun(100, func() {
			out, err := c.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			out.Free()
		})
		if allocs != 0 {
			t.Errorf("Marshal+Free of a %d-byte %T: %v allocations, want 0", proto.Size(m), m, allocs)
		}
	}
	// Below the threshold: the bytes and one holder for the BufferSlice.
	small := &kinds.Rich{Name: "n", Id: 3}
	if allocs := testing.AllocsPerRun(100, func() {
		out, _ := c.Marshal(small)
		out.Free()
	}); allocs > 2 {
		t.Errorf("Marshal of a small message: %v allocations, want at most 2", allocs)
	}
}

func TestUnmarshalAllocs(t *testing.T) {
	skipIfRace(t)
	c := grpcfast.NewCodec()
	for _, tc := range []struct {
		in, into proto.Message
	}{
		{&kinds.Rich{Data: pattern(16384)}, &kinds.Rich{}},
		{&kinds.Pooled{Data: pattern(16384)}, &kinds.Pooled{}},
		{&kinds.Rich{Data: pattern(16376)}, &kinds.Rich{}},
		{&kinds.Rich{Data: pattern(1 << 20)}, &kinds.Rich{}},
	} {
		b, _ := proto.Marshal(tc.in)
		for _, data := range []mem.BufferSlice{
			sliceAt(b),
			sliceAt(b, min(16384, len(b))), // a 16 KiB frame and the tail
			sliceAt(b, 16384-5),            // first frame shortened by gRPC's 5-byte header
			sliceAt(b, 2),                  // inside the length of the data field
			sliceAt(b, 100, 200),           // three pieces
		} {
			allocs := testing.AllocsPerRun(100, func() {
				if err := c.Unmarshal(data, tc.into); err != nil {
					t.Fatal(err)
				}
			})
			if allocs != 0 {
				t.Errorf("Unmarshal of a %d-byte %T in %d buffers into a reused message: %v allocations, want 0",
					len(b), tc.in, len(data), allocs)
			}
			if !proto.Equal(tc.in, tc.into) {
				t.Fatal("decoded message differs")
			}
		}
	}
}
