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
// services (google/bytestream/bytestream.proto), IAM's policy.proto (which
// the Cloud APIs import), a well-known type and
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
		`Unless you serve or call its services through this plugin (below), import google.golang.org/genproto/googleapis/bytestream instead: do not generate google/bytestream/bytestream.proto (leave it out of the inputs, with buf exclude_paths) ` +
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
	const iamNote = `protoc-gen-go-grpcfast: note: google/iam/v1/policy.proto is generated into Go package example.com/gen/google/iam/v1, ` +
		`but module cloud.google.com/go/iam registers it already (package cloud.google.com/go/iam/apiv1/iampb), ` +
		`and a program that links both panics at start: proto: file "google/iam/v1/policy.proto" is already registered. ` +
		`Import cloud.google.com/go/iam/apiv1/iampb instead: do not generate google/iam/v1/policy.proto (leave it out of the inputs, with buf exclude_paths) ` +
		`and keep its own go_package (with buf managed mode, disable go_package_prefix for it), then run go mod tidy. ` +
		`If a service you generate uses its messages and you serve or call that service with this plugin's receivers, pooled handlers or reusing clients, ` +
		`keep generating it too (its messages' decoders are generated with it) and make sure that no program links cloud.google.com/go/iam/apiv1/iampb as well ` +
		`(go list -deps -test ./... | grep -x cloud.google.com/go/iam/apiv1/iampb prints nothing).` + "\n"
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
		{"a trace collector's OTLP files, as docs/third-party.md generates them: one note", []string{
			"opentelemetry/proto/common/v1/common.proto", "opentelemetry/proto/resource/v1/resource.proto",
			"opentelemetry/proto/trace/v1/trace.proto", "opentelemetry/proto/collector/trace/v1/trace_service.proto",
		}, otlpFiles, otlpCollectorNote},
		{"a file of one's own", []string{"acme/rpc/mine.proto"}, map[string]string{
			"acme/rpc/mine.proto": "syntax = \"proto3\";\npackage acme.rpc;\noption go_package = \"example.com/gen/mine\";\nmessage Mine {}\n",
		}, ""},
		{"IAM's policy.proto, which a Cloud API imports, into the user's package", []string{"google/iam/v1/policy.proto"}, map[string]string{
			"google/iam/v1/policy.proto": "syntax = \"proto3\";\npackage google.iam.v1;\noption go_package = \"example.com/gen/google/iam/v1\";\nmessage Policy { int32 version = 1; bytes etag = 3; }\n",
		}, iamNote},
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
	`Unless you serve or call their services through this plugin (below), import Google's package instead: do not generate them (leave them out of the inputs, with buf exclude_paths) and keep their own go_package ` +
	`(with buf managed mode, disable go_package_prefix for them), then run go mod tidy. ` +
	`To serve or call their services with this plugin's receivers, pooled handlers or reusing clients, keep generating them and make sure that no program links Google's package as well ` +
	`(go list -deps -test ./... lists what a program links).` + "\n"

const wktNote = `protoc-gen-go-grpcfast: note: google/protobuf/{duration,timestamp}.proto are well-known types: ` +
	`module google.golang.org/protobuf generates and registers them (Go packages under google.golang.org/protobuf/types/), ` +
	`and every import of them resolves there. This run writes a second copy into the output tree that nothing imports; ` +
	`with paths=source_relative its Go packages share one directory, google/protobuf, and go build ./... and go vet ./... fail (found packages ...). ` +
	`Do not generate them: leave google/protobuf out of the inputs (buf exclude_paths; with protoc, do not name those files).` + "\n"

