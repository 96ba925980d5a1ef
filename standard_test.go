package grpcfast_test

import (
	"context"
	"fmt"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding"
	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
)

// TestStandardCodec checks that StandardCodec is gRPC's own codec although
// the generated packages this test links have registered grpcfast's under
// "proto", that it encodes and decodes, and that forcing it on a server, on
// a connection or on both serves calls with either codec on the other side.
func TestStandardCodec(t *testing.T) {
	std := grpcfast.StandardCodec()
	if _, ok := encoding.GetCodecV2(grpcfast.Name).(*grpcfast.Codec); !ok {
		t.Fatalf("registered under %q: %T, want the *grpcfast.Codec that generated code registers", grpcfast.Name, encoding.GetCodecV2(grpcfast.Name))
	}
	if _, ok := std.(*grpcfast.Codec); ok {
		t.Fatal("StandardCodec returned a *grpcfast.Codec")
	}
	// encoding/proto's codecV2: gRPC's standard codec since v1.66.0.
	if got, want := fmt.Sprintf("%T", std), "*proto.codecV2"; got != want {
		t.Errorf("StandardCodec is a %s, want %s (google.golang.org/grpc/encoding/proto's)", got, want)
	}
	if std.Name() != grpcfast.Name {
		t.Errorf("StandardCodec().Name() = %q, want %q", std.Name(), grpcfast.Name)
	}
	if grpcfast.StandardCodec() != std {
		t.Error("StandardCodec returns a different codec on a second call")
	}

	in := grpcfasttest.FullRich(1 << 10)
	b, err := std.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	out := new(kinds.Rich)
	err = std.Unmarshal(b, out)
	b.Free()
	if err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(in, out) {
		t.Errorf("round trip through StandardCodec changed the message:\n got %v\nwant %v", out, in)
	}

	forceServer := []grpc.ServerOption{grpc.ForceServerCodecV2(std)}
	forceClient := []grpc.DialOption{grpc.WithDefaultCallOptions(grpc.ForceCodecV2(std))}
	for _, tc := range []struct {
		name  string
		sopts []grpc.ServerOption
		dopts []grpc.DialOption
	}{
		{"standard server, grpcfast client", forceServer, nil},
		{"grpcfast server, standard client", nil, forceClient},
		{"standard both", forceServer, forceClient},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, conn := grpcfasttest.ServeAndDial(t, func(s *grpc.Server) { kinds.RegisterKindsServer(s, echoKinds{}) }, tc.sopts, tc.dopts)
			got, err := kinds.NewKindsClient(conn).Unary(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			if !proto.Equal(in, got) {
				t.Errorf("Unary echoed a different message:\n got %v\nwant %v", got, in)
			}
		})
	}
}

// echoKinds answers Unary with the request.
type echoKinds struct{ kinds.UnimplementedKindsServer }

func (echoKinds) Unary(_ context.Context, m *kinds.Rich) (*kinds.Rich, error) { return m, nil }

// ExampleStandardCodec serves one server with gRPC's standard codec, and
// dials one connection with it, while the rest of the process keeps the
// grpcfast codec that the generated packages registered.
func ExampleStandardCodec() {
	srv := grpc.NewServer(grpc.ForceServerCodecV2(grpcfast.StandardCodec()))
	defer srv.Stop()
	conn, err := grpc.NewClient("127.0.0.1:50051",
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.ForceCodecV2(grpcfast.StandardCodec())))
	if err != nil {
		panic(err)
	}
	defer conn.Close()
	fmt.Println(grpcfast.StandardCodec().Name())
	// Output: proto
}
