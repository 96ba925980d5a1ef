package otlp

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast/grpcfastrecord"
)

var update = flag.Bool("update", false, "rewrite the corpus in testdata/corpus")

// corpusDir is the corpus that scripts/benchmarks.sh replays
// (-grpcfast.replay): trace exports as an instrumented HTTP service sends
// them.
const corpusDir = "testdata/corpus"

const (
	corpusRequests = 4   // exports
	corpusSpans    = 100 // spans per export
)

func str(k, v string) *KeyValue {
	return &KeyValue{Key: k, Value: &AnyValue{Value: &AnyValue_StringValue{StringValue: v}}}
}

func num(k string, v int64) *KeyValue {
	return &KeyValue{Key: k, Value: &AnyValue{Value: &AnyValue_IntValue{IntValue: v}}}
}

func id(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// export is the i-th trace export of the corpus: one resource, one scope,
// corpusSpans spans of HTTP server requests with 7 attributes each, an
// exception event on every tenth.
func export(i int) *ExportTraceServiceRequest {
	r := rand.New(rand.NewPCG(uint64(i), 18))
	routes := []string{"/api/v1/users/{id}", "/api/v1/orders", "/api/v1/orders/{id}/items", "/healthz", "/api/v1/search"}
	methods := []string{"GET", "GET", "POST", "GET", "PUT"}
	start := uint64(1_763_900_000_000_000_000) + uint64(i)*1_000_000_000
	scope := &ScopeSpans{
		Scope:     &InstrumentationScope{Name: "go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp", Version: "0.58.0"},
		SchemaUrl: "https://opentelemetry.io/schemas/1.26.0",
	}
	var trace []byte
	for s := range corpusSpans {
		if s%5 == 0 {
			trace = id(r, 16)
		}
		k := r.IntN(len(routes))
		status := []int64{200, 200, 200, 201, 404, 500}[r.IntN(6)]
		begin := start + uint64(s)*7_000_000 + uint64(r.IntN(1_000_000))
		span := &Span{
			TraceId:           trace,
			SpanId:            id(r, 8),
			ParentSpanId:      id(r, 8),
			Flags:             0x101,
			Name:              methods[k] + " " + routes[k],
			Kind:              Span_SPAN_KIND_SERVER,
			StartTimeUnixNano: begin,
			EndTimeUnixNano:   begin + uint64(200_000+r.IntN(50_000_000)),
			Attributes: []*KeyValue{
				str("http.request.method", methods[k]),
				str("url.path", fmt.Sprintf("/api/v1/users/%d", r.IntN(1_000_000))),
				str("http.route", routes[k]),
				num("http.response.status_code", status),
				str("server.address", "api.internal.example.com"),
				str("network.protocol.version", "1.1"),
				str("user_agent.original", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36"),
			},
			Status: &Status{Code: Status_STATUS_CODE_UNSET},
		}
		if status >= 500 {
			span.Status = &Status{Code: Status_STATUS_CODE_ERROR, Message: "internal error"}
		}
		if s%10 == 9 {
			span.Events = []*Span_Event{{
				TimeUnixNano: begin + 100_000,
				Name:         "exception",
				Attributes: []*KeyValue{
					str("exception.type", "*net.OpError"),
					str("exception.message", fmt.Sprintf("dial tcp 10.0.%d.%d:5432: connect: connection refused", r.IntN(255), r.IntN(255))),
				},
			}}
		}
		scope.Spans = append(scope.Spans, span)
	}
	return &ExportTraceServiceRequest{ResourceSpans: []*ResourceSpans{{
		Resource: &Resource{Attributes: []*KeyValue{
			str("service.name", "checkout"),
			str("service.version", "2.14.1"),
			str("service.instance.id", fmt.Sprintf("checkout-7d9f8b6c4-%05d", i)),
			str("host.name", fmt.Sprintf("node-%d.europe-west1", i)),
			str("k8s.namespace.name", "shop"),
			str("telemetry.sdk.language", "go"),
			str("telemetry.sdk.name", "opentelemetry"),
			str("telemetry.sdk.version", "1.33.0"),
		}},
		ScopeSpans: []*ScopeSpans{scope},
		SchemaUrl:  "https://opentelemetry.io/schemas/1.26.0",
	}}}
}

// delimited encodes msgs as grpcfastrecord writes them.
func delimited(t *testing.T, msgs ...proto.Message) []byte {
	var out []byte
	for _, m := range msgs {
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		out = protowire.AppendBytes(out, b)
	}
	return out
}

// TestCorpus checks that the corpus in testdata is what export makes
// (-update rewrites it), and that it reads back as the exports: 4 of 100
// spans each, answered with an empty acknowledgement; and the queries of
// TraceQueryService, answered with the same spans, a page per response.
func TestCorpus(t *testing.T) {
	var reqs []proto.Message
	for i := range corpusRequests {
		reqs = append(reqs, export(i))
	}
	// GetTraces answers with the same spans, a page per response.
	pages := make([]proto.Message, len(reqs))
	for i, r := range reqs {
		pages[i] = &TracesData{ResourceSpans: r.(*ExportTraceServiceRequest).ResourceSpans}
	}
	export := filepath.Join(corpusDir, "grpcfast.testdata.otlp.TraceService", "Export")
	query := filepath.Join(corpusDir, "grpcfast.testdata.otlp.TraceQueryService", "GetTraces")
	files := map[string][]byte{
		filepath.Join(export, grpcfastrecord.RequestsFile):  delimited(t, reqs...),
		filepath.Join(export, grpcfastrecord.ResponsesFile): delimited(t, &ExportTraceServiceResponse{}),
		filepath.Join(query, grpcfastrecord.RequestsFile): delimited(t, &GetTracesRequest{
			ServiceName: "checkout", StartTimeUnixNano: 1_763_900_000_000_000_000, EndTimeUnixNano: 1_763_900_004_000_000_000, Limit: corpusSpans,
		}),
		filepath.Join(query, grpcfastrecord.ResponsesFile): delimited(t, pages...),
	}
	for path, want := range files {
		dir := filepath.Dir(path)
		if *update {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test ./internal/testprotos/otlp -run TestCorpus -update writes it)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: go test ./internal/testprotos/otlp -run TestCorpus -update", path)
		}
	}
	got, err := grpcfastrecord.Read(corpusDir, "grpcfast.testdata.otlp.TraceService", "Export", true,
		func() proto.Message { return new(ExportTraceServiceRequest) })
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != corpusRequests {
		t.Fatalf("%d requests, want %d", len(got), corpusRequests)
	}
	res, err := grpcfastrecord.Read(corpusDir, "grpcfast.testdata.otlp.TraceQueryService", "GetTraces", false,
		func() proto.Message { return new(TracesData) })
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != corpusRequests || !proto.Equal(res[1], pages[1]) {
		t.Errorf("GetTraces: %d pages, the second equal to export(1)'s spans: %v", len(res), len(res) > 1 && proto.Equal(res[1], pages[1]))
	}
	for i, m := range got {
		if !proto.Equal(m, reqs[i]) {
			t.Errorf("request %d differs from export(%d)", i, i)
		}
		if n := len(m.(*ExportTraceServiceRequest).ResourceSpans[0].ScopeSpans[0].Spans); n != corpusSpans {
			t.Errorf("request %d has %d spans, want %d", i, n, corpusSpans)
		}
	}
}
