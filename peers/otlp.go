package peers

import (
	"fmt"

	"go.opentelemetry.io/collector/featuregate"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast/grpcfastrecord"
	"github.com/grpcfast/grpcfast/internal/testprotos/otlp"
)

// The OTLP benchmarks replay recorded OpenTelemetry trace exports to
// OpenTelemetry Collector's pdata (go.opentelemetry.io/collector/pdata) and
// to the OTLP-shaped service that protoc-gen-go-grpcfast generated
// (internal/testprotos/otlp, whose messages copy OTLP's fields and
// numbers): BenchmarkDecodeOTLP decodes them alone, BenchmarkOTLPCollectors
// sends them to collectors (collectors.go).

// PdataPoolingGate is the ID of pdata's feature gate (alpha, off by
// default) that turns on its pools of messages, in v1.71.0
// (pdata/internal/metadata).
const PdataPoolingGate = "pdata.useProtoPooling"

// CorpusDir is the corpus of recorded OTLP exports that the OTLP benchmarks
// replay, relative to this package's directory: the one the root's
// BenchmarkDecodeOTLP and internal/testprotos/otlp's generated benchmarks
// replay.
const CorpusDir = "../internal/testprotos/otlp/testdata/corpus"

const otlpService = "grpcfast.testdata.otlp.TraceService"

// Export is one recorded export: its encoding, sent as is by every
// collector's client, and what the collector must answer about it.
type Export struct {
	Msg    *otlp.ExportTraceServiceRequest
	Wire   []byte
	digest exportDigest
}

// ReadCorpus reads the recorded exports in dir (CorpusDir).
func ReadCorpus(dir string) ([]Export, error) {
	msgs, err := grpcfastrecord.Read(dir, otlpService, "Export", true,
		func() proto.Message { return new(otlp.ExportTraceServiceRequest) })
	if err != nil {
		return nil, err
	}
	if len(msgs) == 0 {
		return nil, fmt.Errorf("no exports in %s", dir)
	}
	var es []Export
	for _, m := range msgs {
		w, err := proto.Marshal(m)
		if err != nil {
			return nil, err
		}
		e := Export{Msg: m.(*otlp.ExportTraceServiceRequest), Wire: w}
		e.digest = digestOf(e.Msg)
		es = append(es, e)
	}
	return es, nil
}

// exportDigest is what the checks of a decoded export compare: its span
// count and the name of its last span. A collector answers an export with
// it (collectors.go).
type exportDigest struct {
	spans int
	last  string // the name of the last span
}

// digestOf returns the digest of an export in the generated OTLP type.
func digestOf(m *otlp.ExportTraceServiceRequest) exportDigest {
	var d exportDigest
	for _, rs := range m.GetResourceSpans() {
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				d.spans++
				d.last = s.GetName()
			}
		}
	}
	return d
}

// digestOfTraces returns the digest of an export in pdata's API.
func digestOfTraces(td ptrace.Traces) exportDigest {
	d := exportDigest{spans: td.SpanCount()}
	rss := td.ResourceSpans()
	for i := range rss.Len() {
		sss := rss.At(i).ScopeSpans()
		for j := range sss.Len() {
			if spans := sss.At(j).Spans(); spans.Len() > 0 {
				d.last = spans.At(spans.Len() - 1).Name()
			}
		}
	}
	return d
}

// fromPdata returns a pdata export in the generated OTLP type: pdata's
// encoding decoded by protobuf-go.
func fromPdata(req ptraceotlp.ExportRequest) (*otlp.ExportTraceServiceRequest, error) {
	b, err := req.MarshalProto()
	if err != nil {
		return nil, err
	}
	m := new(otlp.ExportTraceServiceRequest)
	return m, proto.Unmarshal(b, m)
}

// setPdataPooling sets pdata's pooling gate in this process.
func setPdataPooling(on bool) error {
	return featuregate.GlobalRegistry().Set(PdataPoolingGate, on)
}

// pdataPooling reports whether pdata's pooling gate is on in this process;
// an error if pdata registered no such gate.
func pdataPooling() (bool, error) {
	var on, found bool
	featuregate.GlobalRegistry().VisitAll(func(g *featuregate.Gate) {
		if g.ID() == PdataPoolingGate {
			on, found = g.IsEnabled(), true
		}
	})
	if !found {
		return false, fmt.Errorf("pdata registered no feature gate %s", PdataPoolingGate)
	}
	return on, nil
}
