// Package remote_test builds and runs the code that buf generates for a tree
// shaped like Bazel's remote-apis, with the buf.yaml and buf.gen.yaml that
// docs/third-party.md shows: googleapis' google/api,
// google/longrunning and google/rpc files map to the Go packages that
// genproto and cloud.google.com/go/longrunning register, and
// google/bytestream is generated here for grpcfast's receivers.
package remote_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"cloud.google.com/go/longrunning/autogen/longrunningpb"
	"google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding"
	grpcstatus "google.golang.org/grpc/status"

	"github.com/grpcfast/grpcfast"

	executionv2 "example.com/remote/gen/build/bazel/remote/execution/v2"
	"example.com/remote/gen/google/bytestream"
)

// The googleapis types are genproto's and longrunning's own: these compile
// only if managed mode left their go_package alone.
var (
	_ *status.Status                                      = (&executionv2.ExecuteResponse{}).GetStatus()
	_ *longrunningpb.Operation                            = nil
	_ grpc.ServerStreamingServer[longrunningpb.Operation] = executionv2.Execution_ExecuteServer(nil)
)

// byteStream stores what Write receives, through the generated receiver.
type byteStream struct {
	bytestream.UnimplementedByteStreamServer
	blobs map[string][]byte
}

func (s *byteStream) Write(stream grpc.ClientStreamingServer[bytestream.WriteRequest, bytestream.WriteResponse]) error {
	var name string
	var blob []byte
	r := bytestream.NewByteStream_WriteRequestReceiver(stream)
	for req, err := range r.All() {
		if err != nil {
			return err
		}
		if name == "" {
			name = req.ResourceName
		}
		if req.WriteOffset != int64(len(blob)) {
			return grpcstatus.Errorf(codes.InvalidArgument, "write_offset %d, want %d", req.WriteOffset, len(blob))
		}
		blob = append(blob, req.Data...) // req.Data is valid until the next message
		if req.FinishWrite {
			s.blobs[name] = blob
			return stream.SendAndClose(&bytestream.WriteResponse{CommittedSize: int64(len(blob))})
		}
	}
	return grpcstatus.Error(codes.InvalidArgument, "the stream ended without finish_write")
}

