package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/mem"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/example/examplepb"
)

// exampleServices are the services that the server must list and report
// SERVING for.
var exampleServices = []string{
	"grpcfast.example.v1.ChunkService",
	"grpcfast.example.v1.EchoService",
	"grpcfast.example.v1.UserService",
}

// server is one run of the server in this process.
type server struct {
	addr   string
	first  string      // the listening line
	lines  chan string // stdout, line by line
	stderr *bytes.Buffer
	cancel context.CancelFunc // what SIGTERM does
	done   chan struct{}      // closed when run has returned
	err    error              // run's result, once done
}

// startServer runs the server with args and -addr 127.0.0.1:0 in this
// process and waits for its listening line. The server is stopped when the
// test ends.
func startServer(t *testing.T, args ...string) *server {
	t.Helper()
	return startServerWith(t, nil, nil, args...)
}

// hookWriter calls onStopping, if set, with the stopping line before
// the server's write of it returns.
type hookWriter struct {
	w          io.Writer
	onStopping func()
}

func (h hookWriter) Write(p []byte) (int, error) {
	if h.onStopping != nil && bytes.HasPrefix(p, []byte("example server stopping")) {
		h.onStopping()
	}
	return h.w.Write(p)
}

// startServerWith is startServer with hooks: onStopping runs inside the
// server's write of its stopping line, and closing endDrain ends its drain.
func startServerWith(t *testing.T, onStopping func(), endDrain <-chan struct{}, args ...string) *server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &server{lines: make(chan string, 16), stderr: new(bytes.Buffer), cancel: cancel, done: make(chan struct{})}
	pr, pw := io.Pipe()
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
	}()
	go func() {
		s.err = runWith(ctx, endDrain, append([]string{"-addr", "127.0.0.1:0"}, args...), hookWriter{pw, onStopping}, s.stderr)
		pw.Close()
		close(s.done)
	}()
	t.Cleanup(func() {
		cancel()
		<-s.done
	})
	line := s.nextLine(t)
	if !strings.Contains(line, " listening on 127.0.0.1:") {
		t.Fatalf("first line %q, want one that ends with the address", line)
	}
	s.first, s.addr = line, line[strings.LastIndexByte(line, ' ')+1:]
	return s
}

// nextLine returns the server's next line of output.
func (s *server) nextLine(t *testing.T) string {
	t.Helper()
	select {
	case line, ok := <-s.lines:
		if !ok {
			<-s.done
			t.Fatalf("the server's output ended (run: %v; stderr: %s)", s.err, s.stderr)
		}
		return line
	case <-time.After(10 * time.Second):
		t.Fatal("no line from the server in 10s")
	}
	return ""
}

