package codec_test

// Binary logging of received messages whose bytes fields are views
// (pieces.go), over real gRPC.

import (
	"bytes"
	"context"
	"os"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/binarylog"
	binlogpb "google.golang.org/grpc/binarylog/grpc_binarylog_v1"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
)

const viewsBinlogChildEnv = "GRPCFAST_VIEWS_BINLOG_CHILD"

// rawCodec sends a *rawWire's bytes as they are, and decodes replies with
// protobuf-go: a client that sends what no encoder would write.
type rawCodec struct{}

type rawWire struct{ b []byte }

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(v.(*rawWire).b)}, nil
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	return proto.Unmarshal(data.Materialize(), v.(proto.Message))
}

func (rawCodec) Name() string { return "proto" }

// TestViewsBinaryLog: over real gRPC, with binary logging on, a server's
// receiver decodes messages that send a field it views again (after a
// group in one frame; short, in the frame after the view's), and the
// server's binary log, which copies each received message after the
// decode, holds the bytes the client sent: the decode wrote nothing into
// gRPC's receive buffers. It runs in a child process (binary logging is
// process-wide).
func TestViewsBinaryLog(t *testing.T) {
	if os.Getenv(viewsBinlogChildEnv) == "" {
		runBinlogChild(t, "TestViewsBinaryLog", viewsBinlogChildEnv)
		return
	}
	if os.Getenv("GRPC_BINARY_LOG_FILTER") != "*" {
		t.Fatal("child process started without GRPC_BINARY_LOG_FILTER=*")
	}
	sink := &recordingSink{}
	binarylog.SetSink(sink)
	e := startSB(t, &grpcfasttest.KindsServer{}, nil, nil, nil, nil, false)

	field := func(num protowire.Number, v []byte) []byte {
		return protowire.AppendBytes(protowire.AppendTag(nil, num, protowire.BytesType), v)
	}
	group := protowire.AppendTag(protowire.AppendTag(nil, 1000, protowire.StartGroupType), 1000, protowire.EndGroupType)
	again := field(3, []byte("hello")) // Rich.data, sent again
	// gRPC-Go reads a message in HTTP/2 frames of 16 KiB, the first of
	// them starting with the 5-byte prefix: a view of 16,000 bytes ends in
	// the first, an unknown field takes the message past it, and the field
	// comes again in the second.
	pad := field(999, grpcfasttest.NoiseBytes(3, 1000))
	sent := [][]byte{
		bytes.Join([][]byte{field(3, grpcfasttest.NoiseBytes(1, 2000)), group, again}, nil),
		bytes.Join([][]byte{field(3, grpcfasttest.NoiseBytes(2, 16000)), pad, again}, nil),
	}
	for _, b := range sent {
		// One stream each: the handler may fail a message it finds wrong,
		// which ends its stream.
		stream, err := e.client.ClientStream(context.Background(), grpc.ForceCodecV2(rawCodec{}))
		if err != nil {
			t.Fatal(err)
		}
		if err := stream.SendMsg(&rawWire{b}); err != nil {
			t.Fatal(err)
		}
		stream.CloseAndRecv() // what the handler answers does not matter here
	}
	e.finish(t)

	sink.mu.Lock()
	defer sink.mu.Unlock()
	var logged [][]byte
	for _, en := range sink.entries {
		if en.Logger == binlogpb.GrpcLogEntry_LOGGER_SERVER && en.Type == binlogpb.GrpcLogEntry_EVENT_TYPE_CLIENT_MESSAGE {
			logged = append(logged, en.GetMessage().GetData())
		}
	}
	if len(logged) != len(sent) {
		t.Fatalf("the server logged %d received messages, want %d", len(logged), len(sent))
	}
	for i, b := range sent {
		switch {
		case len(logged[i]) != len(b):
			t.Errorf("message %d: the server's binary log holds %d bytes, %d were sent", i, len(logged[i]), len(b))
		case !bytes.Equal(logged[i], b):
			t.Errorf("message %d: the server's binary log holds %d bytes that differ from those sent", i, diffCount(logged[i], b))
		}
	}
}
