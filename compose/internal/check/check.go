// Package check holds the checks that every scenario of the compose module
// runs: whatever the order in which grpcfast and the libraries that register
// a "proto" codec of their own were registered, each keeps its types, and
// grpcfast is still in effect for the types the plugin generated.
package check

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"reflect"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/compose/keepbuf"
)

// Chain returns the types of the codecs registered under "proto", from the
// one gRPC calls to the last one that the others hand values to, following
// the wrappers it knows: grpcfast's, pdata's (field delegate) and keepbuf's.
func Chain() []string {
	var out []string
	c := encoding.GetCodecV2("proto")
	for c != nil && len(out) < 16 {
		t := reflect.TypeOf(c)
		out = append(out, t.String())
		v := reflect.ValueOf(c)
		if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
			break
		}
		var next reflect.Value
		switch e := v.Elem(); t.String() {
		case "*grpcfast.Codec":
			next = e.FieldByName("c").FieldByName("Next")
		case "*otelgrpc.codecV2":
			next = e.FieldByName("delegate")
		case "*keepbuf.Codec":
			next = e.FieldByName("Next")
		default:
			return out
		}
		// Read the unexported field: the chain is only looked at.
		c = *(*encoding.CodecV2)(unsafe.Pointer(next.UnsafeAddr()))
	}
	return out
}

// WantChain fails t unless the registered codecs are want, outermost first.
func WantChain(t *testing.T, want ...string) {
	t.Helper()
	if got := Chain(); strings.Join(got, " -> ") != strings.Join(want, " -> ") {
		t.Fatalf("codecs registered under \"proto\": %s\nwant: %s", strings.Join(got, " -> "), strings.Join(want, " -> "))
	}
}

// Serve starts a gRPC server on loopback with the services that register
// adds, and returns a connection to it; both are closed when t ends.
func Serve(t *testing.T, register func(*grpc.Server), opts ...grpc.ServerOption) *grpc.ClientConn {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(opts...)
	register(srv)
	done := make(chan struct{})
	go func() { defer close(done); srv.Serve(lis) }()
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn.Close()
		srv.Stop()
		<-done
	})
	return conn
}

// traceServer checks each export against the traces that exportedTraces
// makes, and counts them.
type traceServer struct {
	ptraceotlp.UnimplementedGRPCServer
	mu    sync.Mutex
	count int
}

func (s *traceServer) Export(_ context.Context, req ptraceotlp.ExportRequest) (ptraceotlp.ExportResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	spans := req.Traces().ResourceSpans().At(0).ScopeSpans().At(0).Spans()
	want := exportedTraces(s.count).ResourceSpans().At(0).ScopeSpans().At(0).Spans()
	if spans.Len() != want.Len() {
		return ptraceotlp.NewExportResponse(), status.Errorf(codes.DataLoss, "export %d: %d spans, want %d", s.count, spans.Len(), want.Len())
	}
	for i := range spans.Len() {
		g, w := spans.At(i), want.At(i)
		gv, _ := g.Attributes().Get("payload")
		wv, _ := w.Attributes().Get("payload")
		if g.Name() != w.Name() || gv.Str() != wv.Str() {
			return ptraceotlp.NewExportResponse(), status.Errorf(codes.DataLoss, "export %d, span %d: %q, want %q", s.count, i, g.Name(), w.Name())
		}
	}
	s.count++
	return ptraceotlp.NewExportResponse(), nil
}

// exportedTraces is export n: 50 spans, each with a string attribute.
func exportedTraces(n int) ptrace.Traces {
	td := ptrace.NewTraces()
	spans := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans()
	for i := range 50 {
		sp := spans.AppendEmpty()
		sp.SetName(fmt.Sprintf("export %d span %d", n, i))
		sp.SetTraceID(pcommon.TraceID{byte(n), byte(i), 1})
		sp.Attributes().PutStr("payload", strings.Repeat(fmt.Sprint(n, i), 20))
	}
	return td
}

// PData exports 20 traces through the OpenTelemetry Collector's pdata, whose
// request and response types only pdata's codec knows (they are not
// proto.Message), from a pdata client to a pdata server in this process.
func PData(t *testing.T) {
	srv := &traceServer{}
	conn := Serve(t, func(s *grpc.Server) { ptraceotlp.RegisterGRPCServer(s, srv) })
	client := ptraceotlp.NewGRPCClient(conn)
	for n := range 20 {
		if _, err := client.Export(context.Background(), ptraceotlp.NewExportRequestFromTraces(exportedTraces(n))); err != nil {
			t.Fatalf("OTLP export %d through pdata: %v", n, err)
		}
	}
	if srv.count != 20 {
		t.Fatalf("the server checked %d exports, want 20", srv.count)
	}
}

