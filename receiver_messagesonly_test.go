package grpcfast_test

import (
	"bytes"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/grpcfastimpl"
	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"github.com/grpcfast/grpcfast/internal/testprotos/noservice"
)

// TestMessagesOnlyFileKeepsCapacity receives three messages of a type
// declared in a .proto file without services, as gRPC's interop protos and
// googleapis declare theirs: a Receiver decodes the third into the memory of
// the first's bytes field (it alternates between two messages), as for
// messages of files with services.
func TestMessagesOnlyFileKeepsCapacity(t *testing.T) {
	if _, ok := any(new(noservice.Lonely)).(grpcfastimpl.Owner); !ok {
		t.Error("noservice.Lonely has no generated grpcfastimpl.Owner methods")
	}
	wire, err := proto.Marshal(&noservice.Lonely{Data: bytes.Repeat([]byte{1}, 4096)})
	if err != nil {
		t.Fatal(err)
	}
	r := grpcfast.NewReceiver[noservice.Lonely](&grpcfasttest.CodecStream[noservice.Lonely]{Codec: grpcfast.NewCodec(), Data: grpcfasttest.SliceAt(wire)})
	var firsts []*byte
	for range 3 {
		m, err := r.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Data) != 4096 {
			t.Fatalf("received %d bytes, want 4096", len(m.Data))
		}
		firsts = append(firsts, &m.Data[0])
	}
	if firsts[2] != firsts[0] {
		t.Error("the third Recv allocated Data again")
	}
}
