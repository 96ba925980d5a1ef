package grpcfast_test

// The tests' oracle: protobuf-go, which gRPC's standard codec calls.

import (
	"fmt"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// oracleAllowlist lists the documented differences from protobuf-go
// (docs/differences.md) that checkOracle
// allows, each pinned by the test named: both normalize the decoded messages
// before they are compared. No difference in what is accepted is allowed.
var oracleAllowlist = []struct {
	test      string
	normalize func(protoreflect.Message)
}{
	// protobuf-go re-encodes the tag of an unknown field in its shortest
	// form; vtprotobuf keeps it as it came.
	{"TestDifferenceUnknownTagEncoding", canonicalUnknown},
	// vtprotobuf drops unknown fields inside well-known types.
	{"TestDifferenceUnknownFieldsInWellKnownTypes", dropWKTUnknown},
}

// checkOracle fails t unless the codec accepted b (err == nil) exactly when
// protobuf-go, and so gRPC's standard codec, does, and decoded it into got
// as protobuf-go does, up to the differences in oracleAllowlist. It is the
// tests' one oracle.
func checkOracle(t *testing.T, b []byte, got proto.Message, err error) {
	t.Helper()
	checkOracleAt(t, fmt.Sprintf("%T", got), b, got, err)
}

// checkOracleAt is checkOracle, naming what was decoded (what) in failures.
func checkOracleAt(t *testing.T, what string, b []byte, got proto.Message, err error) {
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
	for _, d := range oracleAllowlist {
		d.normalize(got.ProtoReflect())
		d.normalize(want.ProtoReflect())
	}
	if !proto.Equal(got, want) {
		t.Fatalf("%s: decoded\n%v\nprotobuf-go:\n%v", what, got, want)
	}
}

// canonicalUnknown rewrites the tags of m's unknown fields, and of the
// messages it holds, in their shortest form: protobuf-go re-encodes a tag
// written with a longer varint than needed, vtprotobuf keeps it as it came
// (a documented difference, TestDifferenceUnknownTagEncoding). Values are
// kept as they are.
func canonicalUnknown(m protoreflect.Message) {
	if u := m.GetUnknown(); len(u) > 0 {
		var out []byte
		for len(u) > 0 {
			num, typ, n := protowire.ConsumeTag(u)
			if n < 0 {
				return
			}
			v := protowire.ConsumeFieldValue(num, typ, u[n:])
			if v < 0 {
				return
			}
			out = protowire.AppendTag(out, num, typ)
			out = append(out, u[n:n+v]...)
			u = u[n+v:]
		}
		m.SetUnknown(out)
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsMap() && fd.MapValue().Message() != nil:
			v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
				canonicalUnknown(mv.Message())
				return true
			})
		case fd.IsList() && fd.Message() != nil:
			for i := range v.List().Len() {
				canonicalUnknown(v.List().Get(i).Message())
			}
		case !fd.IsList() && !fd.IsMap() && fd.Message() != nil:
			canonicalUnknown(v.Message())
		}
		return true
	})
}

// dropWKTUnknown clears the unknown fields of the well-known types in m.
func dropWKTUnknown(m protoreflect.Message) {
	if !m.IsValid() {
		return
	}
	if strings.HasPrefix(string(m.Descriptor().FullName()), "google.protobuf.") {
		m.SetUnknown(nil)
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsMap() && fd.MapValue().Message() != nil:
			v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
				dropWKTUnknown(mv.Message())
				return true
			})
		case fd.IsList() && fd.Message() != nil:
			for i := range v.List().Len() {
				dropWKTUnknown(v.List().Get(i).Message())
			}
		case !fd.IsList() && !fd.IsMap() && fd.Message() != nil:
			dropWKTUnknown(v.Message())
		}
		return true
	})
}