// otlpCollectorNote is the one note for a trace collector's four OTLP files,
// generated into packages of one's own.
const otlpCollectorNote = `protoc-gen-go-grpcfast: note: module go.opentelemetry.io/proto/otlp registers 4 of the files generated here already, ` +
	`and a program that links both copies panics at start: proto: file "opentelemetry/proto/common/v1/common.proto" is already registered. ` +
	`Generated: opentelemetry/proto/common/v1/common.proto into example.com/gen/opentelemetry/proto/common/v1 (its package: go.opentelemetry.io/proto/otlp/common/v1); ` +
	`opentelemetry/proto/resource/v1/resource.proto into example.com/gen/opentelemetry/proto/resource/v1 (its package: go.opentelemetry.io/proto/otlp/resource/v1); ` +
	`opentelemetry/proto/trace/v1/trace.proto into example.com/gen/opentelemetry/proto/trace/v1 (its package: go.opentelemetry.io/proto/otlp/trace/v1); ` +
	`opentelemetry/proto/collector/trace/v1/trace_service.proto into example.com/gen/opentelemetry/proto/collector/trace/v1 (its package: go.opentelemetry.io/proto/otlp/collector/trace/v1). ` +
	`To use the module's packages instead, do not generate these files (leave them out of the inputs, with buf exclude_paths) ` +
	`and keep their own go_package (with buf managed mode, disable go_package_prefix for them), then run go mod tidy. ` +
	`To serve or call their services with this plugin's receivers, pooled handlers or reusing clients, keep generating them, with the files their messages come from, ` +
	`and make sure that no program links module go.opentelemetry.io/proto/otlp as well (go list -deps -test ./... | grep -E '^go\.opentelemetry\.io/proto/otlp(/|$)' prints nothing). ` +
	`If a program must link both (OpenTelemetry-Go's OTLP exporters link go.opentelemetry.io/proto/otlp), run it with GOLANG_PROTOBUF_REGISTRATION_CONFLICT=warn, ` +
	`or build it with -ldflags=-X=google.golang.org/protobuf/reflect/protoregistry.conflictPolicy=warn: it starts, and lookups by name ` +
	`(reflection, Any) find one copy only (docs/third-party.md of github.com/grpcfast/grpcfast).` + "\n"

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

// Minimal shapes of the validation and gateway annotations that buf-based
// trees import, with their upstream go_package options; %s stands for it.
const (
	pgvProto = `syntax = "proto2";
package validate;
option go_package = "%s";
import "google/protobuf/descriptor.proto";
extend google.protobuf.FieldOptions { optional FieldRules rules = 1071; }
message FieldRules { optional StringRules string = 14; }
message StringRules { optional uint64 min_len = 2; }
`
	protovalidateProto = `syntax = "proto2";
package buf.validate;
option go_package = "%s";
import "google/protobuf/descriptor.proto";
extend google.protobuf.FieldOptions { optional FieldRules field = 1159; }
message FieldRules { optional StringRules string = 14; }
message StringRules { optional uint64 min_len = 2; }
`
	openapiv2Proto = `syntax = "proto3";
package grpc.gateway.protoc_gen_openapiv2.options;
option go_package = "%s";
message Operation { string summary = 1; }
`
	openapiv2AnnotationsProto = `syntax = "proto3";
package grpc.gateway.protoc_gen_openapiv2.options;
option go_package = "%s";
import "google/protobuf/descriptor.proto";
import "protoc-gen-openapiv2/options/openapiv2.proto";
extend google.protobuf.MethodOptions { Operation openapiv2_operation = 1042; }
`
	// containerd's shape: a service and the types it uses, each file
	// declaring a package of containerd's own module.
	containerdTypesProto = `syntax = "proto3";
package containerd.types;
option go_package = "%s";
message Descriptor { string media_type = 1; string digest = 2; int64 size = 3; }
`
	containerdImagesProto = `syntax = "proto3";
package containerd.services.images.v1;
option go_package = "%s";
import "types/descriptor.proto";
service Images { rpc Get(GetImageRequest) returns (Image); }
message GetImageRequest { string name = 1; }
message Image { string name = 1; containerd.types.Descriptor target = 3; }
`
	// protovalidate's own go_package, as its validate.proto declares it.
	protovalidateGoPackage = "buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
)