// TestByteStreamWrite writes a 4 MiB blob in 64 KiB chunks to a ByteStream
// server on the generated code, both ends on the codec that the generated
// packages registered, and checks what the server stored.
func TestByteStreamWrite(t *testing.T) {
	if _, ok := encoding.GetCodecV2(grpcfast.Name).(*grpcfast.Codec); !ok {
		t.Fatalf("the codec under %q is %T, want the grpcfast codec that the generated packages register", grpcfast.Name, encoding.GetCodecV2(grpcfast.Name))
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	bs := &byteStream{blobs: map[string][]byte{}}
	bytestream.RegisterByteStreamServer(srv, bs)
	served := make(chan struct{})
	go func() {
		defer close(served)
		srv.Serve(lis)
	}()
	defer func() {
		srv.Stop()
		<-served
	}()
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()

	blob := make([]byte, 4<<20)
	for i := range blob {
		blob[i] = byte(i * 7 / 3)
	}
	sum := sha256.Sum256(blob)
	name := fmt.Sprintf("uploads/1/blobs/%x/%d", sum, len(blob))
	stream, err := bytestream.NewByteStreamClient(conn).Write(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	const chunk = 64 << 10
	for off := 0; off < len(blob); off += chunk {
		req := &bytestream.WriteRequest{WriteOffset: int64(off), Data: blob[off:min(off+chunk, len(blob))], FinishWrite: off+chunk >= len(blob)}
		if off == 0 {
			req.ResourceName = name
		}
		if err := stream.Send(req); err != nil {
			t.Fatal(err)
		}
	}
	resp, err := stream.CloseAndRecv()
	if err != nil {
		t.Fatal(err)
	}
	if resp.CommittedSize != int64(len(blob)) {
		t.Errorf("committed_size %d, want %d", resp.CommittedSize, len(blob))
	}
	if got := bs.blobs[name]; !bytes.Equal(got, blob) {
		t.Errorf("the server stored %d bytes (SHA-256 %x), want %d (%x)", len(got), sha256.Sum256(got), len(blob), sum)
	}
}

// TestDocsShowThisTree checks that docs/third-party.md, the page the
// README links for third-party trees, shows this tree's buf.yaml and
// buf.gen.yaml exactly.
func TestDocsShowThisTree(t *testing.T) {
	page, err := os.ReadFile("../../docs/third-party.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{"buf.yaml", "buf.gen.yaml"} {
		want, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		block := "```yaml\n# " + file + "\n" + string(want) + "```\n"
		if !strings.Contains(string(page), block) {
			t.Errorf("docs/third-party.md does not show %s as this tree has it; want a block\n%s", file, block)
		}
	}
}

// TestRecipeOnlyGoogleAPI runs buf generate with this tree's buf.yaml and
// buf.gen.yaml (the page's) on a tree that imports only
// google/api/annotations.proto, so that every file of the googleapis
// directory is one not to generate: the recipe must still generate the
// tree's own files, and none of googleapis'. With an input per directory,
// buf stopped: "Failure: no .proto files were targeted". It needs buf and
// the four plugins on PATH or in the repository's .bin (make tools build).
func TestRecipeOnlyGoogleAPI(t *testing.T) {
	bin, err := filepath.Abs("../../.bin")
	if err != nil {
		t.Fatal(err)
	}
	path := bin + string(os.PathListSeparator) + os.Getenv("PATH")
	var buf string
	for _, tool := range []string{"buf", "protoc-gen-go", "protoc-gen-go-grpc", "protoc-gen-go-vtproto", "protoc-gen-go-grpcfast"} {
		p, err := lookPath(tool, path)
		if err != nil {
			t.Skipf("%s is not on PATH nor in .bin (make tools build): %v", tool, err)
		}
		if tool == "buf" {
			buf = p
		}
	}
	dir := t.TempDir()
	write := func(name string, data []byte) {
		t.Helper()
		name = filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"buf.yaml", "buf.gen.yaml", "third_party/googleapis/google/api/annotations.proto", "third_party/googleapis/google/api/http.proto"} {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		write(name, data)
	}
	write("proto/acme/v1/greeter.proto", []byte(`syntax = "proto3";
package acme.v1;
import "google/api/annotations.proto";
service Greeter {
  rpc Greet(GreetRequest) returns (GreetResponse) { option (google.api.http) = { post: "/v1/greet" body: "*" }; }
}
message GreetRequest { string name = 1; }
message GreetResponse { string greeting = 1; }
`))
	cmd := exec.Command(buf, "generate")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+path)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("buf generate: %v\n%s", err, out)
	}
	var got []string
	err = filepath.WalkDir(filepath.Join(dir, "gen"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			got = append(got, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"gen/acme/v1/greeter.pb.go", "gen/acme/v1/greeter_grpc.pb.go", "gen/acme/v1/greeter_grpcfast.pb.go",
		"gen/acme/v1/greeter_grpcfast_bench_test.go", "gen/acme/v1/greeter_vtproto.pb.go",
	}
	if !slices.Equal(got, want) {
		t.Errorf("generated\n%q\nwant\n%q", got, want)
	}
}

// lookPath finds file in the directories of path.
func lookPath(file, path string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, file)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found", file)
}

// TestOTLPRecipe runs buf generate with the buf.gen.yaml that
// docs/third-party.md shows for OpenTelemetry's OTLP protos, on files with
// OTLP's go_package options: the generated service must import the
// messages generated here (which have decoders), not
// go.opentelemetry.io/proto/otlp's, and the plugin's note must say to keep
// generating them. It needs buf and the four plugins, as
// TestRecipeOnlyGoogleAPI does.
func TestOTLPRecipe(t *testing.T) {
	bin, err := filepath.Abs("../../.bin")
	if err != nil {
		t.Fatal(err)
	}
	path := bin + string(os.PathListSeparator) + os.Getenv("PATH")
	var buf string
	for _, tool := range []string{"buf", "protoc-gen-go", "protoc-gen-go-grpc", "protoc-gen-go-vtproto", "protoc-gen-go-grpcfast"} {
		p, err := lookPath(tool, path)
		if err != nil {
			t.Skipf("%s is not on PATH nor in .bin (make tools build): %v", tool, err)
		}
		if tool == "buf" {
			buf = p
		}
	}
	page, err := os.ReadFile("../../docs/third-party.md")
	if err != nil {
		t.Fatal(err)
	}
	section := string(page)[strings.Index(string(page), "## OpenTelemetry's OTLP protos"):]
	start := strings.Index(section, "```yaml\n# buf.gen.yaml\nversion: v2\nmanaged:")
	if start < 0 {
		t.Fatal("docs/third-party.md shows no buf.gen.yaml with managed mode for OTLP")
	}
	genYAML := section[start+len("```yaml\n"):]
	genYAML = genYAML[:strings.Index(genYAML, "```")]

	dir := t.TempDir()
	write := func(name, data string) {
		t.Helper()
		name = filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("buf.yaml", "version: v2\nmodules:\n  - path: proto\n")
	write("buf.gen.yaml", genYAML)
	write("proto/opentelemetry/proto/trace/v1/trace.proto", `syntax = "proto3";
package opentelemetry.proto.trace.v1;
option go_package = "go.opentelemetry.io/proto/otlp/trace/v1";
message ResourceSpans { repeated Span spans = 1; }
message Span { bytes trace_id = 1; string name = 5; }
`)
	write("proto/opentelemetry/proto/collector/trace/v1/trace_service.proto", `syntax = "proto3";
package opentelemetry.proto.collector.trace.v1;
import "opentelemetry/proto/trace/v1/trace.proto";
option go_package = "go.opentelemetry.io/proto/otlp/collector/trace/v1";
service TraceService { rpc Export(ExportTraceServiceRequest) returns (ExportTraceServiceResponse) {} }
message ExportTraceServiceRequest { repeated opentelemetry.proto.trace.v1.ResourceSpans resource_spans = 1; }
message ExportTraceServiceResponse {}
`)
	cmd := exec.Command(buf, "generate")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+path)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("buf generate: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "opentelemetry/proto/trace/v1/trace.proto is generated into Go package example.com/collector/gen/opentelemetry/proto/trace/v1") ||
		!strings.Contains(string(out), "keep generating it too") {
		t.Errorf("buf generate printed no note to keep generating trace.proto:\n%s", out)
	}
	service, err := os.ReadFile(filepath.Join(dir, "gen/opentelemetry/proto/collector/trace/v1/trace_service.pb.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(service), `"example.com/collector/gen/opentelemetry/proto/trace/v1"`) || strings.Contains(string(service), "go.opentelemetry.io") {
		t.Errorf("the generated service does not import the trace messages generated with it:\n%s", service)
	}
	decoders, err := os.ReadFile(filepath.Join(dir, "gen/opentelemetry/proto/trace/v1/trace_grpcfast.pb.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(decoders), "func (x *Span) GrpcfastDecode(") {
		t.Errorf("trace_grpcfast.pb.go has no decoder for Span")
	}
}
