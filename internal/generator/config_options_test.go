package generator_test

import (
	"slices"
	"strings"
	"testing"
)

// TestOptionErrors: a bad option fails the run, with an error that names
// the option, the value and what it accepts (an unknown option's, the
// nearest known one within two edits), and writes no file.
func TestOptionErrors(t *testing.T) {
	files := []string{"kinds/kinds.proto"}
	const accepts = "protoc-gen-go-grpcfast accepts benchmarks, pool, pool_notes, pooled_requests, register_codec, vtproto_check, and protogen's paths, module and M options"
	for _, tc := range []struct {
		param, want string
	}{
		{"register_codec=maybe", `option register_codec: invalid value "maybe": want true or false`},
		{"register_codec", `option register_codec: invalid value "": want true or false`},
		{"registr_codec=false", `unknown option "registr_codec" (value "false") (did you mean register_codec?): ` + accepts},
		{"pooled_request=false", `unknown option "pooled_request" (value "false") (did you mean pooled_requests?): ` + accepts},
		{"vtproto-check=false", `unknown option "vtproto-check" (value "false") (did you mean vtproto_check?): ` + accepts},
		{"benchmark=true", `unknown option "benchmark" (value "true") (did you mean benchmarks?): ` + accepts},
		{"features=marshal", `unknown option "features" (value "marshal"): ` + accepts},
		{"pools=x", `unknown option "pools" (value "x") (did you mean pool?): ` + accepts},
		{"vtproto_check=0", `option vtproto_check: invalid value "0": want true or false`},
		{"pool_notes=off", `option pool_notes: invalid value "off": want true or false`},
		{"pool=Rich", `option pool: invalid value "Rich": want <go import path>.<Message>, or a glob of them, as protoc-gen-go-vtproto's pool= option`},
		{"pool=example.com/x/", `option pool: invalid value "example.com/x/": want <go import path>.<Message>, or a glob of them, as protoc-gen-go-vtproto's pool= option`},
		{"pool=example.com/x.[A", `option pool: invalid value "example.com/x.[A": not a valid glob as protoc-gen-go-vtproto's pool= option takes them (*, **, ?, [...])`},
		{"benchmarks=no", `option benchmarks: invalid value "no": want true or false`},
		{"pooled_requests=yes", `option pooled_requests: invalid value "yes": want true or false`},
		{"paths=nowhere", `unknown path type "nowhere": want "import" or "source_relative"`},
	} {
		t.Run(tc.param, func(t *testing.T) {
			resp := run(t, compile(t, files, tc.param, nil))
			if resp.GetError() != tc.want {
				t.Errorf("error = %q\nwant    %q", resp.GetError(), tc.want)
			}
			if len(resp.File) != 0 {
				t.Errorf("made %d files despite the error", len(resp.File))
			}
		})
	}
}

func TestRegisterCodecOption(t *testing.T) {
	files := []string{"kinds/kinds.proto"}
	for _, tc := range []struct {
		param        string
		wantRegister bool
	}{
		{moduleOpt, true},
		{moduleOpt + ",register_codec=true", true},
		{moduleOpt + ",register_codec=false", false},
	} {
		resp := run(t, compile(t, files, tc.param+",benchmarks=false", nil))
		if resp.Error != nil || len(resp.File) != 1 {
			t.Fatalf("%s: error %q, %d files", tc.param, resp.GetError(), len(resp.File))
		}
		content := resp.File[0].GetContent()
		if got := strings.Contains(content, "grpcfastimpl.RegisterDefault()"); got != tc.wantRegister {
			t.Errorf("%s: registers the codec = %v, want %v", tc.param, got, tc.wantRegister)
		}
		// The rest of the file does not depend on the option.
		if !strings.Contains(content, "func NewKinds_BidiRequestReceiver(") {
			t.Errorf("%s: receive helpers missing", tc.param)
		}
	}
}

func TestSourceRelativePaths(t *testing.T) {
	resp := run(t, compile(t, []string{"multi/a.proto", "multi/b.proto"}, "paths=source_relative", nil))
	if resp.Error != nil {
		t.Fatal(resp.GetError())
	}
	var names []string
	for _, f := range resp.File {
		names = append(names, f.GetName())
	}
	slices.Sort(names)
	if got, want := strings.Join(names, " "), "multi/a_grpcfast.pb.go multi/a_grpcfast_bench_test.go multi/b_grpcfast.pb.go multi/b_grpcfast_bench_test.go"; got != want {
		t.Errorf("files = %s, want %s", got, want)
	}
}