// annotatedProto is a user's file that imports the three annotations, as
// authzed/api's files do, declaring its own go_package.
const annotatedProto = `syntax = "proto3";
package acme.v1;
option go_package = "example.com/gen/acme/v1;acmev1";
import "validate/validate.proto";
import "buf/validate/validate.proto";
import "protoc-gen-openapiv2/options/annotations.proto";
service Checker {
  rpc Check(CheckRequest) returns (CheckResponse) { option (grpc.gateway.protoc_gen_openapiv2.options.openapiv2_operation) = { summary: "check" }; }
}
message CheckRequest {
  string name = 1 [(validate.rules).string.min_len = 1, (buf.validate.field).string.min_len = 1];
}
message CheckResponse { bool ok = 1; }
`

// annotationFiles returns the annotations, each with the go_package given
// (upstream's when ""), and the user's file.
func annotationFiles(pgv, protovalidate, openapiv2 string) map[string]string {
	or := func(pkg, upstream string) string {
		if pkg == "" {
			return upstream
		}
		return pkg
	}
	return map[string]string{
		"acme/v1/checker.proto":       annotatedProto,
		"validate/validate.proto":     src(pgvProto, or(pgv, "github.com/envoyproxy/protoc-gen-validate/validate")),
		"buf/validate/validate.proto": src(protovalidateProto, or(protovalidate, protovalidateGoPackage)),
		"protoc-gen-openapiv2/options/openapiv2.proto": src(openapiv2Proto,
			or(openapiv2, "github.com/grpc-ecosystem/grpc-gateway/v2/protoc-gen-openapiv2/options")),
		"protoc-gen-openapiv2/options/annotations.proto": src(openapiv2AnnotationsProto,
			or(openapiv2, "github.com/grpc-ecosystem/grpc-gateway/v2/protoc-gen-openapiv2/options")),
	}
}

var annotationPaths = []string{
	"acme/v1/checker.proto", "validate/validate.proto", "buf/validate/validate.proto",
	"protoc-gen-openapiv2/options/annotations.proto", "protoc-gen-openapiv2/options/openapiv2.proto",
}

