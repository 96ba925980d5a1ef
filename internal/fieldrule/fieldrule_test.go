package fieldrule_test

import (
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/grpcfast/grpcfast/internal/fieldrule"
	"github.com/grpcfast/grpcfast/internal/prototest"
	"github.com/grpcfast/grpcfast/internal/testprotos/imports/common"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
)

// TestHoldsNegZero checks which message types can hold a float or double
// -0.0 that vtprotobuf's encoding leaves out: those with a float or double
// field without presence, in themselves or in a message type they reach,
// and no other.
func TestHoldsNegZero(t *testing.T) {
	for _, tc := range []struct {
		m    proto.Message
		want bool
		why  string
	}{
		{&kinds.Rich{}, true, "a proto3 double"},
		{&kinds.Signed{}, true, "a proto3 float and double"},
		{&kinds.WellKnown{}, true, "a DoubleValue, whose value has no presence"},
		{wrapperspb.Double(0), true, "DoubleValue itself"},
		{&kinds.Decodable{}, true, "its own, and Rich's"},
		{&kinds.Inner{}, false, "no float"},
		{&kinds.Summary{}, false, "no float"},
		{&common.Blob{}, false, "bytes only"},
		{&timestamppb.Timestamp{}, false, "integers only"},
		{&structpb.Struct{}, false, "Value's number is a oneof member: sent whatever its value"},
		{&kinds.Pooled{}, false, "no float"},
	} {
		if got := fieldrule.HoldsNegZero(tc.m.ProtoReflect().Descriptor()); got != tc.want {
			t.Errorf("%T: HoldsNegZero %v, want %v (%s)", tc.m, got, tc.want, tc.why)
		}
	}
	fields := (&kinds.Decodable{}).ProtoReflect().Descriptor().Fields()
	for name, want := range map[string]bool{"fl": true, "db": true, "rdb": false, "rfl": false, "real": false, "i64": false} {
		if got := fieldrule.NegZeroField(fields.ByName(protoreflect.Name(name))); got != want {
			t.Errorf("Decodable.%s: NegZeroField %v, want %v", name, got, want)
		}
	}
}

// TestHoldsNegZeroMapValues checks that a map of floats or doubles alone
// makes no type hold such a -0.0 (vtprotobuf writes a map's values
// whatever they are), and that a map of messages that can does.
func TestHoldsNegZeroMapValues(t *testing.T) {
	files := prototest.Compile(t, map[string]string{"m.proto": `syntax = "proto3";
package m;
message Doubles { map<string, double> values = 1; map<int32, float> floats = 2; }
message Nested { map<string, Leaf> leaves = 1; }
message Leaf { double d = 1; }
message Cycle { Cycle next = 1; repeated Cycle more = 2; map<string, Cycle> by = 3; int64 n = 4; }
`})
	md := func(name string) protoreflect.MessageDescriptor {
		return prototest.FindMessage(t, files, protoreflect.FullName("m."+name))
	}
	for name, want := range map[string]bool{"Doubles": false, "Nested": true, "Leaf": true, "Cycle": false} {
		if got := fieldrule.HoldsNegZero(md(name)); got != want {
			t.Errorf("%s: HoldsNegZero %v, want %v", name, got, want)
		}
	}
}
