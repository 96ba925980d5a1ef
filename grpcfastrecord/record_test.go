package grpcfastrecord_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast/grpcfastrecord"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
)

const service = "grpcfast.testdata.kinds.Kinds"

// server answers every call with its requests' names, and receives client
// streams with the generated receiver, which reuses one message.
type server struct {
	kinds.UnimplementedKindsServer
}

func (server) Unary(_ context.Context, in *kinds.Rich) (*kinds.Rich, error) {
	return &kinds.Rich{Name: "re " + in.Name}, nil
}

func (server) ClientStream(st grpc.ClientStreamingServer[kinds.Rich, kinds.Summary]) error {
	r := kinds.NewKinds_ClientStreamRequestReceiver(st)
	n := 0
	for {
		_, err := r.Recv()
		if err == io.EOF {
			return st.SendAndClose(&kinds.Summary{Count: int64(n)})
		}
		if err != nil {
			return err
		}
		n++
	}
}

func (server) ServerStream(in *kinds.Rich, st grpc.ServerStreamingServer[kinds.Rich]) error {
	for i := range 4 {
		if err := st.Send(&kinds.Rich{Name: fmt.Sprintf("%s %d", in.Name, i), Data: []byte{byte(i)}}); err != nil {
			return err
		}
	}
	return nil
}

func (server) Bidi(st grpc.BidiStreamingServer[kinds.Rich, kinds.Rich]) error {
	for {
		in, err := st.Recv()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := st.Send(&kinds.Rich{Name: "re " + in.Name}); err != nil {
			return err
		}
	}
}

// serve starts the server on loopback with sopts and returns a client
// dialled with copts.
func serve(t *testing.T, sopts []grpc.ServerOption, copts []grpc.DialOption) kinds.KindsClient {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(sopts...)
	kinds.RegisterKindsServer(srv, server{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Serve(lis)
	}()
	t.Cleanup(func() {
		srv.Stop()
		<-done
	})
	cc, err := grpc.NewClient(lis.Addr().String(), append([]grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}, copts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cc.Close() })
	return kinds.NewKindsClient(cc)
}

func rich(name string) *kinds.Rich { return &kinds.Rich{Name: name, Data: []byte(name)} }