// TestMovedNotes checks the note for files generated into another Go
// package than the one their own go_package names, as protoc's M options
// (and buf's opt: M...) do, for files no list of the plugin names and
// files it does: exact texts for protoc-gen-validate's, protovalidate's and
// grpc-gateway's annotations (two files of one package: one line, with
// their directory to exclude), for containerd's shape (a service, where
// keeping the copy comes first, and the types it uses) and for googleapis'
// status.proto (this note, not the list's); no note for one's own files,
// generated where they declare or declaring no go_package, or for files
// only imported. Then the same annotations as buf's managed mode leaves
// them (go_package rewritten, so only the list can tell): the list's notes.
func TestMovedNotes(t *testing.T) {
	pgvNote := `protoc-gen-go-grpcfast: note: validate/validate.proto is generated into Go package example.com/gen/validate, ` +
		`but its go_package is github.com/envoyproxy/protoc-gen-validate/validate, which registers it too: a program that links both panics at start ` +
		`(proto: file "validate/validate.proto" is already registered; or, where its publisher generated it under another path, ` +
		`proto: file ... has a name conflict over validate.<name>). ` +
		`To import github.com/envoyproxy/protoc-gen-validate/validate instead, give it no M option and do not generate it ` +
		`(buf: exclude_paths .../validate/validate.proto), then go mod tidy; to keep this copy (messages of yours hold its messages), ` +
		`make sure that no program links github.com/envoyproxy/protoc-gen-validate/validate ` +
		`(go list -deps -test ./... | grep -x github.com/envoyproxy/protoc-gen-validate/validate prints nothing).` + "\n"
	protovalidateNote := `protoc-gen-go-grpcfast: note: buf/validate/validate.proto is generated into Go package example.com/gen/buf/validate, ` +
		`but its go_package is ` + protovalidateGoPackage + `, which registers it too: a program that links both panics at start ` +
		`(proto: file "buf/validate/validate.proto" is already registered; or, where its publisher generated it under another path, ` +
		`proto: file ... has a name conflict over buf.validate.<name>). ` +
		`To import ` + protovalidateGoPackage + ` instead, give it no M option and do not generate it ` +
		`(buf: exclude_paths .../buf/validate/validate.proto), then go mod tidy; to keep this copy (messages of yours hold its messages), ` +
		`make sure that no program links ` + protovalidateGoPackage + ` ` +
		`(go list -deps -test ./... | grep -x ` + protovalidateGoPackage + ` prints nothing).` + "\n"
	openapiv2Note := `protoc-gen-go-grpcfast: note: protoc-gen-openapiv2/options/{annotations,openapiv2}.proto are generated into Go package example.com/gen/openapiv2, ` +
		`but their go_package is github.com/grpc-ecosystem/grpc-gateway/v2/protoc-gen-openapiv2/options, which registers them too: a program that links both panics at start ` +
		`(proto: file "protoc-gen-openapiv2/options/annotations.proto" is already registered; or, where its publisher generated them under another path, ` +
		`proto: file ... has a name conflict over grpc.gateway.protoc_gen_openapiv2.options.<name>). ` +
		`To import github.com/grpc-ecosystem/grpc-gateway/v2/protoc-gen-openapiv2/options instead, give them no M option and do not generate them ` +
		`(buf: exclude_paths .../protoc-gen-openapiv2/options), then go mod tidy; to keep this copy (messages of yours hold their messages), ` +
		`make sure that no program links github.com/grpc-ecosystem/grpc-gateway/v2/protoc-gen-openapiv2/options ` +
		`(go list -deps -test ./... | grep -x github.com/grpc-ecosystem/grpc-gateway/v2/protoc-gen-openapiv2/options prints nothing).` + "\n"
	imagesNote := `protoc-gen-go-grpcfast: note: services/images/v1/images.proto is generated into Go package example.com/gen/images/v1, ` +
		`but its go_package is github.com/containerd/containerd/api/services/images/v1, which registers it too: a program that links both panics at start ` +
		`(proto: file "services/images/v1/images.proto" is already registered; or, where its publisher generated it under another path, ` +
		`proto: file ... has a name conflict over containerd.services.images.v1.<name>). ` +
		`To serve or call its services through this plugin, keep this copy and make sure that no program links github.com/containerd/containerd/api/services/images/v1 ` +
		`(go list -deps -test ./... | grep -x github.com/containerd/containerd/api/services/images/v1 prints nothing); ` +
		`to import github.com/containerd/containerd/api/services/images/v1 instead, give it no M option and do not generate it ` +
		`(buf: exclude_paths .../services/images/v1/images.proto), then go mod tidy.` + "\n"
	typesNote := `protoc-gen-go-grpcfast: note: types/descriptor.proto is generated into Go package example.com/gen/types, ` +
		`but its go_package is github.com/containerd/containerd/api/types, which registers it too: a program that links both panics at start ` +
		`(proto: file "types/descriptor.proto" is already registered; or, where its publisher generated it under another path, ` +
		`proto: file ... has a name conflict over containerd.types.<name>). ` +
		`To import github.com/containerd/containerd/api/types instead, give it no M option and do not generate it ` +
		`(buf: exclude_paths .../types/descriptor.proto), then go mod tidy; to keep this copy (messages of yours hold its messages), ` +
		`make sure that no program links github.com/containerd/containerd/api/types ` +
		`(go list -deps -test ./... | grep -x github.com/containerd/containerd/api/types prints nothing).` + "\n"
	statusNote := `protoc-gen-go-grpcfast: note: google/rpc/status.proto is generated into Go package example.com/gen/status, ` +
		`but its go_package is google.golang.org/genproto/googleapis/rpc/status, which registers it too: a program that links both panics at start ` +
		`(proto: file "google/rpc/status.proto" is already registered; or, where its publisher generated it under another path, ` +
		`proto: file ... has a name conflict over google.rpc.<name>). ` +
		`To import google.golang.org/genproto/googleapis/rpc/status instead, give it no M option and do not generate it ` +
		`(buf: exclude_paths .../google/rpc/status.proto), then go mod tidy; to keep this copy (messages of yours hold its messages), ` +
		`make sure that no program links google.golang.org/genproto/googleapis/rpc/status ` +
		`(go list -deps -test ./... | grep -x google.golang.org/genproto/googleapis/rpc/status prints nothing).` + "\n"
	// Managed mode: the list's notes.
	pgvListNote := `protoc-gen-go-grpcfast: note: validate/validate.proto is generated into Go package example.com/gen/validate, ` +
		`but module github.com/envoyproxy/protoc-gen-validate registers it already (package github.com/envoyproxy/protoc-gen-validate/validate), ` +
		`and a program that links both panics at start: proto: file "validate/validate.proto" is already registered. ` +
		`Import github.com/envoyproxy/protoc-gen-validate/validate instead: do not generate validate/validate.proto (leave it out of the inputs, with buf exclude_paths) ` +
		`and keep its own go_package (with buf managed mode, disable go_package_prefix for it), then run go mod tidy.` + listUses("github.com/envoyproxy/protoc-gen-validate/validate")
	protovalidateListNote := `protoc-gen-go-grpcfast: note: buf/validate/validate.proto is generated into Go package example.com/gen/buf/validate, ` +
		`but Go package ` + protovalidateGoPackage + ` registers it already (its go_package), ` +
		`and a program that links both panics at start: proto: file "buf/validate/validate.proto" is already registered. ` +
		`Import ` + protovalidateGoPackage + ` instead: do not generate buf/validate/validate.proto (leave it out of the inputs, with buf exclude_paths) ` +
		`and keep its own go_package (with buf managed mode, disable go_package_prefix for it), then run go mod tidy.` + listUses(protovalidateGoPackage)

	const m = "Mvalidate/validate.proto=example.com/gen/validate,Mbuf/validate/validate.proto=example.com/gen/buf/validate," +
		"Mprotoc-gen-openapiv2/options/annotations.proto=example.com/gen/openapiv2,Mprotoc-gen-openapiv2/options/openapiv2.proto=example.com/gen/openapiv2"
	containerd := map[string]string{
		"types/descriptor.proto":          src(containerdTypesProto, "github.com/containerd/containerd/api/types;types"),
		"services/images/v1/images.proto": src(containerdImagesProto, "github.com/containerd/containerd/api/services/images/v1;images"),
	}
	const containerdM = "Mtypes/descriptor.proto=example.com/gen/types,Mservices/images/v1/images.proto=example.com/gen/images/v1"
	for _, tc := range []struct {
		name      string
		files     []string
		parameter string
		src       map[string]string
		want      string
	}{
		{"annotations moved by M options", annotationPaths, m, annotationFiles("", "", ""),
			pgvNote + protovalidateNote + openapiv2Note},
		{"annotations only imported", annotationPaths[:1], m, annotationFiles("", "", ""), ""},
		{"annotations generated where they declare", annotationPaths, "", annotationFiles("", "", ""), ""},
		{"annotations as managed mode leaves them", annotationPaths, "", annotationFiles("example.com/gen/validate",
			"example.com/gen/buf/validate", "example.com/gen/openapiv2"), pgvListNote + protovalidateListNote + openapiv2ListNote()},
		{"containerd's services and types moved by M options", []string{"services/images/v1/images.proto", "types/descriptor.proto"},
			containerdM, containerd, typesNote + imagesNote},
		{"googleapis' status.proto moved by an M option", []string{"google/rpc/status.proto"}, "Mgoogle/rpc/status.proto=example.com/gen/status",
			map[string]string{"google/rpc/status.proto": src(statusProto, "google.golang.org/genproto/googleapis/rpc/status;status")}, statusNote},
		{"a file of no proto package moved by an M option", []string{"plain.proto"}, "Mplain.proto=example.com/gen/plain",
			map[string]string{"plain.proto": "syntax = \"proto3\";\noption go_package = \"example.org/them/plain\";\nmessage Plain {}\n"},
			`protoc-gen-go-grpcfast: note: plain.proto is generated into Go package example.com/gen/plain, ` +
				`but its go_package is example.org/them/plain, which registers it too: a program that links both panics at start ` +
				`(proto: file "plain.proto" is already registered; or, where its publisher generated it under another path, ` +
				`proto: file ... has a name conflict over <name>). ` +
				`To import example.org/them/plain instead, give it no M option and do not generate it ` +
				`(buf: exclude_paths .../plain.proto), then go mod tidy; to keep this copy (messages of yours hold its messages), ` +
				`make sure that no program links example.org/them/plain (go list -deps -test ./... | grep -x example.org/them/plain prints nothing).` + "\n"},
		{"one's own file moved to where it declares", []string{"acme/v1/checker.proto"}, "Macme/v1/checker.proto=example.com/gen/acme/v1;acmev1",
			annotationFiles("", "", ""), ""},
		{"one's own file without go_package", []string{"mine.proto"}, "Mmine.proto=example.com/gen/mine",
			map[string]string{"mine.proto": "syntax = \"proto3\";\npackage mine;\nmessage Mine {}\n"}, ""},
		{"one's own file declaring a package of no domain", []string{"mine.proto"}, "Mmine.proto=example.com/gen/mine",
			map[string]string{"mine.proto": "syntax = \"proto3\";\npackage mine;\noption go_package = \"mine/v1\";\nmessage Mine {}\n"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parameter := "pool_notes=false"
			if tc.parameter != "" {
				parameter += "," + tc.parameter
			}
			var notes strings.Builder
			resp := runNotes(t, compile(t, tc.files, parameter, tc.src), &notes)
			if resp.Error != nil {
				t.Fatal(resp.GetError())
			}
			if notes.String() != tc.want {
				t.Errorf("notes\n%s\nwant\n%s", notes.String(), tc.want)
			}
		})
	}
}

