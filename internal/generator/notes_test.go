package generator_test

import (
	"fmt"
	"strings"
	"testing"
)

// Minimal shapes of googleapis files, as a third-party tree vendors them.
const (
	statusProto = `syntax = "proto3";
package google.rpc;
option go_package = "%s";
message Status { int32 code = 1; string message = 2; }
`
	byteStreamProto = `syntax = "proto3";
package google.bytestream;
option go_package = "%s";
service ByteStream { rpc Write(stream WriteRequest) returns (WriteResponse); }
message WriteRequest { string resource_name = 1; int64 write_offset = 2; bool finish_write = 3; bytes data = 10; }
message WriteResponse { int64 committed_size = 1; }
`
	emptyProto = `syntax = "proto3";
package google.protobuf;
option go_package = "%s";
message Empty {}
`
)

func src(format, goPackage string) string { return strings.Replace(format, "%s", goPackage, 1) }

// TestRegisteredNotes checks the note for a file that a well-known Go module
// registers already, generated into another Go package: exact texts for
// googleapis' google/rpc/status.proto (which grpc-go links), a file with
// services (google/bytestream/bytestream.proto), a well-known type and
// OTLP's common.proto (with the run-time workaround); files under google/
// that no list names (Pub/Sub), generated into the user's Go package; a
// vendored copy of well-known types generated at all; no note when the
// file keeps its module's Go package, is only imported, or is one's own.
func TestRegisteredNotes(t *testing.T) {
	const statusNote = `protoc-gen-go-grpcfast: note: google/rpc/status.proto is generated into Go package example.com/gen/google/rpc/status, ` +
		`but module google.golang.org/genproto/googleapis/rpc registers it already (package google.golang.org/genproto/googleapis/rpc/status), ` +
		`and grpc-go links that package, so every gRPC program that links this one panics at start: proto: file "google/rpc/status.proto" is already registered. ` +
		`Import google.golang.org/genproto/googleapis/rpc/status instead: do not generate google/rpc/status.proto (leave it out of the inputs, with buf exclude_paths) ` +
		`and keep its own go_package (with buf managed mode, disable go_package_prefix for it), then run go mod tidy.` + "\n"
	const byteStreamNote = `protoc-gen-go-grpcfast: note: google/bytestream/bytestream.proto is generated into Go package example.com/gen/google/bytestream, ` +
		`but module google.golang.org/genproto/googleapis/bytestream registers it already (package google.golang.org/genproto/googleapis/bytestream), ` +
		`and a program that links both panics at start: proto: file "google/bytestream/bytestream.proto" is already registered. ` +
		`Import google.golang.org/genproto/googleapis/bytestream instead: do not generate google/bytestream/bytestream.proto (leave it out of the inputs, with buf exclude_paths) ` +
		`and keep its own go_package (with buf managed mode, disable go_package_prefix for it), then run go mod tidy. ` +
		`To serve or call its services with this plugin's receivers, keep generating it and make sure that no program links google.golang.org/genproto/googleapis/bytestream as well ` +
		`(go list -deps ./... | grep -x google.golang.org/genproto/googleapis/bytestream prints nothing).` + "\n"
	const emptyNote = `protoc-gen-go-grpcfast: note: google/protobuf/empty.proto is generated into Go package example.com/gen/emptypb, ` +
		`but module google.golang.org/protobuf registers it already (package google.golang.org/protobuf/types/known/emptypb), ` +
		`and a program that links both panics at start: proto: file "google/protobuf/empty.proto" is already registered. ` +
		`Import google.golang.org/protobuf/types/known/emptypb instead: do not generate google/protobuf/empty.proto (leave it out of the inputs, with buf exclude_paths) ` +
		`and keep its own go_package (with buf managed mode, disable go_package_prefix for it), then run go mod tidy.` + "\n"
	const otlpNote = `protoc-gen-go-grpcfast: note: opentelemetry/proto/common/v1/common.proto is generated into Go package example.com/gen/opentelemetry/proto/common/v1, ` +
		`but module go.opentelemetry.io/proto/otlp registers it already (package go.opentelemetry.io/proto/otlp/common/v1), ` +
		`and a program that links both panics at start: proto: file "opentelemetry/proto/common/v1/common.proto" is already registered. ` +
		`Import go.opentelemetry.io/proto/otlp/common/v1 instead: do not generate opentelemetry/proto/common/v1/common.proto (leave it out of the inputs, with buf exclude_paths) ` +
		`and keep its own go_package (with buf managed mode, disable go_package_prefix for it), then run go mod tidy. ` +
		`If a program must link both (OpenTelemetry-Go's OTLP exporters link go.opentelemetry.io/proto/otlp), run it with GOLANG_PROTOBUF_REGISTRATION_CONFLICT=warn, ` +
		`or build it with -ldflags=-X=google.golang.org/protobuf/reflect/protoregistry.conflictPolicy=warn: it starts, and lookups by name ` +
		`(reflection, Any) find one copy only (docs/third-party.md of github.com/grpcfast/grpcfast).` + "\n"
	user := `syntax = "proto3";
package remote;
option go_package = "example.com/gen/remote";
import "google/rpc/status.proto";
service Execution { rpc Execute(Action) returns (stream Result); }
message Action { string digest = 1; }
message Result { google.rpc.Status status = 1; bytes output = 2; }
`
	for _, tc := range []struct {
		name  string
		files []string
		src   map[string]string
		want  string
	}{
		{"status into the user's package", []string{"remote.proto", "google/rpc/status.proto"}, map[string]string{
			"remote.proto": user, "google/rpc/status.proto": src(statusProto, "example.com/gen/google/rpc/status"),
		}, statusNote},
		{"status imported, not generated", []string{"remote.proto"}, map[string]string{
			"remote.proto": user, "google/rpc/status.proto": src(statusProto, "example.com/gen/google/rpc/status"),
		}, ""},
		{"status into genproto's package", []string{"google/rpc/status.proto"}, map[string]string{
			"google/rpc/status.proto": src(statusProto, "google.golang.org/genproto/googleapis/rpc/status;status"),
		}, ""},
		{"bytestream, which has services", []string{"google/bytestream/bytestream.proto"}, map[string]string{
			"google/bytestream/bytestream.proto": src(byteStreamProto, "example.com/gen/google/bytestream"),
		}, byteStreamNote},
		{"well-known type", []string{"google/protobuf/empty.proto"}, map[string]string{
			"google/protobuf/empty.proto": src(emptyProto, "example.com/gen/emptypb"),
		}, emptyNote},
		{"OTLP's common.proto, which go.opentelemetry.io/proto/otlp registers", []string{"opentelemetry/proto/common/v1/common.proto"}, otlpFiles, otlpNote},
		{"a file of one's own", []string{"acme/rpc/mine.proto"}, map[string]string{
			"acme/rpc/mine.proto": "syntax = \"proto3\";\npackage acme.rpc;\noption go_package = \"example.com/gen/mine\";\nmessage Mine {}\n",
		}, ""},
		{"Pub/Sub into the user's package", []string{"google/pubsub/v1/pubsub.proto", "google/pubsub/v1/schema.proto"}, pubsubFiles("example.com/gen/google/pubsub/v1"), pubsubNote},
		{"Pub/Sub imported, not generated", []string{"app.proto"}, appPubsub, ""},
		{"Pub/Sub into Google's package", []string{"google/pubsub/v1/pubsub.proto", "google/pubsub/v1/schema.proto"}, pubsubFiles("cloud.google.com/go/pubsub/v2/apiv1/pubsubpb;pubsubpb"), ""},
		{"well-known types vendored, generated into their own packages", []string{"google/protobuf/timestamp.proto", "google/protobuf/duration.proto"}, map[string]string{
			"google/protobuf/timestamp.proto": "syntax = \"proto3\";\npackage google.protobuf;\noption go_package = \"google.golang.org/protobuf/types/known/timestamppb\";\nmessage Timestamp { int64 seconds = 1; int32 nanos = 2; }\n",
			"google/protobuf/duration.proto":  "syntax = \"proto3\";\npackage google.protobuf;\noption go_package = \"google.golang.org/protobuf/types/known/durationpb\";\nmessage Duration { int64 seconds = 1; int32 nanos = 2; }\n",
		}, wktNote},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var notes strings.Builder
			// pool_notes=false: only the registration notes.
			resp := runNotes(t, compile(t, tc.files, "pool_notes=false", tc.src), &notes)
			if resp.Error != nil {
				t.Fatal(resp.GetError())
			}
			if notes.String() != tc.want {
				t.Errorf("notes\n%s\nwant\n%s", notes.String(), tc.want)
			}
		})
	}
}

