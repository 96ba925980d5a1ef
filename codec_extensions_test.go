package grpcfast_test

import (
	"testing"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"github.com/grpcfast/grpcfast/internal/prototest"
	"github.com/grpcfast/grpcfast/internal/stdcodec"
)

var extProtos = map[string]string{
	"ext.proto": `
syntax = "proto2";
package exttest;
message Extendable {
  optional int32 id = 1;
  optional bytes data = 2;
  extensions 100 to 199;
}
extend Extendable {
  optional string note = 100;
  optional int64 count = 101;
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
}

// vtExtendable is a dynamic message with vtprotobuf methods that behave as
// vtprotobuf's generated code does for a message with extension ranges:
// SizeVT and MarshalToSizedBufferVT leave out extension fields, and
// UnmarshalVT hands each extension field to proto.Unmarshal without Merge,
// which first resets the message.
type vtExtendable struct{ *dynamicpb.Message }

func (m vtExtendable) withoutExtensions() []byte {
	c := proto.Clone(m.Message).ProtoReflect()
	c.Range(func(fd protoreflect.FieldDescriptor, _ protoreflect.Value) bool {
		if fd.IsExtension() {
			c.Clear(fd)
		}
		return true
	})
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(c.Interface())
	if err != nil {
		panic(err)
	}
	return b
}

func (m vtExtendable) SizeVT() int { return len(m.withoutExtensions()) }

func (m vtExtendable) MarshalToSizedBufferVT(b []byte) (int, error) {
	return copy(b, m.withoutExtensions()), nil
}

func (m vtExtendable) UnmarshalVT(b []byte) error {
	ranges := m.Descriptor().ExtensionRanges()
	for len(b) > 0 {
		num, _, n := protowire.ConsumeField(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		opts := proto.UnmarshalOptions{Merge: true, AllowPartial: true}
		if ranges.Has(num) {
			opts.Merge = false
		}
		if err := opts.Unmarshal(b[:n], m.Message); err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

// TestExtensionsParity sends and receives a message with extension fields:
// the codec must send them and keep the fields before them, as gRPC's
// standard codec does.
func TestExtensionsParity(t *testing.T) {
	files := prototest.Compile(t, extProtos)
	md := prototest.FindMessage(t, files, "exttest.Extendable")
	xd, err := files.FindDescriptorByName("exttest.note")
	if err != nil {
		t.Fatal(err)
	}
	note := dynamicpb.NewExtensionType(xd.(protoreflect.ExtensionDescriptor))
	m := dynamicpb.NewMessage(md)
	m.Set(md.Fields().ByName("id"), protoreflect.ValueOfInt32(7))
	m.Set(md.Fields().ByName("data"), protoreflect.ValueOfBytes(grpcfasttest.Pattern(100)))
	m.Set(note.TypeDescriptor(), protoreflect.ValueOfString("an extension"))

	c := grpcfast.NewCodec()
	std := stdcodec.Codec()
	got, err := c.Marshal(vtExtendable{m})
	if err != nil {
		t.Fatal(err)
	}
	want, err := std.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	// dynamicpb encodes fields in random order: compare what decodes.
	decode := func(b []byte) proto.Message {
		out := dynamicpb.NewMessage(md)
		if err := (proto.UnmarshalOptions{Resolver: dynamicpb.NewTypes(files)}).Unmarshal(b, out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	if g, w := decode(got.Materialize()), decode(want.Materialize()); !proto.Equal(g, m) || !proto.Equal(w, m) {
		t.Errorf("Marshal sent %v, standard codec %v, want %v", g, w, m)
	}
	b := want.Materialize()
	for _, data := range []mem.BufferSlice{grpcfasttest.SliceAt(b), grpcfasttest.SliceAt(b, 5), grpcfasttest.SliceAt(b, len(b)-3)} {
		gotMsg := dynamicpb.NewMessage(md)
		if err := c.Unmarshal(data, vtExtendable{gotMsg}); err != nil {
			t.Fatal(err)
		}
		wantMsg := dynamicpb.NewMessage(md)
		if err := std.Unmarshal(data, wantMsg); err != nil {
			t.Fatal(err)
		}
		if !proto.Equal(gotMsg, wantMsg) {
			t.Errorf("Unmarshal in %d buffers: %v, standard codec: %v", len(data), gotMsg, wantMsg)
		}
	}
}

// TestGeneratedExtensions sends and receives a message of a generated type
// with vtprotobuf methods and an extension range. It needs this test type,
// which the project's protos do not have yet (in
// testdata/proto/proto2/proto2.proto):
//
//	message Extendable {
//	  optional int32 id = 1;
//	  optional bytes data = 2;
//	  extensions 100 to 199;
//	}
//	extend Extendable {
//	  optional string note = 100;
//	}
func TestGeneratedExtensions(t *testing.T) {
	const name, ext = "grpcfast.testdata.proto2.Extendable", "grpcfast.testdata.proto2.note"
	mt, err := protoregistry.GlobalTypes.FindMessageByName(name)
	if err != nil {
		t.Fatalf("no message type %s in testdata/proto/proto2/proto2.proto (see the test's comment)", name)
	}
	xt, err := protoregistry.GlobalTypes.FindExtensionByName(ext)
	if err != nil {
		t.Fatalf("no extension %s: %v", ext, err)
	}
	m := mt.New()
	m.Set(mt.Descriptor().Fields().ByName("id"), protoreflect.ValueOfInt32(7))
	m.Set(mt.Descriptor().Fields().ByName("data"), protoreflect.ValueOfBytes(grpcfasttest.Pattern(100)))
	m.Set(xt.TypeDescriptor(), protoreflect.ValueOfString("an extension"))
	c := grpcfast.NewCodec()
	out, err := c.Marshal(m.Interface())
	if err != nil {
		t.Fatal(err)
	}
	b := out.Materialize()
	sent := mt.New().Interface()
	if err := proto.Unmarshal(b, sent); err != nil || !proto.Equal(sent, m.Interface()) {
		t.Fatalf("sent %v (%v), want %v", sent, err, m.Interface())
	}
	for _, data := range []mem.BufferSlice{grpcfasttest.SliceAt(b), grpcfasttest.SliceAt(b, 5), grpcfasttest.SliceAt(b, len(b)-3)} {
		got := mt.New().Interface()
		if err := c.Unmarshal(data, got); err != nil {
			t.Fatal(err)
		}
		if !proto.Equal(got, m.Interface()) {
			t.Errorf("received in %d buffers %v, want %v", len(data), got, m.Interface())
		}
	}
}