// openapiv2ListNote is the list's note for grpc-gateway's two option files
// under managed mode: one per file, as for every file the list names.
func openapiv2ListNote() string {
	const pkg = "github.com/grpc-ecosystem/grpc-gateway/v2/protoc-gen-openapiv2/options"
	return `protoc-gen-go-grpcfast: note: module github.com/grpc-ecosystem/grpc-gateway/v2 registers 2 of the files generated here already, ` +
		`and a program that links both copies panics at start: proto: file "protoc-gen-openapiv2/options/openapiv2.proto" is already registered. ` +
		`Generated: protoc-gen-openapiv2/options/openapiv2.proto into example.com/gen/openapiv2 (its package: ` + pkg + `); ` +
		`protoc-gen-openapiv2/options/annotations.proto into example.com/gen/openapiv2 (its package: ` + pkg + `). ` +
		`To use the module's packages instead, do not generate these files (leave them out of the inputs, with buf exclude_paths) ` +
		`and keep their own go_package (with buf managed mode, disable go_package_prefix for them), then run go mod tidy. ` +
		`If a service you generate uses their messages and you serve or call that service with this plugin's receivers, pooled handlers or reusing clients, ` +
		`keep generating them too (their messages' decoders are generated with them) and make sure that no program links module ` +
		`github.com/grpc-ecosystem/grpc-gateway/v2 as well (go list -deps -test ./... | grep -E '^github\.com/grpc-ecosystem/grpc-gateway/v2(/|$)' prints nothing).` + "\n"
}