func TestFieldNameClash(t *testing.T) {
	src := map[string]string{"clash.proto": `syntax = "proto3";
package clash;
option go_package = "example.com/clash";
service S { rpc M(Bad) returns (Bad); }
message Bad { bytes data = 1; int32 grpcfast_unknown_fields = 2; }
`}
	resp := run(t, compile(t, []string{"clash.proto"}, "", src))
	want := "clash.proto: field grpcfast_unknown_fields of message clash.Bad has the Go name GrpcfastUnknownFields, which protoc-gen-go-grpcfast needs for a method; rename the field"
	if resp.GetError() != want {
		t.Errorf("error = %q\nwant    %q", resp.GetError(), want)
	}

	// GrpcfastDecode is a method only of messages that get a decoder: an
	// extension range leaves Other without one (protobuf-go decodes it), and
	// its grpcfast_decode field is fine.
	src["clash.proto"] = `syntax = "proto2";
package clash;
option go_package = "example.com/clash";
message Dec { optional string grpcfast_decode = 1; }
message Other { optional string grpcfast_decode = 2; extensions 100 to 200; }
`
	resp = run(t, compile(t, []string{"clash.proto"}, "", src))
	want = "clash.proto: field grpcfast_decode of message clash.Dec has the Go name GrpcfastDecode, which protoc-gen-go-grpcfast needs for a method; rename the field"
	if resp.GetError() != want {
		t.Errorf("error = %q\nwant    %q", resp.GetError(), want)
	}
	src["clash.proto"] = strings.Replace(src["clash.proto"], "message Dec { optional string grpcfast_decode = 1; }", "", 1)
	if resp = run(t, compile(t, []string{"clash.proto"}, "", src)); resp.GetError() != "" {
		t.Errorf("a message without a decoder, with a field grpcfast_decode: %s", resp.GetError())
	}

	// GrpcfastNegZero is a method only of messages that can hold a float or
	// double -0.0 that vtprotobuf would not send: a double without presence
	// gives Neg one; an optional double leaves Fine without.
	src["clash.proto"] = `syntax = "proto3";
package clash;
option go_package = "example.com/clash";
message Neg { double d = 1; bool grpcfast_neg_zero = 2; }
message Fine { optional double d = 1; bool grpcfast_neg_zero = 2; }
`
	resp = run(t, compile(t, []string{"clash.proto"}, "", src))
	want = "clash.proto: field grpcfast_neg_zero of message clash.Neg has the Go name GrpcfastNegZero, which protoc-gen-go-grpcfast needs for a method; rename the field"
	if resp.GetError() != want {
		t.Errorf("error = %q\nwant    %q", resp.GetError(), want)
	}
	src["clash.proto"] = strings.Replace(src["clash.proto"], "message Neg { double d = 1; bool grpcfast_neg_zero = 2; }", "", 1)
	if resp = run(t, compile(t, []string{"clash.proto"}, "", src)); resp.GetError() != "" {
		t.Errorf("a message that cannot hold such a -0.0, with a field grpcfast_neg_zero: %s", resp.GetError())
	}
}

func TestMethodKinds(t *testing.T) {
	resp := run(t, compile(t, []string{"kinds/kinds.proto"}, moduleOpt, nil))
	content := resp.File[0].GetContent()
	// Unary methods get no helper; each streaming side that receives gets one.
	for helper, want := range map[string]bool{
		"NewKinds_UnaryRequestReceiver(":         false,
		"NewKinds_UnaryResponseReceiver(":        false,
		"NewKinds_ClientStreamRequestReceiver(":  true,
		"NewKinds_ClientStreamResponseReceiver(": false,
		"NewKinds_ServerStreamRequestReceiver(":  false,
		"NewKinds_ServerStreamResponseReceiver(": true,
		"NewKinds_BidiRequestReceiver(":          true,
		"NewKinds_BidiResponseReceiver(":         true,
	} {
		if got := strings.Contains(content, "func "+helper); got != want {
			t.Errorf("%s generated = %v, want %v", helper, got, want)
		}
	}
}

