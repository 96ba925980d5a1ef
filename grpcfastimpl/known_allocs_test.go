package grpcfastimpl_test

import (
	"testing"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/fieldmaskpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"github.com/grpcfast/grpcfast/internal/testprotos/hostile"
)

// The well-known types that grpcfastimpl decodes take their memory as the
// generated messages do (known.go): a slot of a pooled handler or a
// receiver, once it has decoded such a message, decodes the next one
// without allocating a Value, a oneof wrapper, a map, a list or a
// FieldMask's paths (only the chunks its strings are copied into, or with
// the owned copy, the copy);
// a fresh message gets its Values and wrappers in slabs, and allocates a
// fraction of what protobuf-go's decode allocates for them.
func TestKnownAllocs(t *testing.T) {
	grpcfasttest.SkipInCheckedBuild(t, "allocation counts: a slot keeps none of its memory, so each decode allocates it again")
	grpcfasttest.SkipIfRace(t)
	h := &hostile.Holder{
		Fields: grpcfasttest.KnownStruct(),
		Values: []*structpb.Value{structpb.NewStringValue("a"), structpb.NewNumberValue(1)},
		Time:   timestamppb.Now(),
		Any:    &anypb.Any{TypeUrl: "type.googleapis.com/x", Value: grpcfasttest.Pattern(40)},
		Mask:   &fieldmaskpb.FieldMask{Paths: []string{"user.display_name", "user.email", "user.labels"}},
		Masks:  []*fieldmaskpb.FieldMask{{Paths: []string{"a"}}, {Paths: []string{"b", "c"}}},
		Empty:  &emptypb.Empty{},
	}
	b, err := proto.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	c := grpcfast.NewCodec()
	data := mem.BufferSlice{mem.SliceBuffer(b)}
	std := testing.AllocsPerRun(50, func() {
		if err := proto.Unmarshal(b, &hostile.Holder{}); err != nil {
			t.Fatal(err)
		}
	})
	fresh := testing.AllocsPerRun(50, func() {
		if err := c.Unmarshal(data, &hostile.Holder{}); err != nil {
			t.Fatal(err)
		}
	})
	if fresh > std/3 {
		t.Errorf("a fresh message: %.0f allocations a decode, protobuf-go %.0f: want at most a third", fresh, std)
	}
	for _, s := range []struct {
		name string
		slot *grpcfasttest.CopySlot[hostile.Holder]
		max  float64
	}{
		// The chunks of its strings (the Struct's keys and values, the
		// Any's type and bytes, the masks' paths).
		{"slot", grpcfasttest.NewPlainSlot[hostile.Holder](), 3},
		// The owned copy.
		{"slot with one copy", grpcfasttest.NewCopySlot[hostile.Holder](), 1},
	} {
		n := testing.AllocsPerRun(50, func() {
			s.slot.Reset()
			if _, err := s.slot.Decode(c, data); err != nil {
				t.Fatal(err)
			}
		})
		if !proto.Equal(s.slot.Msg(), h) {
			t.Fatalf("%s: decoded\n%v\nwant\n%v", s.name, s.slot.Msg(), h)
		}
		if n > s.max {
			t.Errorf("%s: %.0f allocations a decode, want at most %.0f (protobuf-go: %.0f)", s.name, n, s.max, std)
		}
	}
}