// listUses is the end of the list's note for a file without services.
func listUses(pkg string) string {
	return ` If a service you generate uses its messages and you serve or call that service with this plugin's receivers, pooled handlers or reusing clients, ` +
		`keep generating it too (its messages' decoders are generated with it) and make sure that no program links ` + pkg + ` as well ` +
		`(go list -deps -test ./... | grep -x ` + pkg + ` prints nothing).` + "\n"
}

// unplacedFiles are a tree's own two files and a dependency's two, as a
// workspace of several buf modules holds them: acme's go_package lies
// under the output directory's import path (example.com/gen, as managed
// mode's go_package_prefix gives it), cel's and xds's are their
// publishers'; cel's does not end with its directory, xds's does.
func unplacedFiles() map[string]string {
	return map[string]string{
		"acme/v1/checker.proto": "syntax = \"proto3\";\npackage acme.v1;\noption go_package = \"example.com/gen/acme/v1;acmev1\";\n" +
			"import \"cel/expr/syntax.proto\";\nimport \"xds/core/v3/cidr.proto\";\n" +
			"service Checker { rpc Check(CheckRequest) returns (CheckRequest); }\n" +
			"message CheckRequest { cel.expr.Expr expr = 1; xds.core.v3.CidrRange range = 2; }\n",
		"acme/v1/types.proto": "syntax = \"proto3\";\npackage acme.v1;\noption go_package = \"example.com/gen/acme/v1;acmev1\";\n" +
			"message Verdict { bool allowed = 1; }\n",
		"cel/expr/syntax.proto": "syntax = \"proto3\";\npackage cel.expr;\noption go_package = \"cel.dev/expr\";\nmessage Expr { int64 id = 2; }\n",
		"xds/core/v3/cidr.proto": "syntax = \"proto3\";\npackage xds.core.v3;\noption go_package = \"github.com/cncf/xds/go/xds/core/v3\";\n" +
			"message CidrRange { string address_prefix = 1; }\n",
	}
}