// wait waits for run to return and checks that it printed the stopped line.
func (s *server) wait(t *testing.T) (stopped string) {
	t.Helper()
	select {
	case <-s.done:
		if s.err != nil {
			t.Fatalf("run: %v", s.err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("run has not returned 20s after the shutdown began")
	}
	var last string
	for line := range s.lines {
		last = line
	}
	if !strings.HasPrefix(last, "example server stopped") {
		t.Fatalf("last line %q, want the stopped line", last)
	}
	return last
}

func dial(t *testing.T, addr string) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// requireGrpcfastCodec fails the test unless the codec registered under
// "proto", which the server and the test's connections use unless a codec
// is forced, is grpcfast's. Health and reflection messages have no
// vtprotobuf methods, so with it they go through grpcfast's fallback path.
func requireGrpcfastCodec(t *testing.T) {
	t.Helper()
	if c := encoding.GetCodecV2("proto"); c == nil {
		t.Fatal(`no codec registered under "proto"`)
	} else if _, ok := c.(*grpcfast.Codec); !ok {
		t.Fatalf(`the codec registered under "proto" is a %T, want a *grpcfast.Codec`, c)
	}
}

// reflect sends req on a reflection stream and returns the answer.
func reflect(t *testing.T, stream reflectionpb.ServerReflection_ServerReflectionInfoClient, req *reflectionpb.ServerReflectionRequest) *reflectionpb.ServerReflectionResponse {
	t.Helper()
	if err := stream.Send(req); err != nil {
		t.Fatalf("reflection: send: %v", err)
	}
	resp, err := stream.Recv()
	if err != nil {
		t.Fatalf("reflection: recv: %v", err)
	}
	if e := resp.GetErrorResponse(); e != nil {
		t.Fatalf("reflection: %v: error %d %s", req, e.GetErrorCode(), e.GetErrorMessage())
	}
	return resp
}

// TestReflection lists the services through server reflection and resolves
// the example's methods from the descriptors it returns, on each codec.
func TestReflection(t *testing.T) {
	for _, codec := range []string{"grpcfast", "standard"} {
		t.Run(codec, func(t *testing.T) {
			requireGrpcfastCodec(t)
			s := startServer(t, "-codec", codec)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			stream, err := reflectionpb.NewServerReflectionClient(dial(t, s.addr)).ServerReflectionInfo(ctx)
			if err != nil {
				t.Fatal(err)
			}

			resp := reflect(t, stream, &reflectionpb.ServerReflectionRequest{
				MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{ListServices: "*"},
			})
			var names []string
			for _, svc := range resp.GetListServicesResponse().GetService() {
				names = append(names, svc.GetName())
			}
			for _, want := range append(exampleServices, "grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection") {
				if !slices.Contains(names, want) {
					t.Errorf("reflection lists %q, want %s among them", names, want)
				}
			}

			// The file that declares ChunkService.Put, and its dependencies.
			resp = reflect(t, stream, &reflectionpb.ServerReflectionRequest{
				MessageRequest: &reflectionpb.ServerReflectionRequest_FileContainingSymbol{
					FileContainingSymbol: "grpcfast.example.v1.ChunkService.Put",
				},
			})
			set := new(descriptorpb.FileDescriptorSet)
			for _, b := range resp.GetFileDescriptorResponse().GetFileDescriptorProto() {
				fd := new(descriptorpb.FileDescriptorProto)
				if err := proto.Unmarshal(b, fd); err != nil {
					t.Fatalf("a FileDescriptorProto from reflection: %v", err)
				}
				set.File = append(set.File, fd)
			}
			files, err := protodesc.NewFiles(set)
			if err != nil {
				t.Fatalf("the files from reflection do not resolve: %v", err)
			}
			for _, m := range []struct {
				name            protoreflect.FullName
				input           protoreflect.FullName
				client, sserver bool
			}{
				{"grpcfast.example.v1.ChunkService.Put", "grpcfast.example.v1.Chunk", true, false},
				{"grpcfast.example.v1.ChunkService.Get", "grpcfast.example.v1.GetRequest", false, true},
				{"grpcfast.example.v1.EchoService.Echo", "grpcfast.example.v1.Chunk", true, true},
			} {
				d, err := files.FindDescriptorByName(m.name)
				if err != nil {
					t.Errorf("%s: %v", m.name, err)
					continue
				}
				md, ok := d.(protoreflect.MethodDescriptor)
				if !ok {
					t.Errorf("%s is a %T, want a method", m.name, d)
					continue
				}
				if md.IsStreamingClient() != m.client || md.IsStreamingServer() != m.sserver || md.Input().FullName() != m.input {
					t.Errorf("%s: client streaming %v, server streaming %v, input %s; want %v, %v, %s",
						m.name, md.IsStreamingClient(), md.IsStreamingServer(), md.Input().FullName(), m.client, m.sserver, m.input)
				}
			}
			requireGrpcfastCodec(t)
		})
	}
}

// rawCodec sends a *[]byte as it is; it receives nothing.
type rawCodec struct{}

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(*v.(*[]byte))}, nil
}
func (rawCodec) Unmarshal(mem.BufferSlice, any) error { return nil }
func (rawCodec) Name() string                         { return "proto" }

// TestCodecFlag tells which codec decodes the server's requests by the
// error it answers a truncated request with: the grpcfast codec decodes
// with vtprotobuf's generated code, gRPC's standard codec with protobuf-go.
func TestCodecFlag(t *testing.T) {
	for _, tc := range []struct{ codec, err string }{
		{"grpcfast", ": unexpected EOF"},
		// protobuf-go writes "proto:" and a random kind of space.
		{"standard", "cannot parse invalid wire-format data"},
	} {
		t.Run(tc.codec, func(t *testing.T) {
			s := startServer(t, "-codec", tc.codec)
			if line := "example server (codec " + tc.codec + ", 6 services) listening on " + s.addr; s.first != line {
				t.Errorf("first line %q, want %q", s.first, line)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			// Field 1 (name), 5 bytes long, of which 1 arrives.
			req, resp := []byte{0x0a, 0x05, 'a'}, []byte(nil)
			err := dial(t, s.addr).Invoke(ctx, "/grpcfast.example.v1.UserService/CreateUser", &req, &resp, grpc.ForceCodecV2(rawCodec{}))
			if st := status.Convert(err); st.Code() != codes.Internal || !strings.HasSuffix(st.Message(), tc.err) {
				t.Errorf("CreateUser of a truncated request: %v; want Internal, ending with %q", err, tc.err)
			}
		})
	}
}

// check asks the health service for service's status.
func check(ctx context.Context, conn *grpc.ClientConn, service string) (healthpb.HealthCheckResponse_ServingStatus, error) {
	resp, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{Service: service})
	return resp.GetStatus(), err
}

