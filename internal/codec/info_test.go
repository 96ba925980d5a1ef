package codec

import (
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/grpcfast/grpcfast/internal/prototest"
)

// TestHasExtensionRanges checks which generated types the codec encodes with
// protobuf-go because of extensions, which vtprotobuf leaves out: those with
// extension ranges, directly or in a message type reachable through their
// fields (nested, repeated, map values, recursive).
func TestHasExtensionRanges(t *testing.T) {
	files := prototest.Compile(t, map[string]string{
		"ext.proto": `
syntax = "proto2";
package exttest;
message Extendable {
  optional int32 id = 1;
  extensions 100 to 199;
}
message Holder { optional Extendable inner = 1; }
message MapHolder { map<string, Extendable> m = 1; }
message Deep { optional Holder h = 1; repeated Deep kids = 2; }
message Plain { optional int32 id = 1; optional Plain next = 2; map<int32, Plain> m = 3; }
`,
		"ext3.proto": `
syntax = "proto3";
package exttest;
import "ext.proto";
message Wrapper3 { Holder holder = 1; string name = 2; }
message Plain3 { string name = 1; }
`,
	})
	for name, want := range map[protoreflect.FullName]bool{
		"exttest.Extendable": true,
		"exttest.Holder":     true,
		"exttest.MapHolder":  true,
		"exttest.Deep":       true,
		"exttest.Wrapper3":   true,
		"exttest.Plain":      false,
		"exttest.Plain3":     false,
	} {
		md := prototest.FindMessage(t, files, name)
		if got := hasExtensionRanges(md, map[protoreflect.FullName]bool{}); got != want {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
}
