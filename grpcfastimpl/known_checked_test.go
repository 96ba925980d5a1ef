package grpcfastimpl_test

import (
	"testing"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/fieldmaskpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"github.com/grpcfast/grpcfast/internal/testprotos/hostile"
)

// TestKnownKeptChanged: in checked builds, a well-known type that a slot's
// message held (a pooled handler's request, a receiver's message), kept
// past the slot's reset (wrong without KeepRequest or Take), is changed
// there, poisoned or reset: the runtime's decoders (known.go, a FieldMask
// through DecodeFieldMask) take the slot's spares as generated decoders
// do, and the user's tests catch such a keeper, in both pooled modes.
func TestKnownKeptChanged(t *testing.T) {
	grpcfasttest.NeedChecked(t)
	h := &hostile.Holder{
		Fields: grpcfasttest.KnownStruct(),
		Values: []*structpb.Value{structpb.NewStringValue("a"), structpb.NewNumberValue(1)},
		Time:   &timestamppb.Timestamp{Seconds: 1_764_000_000, Nanos: 5},
		Any:    &anypb.Any{TypeUrl: "type.googleapis.com/x", Value: grpcfasttest.Pattern(40)},
		Mask:   &fieldmaskpb.FieldMask{Paths: []string{"user.display_name", "user.email"}},
		Masks:  []*fieldmaskpb.FieldMask{{Paths: []string{"a", "b"}}},
	}
	b, err := proto.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	c := grpcfast.NewCodec()
	for _, s := range []struct {
		name string
		slot *grpcfasttest.CopySlot[hostile.Holder]
	}{{"slot", grpcfasttest.NewPlainSlot[hostile.Holder]()}, {"slot with one copy", grpcfasttest.NewCopySlot[hostile.Holder]()}} {
		for round := range 3 {
			if generated, err := s.slot.Decode(c, mem.BufferSlice{mem.SliceBuffer(b)}); err != nil || !generated {
				t.Fatalf("%s: generated %v, %v", s.name, generated, err)
			}
			m := s.slot.Msg()
			kept := []proto.Message{m.Fields, m.Values[0], m.Time, m.Any, m.Mask, m.Masks[0]}
			var want []proto.Message
			for _, k := range kept {
				want = append(want, proto.Clone(k))
			}
			s.slot.Reset()
			for i, k := range kept {
				if proto.Equal(k, want[i]) {
					t.Errorf("%s, round %d: a kept %T unchanged by the slot's reset; want it poisoned or reset", s.name, round, k)
				}
			}
		}
	}
}
