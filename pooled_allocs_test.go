package grpcfast_test

import (
	"context"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/grpcfastrecord"
	"github.com/grpcfast/grpcfast/internal/decode"
	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"github.com/grpcfast/grpcfast/internal/pooled"
	"github.com/grpcfast/grpcfast/internal/testprotos/otlp"
)

// otlpCorpus is the recorded-shape trace exports that the OTLP benchmarks
// replay: 100 spans each.
const otlpCorpus = "internal/testprotos/otlp/testdata/corpus"

// decodeCosts returns what vtprotobuf's decoder allocates in m whatever is
// reused: its non-empty strings (unless they are views of the owned copy),
// and the number of wrappers of oneof cases that are not messages.
func decodeCosts(m protoreflect.Message) (strs []string, wrappers int) {
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() && fd.Message() == nil {
			wrappers++
		}
		count := func(v protoreflect.Value, fd protoreflect.FieldDescriptor) {
			switch {
			case fd.Message() != nil:
				s, w := decodeCosts(v.Message())
				strs, wrappers = append(strs, s...), wrappers+w
			case fd.Kind() == protoreflect.StringKind && v.String() != "":
				strs = append(strs, v.String())
			}
		}
		switch {
		case fd.IsList():
			for i := range v.List().Len() {
				count(v.List().Get(i), fd)
			}
		case fd.IsMap():
			v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
				if fd.MapKey().Kind() == protoreflect.StringKind && k.String() != "" {
					strs = append(strs, k.String())
				}
				count(mv, fd.MapValue())
				return true
			})
		default:
			count(v, fd)
		}
		return true
	})
	return strs, wrappers
}

// TestPooledAllocs: a pooled handler decoding an OTLP export of 100 spans,
// arrived in 16 KiB pieces as gRPC delivers it, allocates the call's context
// (one), and what vtprotobuf's decoder allocates whatever is reused: every
// string, and the wrapper of every scalar oneof case (AnyValue's
// string_value, ...). With the owned copy, the strings are views of one
// copy, one allocation for all of them, and the generated decoder
// (GrpcfastDecode) reuses the oneof wrappers: two allocations per export,
// where the standard path makes thousands.
func TestPooledAllocs(t *testing.T) {
	grpcfasttest.SkipIfRace(t)
	grpcfasttest.SkipInCheckedBuild(t, "allocation counts: a pooled request keeps none of its memory, so each call allocates it again")
	reqs, err := grpcfastrecord.Read(otlpCorpus, "grpcfast.testdata.otlp.TraceService", "Export", true,
		func() proto.Message { return new(otlp.ExportTraceServiceRequest) })
	if err != nil || len(reqs) == 0 {
		t.Fatalf("reading the corpus: %d exports, %v", len(reqs), err)
	}
	c := grpcfast.NewCodec()
	req := reqs[0]
	b, _ := proto.Marshal(req)
	var cuts []int
	for i := 16384; i < len(b); i += 16384 {
		cuts = append(cuts, i)
	}
	data := grpcfasttest.SliceAt(b, cuts...)
	strs, wrappers := decodeCosts(req.ProtoReflect())
	dec := func(v any) error { return c.Unmarshal(data, v) }
	standard := testing.AllocsPerRun(20, func() {
		m := new(otlp.ExportTraceServiceRequest) // as protoc-gen-go-grpc's handler
		if err := dec(m); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("a %d-byte export with %d strings and %d scalar oneof values; a new message per call: %v allocations", len(b), len(strs), wrappers, standard)
	for _, tc := range []struct {
		name string
		cfg  pooled.Config
		want int
	}{
		// OTLP's types have generated decoders, which reuse the nested
		// messages and oneof wrappers that the slot's last reset gave back,
		// whatever vtprotobuf's pool options: only the strings are new,
		// copied side by side into chunks, equal ones once.
		{"pooled", pooled.Config{}, 1 + stringChunks(strs)},
		// With the owned copy, the strings are views of the copy.
		{"pooled+copy", pooled.Config{Copy: true}, 1 + 1},
	} {
		h := pooled.New("/grpcfast.testdata.otlp.TraceService/Export", func(_ any, _ context.Context, in *otlp.ExportTraceServiceRequest) (any, error) {
			if len(in.ResourceSpans) != 1 {
				t.Fatal("decoded the wrong message")
			}
			return nil, nil
		}, tc.cfg)
		ctx := context.Background()
		got := testing.AllocsPerRun(50, func() {
			if _, err := h.Handle(nil, ctx, dec, nil); err != nil {
				t.Fatal(err)
			}
		})
		t.Logf("%s: %v allocations per call, want %d", tc.name, got, tc.want)
		// Two allocations of slack, for the pools of the slots and buffers.
		if got > float64(tc.want+2) {
			t.Errorf("%s: %v allocations per call, want at most %d (the context, %s)",
				tc.name, got, tc.want, map[bool]string{false: "the chunks of strings", true: "the copy"}[tc.cfg.Copy])
		}
	}
}

// stringChunks returns how many chunks a decode takes for strs: those of 2
// to decode.MaxChunked bytes, equal ones once, side by side in chunks of
// decode.MinChunk bytes, then twice the last, up to decode.MaxChunk.
func stringChunks(strs []string) int {
	seen := map[string]bool{}
	bytes := 0
	for _, s := range strs {
		if len(s) > 1 && len(s) <= decode.MaxChunked && !seen[s] {
			seen[s] = true
			bytes += len(s)
		}
	}
	n := 0
	for size, room := decode.MinChunk, 0; room < bytes; size = min(2*size, decode.MaxChunk) {
		room += size
		n++
	}
	return n
}
