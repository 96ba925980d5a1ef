package peers

import (
	"context"
	"fmt"
	"net"

	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"go.opentelemetry.io/collector/pdata/xpdata/pref"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/internal/stdcodec"
	"github.com/grpcfast/grpcfast/internal/testprotos/otlp"
)

// The OTLP collectors: an OpenTelemetry trace receiver's gRPC side, served
// by the OpenTelemetry Collector's pdata (go.opentelemetry.io/collector/pdata,
// ptraceotlp.RegisterGRPCServer) and by gRPC-Go with the OTLP-shaped service
// that protoc-gen-go-grpcfast generated (internal/testprotos/otlp), replaying
// the same recorded exports (CorpusDir). The sub-benchmarks name them
// collector=NAME.
const (
	// CollectorPdata is pdata's receiver as the Collector serves it, with
	// pdata's pooling gate off (its default): a new message for every part
	// of every export.
	CollectorPdata = "pdata"
	// CollectorPdataPooled is the same with the gate on
	// (PdataPoolingGate): the messages of an export come from, and go back
	// to, pdata's pools.
	CollectorPdataPooled = "pdata-pooled"
	// CollectorGRPCStd is gRPC-Go with its standard codec (protobuf-go).
	CollectorGRPCStd = "grpc-std"
	// CollectorGrpcfast is gRPC-Go with grpcfast's codec, the default
	// path: a new request per export, decoded by the generated decoder.
	CollectorGrpcfast = "grpcfast"
	// CollectorGrpcfastPooledCopy is gRPC-Go with grpcfast's codec and a
	// pooled handler (RegisterTraceServiceServerPooled) with
	// grpcfast.WithStringsInOneCopy: each export decoded into a request
	// reused from the last, its strings views of one copy of the export.
	CollectorGrpcfastPooledCopy = "grpcfast-pooled-copy"
)

const (
	// pdataExport is the method pdata serves: OTLP's own service name.
	pdataExport = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"
	// otlpExport is the same method in internal/testprotos/otlp, whose
	// messages copy OTLP's fields and numbers under another package name.
	otlpExport = "/" + otlpService + "/Export"
)

// Collector is one way to serve OTLP trace exports over gRPC.
type Collector struct {
	Name string
	// PdataPooling is the value of pdata's pooling gate (PdataPoolingGate)
	// that the process serving this collector must have: the gate is
	// process-wide.
	PdataPooling bool
	// Method is the full gRPC method name that exports are sent to.
	Method string
	// Serve serves the collector on lis until stop is called; stop closes
	// lis.
	Serve func(lis net.Listener) (stop func())
}

// Collectors returns the OTLP collectors, pdata's first: benchstat's first
// column is the one the others are compared with, and this is what a
// Collector does today.
func Collectors() []Collector { return newCollectors(nil) }

// newCollectors returns the collectors; seen, if not nil, is called by
// every collector with a copy of each export it decoded, in the generated
// OTLP type (the tests' look at what the server decoded).
func newCollectors(seen func(collector string, m *otlp.ExportTraceServiceRequest)) []Collector {
	pdata := func(name string, pooling bool) Collector {
		return Collector{
			Name: name, PdataPooling: pooling, Method: pdataExport,
			Serve: func(lis net.Listener) func() {
				// pdata's codec is the one registered under "proto": pdata
				// registers it at init, over (and handing other types to)
				// the codec registered before it. Forced, as the other
				// collectors' codecs are, so that every collector pays the
				// same fixed cost of a forced codec.
				srv := grpc.NewServer(grpc.ForceServerCodecV2(encoding.GetCodecV2("proto")))
				ptraceotlp.RegisterGRPCServer(srv, &pdataCollector{name: name, seen: seen})
				return serveGRPC(srv, lis)
			},
		}
	}
	generated := func(name string, codec encoding.CodecV2, pooled bool) Collector {
		return Collector{
			Name: name, Method: otlpExport,
			Serve: func(lis net.Listener) func() {
				srv := grpc.NewServer(grpc.ForceServerCodecV2(codec))
				impl := &otlpCollector{name: name, seen: seen}
				if pooled {
					otlp.RegisterTraceServiceServerPooled(srv, impl, grpcfast.WithStringsInOneCopy())
				} else {
					otlp.RegisterTraceServiceServer(srv, impl)
				}
				return serveGRPC(srv, lis)
			},
		}
	}
	return []Collector{
		pdata(CollectorPdata, false),
		pdata(CollectorPdataPooled, true),
		generated(CollectorGRPCStd, stdcodec.Codec(), false),
		generated(CollectorGrpcfast, grpcfast.NewCodec(), false),
		generated(CollectorGrpcfastPooledCopy, grpcfast.NewCodec(), true),
	}
}

