package generator_test

import (
	"strings"
	"testing"
)

// TestDecodeFieldMaskAndEmpty: a generated decoder hands a held
// google.protobuf.FieldMask to the runtime's DecodeFieldMask with its
// paths, where the mask is field_mask.proto's (its paths checked for
// UTF-8), and to DecodeMessage (protobuf-go, whose rules it then gets)
// where it is a vendored copy of another shape: proto2, whose paths are
// not checked, or one with another field. An Empty (a message of no fields
// of another file) goes to DecodeMessage, which skips an empty encoding.
func TestDecodeFieldMaskAndEmpty(t *testing.T) {
	holder := `syntax = "proto3";
package app;
option go_package = "example.com/gen/app";
import "google/protobuf/empty.proto";
import "google/protobuf/field_mask.proto";
message Update { string name = 1; google.protobuf.FieldMask mask = 2; google.protobuf.Empty nothing = 3; }
`
	const proto2Mask = `syntax = "proto2";
package google.protobuf;
option go_package = "google.golang.org/protobuf/types/known/fieldmaskpb";
message FieldMask { repeated string paths = 1; }
`
	const otherMask = `syntax = "proto3";
package google.protobuf;
option go_package = "google.golang.org/protobuf/types/known/fieldmaskpb";
message FieldMask { repeated string paths = 1; int32 depth = 2; }
`
	for _, tc := range []struct {
		name      string
		mask      string // the source of google/protobuf/field_mask.proto, or the standard one
		fieldMask bool   // whether the mask goes to DecodeFieldMask
	}{
		{"field_mask.proto", "", true},
		{"a proto2 copy", proto2Mask, false},
		{"a copy with another field", otherMask, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{"app.proto": holder}
			if tc.mask != "" {
				files["google/protobuf/field_mask.proto"] = tc.mask
			}
			resp := run(t, compile(t, []string{"app.proto"}, "", files))
			if resp.Error != nil {
				t.Fatal(resp.GetError())
			}
			var code string
			for _, f := range resp.File {
				if strings.HasSuffix(f.GetName(), "_grpcfast.pb.go") {
					code = f.GetContent()
				}
			}
			if code == "" {
				t.Fatal("no _grpcfast.pb.go generated")
			}
			calls := strings.Contains(code, "grpcfastimpl.DecodeFieldMask(x.Mask, &x.Mask.Paths, vAl, dEc)")
			generic := strings.Contains(code, "grpcfastimpl.DecodeMessage(x.Mask, vAl, dEc, dEpth-1)")
			if calls != tc.fieldMask || generic == tc.fieldMask {
				t.Errorf("DecodeFieldMask called: %v, DecodeMessage called: %v; want DecodeFieldMask %v", calls, generic, tc.fieldMask)
			}
			if !strings.Contains(code, "grpcfastimpl.DecodeMessage(x.Nothing, vAl, dEc, dEpth-1)") {
				t.Error("the Empty is not decoded by DecodeMessage")
			}
		})
	}
}