// Pub/Sub-shaped files (google/pubsub/v1), which no fixed list of the plugin
// names: Google generates them into cloud.google.com/go/pubsub's package.
func pubsubFiles(goPackage string) map[string]string {
	return map[string]string{
		"google/pubsub/v1/schema.proto": src(`syntax = "proto3";
package google.pubsub.v1;
option go_package = "%s";
service SchemaService { rpc GetSchema(GetSchemaRequest) returns (Schema); }
message Schema { string name = 1; string definition = 2; }
message GetSchemaRequest { string name = 1; }
`, goPackage),
		"google/pubsub/v1/pubsub.proto": src(`syntax = "proto3";
package google.pubsub.v1;
option go_package = "%s";
import "google/pubsub/v1/schema.proto";
service Publisher { rpc Publish(PublishRequest) returns (PublishResponse); }
message PubsubMessage { bytes data = 1; map<string, string> attributes = 2; string message_id = 3; }
message PublishRequest { string topic = 1; repeated PubsubMessage messages = 2; Schema schema = 3; }
message PublishResponse { repeated string message_ids = 1; }
`, goPackage),
	}
}

var appPubsub = func() map[string]string {
	m := pubsubFiles("cloud.google.com/go/pubsub/v2/apiv1/pubsubpb;pubsubpb")
	m["app.proto"] = `syntax = "proto3";
package app;
option go_package = "example.com/gen/app";
import "google/pubsub/v1/pubsub.proto";
service Relay { rpc Relay(google.pubsub.v1.PublishRequest) returns (google.pubsub.v1.PublishResponse); }
`
	return m
}()