// findCollector returns the collector named name.
func findCollector(name string) (Collector, error) {
	for _, c := range Collectors() {
		if c.Name == name {
			return c, nil
		}
	}
	return Collector{}, fmt.Errorf("no OTLP collector %q", name)
}

// Every collector answers an export with what it decoded, for the client to
// check: the export's span count as the partial success's rejected_spans,
// and the name of its last span as its error_message (exportDigest). A real
// collector answers an accepted export with an empty response; these few
// bytes are the same for all.

func (d exportDigest) response() *otlp.ExportTraceServiceResponse {
	return &otlp.ExportTraceServiceResponse{PartialSuccess: &otlp.ExportTracePartialSuccess{
		RejectedSpans: int64(d.spans), ErrorMessage: d.last}}
}

// check reports an error unless resp is d's answer.
func (d exportDigest) check(resp *otlp.ExportTraceServiceResponse) error {
	ps := resp.GetPartialSuccess()
	if got := (exportDigest{spans: int(ps.GetRejectedSpans()), last: ps.GetErrorMessage()}); got != d {
		return fmt.Errorf("the collector decoded %d spans, the last named %q; sent %d, the last named %q", got.spans, got.last, d.spans, d.last)
	}
	return nil
}

// pdataCollector is a receiver served by pdata. It hands each export to
// the pipeline as the Collector's does (the pipeline's entry marks the data
// pipeline-owned, and releases it once consumed: xpdata/pref's
// MarkPipelineOwnedTraces and UnrefTraces, which with the pooling gate on
// give every message of the export back to pdata's pools), consuming it
// here by taking its digest.
type pdataCollector struct {
	ptraceotlp.UnimplementedGRPCServer
	name string
	seen func(string, *otlp.ExportTraceServiceRequest)
}

func (c *pdataCollector) Export(_ context.Context, req ptraceotlp.ExportRequest) (ptraceotlp.ExportResponse, error) {
	td := req.Traces()
	if pref.MarkPipelineOwnedTraces(td) {
		defer pref.UnrefTraces(td)
	}
	d := digestOfTraces(td)
	if c.seen != nil {
		m, err := fromPdata(req)
		if err != nil {
			return ptraceotlp.ExportResponse{}, err
		}
		c.seen(c.name, m)
	}
	resp := ptraceotlp.NewExportResponse()
	resp.PartialSuccess().SetRejectedSpans(int64(d.spans))
	resp.PartialSuccess().SetErrorMessage(d.last)
	return resp, nil
}

// otlpCollector is the receiver served with the generated OTLP type, on any
// codec, pooled or not.
type otlpCollector struct {
	otlp.UnimplementedTraceServiceServer
	name string
	seen func(string, *otlp.ExportTraceServiceRequest)
}

func (c *otlpCollector) Export(_ context.Context, req *otlp.ExportTraceServiceRequest) (*otlp.ExportTraceServiceResponse, error) {
	if c.seen != nil {
		c.seen(c.name, proto.Clone(req).(*otlp.ExportTraceServiceRequest))
	}
	return digestOf(req).response(), nil
}

// CollectorClient sends exports to one collector over one connection. It
// sends each export's recorded encoding as it is (rawCodec), so that the
// client's work is the same whichever collector serves.
type CollectorClient struct {
	cc     *grpc.ClientConn
	method string
}

// DialCollector connects a client to collector c at addr (host:port).
func DialCollector(c Collector, addr string) (*CollectorClient, error) {
	cc, err := grpc.NewClient(addr,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.ForceCodecV2(rawCodec{})))
	if err != nil {
		return nil, err
	}
	return &CollectorClient{cc: cc, method: c.Method}, nil
}

// Export sends e and checks that the collector decoded its span count and
// the name of its last span.
func (c *CollectorClient) Export(ctx context.Context, e Export) error {
	resp := new(otlp.ExportTraceServiceResponse)
	if err := c.cc.Invoke(ctx, c.method, rawMessage(e.Wire), resp); err != nil {
		return err
	}
	return e.digest.check(resp)
}

func (c *CollectorClient) Close() error { return c.cc.Close() }

// rawMessage is an encoded message, sent as it is by rawCodec.
type rawMessage []byte

// rawCodec sends rawMessages as they are, and decodes responses with
// protobuf-go. It is named "proto", so the requests it sends are the
// standard application/grpc+proto.
type rawCodec struct{}

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	r, ok := v.(rawMessage)
	if !ok {
		return nil, fmt.Errorf("rawCodec: cannot encode %T", v)
	}
	return mem.BufferSlice{mem.SliceBuffer(r)}, nil
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	m, ok := v.(proto.Message)
	if !ok {
		return fmt.Errorf("rawCodec: cannot decode into %T", v)
	}
	return proto.Unmarshal(data.Materialize(), m)
}

func (rawCodec) Name() string { return "proto" }
