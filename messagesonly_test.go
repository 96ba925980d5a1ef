package grpcfast_test

import (
	"bytes"
	"testing"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/grpcfastimpl"
	"github.com/grpcfast/grpcfast/internal/testprotos/noservice"
)

// TestMessagesOnlyFileKeepsCapacity decodes twice into a message declared in
// a .proto file without services, as gRPC's interop protos and googleapis
// declare theirs: the second decode must reuse the capacity of its bytes
// field, as for messages of files with services.
func TestMessagesOnlyFileKeepsCapacity(t *testing.T) {
	if _, ok := any(new(noservice.Lonely)).(grpcfastimpl.Resetter); !ok {
		t.Error("noservice.Lonely has no generated GrpcfastReset")
	}
	c := grpcfast.NewCodec()
	wire, err := proto.Marshal(&noservice.Lonely{Data: bytes.Repeat([]byte{1}, 4096)})
	if err != nil {
		t.Fatal(err)
	}
	var m noservice.Lonely
	if err := c.Unmarshal(mem.BufferSlice{mem.SliceBuffer(wire)}, &m); err != nil {
		t.Fatal(err)
	}
	first := &m.Data[0]
	if err := c.Unmarshal(mem.BufferSlice{mem.SliceBuffer(wire)}, &m); err != nil {
		t.Fatal(err)
	}
	if &m.Data[0] != first || len(m.Data) != 4096 {
		t.Error("the second decode allocated Data again")
	}
}