const pubsubNote = `protoc-gen-go-grpcfast: note: google/pubsub/v1/pubsub.proto and google/pubsub/v1/schema.proto are generated into Go package example.com/gen/google/pubsub/v1, ` +
	`but they are Google's: Google generates every file of googleapis into a Go package of its own (the file's go_package option in googleapis names it, ` +
	`under google.golang.org/genproto/ or cloud.google.com/go/) and registers it there, and a program that links both (a Google client library links Google's) ` +
	`panics at start: proto: file "google/pubsub/v1/pubsub.proto" is already registered. ` +
	`Import Google's package instead: do not generate them (leave them out of the inputs, with buf exclude_paths) and keep their own go_package ` +
	`(with buf managed mode, disable go_package_prefix for them), then run go mod tidy. ` +
	`To serve or call their services with this plugin's receivers, keep generating them and make sure that no program links Google's package as well ` +
	`(go list -deps ./... lists what a program links).` + "\n"

const wktNote = `protoc-gen-go-grpcfast: note: google/protobuf/{duration,timestamp}.proto are well-known types: ` +
	`module google.golang.org/protobuf generates and registers them (Go packages under google.golang.org/protobuf/types/), ` +
	`and every import of them resolves there. This run writes a second copy into the output tree that nothing imports; ` +
	`with paths=source_relative its Go packages share one directory, google/protobuf, and go build ./... and go vet ./... fail (found packages ...). ` +
	`Do not generate them: leave google/protobuf out of the inputs (buf exclude_paths; with protoc, do not name those files).` + "\n"

