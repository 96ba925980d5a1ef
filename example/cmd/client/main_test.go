package main

import (
	"bytes"
	"context"
	"net"
	"regexp"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/mem"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/example"
	"github.com/grpcfast/grpcfast/example/examplepb"
)

// serve serves the example on 127.0.0.1 with gRPC's standard codec forced
// when standard is true, registering echo instead of the example's
// EchoServer when it is not nil, and returns the address.
func serve(t *testing.T, standard bool, echo examplepb.EchoServiceServer) string {
	t.Helper()
	var opts []grpc.ServerOption
	if standard {
		opts = append(opts, grpc.ForceServerCodecV2(grpcfast.StandardCodec()))
	}
	srv := grpc.NewServer(opts...)
	examplepb.RegisterUserServiceServer(srv, example.NewUserServer())
	examplepb.RegisterChunkServiceServer(srv, example.NewChunkServer())
	if echo == nil {
		echo = example.NewEchoServer()
	}
	examplepb.RegisterEchoServiceServer(srv, echo)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	return lis.Addr().String()
}

// client runs the client with args and returns its exit code and output.
func client(args ...string) (code int, stdout, stderr string) {
	return clientCtx(context.Background(), args...)
}

func clientCtx(ctx context.Context, args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = mainCode(ctx, args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestOps runs every operation with both codecs against servers with both
// codecs, with sizes that end in a partial chunk.
func TestOps(t *testing.T) {
	for _, server := range []string{"grpcfast", "standard"} {
		addr := serve(t, server == "standard", nil)
		for _, codec := range []string{"grpcfast", "standard"} {
			for _, tc := range []struct {
				args []string
				want string // a regexp of the output line, without the elapsed time
			}{
				{[]string{"-op", "user"}, `^created user user-\d+`},
				{[]string{"-op", "put", "-size", "100001", "-chunk", "16376"}, `^put 100001 bytes in 16376-byte chunks, size and crc32c checked`},
				{[]string{"-op", "get", "-size", "100001", "-chunk", "1000"}, `^got 100001 bytes in 1000-byte chunks, size and crc32c checked`},
				{[]string{"-op", "echo", "-size", "100001"}, `^echoed 100001 bytes in 16384-byte chunks, every byte checked`},
				{[]string{"-op", "echo", "-size", "0"}, `^echoed 0 bytes in 16384-byte chunks, every byte checked`},
			} {
				args := append([]string{"-addr", addr, "-codec", codec}, tc.args...)
				code, stdout, stderr := client(args...)
				want := tc.want + ` in [0-9.]+[µm]?s \(codec ` + codec + `, ` + regexp.QuoteMeta(addr) + `\)\n$`
				if code != 0 || !regexp.MustCompile(want).MatchString(stdout) {
					t.Errorf("server %s, client %q: exit code %d, stdout %q, stderr %q; want 0 and %q",
						server, args, code, stdout, stderr, want)
				}
			}
		}
	}
}

// badEcho sends back a blob changed as change says.
type badEcho struct {
	examplepb.UnimplementedEchoServiceServer
	change func(n int, c *examplepb.Chunk) *examplepb.Chunk // nil: send nothing
}

func (e badEcho) Echo(stream grpc.BidiStreamingServer[examplepb.Chunk, examplepb.Chunk]) error {
	for n := 0; ; n++ {
		c, err := stream.Recv()
		if err != nil {
			return nil
		}
		if c = e.change(n, c); c != nil {
			if err := stream.Send(c); err != nil {
				return err
			}
		}
	}
}

// TestEchoChecks checks that echo fails when what comes back differs from
// what it sent.
func TestEchoChecks(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(int, *examplepb.Chunk) *examplepb.Chunk
		want   string
	}{
		{"flipped byte", func(n int, c *examplepb.Chunk) *examplepb.Chunk {
			if n == 3 {
				c.Data[100] ^= 1
			}
			return c
		}, "client: echo 100001 bytes: the chunk at offset 49152 came back changed"},
		{"dropped chunk", func(n int, c *examplepb.Chunk) *examplepb.Chunk {
			if n == 6 {
				return nil
			}
			return c
		}, "client: echo 100001 bytes: got back 98304 bytes of 100001"},
		{"short chunk", func(n int, c *examplepb.Chunk) *examplepb.Chunk {
			if n == 1 {
				c.Data = c.Data[1:]
			}
			return c
		}, "client: echo 100001 bytes: a chunk of 16383 bytes at offset 16384 of 100001"},
		{"extra chunk", func(n int, c *examplepb.Chunk) *examplepb.Chunk {
			if n == 6 {
				c.Data = append(c.Data, make([]byte, 16384)...)
			}
			return c
		}, "client: echo 100001 bytes: a chunk of 18081 bytes at offset 98304 of 100001"},
	} {
		addr := serve(t, false, badEcho{change: tc.change})
		code, stdout, stderr := client("-addr", addr, "-op", "echo", "-size", "100001")
		if code != 1 || stdout != "" || stderr != tc.want+"\n" {
			t.Errorf("%s: exit code %d, stdout %q, stderr %q; want 1 and %q", tc.name, code, stdout, stderr, tc.want)
		}
	}
}

// rawCodec moves a *[]byte as it is.
type rawCodec struct{}

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(*v.(*[]byte))}, nil
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	*v.(*[]byte) = data.Materialize()
	return nil
}