// TestHealth checks that the server reports SERVING for "" and every
// service, then NOT_SERVING as soon as the shutdown begins (during -drain,
// while it still answers), and is unavailable once stopped.
func TestHealth(t *testing.T) {
	requireGrpcfastCodec(t)
	// The drain lasts until the test ends it, so that nothing depends on
	// how long the checks below take.
	endDrain := make(chan struct{})
	var conn *grpc.ClientConn
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// When the server says it is stopping, health must already say so:
	// checked before the server's write of that line returns.
	var atStopping []string
	onStopping := func() {
		for _, svc := range []string{"", "grpcfast.example.v1.ChunkService"} {
			if st, err := check(ctx, conn, svc); err != nil || st != healthpb.HealthCheckResponse_NOT_SERVING {
				atStopping = append(atStopping, fmt.Sprintf("health of %q at the stopping line: %v, %v; want NOT_SERVING", svc, st, err))
			}
		}
	}
	s := startServerWith(t, onStopping, endDrain, "-drain", "1h")
	conn = dial(t, s.addr)
	services := append([]string{"", "grpc.health.v1.Health"}, exampleServices...)
	for _, svc := range services {
		if st, err := check(ctx, conn, svc); err != nil || st != healthpb.HealthCheckResponse_SERVING {
			t.Errorf("health of %q: %v, %v; want SERVING", svc, st, err)
		}
	}
	if _, err := check(ctx, conn, "no.such.Service"); status.Code(err) != codes.NotFound {
		t.Errorf("health of an unknown service: %v, want NotFound", err)
	}

	s.cancel() // what SIGTERM does
	if line := s.nextLine(t); !strings.HasPrefix(line, "example server stopping") {
		t.Fatalf("line %q, want the stopping line", line)
	}
	for _, e := range atStopping {
		t.Error(e)
	}
	// During the drain the server still answers, with NOT_SERVING.
	for _, svc := range []string{"", "grpcfast.example.v1.ChunkService"} {
		if st, err := check(ctx, conn, svc); err != nil || st != healthpb.HealthCheckResponse_NOT_SERVING {
			t.Errorf("health of %q during the drain: %v, %v; want NOT_SERVING", svc, st, err)
		}
	}
	requireGrpcfastCodec(t)
	close(endDrain)
	s.wait(t)
	if st, err := check(ctx, conn, ""); status.Code(err) != codes.Unavailable {
		t.Errorf("health once stopped: %v, %v; want Unavailable", st, err)
	}
}

// inflightPut starts a Put on conn and sends its first half, and makes sure
// the server has the call before it returns. finish sends the second half
// and checks the answer.
func inflightPut(t *testing.T, ctx context.Context, conn *grpc.ClientConn) (finish func() error) {
	t.Helper()
	const chunks, size = 64, 16 << 10
	stream, err := examplepb.NewChunkServiceClient(conn).Put(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c := &examplepb.Chunk{Data: make([]byte, size)}
	crc := uint32(0)
	send := func(from, to int) error {
		for i := from; i < to; i++ {
			for j := range c.Data {
				c.Data[j] = byte(i + j)
			}
			crc = crc32.Update(crc, crc32.MakeTable(crc32.Castagnoli), c.Data)
			if err := stream.Send(c); err != nil {
				return err
			}
		}
		return nil
	}
	if err := send(0, chunks/2); err != nil {
		t.Fatal(err)
	}
	// The server reads a connection's frames in order: once a later call on
	// it is answered, the server has the Put.
	if _, err := examplepb.NewUserServiceClient(conn).CreateUser(ctx, &examplepb.CreateUserRequest{Name: "x"}); err != nil {
		t.Fatal(err)
	}
	return func() error {
		if err := send(chunks/2, chunks); err != nil {
			return err
		}
		resp, err := stream.CloseAndRecv()
		if err != nil {
			return err
		}
		if resp.GetSize() != chunks*size || resp.GetCrc32C() != crc {
			return errors.New("the server received other bytes than were sent")
		}
		return nil
	}
}

// waitRefused waits until new connections to addr are refused: the
// graceful stop has closed the listener.
func waitRefused(t *testing.T, addr string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err = check(ctx, conn, "")
		cancel()
		conn.Close()
		if status.Code(err) == codes.Unavailable {
			return
		}
	}
	t.Fatal("the server still accepts connections 10s after the shutdown began")
}

// TestGracefulStop cancels run's context (what SIGINT and SIGTERM do) while
// a Put is in flight: the server stops accepting connections, the Put
// completes, and only then does run return.
func TestGracefulStop(t *testing.T) {
	s := startServer(t)
	conn := dial(t, s.addr)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	finish := inflightPut(t, ctx, conn)

	s.cancel()
	if line := s.nextLine(t); !strings.HasPrefix(line, "example server stopping") {
		t.Fatalf("line %q, want the stopping line", line)
	}
	waitRefused(t, s.addr)
	select {
	case <-s.done:
		t.Fatalf("run returned (%v) with a Put in flight", s.err)
	default:
	}
	if err := finish(); err != nil {
		t.Fatalf("the Put in flight when the shutdown began: %v", err)
	}
	if line := s.wait(t); line != "example server stopped gracefully" {
		t.Errorf("stopped line %q, want a graceful stop", line)
	}
}