// TestPoolNotesOtherRuns checks that a pool note names only the types that
// this run generates, and says why the reachable types of files it does not
// generate (google.rpc.Status, mapped to genproto's package) get no pool=
// option: a pool= option for them would not compile.
func TestPoolNotesOtherRuns(t *testing.T) {
	files := map[string]string{
		"google/rpc/status.proto": src(statusProto, "google.golang.org/genproto/googleapis/rpc/status;status"),
		"remote.proto": `syntax = "proto3";
package remote;
option go_package = "example.com/gen/remote";
import "google/rpc/status.proto";
import "google/protobuf/duration.proto";
service Execution { rpc Execute(Action) returns (stream Result); rpc Upload(stream Result) returns (Action); }
message Action { string digest = 1; }
message Result { google.rpc.Status status = 1; Output output = 2; google.protobuf.Duration took = 3; }
message Output { bytes data = 1; google.rpc.Status status = 2; }
`,
	}
	const want = `protoc-gen-go-grpcfast: note: remote.Result, received by streams of Execution.Execute, Execution.Upload, ` +
		`has nested messages or packed repeated fields, which vtprotobuf's decoder allocates anew for every message unless it pools them. ` +
		`Add pool=example.com/gen/remote.Result pool=example.com/gen/remote.Output to protoc-gen-go-vtproto's options, ` +
		`and the same to protoc-gen-go-grpcfast's to silence this note (or pool_notes=false). ` +
		`google.rpc.Status (Go package google.golang.org/genproto/googleapis/rpc/status) is reachable too, but generated into that Go package by another module, without vtprotobuf, ` +
		`so vtprotobuf decodes it with protobuf-go (proto.Unmarshal) and cannot pool it; a pool= option for it would not compile.` + "\n"
	var notes strings.Builder
	resp := runNotes(t, compile(t, []string{"remote.proto"}, "", files), &notes)
	if resp.Error != nil {
		t.Fatal(resp.GetError())
	}
	if notes.String() != want {
		t.Errorf("notes\n%s\nwant\n%s", notes.String(), want)
	}
	if strings.Contains(notes.String(), "pool=google.golang.org/genproto") {
		t.Error("the note names a pool= option for a type this run does not generate")
	}
}

// OTLP-shaped files: four Go packages, as buf's managed mode names them (two
// of them tracev1), and the request tree of TraceService.Export across them.
var otlpFiles = map[string]string{
	"opentelemetry/proto/common/v1/common.proto": `syntax = "proto3";
package opentelemetry.proto.common.v1;
option go_package = "example.com/gen/opentelemetry/proto/common/v1;commonv1";
message AnyValue { oneof value { string string_value = 1; ArrayValue array_value = 5; KeyValueList kvlist_value = 6; } }
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
message InstrumentationScope { string name = 1; repeated KeyValue attributes = 3; }
`,
	"opentelemetry/proto/resource/v1/resource.proto": `syntax = "proto3";
package opentelemetry.proto.resource.v1;
option go_package = "example.com/gen/opentelemetry/proto/resource/v1;resourcev1";
import "opentelemetry/proto/common/v1/common.proto";
message Resource { repeated opentelemetry.proto.common.v1.KeyValue attributes = 1; }
`,
	"opentelemetry/proto/trace/v1/trace.proto": `syntax = "proto3";
package opentelemetry.proto.trace.v1;
option go_package = "example.com/gen/opentelemetry/proto/trace/v1;tracev1";
import "opentelemetry/proto/common/v1/common.proto";
import "opentelemetry/proto/resource/v1/resource.proto";
message ResourceSpans { opentelemetry.proto.resource.v1.Resource resource = 1; repeated ScopeSpans scope_spans = 2; }
message ScopeSpans { opentelemetry.proto.common.v1.InstrumentationScope scope = 1; repeated Span spans = 2; }
message Span {
  bytes trace_id = 1;
  repeated opentelemetry.proto.common.v1.KeyValue attributes = 9;
  message Event { string name = 2; repeated opentelemetry.proto.common.v1.KeyValue attributes = 3; }
  repeated Event events = 11;
  Status status = 15;
}
message Status { string message = 2; }
`,
	"opentelemetry/proto/collector/trace/v1/trace_service.proto": `syntax = "proto3";
package opentelemetry.proto.collector.trace.v1;
option go_package = "example.com/gen/opentelemetry/proto/collector/trace/v1;tracev1";
import "opentelemetry/proto/trace/v1/trace.proto";
service TraceService { rpc Export(ExportTraceServiceRequest) returns (ExportTraceServiceResponse); }
message ExportTraceServiceRequest { repeated opentelemetry.proto.trace.v1.ResourceSpans resource_spans = 1; }
message ExportTraceServiceResponse { string error_message = 1; }
`,
}