func (rawCodec) Name() string { return "proto" }

// serveRaw serves every method with handle, on raw bytes.
func serveRaw(t *testing.T, handle func(grpc.ServerStream) error) string {
	t.Helper()
	srv := grpc.NewServer(grpc.ForceServerCodecV2(rawCodec{}),
		grpc.UnknownServiceHandler(func(_ any, stream grpc.ServerStream) error { return handle(stream) }))
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	return lis.Addr().String()
}

// TestCodecFlag tells which codec the client decodes with by the error it
// reports for a truncated response: the grpcfast codec decodes with
// vtprotobuf's generated code, gRPC's standard codec with protobuf-go.
func TestCodecFlag(t *testing.T) {
	addr := serveRaw(t, func(stream grpc.ServerStream) error {
		var req []byte
		if err := stream.RecvMsg(&req); err != nil {
			return err
		}
		// Field 1 (id), 5 bytes long, of which 1 is there.
		resp := []byte{0x0a, 0x05, 'a'}
		return stream.SendMsg(&resp)
	})
	for _, tc := range []struct{ codec, want string }{
		{"grpcfast", ": unexpected EOF"},
		// protobuf-go writes "proto:" and a random kind of space.
		{"standard", "cannot parse invalid wire-format data"},
	} {
		code, _, stderr := client("-addr", addr, "-codec", tc.codec, "-op", "user")
		if code != 1 || !strings.HasPrefix(stderr, "client: create user: rpc error: code = Internal") ||
			!strings.HasSuffix(stderr, tc.want+"\n") {
			t.Errorf("-codec %s, a truncated response: exit code %d, stderr %q; want 1 and Internal, ending with %q",
				tc.codec, code, stderr, tc.want)
		}
	}
}

// TestTimeout checks that -timeout is the call's deadline.
func TestTimeout(t *testing.T) {
	addr := serveRaw(t, func(stream grpc.ServerStream) error {
		<-stream.Context().Done()
		return stream.Context().Err()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	code, _, stderr := clientCtx(ctx, "-addr", addr, "-op", "user", "-timeout", "200ms")
	if want := "client: create user: rpc error: code = DeadlineExceeded"; code != 1 || !strings.HasPrefix(stderr, want) {
		t.Errorf("a server that never answers: exit code %d, stderr %q; want 1 and %q", code, stderr, want)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("a call with -timeout 200ms returned after %v", d)
	}
}

// TestErrors checks the exit codes and messages of bad command lines and of
// a failed call.
func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want []string // in stderr
	}{
		{[]string{"-codec", "fast"}, 2, []string{`invalid value "fast" for flag -codec: want grpcfast or standard`, "usage: client"}},
		{[]string{"-op", "delete"}, 2, []string{`invalid value "delete" for flag -op: want user, put, get or echo`}},
		{[]string{"-size", "-1"}, 2, []string{"invalid value -1 for flag -size: want 0 or more bytes"}},
		{[]string{"-chunk", "0"}, 2, []string{"invalid value 0 for flag -chunk: want 1 to 1048576 bytes"}},
		{[]string{"-chunk", "1048577"}, 2, []string{"invalid value 1048577 for flag -chunk: want 1 to 1048576 bytes"}},
		{[]string{"-timeout", "0s"}, 2, []string{"invalid value 0s for flag -timeout: want a duration greater than 0"}},
		{[]string{"-size", "big"}, 2, []string{`invalid value "big" for flag -size`}},
		{[]string{"put"}, 2, []string{`unexpected argument "put": client takes only flags`}},
		{[]string{"-h"}, 0, []string{"usage: client", "-addr", "-chunk", "-codec", "-op", "-size", "-timeout"}},
		// Port 1 on loopback: nothing listens there.
		{[]string{"-addr", "127.0.0.1:1", "-timeout", "2s"}, 1, []string{"client: create user: rpc error: code = Unavailable"}},
		{[]string{"-addr", "127.0.0.1:1", "-op", "put", "-timeout", "2s"}, 1, []string{"client: put 1048576 bytes: rpc error: code = Unavailable"}},
	} {
		code, stdout, stderr := client(tc.args...)
		if code != tc.code {
			t.Errorf("client %q: exit code %d, want %d", tc.args, code, tc.code)
		}
		for _, w := range tc.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("client %q: stderr %q, want %q in it", tc.args, stderr, w)
			}
		}
		if stdout != "" {
			t.Errorf("client %q: stdout %q, want nothing", tc.args, stdout)
		}
	}
}
