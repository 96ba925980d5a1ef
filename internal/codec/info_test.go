package codec

import (
	"sync/atomic"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

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

// TestInfoCacheCollisions: message types whose runtime types share a slot
// of infoCache each get their own vtInfo, in whatever order they are looked
// up: the slot holds one type at a time, and a lookup of another finds it
// is not its own. With more registered types than slots (the generated
// types that this test binary links), some must share one.
func TestInfoCacheCollisions(t *testing.T) {
	bySlot := map[*atomic.Pointer[cachedInfo]][]proto.Message{}
	n := 0
	protoregistry.GlobalTypes.RangeMessages(func(mt protoreflect.MessageType) bool {
		m := mt.Zero().Interface()
		bySlot[infoSlot(m)] = append(bySlot[infoSlot(m)], m)
		n++
		return true
	})
	shared := 0
	for _, ms := range bySlot {
		if len(ms) < 2 {
			continue
		}
		shared++
		for range 2 { // each in turn, twice: the slot then holds the other
			for _, m := range ms[:2] {
				md := m.ProtoReflect().Descriptor()
				if got, want := vtInfoOf(m), descInfoOf(md); got != want {
					t.Fatalf("%s shares a slot with %s and got its vtInfo", md.FullName(), otherName(ms[:2], m))
				}
			}
		}
	}
	if shared == 0 {
		t.Fatalf("no two of the %d registered message types share one of the %d slots", n, len(infoCache))
	}
}

// otherName returns the full name of the message of pair that is not m.
func otherName(pair []proto.Message, m proto.Message) protoreflect.FullName {
	if pair[0] == m {
		return pair[1].ProtoReflect().Descriptor().FullName()
	}
	return pair[0].ProtoReflect().Descriptor().FullName()
}