// TestPooledRequestNotes checks the note for a Register<Service>ServerPooled
// whose unary request tree holds types in no pool= option, on the OTLP
// shapes: exact text, types sorted and named as vtprotobuf's pool= names
// them, across four Go packages, whether one run generates them all (protoc,
// buf's strategy all) or each directory comes in its own run (buf's
// default); no note when every type is pooled (exact names or globs) or
// with pooled_requests=false.
func TestPooledRequestNotes(t *testing.T) {
	const gen = "example.com/gen/opentelemetry/proto/"
	pooled := []string{"collector/trace/v1.ExportTraceServiceRequest", "trace/v1.ResourceSpans", "trace/v1.ScopeSpans", "trace/v1.Span"}
	var some []string
	for _, p := range pooled {
		some = append(some, "pool="+gen+p)
	}
	const want = `protoc-gen-go-grpcfast: note: RegisterTraceServiceServerPooled (service opentelemetry.proto.collector.trace.v1.TraceService, unary method Export) ` +
		`pools requests, but 8 message types of their trees are in no pool= option, so vtprotobuf's decoder allocates, on every request, ` +
		`each nested message of such a type and each repeated element of such a parent. ` +
		`Add pool=example.com/gen/opentelemetry/proto/common/v1.AnyValue pool=example.com/gen/opentelemetry/proto/common/v1.ArrayValue ` +
		`pool=example.com/gen/opentelemetry/proto/common/v1.InstrumentationScope pool=example.com/gen/opentelemetry/proto/common/v1.KeyValue ` +
		`pool=example.com/gen/opentelemetry/proto/common/v1.KeyValueList pool=example.com/gen/opentelemetry/proto/resource/v1.Resource ` +
		`pool=example.com/gen/opentelemetry/proto/trace/v1.Span_Event pool=example.com/gen/opentelemetry/proto/trace/v1.Status ` +
		`to protoc-gen-go-vtproto's options, and the same to protoc-gen-go-grpcfast's ` +
		`(as vtprotobuf spells them: <go import path>.<Go type name>, nested types with _; or pool_notes=false to silence this note).` + "\n"
	const service = "opentelemetry/proto/collector/trace/v1/trace_service.proto"
	all := []string{service, "opentelemetry/proto/trace/v1/trace.proto", "opentelemetry/proto/resource/v1/resource.proto", "opentelemetry/proto/common/v1/common.proto"}
	full := strings.Join(some, ",") + ",pool=" + gen + "common/v1.*,pool=" + gen + "resource/v1.Resource,pool=" + gen + "trace/v1.Span_Event,pool=" + gen + "trace/v1.Status"
	for _, tc := range []struct {
		name, param string
		files       []string
		want        string
	}{
		{"one run for all packages", strings.Join(some, ","), all, want},
		{"one run per directory", strings.Join(some, ","), []string{service}, want},
		{"every type pooled", full, all, ""},
		{"every type pooled, one glob", "pool=example.com/gen/opentelemetry/**", []string{service}, ""},
		{"pooled_requests=false", "pooled_requests=false", all, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var notes strings.Builder
			resp := runNotes(t, compile(t, tc.files, tc.param, otlpFiles), &notes)
			if resp.Error != nil {
				t.Fatal(resp.GetError())
			}
			// Without the registration notes of the OTLP files (TestRegisteredNotes).
			var got string
			for _, line := range strings.SplitAfter(notes.String(), "\n") {
				if !strings.Contains(line, " is already registered.") {
					got += line
				}
			}
			if got != tc.want {
				t.Errorf("notes\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// TestPooledRequestNotesTree checks what the walk of a request tree follows:
// oneof cases and cycles (each type once), not map values (vtprotobuf
// allocates them anyway), not protobuf-go's well-known types, and not the
// types of a well-known module's own Go package (google.rpc.Status from
// genproto), which it names apart. A service whose unary requests have no
// nested message and no packed repeated field gets no note: grpcfast pools
// the request itself.
func TestPooledRequestNotesTree(t *testing.T) {
	files := map[string]string{
		"google/rpc/status.proto": src(statusProto, "google.golang.org/genproto/googleapis/rpc/status;status"),
		"t.proto": `syntax = "proto3";
package t;
option go_package = "example.com/t";
import "google/rpc/status.proto";
import "google/protobuf/timestamp.proto";
service Tree { rpc Put(Node) returns (Flat); rpc Stream(stream Flat) returns (Flat); rpc Get(Flat) returns (Node); }
service Plain { rpc Get(Flat) returns (Node); }
message Node {
  Node parent = 1;
  repeated Node children = 2;
  oneof kind { Leaf leaf = 3; string name = 4; }
  map<string, Valued> by_name = 5;
  google.protobuf.Timestamp at = 6;
  google.rpc.Status status = 7;
}
message Leaf { repeated int64 ids = 1; }
message Valued { Deep deep = 1; }
message Deep { bytes b = 1; }
message Flat { string s = 1; bytes b = 2; repeated string tags = 3; }
`,
	}
	const want = `protoc-gen-go-grpcfast: note: RegisterTreeServerPooled (service t.Tree, unary methods Put, Get) ` +
		`pools requests, but 2 message types of their trees are in no pool= option, so vtprotobuf's decoder allocates, on every request, ` +
		`each nested message of such a type and each repeated element of such a parent. ` +
		`Add pool=example.com/t.Leaf pool=example.com/t.Node to protoc-gen-go-vtproto's options, and the same to protoc-gen-go-grpcfast's ` +
		`(as vtprotobuf spells them: <go import path>.<Go type name>, nested types with _; or pool_notes=false to silence this note). ` +
		`google.rpc.Status (Go package google.golang.org/genproto/googleapis/rpc/status) is reachable too, but generated into that Go package by another module, without vtprotobuf, ` +
		`so vtprotobuf decodes it with protobuf-go (proto.Unmarshal) and cannot pool it; a pool= option for it would not compile.` + "\n"
	var notes strings.Builder
	resp := runNotes(t, compile(t, []string{"t.proto"}, "", files), &notes)
	if resp.Error != nil {
		t.Fatal(resp.GetError())
	}
	if notes.String() != want {
		t.Errorf("notes\n%s\nwant\n%s", notes.String(), want)
	}
}

// TestPoolNotesPerDirectory: buf runs the plugin once per directory, so a
// streamed message's nested types may live in files of another run, which
// vtprotobuf generates there with the same options. The note names them
// with pool= options, as it does in a run that generates every file, never
// as types it cannot pool.
func TestPoolNotesPerDirectory(t *testing.T) {
	files := map[string]string{
		"common/common.proto": `syntax = "proto3";
package common;
option go_package = "example.com/gen/common";
message KeyValue { string key = 1; Value value = 2; }
message Value { string text = 1; }
`,
		"trace/trace.proto": `syntax = "proto3";
package trace;
option go_package = "example.com/gen/trace";
import "common/common.proto";
service Collector { rpc Stream(stream Span) returns (Span); }
message Span { repeated common.KeyValue attributes = 1; }
`,
	}
	const want = `protoc-gen-go-grpcfast: note: trace.Span, received by streams of Collector.Stream, ` +
		`has nested messages or packed repeated fields, which vtprotobuf's decoder allocates anew for every message unless it pools them. ` +
		`Add pool=example.com/gen/trace.Span pool=example.com/gen/common.KeyValue pool=example.com/gen/common.Value to protoc-gen-go-vtproto's options, ` +
		`and the same to protoc-gen-go-grpcfast's to silence this note (or pool_notes=false).` + "\n"
	for _, generate := range [][]string{{"trace/trace.proto"}, {"trace/trace.proto", "common/common.proto"}} {
		var notes strings.Builder
		resp := runNotes(t, compile(t, generate, "pooled_requests=false", files), &notes)
		if resp.Error != nil {
			t.Fatal(resp.GetError())
		}
		if notes.String() != want {
			t.Errorf("generating %v: notes\n%s\nwant\n%s", generate, notes.String(), want)
		}
	}
}

// manyTypes returns a service of methods unary methods whose requests reach
// perPackage message types in each of the Go packages named, under
// example.com/gen/big/.
func manyTypes(methods int, packages []string, perPackage int) map[string]string {
	files := map[string]string{}
	var svc strings.Builder
	svc.WriteString("syntax = \"proto3\";\npackage big.svc;\noption go_package = \"example.com/gen/big/svc\";\n")
	for _, p := range packages {
		fmt.Fprintf(&svc, "import \"big/%s/%s.proto\";\n", p, p)
		var f strings.Builder
		fmt.Fprintf(&f, "syntax = \"proto3\";\npackage big.%s;\noption go_package = \"example.com/gen/big/%s\";\n", p, p)
		for i := range perPackage {
			next := ""
			if i+1 < perPackage {
				next = fmt.Sprintf(" T%d next = 2;", i+1)
			}
			fmt.Fprintf(&f, "message T%d { string s = 1;%s }\n", i, next)
		}
		files["big/"+p+"/"+p+".proto"] = f.String()
	}
	svc.WriteString("service Big {\n")
	for i := range methods {
		fmt.Fprintf(&svc, "  rpc M%d(Req%d) returns (Req%d);\n", i, i, i)
	}
	svc.WriteString("}\n")
	for i := range methods {
		fmt.Fprintf(&svc, "message Req%d { Req%d self = 100;", i, i)
		for j, p := range packages {
			fmt.Fprintf(&svc, " big.%s.T0 f%d = %d;", p, j, j+1)
		}
		svc.WriteString(" }\n")
	}
	files["big/svc/svc.proto"] = svc.String()
	return files
}

// TestPooledRequestNotesScale checks that a note about many methods and
// types stays readable: past a handful of methods it counts them, past a
// handful of types it names the glob that covers them (one per tree of Go
// packages, or one per package), and that glob silences the note. Before,
// a note listed every method and 32 types then "(and N more)" (WorkflowService
// of Temporal's API: 130 methods and 234 types on one line).
func TestPooledRequestNotesScale(t *testing.T) {
	const head = `protoc-gen-go-grpcfast: note: RegisterBigServerPooled (service big.svc.Big, 12 unary methods) pools requests, but `
	const tail = ` to protoc-gen-go-vtproto's options, and the same to protoc-gen-go-grpcfast's ` +
		`(as vtprotobuf spells them: <go import path>.<Go type name>, nested types with _; or pool_notes=false to silence this note).` + "\n"
	for _, tc := range []struct {
		name     string
		packages []string
		want     string
		glob     string
	}{
		{"three Go packages under one path", []string{"a", "b", "c"}, head +
			`24 message types of their trees, in 4 Go packages, are in no pool= option, so vtprotobuf's decoder allocates, on every request, ` +
			`each nested message of such a type and each repeated element of such a parent. ` +
			`Add pool=example.com/gen/big/** (a glob: it covers those types and every other type under that path)` + tail,
			"pool=example.com/gen/big/**"},
		{"one Go package", nil, head +
			`12 message types of their trees, in 1 Go package, are in no pool= option, so vtprotobuf's decoder allocates, on every request, ` +
			`each nested message of such a type and each repeated element of such a parent. ` +
			`Add pool=example.com/gen/big/svc.* (a glob: it covers those types and every other type of that package)` + tail,
			"pool=example.com/gen/big/svc.*"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := manyTypes(12, tc.packages, 4)
			var notes strings.Builder
			resp := runNotes(t, compile(t, []string{"big/svc/svc.proto"}, "", files), &notes)
			if resp.Error != nil {
				t.Fatal(resp.GetError())
			}
			if notes.String() != tc.want {
				t.Errorf("notes\n%s\nwant\n%s", notes.String(), tc.want)
			}
			notes.Reset()
			resp = runNotes(t, compile(t, []string{"big/svc/svc.proto"}, tc.glob, files), &notes)
			if resp.Error != nil {
				t.Fatal(resp.GetError())
			}
			if notes.String() != "" {
				t.Errorf("with %s: notes\n%s\nwant none", tc.glob, notes.String())
			}
		})
	}
}
