package grpcfasttest

// The tests' oracle: protobuf-go, which gRPC's standard codec calls.

import (
	"fmt"
	"testing"

	"google.golang.org/protobuf/proto"
)

// CheckOracle fails t unless the codec accepted b (err == nil) exactly when
// protobuf-go, and so gRPC's standard codec, does, and decoded it into got
// as protobuf-go does. It is the tests' one oracle.
func CheckOracle(t *testing.T, b []byte, got proto.Message, err error) {
	t.Helper()
	CheckOracleAt(t, fmt.Sprintf("%T", got), b, got, err)
}

// CheckOracleAt is CheckOracle, naming what was decoded (what) in failures.
func CheckOracleAt(t *testing.T, what string, b []byte, got proto.Message, err error) {
	t.Helper()
	want := got.ProtoReflect().New().Interface()
	stdErr := proto.Unmarshal(b, want)
	if (err == nil) != (stdErr == nil) {
		if len(b) > 256 {
			t.Fatalf("%s: %d bytes: protobuf-go: %v; the codec: %v", what, len(b), stdErr, err)
		}
		t.Fatalf("%s: input %x: protobuf-go: %v; the codec: %v", what, b, stdErr, err)
	}
	if err != nil {
		return
	}
	if !proto.Equal(got, want) {
		t.Fatalf("%s: decoded\n%v\nprotobuf-go:\n%v", what, got, want)
	}
}