// TestUnplacedNotes checks the note for files written where their own Go
// package is not (paths=source_relative): a dependency's file whose Go
// package does not end with its directory, noted whatever else the run
// holds (buf runs a local plugin once per directory); one whose package
// does, noted where most of the run's files show the output directory's
// import path to be another (not where as many show each); and no note for
// paths=import, module=, the tree's own files, or a dependency's directory
// on its own.
func TestUnplacedNotes(t *testing.T) {
	const tail = ` With paths=source_relative each file's Go code goes into the directory of its .proto file%s. ` +
		`A program that links such a copy and the package it declares panics at start (proto: file ... is already registered). ` +
		`A dependency's file: do not generate it (buf: exclude_paths, an entry for %s within the directory of each module that holds them: ` +
		`an entry for a directory above the modules excludes none of their files; protoc: do not name it); ` +
		`a file of yours: give it a go_package that ends with its directory, under the output directory's import path (buf managed mode: go_package_prefix).` + "\n"
	celNote := `protoc-gen-go-grpcfast: note: 1 of the files to generate is written where its own Go package is not, so that an import of the package it declares does not find it: ` +
		`cel/expr/syntax.proto (Go package cel.dev/expr).` + fmt.Sprintf(tail, "", "cel/expr/syntax.proto")
	bothNote := `protoc-gen-go-grpcfast: note: 2 of the files to generate are written where their own Go packages are not, so that an import of the package each declares does not find them: ` +
		`cel/expr/syntax.proto (Go package cel.dev/expr) and xds/core/v3/cidr.proto (Go package github.com/cncf/xds/go/xds/core/v3).` +
		fmt.Sprintf(tail, ", and the other 2 files of this run are written where their Go packages, under example.com/gen, are",
			"cel/expr/syntax.proto and xds/core/v3/cidr.proto")
	all := []string{"acme/v1/checker.proto", "acme/v1/types.proto", "cel/expr/syntax.proto", "xds/core/v3/cidr.proto"}
	for _, tc := range []struct {
		name      string
		files     []string
		parameter string
		want      string
	}{
		{"a dependency's directory whose package is elsewhere", []string{"cel/expr/syntax.proto"}, "paths=source_relative", celNote},
		{"every file in one run", all, "paths=source_relative", bothNote},
		{"a dependency's directory whose package ends with it", []string{"xds/core/v3/cidr.proto"}, "paths=source_relative", ""},
		{"as many of the tree's own files as of a dependency's", []string{"acme/v1/checker.proto", "cel/expr/syntax.proto", "xds/core/v3/cidr.proto"},
			"paths=source_relative", celNote},
		{"the tree's own files", all[:2], "paths=source_relative", ""},
		{"paths=import", all, "", ""},
		{"module=", all[:2], "module=example.com/gen", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parameter := "pool_notes=false"
			if tc.parameter != "" {
				parameter += "," + tc.parameter
			}
			var notes strings.Builder
			resp := runNotes(t, compile(t, tc.files, parameter, unplacedFiles()), &notes)
			if resp.Error != nil {
				t.Fatal(resp.GetError())
			}
			if notes.String() != tc.want {
				t.Errorf("notes\n%s\nwant\n%s", notes.String(), tc.want)
			}
		})
	}
}
