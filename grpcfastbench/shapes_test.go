package grpcfastbench

import (
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast/internal/testprotos/bytestream"
	"github.com/grpcfast/grpcfast/internal/testprotos/editions"
	"github.com/grpcfast/grpcfast/internal/testprotos/otlp"
	"github.com/grpcfast/grpcfast/internal/testprotos/proto2"
)

// TestByteStreamShape checks what -grpcfast.size=16384 grows in a
// ByteStream-shaped service: each chunk's data, not its resource_name, and
// not Write's single response.
func TestByteStreamShape(t *testing.T) {
	methods := []Method{
		ServerStream[bytestream.ReadRequest, bytestream.ReadResponse]("Read", bytestream.NewByteStream_ReadResponseReceiver),
		ClientStream[bytestream.WriteRequest, bytestream.WriteResponse]("Write", bytestream.NewByteStream_WriteRequestReceiver),
	}
	cfg := flags
	cfg.size = 16384
	ms, _, err := fillMessages("grpcfast.testdata.bytestream.ByteStream", methods, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	if r := ms[0].ress[0].(*bytestream.ReadResponse); proto.Size(r) != 16384 {
		t.Errorf("ReadResponse: %d bytes, want 16384", proto.Size(r))
	}
	w := ms[1].reqs[0].(*bytestream.WriteRequest)
	if proto.Size(w) != 16384 || len(w.ResourceName) > 64 || len(w.Data) < 16300 {
		t.Errorf("WriteRequest: %d bytes, resource_name %d, data %d: want 16384 with the data grown", proto.Size(w), len(w.ResourceName), len(w.Data))
	}
	if n := proto.Size(ms[1].ress[0]); n > 16 {
		t.Errorf("WriteResponse: %d bytes, want it small", n)
	}
}

// TestOTLPShape checks the OTLP-shaped service: with -grpcfast.grow naming
// the spans, an Export request of 64 KiB is spans, its schema_url stays
// short and the acknowledgement small; with the corpus, the 4 exports of
// 100 spans are sent.
func TestOTLPShape(t *testing.T) {
	methods := []Method{Unary[otlp.ExportTraceServiceRequest, otlp.ExportTraceServiceResponse]("Export")}
	cfg := flags
	cfg.size = 65536
	cfg.grow = []string{"grpcfast.testdata.otlp.ScopeSpans.spans"}
	ms, _, err := fillMessages("grpcfast.testdata.otlp.TraceService", methods, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	req := ms[0].reqs[0].(*otlp.ExportTraceServiceRequest)
	if n := proto.Size(req); n < 65536 || n > 66000 {
		t.Errorf("request: %d bytes, want about 65536", n)
	}
	for _, rs := range req.ResourceSpans {
		if len(rs.SchemaUrl) > 64 {
			t.Errorf("schema_url grew to %d bytes", len(rs.SchemaUrl))
		}
		for _, ss := range rs.ScopeSpans {
			if len(ss.Spans) < 50 {
				t.Errorf("%d spans in a scope, want the spans grown", len(ss.Spans))
			}
			for _, sp := range ss.Spans {
				if len(sp.TraceId) > 8 {
					t.Errorf("trace_id grew to %d bytes", len(sp.TraceId))
				}
			}
		}
	}
	if n := proto.Size(ms[0].ress[0]); n > 64 {
		t.Errorf("response: %d bytes, want it small", n)
	}

	cfg = flags
	cfg.replay = filepath.Join("..", "internal", "testprotos", "otlp", "testdata", "corpus")
	ms, replayed, err := fillMessages("grpcfast.testdata.otlp.TraceService", methods, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	if replayed[0] != [2]int{4, 1} {
		t.Fatalf("replayed %v, want 4 requests and 1 response", replayed[0])
	}
	for i, m := range ms[0].reqs {
		if n := len(m.(*otlp.ExportTraceServiceRequest).ResourceSpans[0].ScopeSpans[0].Spans); n != 100 {
			t.Errorf("export %d: %d spans, want 100", i, n)
		}
	}
}

// TestVtprotoSkip checks that codec=vtproto is left out, with the reason,
// for messages vtprotobuf cannot round-trip (proto2 groups) or that have no
// vtprotobuf methods, and kept for the others.
func TestVtprotoSkip(t *testing.T) {
	for _, tc := range []struct {
		m    Method
		want string
	}{
		{Unary[proto2.Item, proto2.Item]("Get"), "vtprotobuf fails to round-trip grpcfast.testdata.proto2.Item: proto: unexpected end of group"},
		{Unary[editions.Note, editions.Note]("Get"), "its messages have no vtprotobuf methods"},
		{kindsMethods()[0], ""},
	} {
		cfg := flags
		ms, _, err := fillMessages("x.S", []Method{tc.m}, &cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got := vtSkip(tc.m, ms[0]); got != tc.want {
			t.Errorf("%T: %q, want %q", tc.m.newReq(), got, tc.want)
		}
	}
}
