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
		`To serve or call its services with this plugin's receivers, pooled handlers or reusing clients, keep generating it, with the files its messages come from, and make sure that no program links google.golang.org/genproto/googleapis/bytestream as well ` +
		`(go list -deps -test ./... | grep -x google.golang.org/genproto/googleapis/bytestream prints nothing).` + "\n"
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
		`If a service you generate uses its messages and you serve or call that service with this plugin's receivers, pooled handlers or reusing clients, ` +
		`keep generating it too (its messages' decoders are generated with it) and make sure that no program links go.opentelemetry.io/proto/otlp/common/v1 as well ` +
		`(go list -deps -test ./... | grep -x go.opentelemetry.io/proto/otlp/common/v1 prints nothing). ` +
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
	`To serve or call their services with this plugin's receivers, pooled handlers or reusing clients, keep generating them and make sure that no program links Google's package as well ` +
	`(go list -deps -test ./... lists what a program links).` + "\n"

const wktNote = `protoc-gen-go-grpcfast: note: google/protobuf/{duration,timestamp}.proto are well-known types: ` +
	`module google.golang.org/protobuf generates and registers them (Go packages under google.golang.org/protobuf/types/), ` +
	`and every import of them resolves there. This run writes a second copy into the output tree that nothing imports; ` +
	`with paths=source_relative its Go packages share one directory, google/protobuf, and go build ./... and go vet ./... fail (found packages ...). ` +
	`Do not generate them: leave google/protobuf out of the inputs (buf exclude_paths; with protoc, do not name those files).` + "\n"

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
