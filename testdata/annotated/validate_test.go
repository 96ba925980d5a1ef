package annotated_test

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"

	"buf.build/go/protovalidate"
	protovalidatemw "github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/protovalidate"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast"

	checkv1 "example.com/annotated/gen/acme/check/v1"
)

// checker answers every check from copies of what it read, and counts the
// calls that reached it.
type checker struct {
	checkv1.UnimplementedCheckServiceServer
	mu    sync.Mutex
	calls int
}

func (c *checker) Check(_ context.Context, req *checkv1.CheckRequest) (*checkv1.CheckResponse, error) {
	c.mu.Lock()
	c.calls++
	c.mu.Unlock()
	return &checkv1.CheckResponse{Allowed: req.GetPermission() == "view"}, nil
}

func (c *checker) CheckBulk(_ context.Context, req *checkv1.CheckBulkRequest) (*checkv1.CheckBulkResponse, error) {
	c.mu.Lock()
	c.calls++
	c.mu.Unlock()
	resp := &checkv1.CheckBulkResponse{}
	for _, item := range req.GetItems() {
		// A reply must not share memory with the request: clone what it echoes.
		resp.Pairs = append(resp.Pairs, &checkv1.CheckBulkResponseItem{Request: proto.Clone(item).(*checkv1.CheckRequest), Allowed: item.GetPermission() == "view"})
	}
	return resp, nil
}

// auditLog keeps every request it sees past the call, as an asynchronous
// audit log would: with grpcfast.KeepRequest (keep) or a copy (clone).
type auditLog struct {
	keep bool
	mu   sync.Mutex
	kept []proto.Message
}

func (a *auditLog) interceptor(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	resp, err := handler(ctx, req)
	m := req.(proto.Message)
	if a.keep {
		if !grpcfast.KeepRequest(ctx) {
			return nil, status.Error(codes.Internal, "KeepRequest reported false in a pooled call")
		}
	} else {
		m = proto.Clone(m)
	}
	a.mu.Lock()
	a.kept = append(a.kept, m)
	a.mu.Unlock()
	return resp, err
}

func ref(typ, id string) *checkv1.ObjectRef { return &checkv1.ObjectRef{ObjectType: typ, ObjectId: id} }

// TestValidationBeforePooledHandler serves CheckService with pooled requests
// (without and with the strings in one copy) behind protovalidate-go's
// interceptor (go-grpc-middleware's) and an audit interceptor that keeps
// every request past its call: requests that break the rules in
// check.proto's buf.validate annotations fail with InvalidArgument before
// the handler, valid ones reach it, and every kept request still equals what
// the client sent after the pooled messages served many later calls. Run
// with -race and with -tags grpcfast_checked (make test does both), where
// a request given back to the pool is poisoned: a kept request that were
// not kept would then differ.
func TestValidationBeforePooledHandler(t *testing.T) {
	validator, err := protovalidate.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		opts []grpcfast.PooledOption
		keep bool
	}{
		{"pooled, kept with KeepRequest", nil, true},
		{"pooled, kept as a copy", nil, false},
		{"pooled with one copy, kept with KeepRequest", []grpcfast.PooledOption{grpcfast.WithStringsInOneCopy()}, true},
		{"pooled with one copy, kept as a copy", []grpcfast.PooledOption{grpcfast.WithStringsInOneCopy()}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			audit := &auditLog{keep: tc.keep}
			srv := grpc.NewServer(grpc.ChainUnaryInterceptor(audit.interceptor, protovalidatemw.UnaryServerInterceptor(validator)))
			c := &checker{}
			checkv1.RegisterCheckServiceServerPooled(srv, c, tc.opts...)
			client := serve(t, srv)

			ctx := context.Background()
			for _, bad := range []struct {
				req   proto.Message
				field string
			}{
				{&checkv1.CheckRequest{Resource: ref("doc", "1"), Subject: ref("user", "ann")}, "permission"},
				{&checkv1.CheckRequest{Permission: "view", Subject: ref("user", "ann")}, "resource"},
				{&checkv1.CheckRequest{Resource: ref("doc", ""), Permission: "view", Subject: ref("user", "ann")}, "resource.object_id"},
				{&checkv1.CheckBulkRequest{}, "items"},
				{&checkv1.CheckBulkRequest{Items: []*checkv1.CheckRequest{{Resource: ref("doc", "1"), Permission: "view"}}}, "items[0].subject"},
			} {
				var err error
				switch req := bad.req.(type) {
				case *checkv1.CheckRequest:
					_, err = client.Check(ctx, req)
				case *checkv1.CheckBulkRequest:
					_, err = client.CheckBulk(ctx, req)
				}
				if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), bad.field) {
					t.Errorf("%v: got %v, want InvalidArgument naming %s", bad.req, err, bad.field)
				}
			}
			if c.calls != 0 {
				t.Fatalf("%d invalid requests reached the handler", c.calls)
			}

			var sent []proto.Message
			for i := range 50 {
				req := &checkv1.CheckBulkRequest{}
				for j := range i%7 + 1 {
					perm := "view"
					if j%2 == 1 {
						perm = "edit"
					}
					req.Items = append(req.Items, &checkv1.CheckRequest{
						Resource:   ref("document", fmt.Sprintf("doc-%d-%d", i, j)),
						Permission: perm,
						Subject:    ref("user", fmt.Sprintf("user-%d-%d-%s", i, j, strings.Repeat("x", i))),
					})
				}
				resp, err := client.CheckBulk(ctx, req)
				if err != nil {
					t.Fatal(err)
				}
				if len(resp.Pairs) != len(req.Items) || !proto.Equal(resp.Pairs[0].Request, req.Items[0]) || !resp.Pairs[0].Allowed {
					t.Fatalf("call %d: response %v for request %v", i, resp, req)
				}
				sent = append(sent, req)
				one := &checkv1.CheckRequest{Resource: ref("folder", fmt.Sprint(i)), Permission: "edit", Subject: ref("team", fmt.Sprint(i*i))}
				if resp, err := client.Check(ctx, one); err != nil || resp.Allowed {
					t.Fatalf("call %d: Check: %v, %v", i, resp, err)
				}
				sent = append(sent, one)
			}
			if c.calls != len(sent) {
				t.Errorf("the handler served %d calls, want %d", c.calls, len(sent))
			}
			audit.mu.Lock()
			defer audit.mu.Unlock()
			if len(audit.kept) != len(sent)+5 {
				t.Fatalf("the audit log kept %d requests, want %d (the invalid ones too)", len(audit.kept), len(sent)+5)
			}
			for i, want := range sent {
				if got := audit.kept[5+i]; !proto.Equal(got, want) {
					t.Errorf("kept request %d changed after its call:\n got %v\nwant %v", i, got, want)
				}
			}
		})
	}
}

// serve serves srv on a loopback port until the test ends and returns a
// client of CheckService.
func serve(t *testing.T, srv *grpc.Server) checkv1.CheckServiceClient {
	t.Helper()
	conn := dial(t, srv)
	return checkv1.NewCheckServiceClient(conn)
}

// dial serves srv on a loopback port until the test ends and returns a
// connection to it.
func dial(t *testing.T, srv *grpc.Server) *grpc.ClientConn {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan struct{})
	go func() {
		defer close(served)
		srv.Serve(lis)
	}()
	t.Cleanup(func() {
		srv.Stop()
		<-served
	})
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

func grpcfastWithCopy() []grpcfast.PooledOption {
	return []grpcfast.PooledOption{grpcfast.WithStringsInOneCopy()}
}