// TestSIGTERM sends SIGTERM to the test process while mainCode serves and a
// Put is in flight: the Put completes and mainCode returns 0.
func TestSIGTERM(t *testing.T) {
	pr, pw := io.Pipe()
	var stderr bytes.Buffer
	code := make(chan int, 1)
	go func() {
		c := mainCode(context.Background(), []string{"-addr", "127.0.0.1:0"}, pw, &stderr)
		pw.Close()
		code <- c
	}()
	sc := bufio.NewScanner(pr)
	if !sc.Scan() {
		t.Fatalf("no listening line; stderr: %s", stderr.String())
	}
	line := sc.Text()
	addr := line[strings.LastIndexByte(line, ' ')+1:]
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	finish := inflightPut(t, ctx, dial(t, addr))

	// mainCode has registered for SIGTERM before it printed the line.
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if !sc.Scan() || !strings.HasPrefix(sc.Text(), "example server stopping") {
		t.Fatalf("line %q after SIGTERM, want the stopping line", sc.Text())
	}
	waitRefused(t, addr)
	if err := finish(); err != nil {
		t.Fatalf("the Put in flight when SIGTERM arrived: %v", err)
	}
	var last string
	for sc.Scan() {
		last = sc.Text()
	}
	if c := <-code; c != 0 || last != "example server stopped gracefully" {
		t.Errorf("mainCode returned %d, last line %q; want 0 and a graceful stop (stderr: %s)", c, last, stderr.String())
	}
}

// TestGraceTimeout stops the server with a Put that never ends: after -grace
// the server closes it and stops.
func TestGraceTimeout(t *testing.T) {
	s := startServer(t, "-grace", "300ms")
	conn := dial(t, s.addr)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	stream, err := examplepb.NewChunkServiceClient(conn).Put(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.Send(&examplepb.Chunk{Data: []byte("never finished")}); err != nil {
		t.Fatal(err)
	}
	if _, err := examplepb.NewUserServiceClient(conn).CreateUser(ctx, &examplepb.CreateUserRequest{Name: "x"}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	s.cancel()
	line := s.wait(t)
	if !strings.Contains(line, "after the 300ms grace period") {
		t.Errorf("stopped line %q, want a stop after the grace period", line)
	}
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Errorf("stopped %v after the shutdown began, before the 300ms grace period", d)
	}
	if _, err := stream.CloseAndRecv(); status.Code(err) != codes.Unavailable {
		t.Errorf("the Put cut off by the stop: %v, want Unavailable", err)
	}
}

// TestFlags checks the exit codes and messages of bad command lines.
func TestFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want []string // in stderr
	}{
		{[]string{"-codec", "fast"}, 2, []string{`invalid value "fast" for flag -codec: want grpcfast or standard`, "usage: server"}},
		{[]string{"-codec="}, 2, []string{`invalid value "" for flag -codec: want grpcfast or standard`}},
		{[]string{"-grace", "0s"}, 2, []string{"invalid value 0s for flag -grace: want a duration greater than 0"}},
		{[]string{"-drain", "-1s"}, 2, []string{"invalid value -1s for flag -drain: want a duration of 0 or more"}},
		{[]string{"-grace", "soon"}, 2, []string{`invalid value "soon" for flag -grace`}},
		{[]string{"-port", "1"}, 2, []string{"flag provided but not defined: -port"}},
		{[]string{"serve"}, 2, []string{`unexpected argument "serve": server takes only flags`}},
		{[]string{"-addr", "127.0.0.1:no"}, 1, []string{"server: -addr 127.0.0.1:no: listen tcp"}},
		{[]string{"-h"}, 0, []string{"usage: server", "-addr", "-codec", "-drain", "-grace"}},
	} {
		var stdout, stderr bytes.Buffer
		// Canceled: should bad flags be taken, the server stops at once.
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		code := mainCode(ctx, tc.args, &stdout, &stderr)
		if code != tc.code {
			t.Errorf("server %q: exit code %d, want %d", tc.args, code, tc.code)
		}
		for _, w := range tc.want {
			if !strings.Contains(stderr.String(), w) {
				t.Errorf("server %q: stderr %q, want %q in it", tc.args, stderr.String(), w)
			}
		}
		if stdout.Len() > 0 {
			t.Errorf("server %q: stdout %q, want nothing", tc.args, stdout.String())
		}
	}
}