// sampleServer keeps every Sample it receives.
type sampleServer struct {
	mu   sync.Mutex
	kept []*keepbuf.Sample
}

func (s *sampleServer) Put(m *keepbuf.Sample) error {
	s.mu.Lock()
	s.kept = append(s.kept, m)
	s.mu.Unlock()
	return nil
}

func label(i int) string { return strings.Repeat(fmt.Sprintf("sample %04d;", i), 400) }

// KeptBuffers sends 300 Samples of about 4.8 KB to a server that keeps them
// all, then checks every kept Sample: their Labels refer into the receive
// buffers, which keepbuf's codec keeps alive. A codec that replaced
// keepbuf's would let gRPC reuse those buffers for later calls, and the
// kept Labels would change.
func KeptBuffers(t *testing.T) {
	srv := &sampleServer{}
	conn := Serve(t, func(s *grpc.Server) { keepbuf.RegisterSampleServer(s, srv) })
	const n = 300
	for i := range n {
		if err := keepbuf.PutSample(context.Background(), conn, &keepbuf.Sample{Label: label(i)}); err != nil {
			t.Fatal(err)
		}
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if len(srv.kept) != n {
		t.Fatalf("the server kept %d samples, want %d", len(srv.kept), n)
	}
	changed := 0
	for i, m := range srv.kept {
		if m.Label != label(i) {
			changed++
		}
		m.Release()
	}
	if changed > 0 {
		t.Fatalf("%d of %d kept samples changed after later calls: their receive buffers were reused", changed, n)
	}
}

// Stream is the generated service of a scenario: Chunk and Ack of earlypb
// or latepb, whose packages are generated alike.
type Stream[C, A any] struct {
	Register func(grpc.ServiceRegistrar, func(grpc.ClientStreamingServer[C, A]) error)
	// RegisterPooled registers the service with its generated
	// Register<Service>ServerPooled: check serves the unary Check.
	RegisterPooled func(grpc.ServiceRegistrar, func(context.Context, *C) (*A, error), ...grpcfast.PooledOption)
	// NewReusingClient returns the generated reusing client's Check.
	NewReusingClient func(grpc.ClientConnInterface, ...grpcfast.PooledOption) (check func(context.Context, *C) (*A, error), release func())
	NewReceiver      func(grpc.ClientStreamingServer[C, A]) interface {
		Recv() (*C, error)
		Release()
	}
	Open     func(context.Context, grpc.ClientConnInterface) (grpc.ClientStreamingClient[C, A], error)
	NewChunk func(seq int64, data []byte) *C
	Chunk    func(*C) (seq int64, data []byte)
	NewAck   func(count, size int64) *A
	Ack      func(*A) (count, size int64)
}

func chunkData(seq int64) []byte {
	b := bytes.Repeat([]byte{byte(seq), byte(seq >> 8), 0x5a}, 6000)
	return b[:16<<10-64]
}

// Streams sends 8 streams of 64 chunks of about 16 KiB to a server whose
// handler receives them with the generated receiver and checks each.
func Streams[C, A any](t *testing.T, s Stream[C, A], opts ...grpc.ServerOption) {
	conn := Serve(t, func(srv *grpc.Server) {
		s.Register(srv, func(stream grpc.ClientStreamingServer[C, A]) error {
			r := s.NewReceiver(stream)
			defer r.Release()
			var n, size int64
			for {
				m, err := r.Recv()
				if err == io.EOF {
					return stream.SendAndClose(s.NewAck(n, size))
				}
				if err != nil {
					return err
				}
				seq, data := s.Chunk(m)
				if seq != n || !bytes.Equal(data, chunkData(seq)) {
					return status.Errorf(codes.DataLoss, "chunk %d: seq %d, %d bytes", n, seq, len(data))
				}
				n++
				size += int64(len(data))
			}
		})
	}, opts...)
	for range 8 {
		cs, err := s.Open(context.Background(), conn)
		if err != nil {
			t.Fatal(err)
		}
		var size int64
		for i := range int64(64) {
			d := chunkData(i)
			size += int64(len(d))
			if err := cs.Send(s.NewChunk(i, d)); err != nil {
				t.Fatal(err)
			}
		}
		ack, err := cs.CloseAndRecv()
		if err != nil {
			t.Fatal(err)
		}
		if n, got := s.Ack(ack); n != 64 || got != size {
			t.Fatalf("ack: %d chunks, %d bytes; want 64, %d", n, got, size)
		}
	}
}

// Pooled makes 200 unary calls, each with another chunk, to the generated
// pooled registration (with and without strings and bytes in one owned
// copy) through the generated reusing client (with and without it too): the
// server checks each request, keeps every tenth with KeepRequest and checks
// the kept ones at the end; the client checks each response against the
// call's.
func Pooled[C, A any](t *testing.T, s Stream[C, A]) {
	for _, copied := range []bool{false, true} {
		var opts []grpcfast.PooledOption
		if copied {
			opts = append(opts, grpcfast.WithStringsInOneCopy())
		}
		var mu sync.Mutex
		kept := map[int64]*C{}
		conn := Serve(t, func(srv *grpc.Server) {
			s.RegisterPooled(srv, func(ctx context.Context, m *C) (*A, error) {
				seq, data := s.Chunk(m)
				if !bytes.Equal(data, chunkData(seq)) {
					return nil, status.Errorf(codes.DataLoss, "chunk %d: %d bytes, not its own", seq, len(data))
				}
				if seq%10 == 0 {
					grpcfast.KeepRequest(ctx)
					mu.Lock()
					kept[seq] = m
					mu.Unlock()
				}
				return s.NewAck(seq, int64(len(data))), nil
			}, opts...)
		})
		check, release := s.NewReusingClient(conn, opts...)
		for i := range int64(200) {
			ack, err := check(context.Background(), s.NewChunk(i, chunkData(i)))
			if err != nil {
				t.Fatalf("one copy %v: call %d: %v", copied, i, err)
			}
			if n, size := s.Ack(ack); n != i || size != int64(len(chunkData(i))) {
				t.Fatalf("one copy %v: call %d: ack %d, %d bytes", copied, i, n, size)
			}
		}
		release()
		mu.Lock()
		for seq, m := range kept {
			if got, data := s.Chunk(m); got != seq || !bytes.Equal(data, chunkData(seq)) {
				t.Errorf("one copy %v: the request kept at call %d changed after later calls", copied, seq)
			}
		}
		if len(kept) != 20 {
			t.Errorf("one copy %v: %d requests kept, want 20", copied, len(kept))
		}
		mu.Unlock()
	}
}

// fakeStream is a client stream whose every message is wire, decoded with
// codec, as gRPC's server decodes it with the registered codec.
type fakeStream[C, A any] struct {
	grpc.ServerStream
	codec encoding.CodecV2
	data  mem.BufferSlice // one SliceBuffer, which Free leaves as it is
}

func (f *fakeStream[C, A]) RecvMsg(m any) error { return f.codec.Unmarshal(f.data, m) }

func (f *fakeStream[C, A]) Recv() (*C, error) {
	m := new(C)
	return m, f.RecvMsg(m)
}

func (f *fakeStream[C, A]) SendAndClose(*A) error { return nil }

// RecvAllocs returns the allocations per message of the generated receiver
// on a stream whose messages codec decodes.
func RecvAllocs[C, A any](s Stream[C, A], codec encoding.CodecV2) float64 {
	wire, err := proto.Marshal(any(s.NewChunk(7, chunkData(7))).(proto.Message))
	if err != nil {
		panic(err)
	}
	r := s.NewReceiver(&fakeStream[C, A]{codec: codec, data: mem.BufferSlice{mem.SliceBuffer(wire)}})
	defer r.Release()
	return testingAllocs(func() {
		if _, err := r.Recv(); err != nil {
			panic(err)
		}
	})
}

var testingAllocs = func(f func()) float64 { return testing.AllocsPerRun(200, f) }

// InEffect fails t unless the codec registered under "proto" decodes the
// generated receiver's messages with grpcfast's reuse: fewer allocations
// per 16 KiB message than gRPC's standard codec on the same receiver, and
// none on most messages (the standard codec allocates the bytes of each).
func InEffect[C, A any](t *testing.T, s Stream[C, A], std encoding.CodecV2) {
	t.Helper()
	registered := RecvAllocs(s, encoding.GetCodecV2("proto"))
	standard := RecvAllocs(s, std)
	t.Logf("allocations per received 16 KiB message: registered codec %.1f, gRPC's standard codec %.1f", registered, standard)
	if registered >= 0.5 || registered >= standard {
		t.Errorf("allocations per received message: %.1f through the registered codec, %.1f through gRPC's standard codec: grpcfast is not in effect for generated types", registered, standard)
	}
}
