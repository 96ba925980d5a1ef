package generator_test

import (
	"strings"
	"testing"
)

// TestFlatMessages: a message gets GrpcfastFlat (grpcfastimpl.Flat), and
// the codec decodes it without the pooled slabs and chunks, exactly where
// it has no field of a message type, no map, no oneof, no repeated string
// or bytes field, and at most two singular string or bytes fields; and a
// field named like the method is an error only there.
func TestFlatMessages(t *testing.T) {
	src := map[string]string{"flat.proto": `syntax = "proto3";
package flat;
option go_package = "example.com/flat";
enum E { E_ZERO = 0; }
message Empty {}
message Scalars { int64 id = 1; repeated uint32 values = 2; E e = 3; optional int32 level = 4; double ratio = 5; }
message TwoValues { string name = 1; bytes data = 2; repeated int64 ids = 3; optional string maybe_not = 4 [deprecated = true]; }
message OneOptional { optional string name = 1; optional bytes data = 2; }
message ThreeValues { string a = 1; string b = 2; bytes c = 3; }
message RepeatedString { repeated string names = 1; }
message RepeatedBytes { repeated bytes blobs = 1; }
message Nested { Empty e = 1; }
message RepeatedNested { repeated Empty e = 1; }
message Map { map<int32, int32> m = 1; }
message Oneof { oneof o { int64 n = 1; } }
`}
	// TwoValues has three string or bytes fields with maybe_not: not flat.
	want := map[string]bool{
		"Empty": true, "Scalars": true, "TwoValues": false, "OneOptional": true,
		"ThreeValues": false, "RepeatedString": false, "RepeatedBytes": false,
		"Nested": false, "RepeatedNested": false, "Map": false, "Oneof": false,
	}
	resp := run(t, compile(t, []string{"flat.proto"}, "", src))
	if resp.GetError() != "" {
		t.Fatal(resp.GetError())
	}
	var code string
	for _, f := range resp.GetFile() {
		if strings.HasSuffix(f.GetName(), "_grpcfast.pb.go") {
			code += f.GetContent()
		}
	}
	if code == "" {
		t.Fatal("no _grpcfast.pb.go file generated")
	}
	for name, flat := range want {
		if !strings.Contains(code, "func (x *"+name+") GrpcfastDecode(") {
			t.Errorf("%s has no decoder", name)
		}
		if got := strings.Contains(code, "func (x *"+name+") GrpcfastFlat() {}"); got != flat {
			t.Errorf("%s: GrpcfastFlat generated: %v, want %v", name, got, flat)
		}
	}

	// The method's name is taken only in a flat message.
	src["flat.proto"] = `syntax = "proto3";
package flat;
option go_package = "example.com/flat";
message Flat { int32 grpcfast_flat = 1; }
`
	resp = run(t, compile(t, []string{"flat.proto"}, "", src))
	wantErr := "flat.proto: field grpcfast_flat of message flat.Flat has the Go name GrpcfastFlat, which protoc-gen-go-grpcfast needs for a method; rename the field"
	if resp.GetError() != wantErr {
		t.Errorf("error = %q\nwant    %q", resp.GetError(), wantErr)
	}
	src["flat.proto"] = strings.Replace(src["flat.proto"], "int32 grpcfast_flat = 1;", "int32 grpcfast_flat = 1; repeated string s = 2;", 1)
	if resp = run(t, compile(t, []string{"flat.proto"}, "", src)); resp.GetError() != "" {
		t.Errorf("a message that is not flat, with a field grpcfast_flat: %s", resp.GetError())
	}
}
