package codec_test

import (
	"strconv"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/internal/codec"
	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
	"github.com/grpcfast/grpcfast/internal/testprotos/otlp"
)

// scratchExport is an OTLP export of n spans whose strings and bytes all
// differ, so that a decode shares none of them.
func scratchExport(n int) *otlp.ExportTraceServiceRequest {
	ss := &otlp.ScopeSpans{SchemaUrl: "schema"}
	for i := range n {
		id := []byte("trace-id-" + strconv.Itoa(i))
		ss.Spans = append(ss.Spans, &otlp.Span{
			TraceId: id, SpanId: id[:8], Name: "span " + strconv.Itoa(i),
			Attributes: []*otlp.KeyValue{
				{Key: "key " + strconv.Itoa(i), Value: &otlp.AnyValue{Value: &otlp.AnyValue_StringValue{StringValue: "value " + strconv.Itoa(i)}}},
				{Key: "n", Value: &otlp.AnyValue{Value: &otlp.AnyValue_IntValue{IntValue: int64(i)}}},
			},
		})
	}
	return &otlp.ExportTraceServiceRequest{ResourceSpans: []*otlp.ResourceSpans{{ScopeSpans: []*otlp.ScopeSpans{ss}}}}
}

// TestScratchLeftUnreferenced: a message that arrives in pieces is copied
// into a scratch region outside the heap, which the next decode reuses;
// nothing of a decoded message may refer to it. Each decode below (fresh,
// whole or field by field, and into slots) is followed by overwriting every
// free region, and the message must still equal protobuf-go's decode.
func TestScratchLeftUnreferenced(t *testing.T) {
	c := grpcfast.NewCodec()
	var msgs []proto.Message
	for id := range int64(12) {
		msgs = append(msgs, grpcfasttest.GenRich(id))
	}
	msgs = append(msgs, scratchExport(3), scratchExport(200))
	check := func(name string, cut int, got, want proto.Message) {
		t.Helper()
		if codec.ScribbleFreeRegions(0xff) == 0 {
			t.Skip("no regions outside the heap on this system")
		}
		if !proto.Equal(got, want) {
			t.Fatalf("%s, split at %d: after the scratch regions were overwritten the message is\n%v\nwant\n%v", name, cut, got, want)
		}
	}
	for i, m := range msgs {
		b, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		want := m.ProtoReflect().New().Interface()
		if err := proto.Unmarshal(b, want); err != nil {
			t.Fatal(err)
		}
		for _, cut := range []int{1, len(b) / 3, len(b) / 2, len(b) - 1} {
			name := "message " + strconv.Itoa(i)
			got := m.ProtoReflect().New().Interface()
			if err := c.Unmarshal(grpcfasttest.SliceAt(b, cut, cut+(len(b)-cut)/2), got); err != nil {
				t.Fatalf("%s, split at %d: %v", name, cut, err)
			}
			check(name+" fresh", cut, got, want)
			if rich, ok := m.(*kinds.Rich); ok {
				for _, s := range []*grpcfasttest.CopySlot[kinds.Rich]{grpcfasttest.NewPlainSlot[kinds.Rich](), grpcfasttest.NewCopySlot[kinds.Rich]()} {
					if _, err := s.Decode(c, grpcfasttest.SliceAt(b, cut)); err != nil {
						t.Fatalf("%s into a slot, split at %d: %v", name, cut, err)
					}
					check(name+" into a slot", cut, s.Msg(), rich)
				}
			}
		}
	}
}
