package grpcfast_test

import (
	"context"
	"testing"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/grpcfastimpl"
	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"github.com/grpcfast/grpcfast/internal/stdcodec"
	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding"
	"google.golang.org/protobuf/proto"
)

func TestRegister(t *testing.T) {
	orig := encoding.GetCodecV2("proto")
	t.Cleanup(func() { encoding.RegisterCodecV2(orig) })

	// The generated test packages registered the default codec in init.
	if _, ok := orig.(*grpcfast.Codec); !ok {
		t.Fatalf("registered codec is %T after the generated packages' init", orig)
	}

	std := stdcodec.Codec()
	if next := grpcfast.NextOf(orig.(*grpcfast.Codec)); next != std {
		t.Fatalf("the generated packages' codec hands other values to %T, want gRPC's standard codec", next)
	}
	// Once a grpcfast codec has been registered in the process, the
	// generated registration registers none: gRPC's standard codec put
	// back by hand (or a library's registered after grpcfast's) stays.
	encoding.RegisterCodecV2(std)
	grpcfastimpl.RegisterDefault()
	if got := encoding.GetCodecV2("proto"); got != std {
		t.Fatalf("RegisterDefault replaced the codec registered after grpcfast's: %T", got)
	}

	// Register puts a grpcfast codec in front of what it finds, and
	// replaces a grpcfast codec rather than wrapping it.
	grpcfast.Register(grpcfast.WithPoolingThreshold(7))
	custom, ok := encoding.GetCodecV2("proto").(*grpcfast.Codec)
	if !ok || grpcfast.NextOf(custom) != std {
		t.Fatalf("Register: %T in front of %T, want a grpcfast codec in front of the standard codec", encoding.GetCodecV2("proto"), grpcfast.NextOf(custom))
	}
	grpcfastimpl.RegisterDefault()
	if encoding.GetCodecV2("proto") != custom {
		t.Fatal("RegisterDefault replaced a codec registered with Register")
	}
	grpcfast.Register()
	again, ok := encoding.GetCodecV2("proto").(*grpcfast.Codec)
	if !ok || again == custom || grpcfast.NextOf(again) != std {
		t.Fatalf("Register over a grpcfast codec: %T in front of %T, want a new grpcfast codec in front of the standard codec", encoding.GetCodecV2("proto"), grpcfast.NextOf(again))
	}
	if name := grpcfast.NewCodec().Name(); name != "proto" {
		t.Fatalf("Name() = %q", name)
	}
	// ServerOption and DialOption force a grpcfast codec with its options
	// on a server and a connection whatever is registered: checked with the
	// standard codec registered, through a codec that counts its calls.
	encoding.RegisterCodecV2(stdcodec.Codec())
	sp := grpcfasttest.NewBalancePool("server", grpcfast.NewBufferPool())
	checkForcedCodec(t, "ServerOption", sp,
		[]grpc.ServerOption{grpcfast.ServerOption(grpcfast.WithBufferPool(sp), grpcfast.WithPoolingThreshold(0))}, nil)
	cp := grpcfasttest.NewBalancePool("client", grpcfast.NewBufferPool())
	checkForcedCodec(t, "DialOption", cp,
		nil, []grpc.DialOption{grpcfast.DialOption(grpcfast.WithBufferPool(cp), grpcfast.WithPoolingThreshold(0))})
}

// checkForcedCodec makes a unary call on a server and
// connection made with sopts and dopts, and checks that the codec forced by
// them marshalled through pool: the only way a buffer can come from it.
func checkForcedCodec(t *testing.T, what string, pool *grpcfasttest.Pool, sopts []grpc.ServerOption, dopts []grpc.DialOption) {
	t.Helper()
	e := grpcfasttest.StartEnv(t, &grpcfasttest.KindsServer{}, sopts, dopts)
	in := grpcfasttest.GenRich(3)
	out, err := e.Client.Unary(context.Background(), in)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if !proto.Equal(in, out) {
		t.Fatalf("%s: the echoed message differs", what)
	}
	if pool.LargeGets.Load() == 0 {
		t.Errorf("%s: the forced codec was not used (its pool gave out no buffer)", what)
	}
}