// traffic makes calls of every kind and returns what each method's requests
// and responses were, by method.
func traffic(t *testing.T, c kinds.KindsClient) (reqs, ress map[string][]proto.Message) {
	t.Helper()
	ctx := context.Background()
	reqs, ress = map[string][]proto.Message{}, map[string][]proto.Message{}
	for i := range 3 {
		in := rich(fmt.Sprint("unary ", i))
		out, err := c.Unary(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		reqs["Unary"] = append(reqs["Unary"], in)
		ress["Unary"] = append(ress["Unary"], out)
	}
	cs, err := c.ClientStream(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		in := rich(fmt.Sprint("chunk ", i))
		if err := cs.Send(in); err != nil {
			t.Fatal(err)
		}
		reqs["ClientStream"] = append(reqs["ClientStream"], in)
	}
	sum, err := cs.CloseAndRecv()
	if err != nil {
		t.Fatal(err)
	}
	ress["ClientStream"] = []proto.Message{sum}
	in := rich("read")
	ss, err := c.ServerStream(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	reqs["ServerStream"] = []proto.Message{in}
	for {
		out, err := ss.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		ress["ServerStream"] = append(ress["ServerStream"], out)
	}
	bs, err := c.Bidi(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		in := rich(fmt.Sprint("ping ", i))
		if err := bs.Send(in); err != nil {
			t.Fatal(err)
		}
		out, err := bs.Recv()
		if err != nil {
			t.Fatal(err)
		}
		reqs["Bidi"] = append(reqs["Bidi"], in)
		ress["Bidi"] = append(ress["Bidi"], out)
	}
	if err := bs.CloseSend(); err != nil {
		t.Fatal(err)
	}
	if _, err := bs.Recv(); err != io.EOF {
		t.Fatalf("bidi end: %v", err)
	}
	return reqs, ress
}

func newRich() proto.Message    { return new(kinds.Rich) }
func newSummary() proto.Message { return new(kinds.Summary) }

// check compares the corpus in dir with want, per method.
func check(t *testing.T, dir string, reqs, ress map[string][]proto.Message) {
	t.Helper()
	for _, method := range []string{"Unary", "ClientStream", "ServerStream", "Bidi"} {
		for _, requests := range []bool{true, false} {
			want, newMsg := reqs[method], newRich
			if !requests {
				want = ress[method]
				if method == "ClientStream" {
					newMsg = newSummary
				}
			}
			got, err := grpcfastrecord.Read(dir, service, method, requests, newMsg)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Errorf("%s requests=%v: %d messages recorded, want %d", method, requests, len(got), len(want))
				continue
			}
			for i := range got {
				if !proto.Equal(got[i], want[i]) {
					t.Errorf("%s requests=%v: message %d is %v, want %v", method, requests, i, got[i], want[i])
				}
			}
		}
	}
}

func TestRecordServer(t *testing.T) {
	dir := t.TempDir()
	rec, err := grpcfastrecord.New(dir, grpcfastrecord.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := serve(t, []grpc.ServerOption{
		grpc.ChainUnaryInterceptor(rec.UnaryServerInterceptor()),
		grpc.ChainStreamInterceptor(rec.StreamServerInterceptor()),
	}, nil)
	reqs, ress := traffic(t, c)
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	check(t, dir, reqs, ress)
	// Nothing is recorded after Close.
	traffic(t, c)
	check(t, dir, reqs, ress)
}

func TestRecordClient(t *testing.T) {
	dir := t.TempDir()
	rec, err := grpcfastrecord.New(dir, grpcfastrecord.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := serve(t, nil, []grpc.DialOption{
		grpc.WithChainUnaryInterceptor(rec.UnaryClientInterceptor()),
		grpc.WithChainStreamInterceptor(rec.StreamClientInterceptor()),
	})
	reqs, ress := traffic(t, c)
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	check(t, dir, reqs, ress)
}

// TestRecordBounds checks the sampling, the per-method choice and the
// bounds in messages and bytes.
func TestRecordBounds(t *testing.T) {
	for _, tc := range []struct {
		name       string
		opts       grpcfastrecord.Options
		method     string
		requests   bool
		want       []int // indexes of the recorded messages
		unrecorded []string
	}{
		{"every 2", grpcfastrecord.Options{Every: 2}, "ClientStream", true, []int{0, 2, 4}, nil},
		{"max messages", grpcfastrecord.Options{MaxMessages: 2}, "ClientStream", true, []int{0, 1}, nil},
		// Each "chunk N" Rich encodes to 18 bytes, 19 with its length.
		{"max bytes", grpcfastrecord.Options{MaxBytes: 3*19 + 18}, "ClientStream", true, []int{0, 1, 2}, nil},
		{"methods", grpcfastrecord.Options{Every: 2, Methods: map[string]int{"/" + service + "/Unary": 0, "/" + service + "/Bidi": 3}},
			"Bidi", false, []int{0}, []string{"ClientStream", "ServerStream"}},
		{"methods default every", grpcfastrecord.Options{Every: 2, Methods: map[string]int{"/" + service + "/Unary": 0}},
			"Unary", true, []int{0, 2}, []string{"Bidi"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			rec, err := grpcfastrecord.New(dir, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			c := serve(t, []grpc.ServerOption{
				grpc.ChainUnaryInterceptor(rec.UnaryServerInterceptor()),
				grpc.ChainStreamInterceptor(rec.StreamServerInterceptor()),
			}, nil)
			reqs, ress := traffic(t, c)
			if err := rec.Close(); err != nil {
				t.Fatal(err)
			}
			all := ress[tc.method]
			if tc.requests {
				all = reqs[tc.method]
			}
			got, err := grpcfastrecord.Read(dir, service, tc.method, tc.requests, newRich)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("%d messages recorded, want %d", len(got), len(tc.want))
			}
			for i, j := range tc.want {
				if !proto.Equal(got[i], all[j]) {
					t.Errorf("message %d is %v, want message %d: %v", i, got[i], j, all[j])
				}
			}
			for _, m := range tc.unrecorded {
				if _, err := os.Stat(filepath.Join(dir, service, m)); !os.IsNotExist(err) {
					t.Errorf("%s recorded (%v), want not", m, err)
				}
			}
		})
	}
}

func TestOptionErrors(t *testing.T) {
	for _, tc := range []struct {
		opts grpcfastrecord.Options
		want string
	}{
		{grpcfastrecord.Options{Every: -1}, "grpcfastrecord: Options{MaxMessages: 0, MaxBytes: 0, Every: -1}: MaxMessages, MaxBytes and Every must not be negative"},
		{grpcfastrecord.Options{Methods: map[string]int{"Svc/M": 1}}, `grpcfastrecord: Options.Methods["Svc/M"] = 1: want a full method name such as /pkg.Service/Method and a sampling of 0 or more`},
		{grpcfastrecord.Options{Methods: map[string]int{"/../M": 1}}, `grpcfastrecord: Options.Methods["/../M"] = 1: want a full method name such as /pkg.Service/Method and a sampling of 0 or more`},
	} {
		if _, err := grpcfastrecord.New(t.TempDir(), tc.opts); err == nil || err.Error() != tc.want {
			t.Errorf("%+v: %v, want %q", tc.opts, err, tc.want)
		}
	}
}

func TestReadJSONAndErrors(t *testing.T) {
	dir := t.TempDir()
	m := filepath.Join(dir, service, "Unary")
	if err := os.MkdirAll(m, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(m, grpcfastrecord.RequestsJSONFile), []byte("{\"name\":\"a\"}\n\n{\"name\":\"b\",\"data\":\"AQI=\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := grpcfastrecord.Read(dir, service, "Unary", true, newRich)
	if err != nil {
		t.Fatal(err)
	}
	want := []proto.Message{&kinds.Rich{Name: "a"}, &kinds.Rich{Name: "b", Data: []byte{1, 2}}}
	if len(got) != 2 || !proto.Equal(got[0], want[0]) || !proto.Equal(got[1], want[1]) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got, err := grpcfastrecord.Read(dir, service, "Unary", false, newRich); err != nil || len(got) != 0 {
		t.Errorf("no responses file: %v, %v; want none, no error", got, err)
	}
	if err := os.WriteFile(filepath.Join(m, grpcfastrecord.ResponsesJSONFile), []byte("{\"nope\":1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := grpcfastrecord.Read(dir, service, "Unary", false, newRich); err == nil || !strings.Contains(err.Error(), grpcfastrecord.ResponsesJSONFile+":1:") {
		t.Errorf("bad JSON: %v, want an error naming the file and line", err)
	}
	// A truncated binary file: a length of 5 and two bytes.
	if err := os.WriteFile(filepath.Join(m, grpcfastrecord.ResponsesFile), []byte{5, 0x12, 0x01}, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := grpcfastrecord.Read(dir, service, "Unary", false, newRich); err == nil || !strings.Contains(err.Error(), grpcfastrecord.ResponsesFile+": message 0:") {
		t.Errorf("truncated: %v, want an error naming the file and message", err)
	}
}

// warnings collects what a Recorder warns of.
type warnings struct {
	mu   sync.Mutex
	list []string
}

func (w *warnings) warnf(format string, args ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.list = append(w.list, fmt.Sprintf(format, args...))
}

func (w *warnings) all() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.list)
}

// callUnary passes one call of Unary through rec's server interceptor, the
// handler answering "re " and the request's name.
func callUnary(t *testing.T, rec *grpcfastrecord.Recorder, req *kinds.Rich) {
	t.Helper()
	intercept(t, rec, "Unary", req, &kinds.Rich{Name: "re " + req.Name})
}

// intercept passes one call of method (of service) through rec's server
// interceptor, to a handler that answers reply. It returns the request as
// the handler saw it, encoded, and the response the interceptor returned.
func intercept(t *testing.T, rec *grpcfastrecord.Recorder, method string, req, reply proto.Message) (seen []byte, res any) {
	t.Helper()
	res, err := rec.UnaryServerInterceptor()(context.Background(), req, &grpc.UnaryServerInfo{FullMethod: "/" + service + "/" + method},
		func(_ context.Context, in any) (any, error) {
			seen = marshal(t, in.(proto.Message))
			return reply, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	return seen, res
}
