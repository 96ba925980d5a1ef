package grpcfast_test

import (
	"testing"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
)

// requiredMsg is a proto2 message with a required field that decodes as
// vtprotobuf's generated UnmarshalVT does: it merges into the message and
// fails if the bytes of this one call lack a required field. (The only
// generated proto2 message, proto2.Item, has a group, and the codec decodes
// it with protobuf-go because vtprotobuf cannot decode groups.)
type requiredMsg struct{ *dynamicpb.Message }

func (m requiredMsg) UnmarshalVT(b []byte) error {
	tmp := dynamicpb.NewMessage(m.Descriptor())
	if err := (proto.UnmarshalOptions{AllowPartial: true}).Unmarshal(b, tmp); err != nil {
		return err
	}
	if err := proto.CheckInitialized(tmp); err != nil {
		return err
	}
	proto.Merge(m.Message, tmp)
	return nil
}

func requiredDescriptor(t *testing.T) protoreflect.MessageDescriptor {
	t.Helper()
	fd, err := protodesc.NewFile(&descriptorpb.FileDescriptorProto{
		Name:    proto.String("grpcfast_required_test.proto"),
		Package: proto.String("grpcfast.test"),
		Syntax:  proto.String("proto2"),
		MessageType: []*descriptorpb.DescriptorProto{{
			Name: proto.String("Req"),
			Field: []*descriptorpb.FieldDescriptorProto{{
				Name:   proto.String("id"),
				Number: proto.Int32(1),
				Label:  descriptorpb.FieldDescriptorProto_LABEL_REQUIRED.Enum(),
				Type:   descriptorpb.FieldDescriptorProto_TYPE_INT32.Enum(),
			}, {
				Name:   proto.String("data"),
				Number: proto.Int32(2),
				Label:  descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(),
				Type:   descriptorpb.FieldDescriptorProto_TYPE_BYTES.Enum(),
			}},
		}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return fd.Messages().Get(0)
}

// TestRequiredFields checks that a message with required fields is decoded in
// one piece when it arrives in several: vtprotobuf checks required fields at
// the end of every UnmarshalVT call.
func TestRequiredFields(t *testing.T) {
	md := requiredDescriptor(t)
	want := dynamicpb.NewMessage(md)
	want.Set(md.Fields().ByName("id"), protoreflect.ValueOfInt32(5))
	want.Set(md.Fields().ByName("data"), protoreflect.ValueOfBytes(grpcfasttest.Pattern(20000)))
	b, err := proto.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	pool := grpcfasttest.NewCountingPool(grpcfast.NewBufferPool())
	c := grpcfast.NewCodec(grpcfast.WithBufferPool(pool))
	for _, cut := range []int{0, 1, 2, 5, 100, 10000, len(b) - 1} {
		got := requiredMsg{dynamicpb.NewMessage(md)}
		if err := c.Unmarshal(grpcfasttest.SliceAt(b, cut), got); err != nil {
			t.Fatalf("split at %d: %v", cut, err)
		}
		if !proto.Equal(got.Message, want) {
			t.Fatalf("split at %d: decoded message differs", cut)
		}
	}
	// Without the required field: an error, whole and in pieces.
	partial, _ := proto.MarshalOptions{AllowPartial: true}.Marshal(&kinds.Rich{Data: grpcfasttest.Pattern(100)}) // field 3: unknown here
	for _, data := range []mem.BufferSlice{grpcfasttest.SliceAt(partial), grpcfasttest.SliceAt(partial, 50)} {
		if err := c.Unmarshal(data, requiredMsg{dynamicpb.NewMessage(md)}); err == nil {
			t.Errorf("message without its required field in %d buffers: no error", len(data))
		}
	}
	pool.Check(t, "counting pool")
}

// lyingSize reports one byte more than it encodes, as a message modified
// between SizeVT and MarshalToSizedBufferVT might.
type lyingSize struct{ *kinds.Rich }

func (m lyingSize) SizeVT() int { return m.Rich.SizeVT() + 1 }

// TestMarshalSizeMismatch checks that Marshal fails rather than send a
// buffer whose start was never written, and returns the buffer to the pool.
func TestMarshalSizeMismatch(t *testing.T) {
	pool := grpcfasttest.NewPoisonPool()
	for _, threshold := range []int{0, 1 << 30} {
		c := grpcfast.NewCodec(grpcfast.WithBufferPool(pool), grpcfast.WithPoolingThreshold(threshold))
		for _, n := range []int{10, 5000} {
			if out, err := c.Marshal(lyingSize{&kinds.Rich{Data: grpcfasttest.Pattern(n)}}); err == nil {
				out.Free()
				t.Errorf("threshold %d, %d bytes: no error", threshold, n)
			}
		}
	}
	pool.Check(t, "pool")
}