// TestPooledRequests: Register<Service>ServerPooled is written for every
// service with a unary method (kinds: mixed; multi/a.proto: unary and a
// server stream; imports: a unary method on google.protobuf.Empty), never
// for a service of streams only (shapes, comments, multi/b.proto), and not
// with pooled_requests=false.
func TestPooledRequests(t *testing.T) {
	for _, tc := range []struct {
		files []string
		param string
		want  map[string]bool
	}{
		{[]string{"kinds/kinds.proto"}, "", map[string]bool{"RegisterKindsServerPooled": true}},
		{[]string{"kinds/kinds.proto"}, ",pooled_requests=false", map[string]bool{"RegisterKindsServerPooled": false}},
		{[]string{"multi/a.proto", "multi/b.proto"}, "", map[string]bool{"RegisterAlphaServerPooled": true, "RegisterBetaServerPooled": false}},
		{[]string{"imports/imports.proto"}, "", map[string]bool{"RegisterStoreServerPooled": true}},
		{[]string{"shapes/shapes.proto"}, "", map[string]bool{"RegisterFooServerPooled": false, "RegisterFooBarServerPooled": false}},
		{[]string{"comments/comments.proto"}, "", map[string]bool{"RegisterLegacyServerPooled": false}},
	} {
		resp := run(t, compile(t, tc.files, moduleOpt+",benchmarks=false"+tc.param, nil))
		if resp.Error != nil {
			t.Fatalf("%v%s: %s", tc.files, tc.param, resp.GetError())
		}
		var all strings.Builder
		for _, f := range resp.File {
			all.WriteString(f.GetContent())
		}
		for name, want := range tc.want {
			if got := strings.Contains(all.String(), "func "+name+"("); got != want {
				t.Errorf("%v%s: %s generated = %v, want %v", tc.files, tc.param, name, got, want)
			}
		}
	}
}

func TestBenchmarksOption(t *testing.T) {
	for _, tc := range []struct {
		param string
		want  []string
	}{
		{moduleOpt, []string{"internal/testprotos/multi/a_grpcfast.pb.go", "internal/testprotos/multi/a_grpcfast_bench_test.go",
			"internal/testprotos/multi/b_grpcfast.pb.go", "internal/testprotos/multi/b_grpcfast_bench_test.go"}},
		{moduleOpt + ",benchmarks=true", []string{"internal/testprotos/multi/a_grpcfast.pb.go", "internal/testprotos/multi/a_grpcfast_bench_test.go",
			"internal/testprotos/multi/b_grpcfast.pb.go", "internal/testprotos/multi/b_grpcfast_bench_test.go"}},
		{moduleOpt + ",benchmarks=false", []string{"internal/testprotos/multi/a_grpcfast.pb.go", "internal/testprotos/multi/b_grpcfast.pb.go"}},
	} {
		resp := run(t, compile(t, []string{"multi/a.proto", "multi/b.proto"}, tc.param, nil))
		if resp.Error != nil {
			t.Fatalf("%s: %s", tc.param, resp.GetError())
		}
		var names []string
		for _, f := range resp.File {
			names = append(names, f.GetName())
		}
		slices.Sort(names)
		if !slices.Equal(names, tc.want) {
			t.Errorf("%s: files %v, want %v", tc.param, names, tc.want)
		}
	}
}

// TestBenchmarkTable checks the method table of a generated benchmark: one
// entry per method, of the method's kind, with its message types and its
// generated receivers.
func TestBenchmarkTable(t *testing.T) {
	resp := run(t, compile(t, []string{"kinds/kinds.proto"}, moduleOpt, nil))
	var content string
	for _, f := range resp.File {
		if strings.HasSuffix(f.GetName(), "_bench_test.go") {
			content = f.GetContent()
		}
	}
	for _, want := range []string{
		"func BenchmarkGrpcfast_Kinds(b *testing.B) {",
		`grpcfastbench.Run(b, "grpcfast.testdata.kinds.Kinds",`,
		`grpcfastbench.Unary[Rich, Rich]("Unary"),`,
		`grpcfastbench.ClientStream[Rich, Summary]("ClientStream", NewKinds_ClientStreamRequestReceiver),`,
		`grpcfastbench.ServerStream[Rich, Rich]("ServerStream", NewKinds_ServerStreamResponseReceiver),`,
		`grpcfastbench.Bidi[Rich, Rich]("Bidi", NewKinds_BidiRequestReceiver, NewKinds_BidiResponseReceiver),`,
	} {
		if !strings.Contains(content, want) {
			t.Errorf("benchmark file lacks %q:\n%s", want, content)
		}
	}
}
