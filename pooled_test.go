package grpcfast_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/stats"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"github.com/grpcfast/grpcfast/internal/own"
	"github.com/grpcfast/grpcfast/internal/testprotos/hostile"
	"github.com/grpcfast/grpcfast/internal/testprotos/imports"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
)

// pooledModes are the two ways to register a service with pooled requests.
var pooledModes = []struct {
	name string
	opts []grpcfast.PooledOption
}{
	{"pooled", nil},
	{"pooled+copy", []grpcfast.PooledOption{grpcfast.WithStringsInOneCopy()}},
}

// pooledUnary is a Kinds server whose Unary calls fn.
type pooledUnary struct {
	kinds.UnimplementedKindsServer
	fn func(ctx context.Context, in *kinds.Rich) (*kinds.Rich, error)
}

func (s pooledUnary) Unary(ctx context.Context, in *kinds.Rich) (*kinds.Rich, error) {
	return s.fn(ctx, in)
}

// startPooled serves impl with RegisterKindsServerPooled on 127.0.0.1.
func startPooled(t testing.TB, impl kinds.KindsServer, opts []grpcfast.PooledOption, sopts ...grpc.ServerOption) *grpc.ClientConn {
	t.Helper()
	_, conn := grpcfasttest.ServeAndDial(t, func(s *grpc.Server) { kinds.RegisterKindsServerPooled(s, impl, opts...) }, sopts, nil)
	return conn
}

// outPayloads is a server stats handler that signals every reply gRPC has
// encoded: the pooled handler gave its request back before, on the same
// goroutine, so a receive from done happens after the request went back.
type outPayloads struct{ done chan struct{} }

func (h outPayloads) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context { return ctx }
func (h outPayloads) HandleRPC(_ context.Context, s stats.RPCStats) {
	if _, ok := s.(*stats.OutPayload); ok {
		h.done <- struct{}{}
	}
}
func (h outPayloads) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context { return ctx }
func (h outPayloads) HandleConn(context.Context, stats.ConnStats)                       {}

func isPoisoned(b []byte) bool {
	return len(b) >= 4 && bytes.Contains(b, []byte{0xDE, 0xAD, 0xBE, 0xEF})
}

// TestPooledUnary: 16 clients at once call a pooled Unary with random
// requests; each handler answers with a copy of its request, and every
// reply equals what was sent. Requests are decoded into reused messages
// (except in quarantine builds, which never reuse).
func TestPooledUnary(t *testing.T) {
	for _, mode := range pooledModes {
		t.Run(mode.name, func(t *testing.T) {
			var seen sync.Map // *kinds.Rich → true
			var calls, distinct int64
			var mu sync.Mutex
			conn := startPooled(t, pooledUnary{fn: func(_ context.Context, in *kinds.Rich) (*kinds.Rich, error) {
				if _, dup := seen.LoadOrStore(in, true); !dup {
					mu.Lock()
					distinct++
					mu.Unlock()
				}
				mu.Lock()
				calls++
				mu.Unlock()
				return proto.Clone(in).(*kinds.Rich), nil
			}}, mode.opts)
			client := kinds.NewKindsClient(conn)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			err := grpcfasttest.Concurrently(ctx, 16, func(ctx context.Context, s int) error {
				r := rand.New(rand.NewPCG(uint64(s), 20))
				for i := range 40 {
					want := grpcfasttest.RandomRich(r)
					if i%7 == 0 {
						want = grpcfasttest.FullRich(300 * i)
					}
					got, err := client.Unary(ctx, want)
					if err != nil {
						return err
					}
					if !proto.Equal(got, want) {
						return fmt.Errorf("call %d: reply\n%v\nwant\n%v", i, got, want)
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			// One client in turn: with a pool, messages come back.
			seen, calls, distinct = sync.Map{}, 0, 0
			for i := range 50 {
				if _, err := client.Unary(ctx, grpcfasttest.FullRich(i)); err != nil {
					t.Fatal(err)
				}
			}
			switch {
			case own.Quarantine && distinct != calls:
				t.Errorf("quarantine build: %d calls got %d distinct requests, want a new one per call", calls, distinct)
			case !own.Quarantine && distinct == calls:
				t.Errorf("%d calls in turn got %d distinct requests: none was reused", calls, distinct)
			}
		})
	}
}

// TestPooledEchoPoisoned: a handler whose reply shares the request's bytes
// sends poison in checked builds, since gRPC encodes the reply after the
// request went back to the pool. With the owned copy, bytes are views of a
// copy that is never written into, and arrive intact.
func TestPooledEchoPoisoned(t *testing.T) {
	if !grpcfast.Checked {
		t.Skip("poison needs a checked build (-race or -tags grpcfast_checked)")
	}
	for _, mode := range pooledModes {
		t.Run(mode.name, func(t *testing.T) {
			conn := startPooled(t, pooledUnary{fn: func(_ context.Context, in *kinds.Rich) (*kinds.Rich, error) {
				return &kinds.Rich{Data: in.Data}, nil // wrong: shares the request's memory
			}}, mode.opts)
			client := kinds.NewKindsClient(conn)
			// 1000 bytes are decoded into the request's memory; 4000, in one
			// frame, as a view of the transport buffer.
			for i, size := range []int{1000, 4000, 1001, 4001} {
				want := grpcfasttest.Pattern(size)
				got, err := client.Unary(context.Background(), &kinds.Rich{Data: want})
				if err != nil {
					t.Fatal(err)
				}
				copied := mode.opts != nil
				switch {
				case copied && !bytes.Equal(got.Data, want):
					t.Fatalf("call %d: the owned copy changed under an echoed bytes field", i)
				case !copied && !isPoisoned(got.Data):
					t.Fatalf("call %d: echoed bytes arrived intact; want the poison of a request given back", i)
				}
			}
		})
	}
}

// TestPooledKeepRequest: requests kept with KeepRequest, from the handler
// through a derived context or from an interceptor, stay as they were sent
// while 8 clients go on calling; KeepRequest fails once the handler has
// returned, and outside a pooled handler.
func TestPooledKeepRequest(t *testing.T) {
	type ctxKey struct{}
	for _, mode := range pooledModes {
		for _, where := range []string{"handler", "interceptor"} {
			t.Run(mode.name+"/"+where, func(t *testing.T) {
				var mu sync.Mutex
				kept := map[int64]*kinds.Rich{}
				keep := func(ctx context.Context, in *kinds.Rich) error {
					if in.Id%3 != 0 {
						return nil
					}
					if !grpcfast.KeepRequest(ctx) {
						return errors.New("KeepRequest in a pooled call: false")
					}
					if !grpcfast.KeepRequest(ctx) {
						return errors.New("KeepRequest twice: false")
					}
					mu.Lock()
					kept[in.Id] = in
					mu.Unlock()
					return nil
				}
				ctxs := make(chan context.Context, 1)
				impl := pooledUnary{fn: func(ctx context.Context, in *kinds.Rich) (*kinds.Rich, error) {
					if in.Id == -1 {
						ctxs <- ctx
						return &kinds.Rich{}, nil
					}
					if where == "handler" {
						if err := keep(context.WithValue(ctx, ctxKey{}, 1), in); err != nil {
							return nil, err
						}
					}
					return &kinds.Rich{Id: in.Id}, nil
				}}
				var sopts []grpc.ServerOption
				if where == "interceptor" {
					sopts = append(sopts, grpc.UnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
						if info.FullMethod != kinds.Kinds_Unary_FullMethodName {
							return nil, fmt.Errorf("FullMethod %q", info.FullMethod)
						}
						if err := keep(ctx, req.(*kinds.Rich)); err != nil {
							return nil, err
						}
						return h(context.WithValue(ctx, ctxKey{}, 2), req)
					}))
				}
				conn := startPooled(t, impl, mode.opts, sopts...)
				client := kinds.NewKindsClient(conn)
				callUnary(t, client, 30, richWith)
				ctx := context.Background()
				if len(kept) != 8*10 {
					t.Fatalf("%d requests kept, want 80", len(kept))
				}
				for id, m := range kept {
					if want := richWith(id); !proto.Equal(m, want) {
						t.Fatalf("kept request %d changed:\n%v\nwant\n%v", id, m, want)
					}
				}
				if _, err := client.Unary(ctx, &kinds.Rich{Id: -1}); err != nil {
					t.Fatal(err)
				}
				if grpcfast.KeepRequest(<-ctxs) {
					t.Error("KeepRequest after the handler returned: true")
				}
				if grpcfast.KeepRequest(ctx) {
					t.Error("KeepRequest outside a pooled call: true")
				}
			})
		}
	}
}

// TestPooledCopyStrings: strings that a handler keeps without KeepRequest
// (a careless handler, or one that puts strings into a map) never change,
// while 8 clients go on calling: in chunks of their own decode, or views of
// the owned copy; with the copy, so do bytes (without it, a bytes field's
// array is the slot's, for the next request).
func TestPooledCopyStrings(t *testing.T) {
	type keptFields struct {
		name, word, label string
		data, blob        []byte
	}
	for _, mode := range pooledModes {
		t.Run(mode.name, func(t *testing.T) {
			copied := len(mode.opts) > 0
			var mu sync.Mutex
			kept := map[int64]keptFields{}
			conn := startPooled(t, pooledUnary{fn: func(_ context.Context, in *kinds.Rich) (*kinds.Rich, error) {
				k := keptFields{name: in.Name, data: in.Data}
				if len(in.Words) > 0 {
					k.word = in.Words[0]
				}
				if len(in.Blobs) > 0 {
					k.blob = in.Blobs[0]
				}
				if in.Inner != nil {
					k.label = in.Inner.Label
				}
				mu.Lock()
				kept[in.Id] = k
				mu.Unlock()
				return &kinds.Rich{Id: in.Id}, nil
			}}, mode.opts)
			client := kinds.NewKindsClient(conn)
			callUnary(t, client, 40, copyRich)
			mu.Lock()
			defer mu.Unlock()
			for id, k := range kept {
				want := copyRich(id)
				if k.name != want.Name || k.word != want.Words[0] || k.label != want.Inner.Label {
					t.Fatalf("request %d: kept strings changed: %q %q %q", id, k.name, k.word, k.label)
				}
				if copied && (!bytes.Equal(k.data, want.Data) || !bytes.Equal(k.blob, want.Blobs[0])) {
					t.Fatalf("request %d: kept bytes changed: %x %x", id, k.data, k.blob)
				}
			}
		})
	}
}

// copyRich is request id of TestPooledCopyStrings: strings and bytes of
// every kind, their contents depending on id.
func copyRich(id int64) *kinds.Rich {
	s := fmt.Sprintf("request %d ", id)
	return &kinds.Rich{
		Id:     id,
		Name:   s + "name",
		Data:   []byte(s + "data"),
		Words:  []string{s + "word"},
		Blobs:  [][]byte{[]byte(s + "blob")},
		Inner:  &kinds.Inner{Label: s + "label", Payload: []byte(s)},
		Inners: []*kinds.Inner{{Label: s + "inner"}},
	}
}

// TestPooledCarelessKeep: a handler or an interceptor that keeps the
// request, or a slice of it, without KeepRequest finds it reset and its
// memory poisoned once the call is over, in checked builds.
func TestPooledCarelessKeep(t *testing.T) {
	if !grpcfast.Checked {
		t.Skip("poison needs a checked build (-race or -tags grpcfast_checked)")
	}
	for _, where := range []string{"handler", "interceptor"} {
		t.Run(where, func(t *testing.T) {
			var (
				kept     *kinds.Rich
				keptData []byte
			)
			sent := outPayloads{done: make(chan struct{}, 1)}
			sopts := []grpc.ServerOption{grpc.StatsHandler(sent)}
			if where == "interceptor" {
				sopts = append(sopts, grpc.UnaryInterceptor(func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
					kept = req.(*kinds.Rich) // wrong: the request goes back after the call
					keptData = kept.Data
					return h(ctx, req)
				}))
			}
			conn := startPooled(t, pooledUnary{fn: func(_ context.Context, in *kinds.Rich) (*kinds.Rich, error) {
				if where == "handler" {
					kept, keptData = in, in.Data // wrong: the request goes back after the call
				}
				return &kinds.Rich{}, nil
			}}, nil, sopts...)
			want := &kinds.Rich{Name: "kept", Data: grpcfasttest.Pattern(500)}
			if _, err := kinds.NewKindsClient(conn).Unary(context.Background(), want); err != nil {
				t.Fatal(err)
			}
			<-sent.done // the request went back before gRPC encoded the reply
			if !isPoisoned(keptData) {
				t.Errorf("bytes of a request kept without KeepRequest: %x..., want poison", keptData[:8])
			}
			if proto.Equal(kept, want) {
				t.Error("a request kept without KeepRequest is intact after the call; want it reset")
			}
		})
	}
}

// TestPooledHostileInput: malformed and too deep requests into pooled
// messages fail with an error status, on the plain and copy paths, while
// valid requests from other clients, decoded into the same pooled
// messages, stay right.
func TestPooledHostileInput(t *testing.T) {
	for _, mode := range pooledModes {
		t.Run(mode.name, func(t *testing.T) {
			_, conn := grpcfasttest.ServeAndDial(t, func(s *grpc.Server) {
				kinds.RegisterKindsServerPooled(s, pooledUnary{fn: func(_ context.Context, in *kinds.Rich) (*kinds.Rich, error) {
					return proto.Clone(in).(*kinds.Rich), nil
				}}, mode.opts...)
				hostile.RegisterHostileServerPooled(s, hostileClone{}, mode.opts...)
			}, nil, nil)
			client := kinds.NewKindsClient(conn)
			var bad [][]byte
			for _, b := range grpcfasttest.Malformed() {
				bad = append(bad, b)
			}
			deep := grpcfasttest.Nested(grpcfasttest.RepeatTags(10001, grpcfasttest.Tag(1, 2)), nil)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			err := grpcfasttest.Concurrently(ctx, 8, func(ctx context.Context, s int) error {
				r := rand.New(rand.NewPCG(uint64(s), 21))
				for i := range 30 {
					if s%2 == 0 {
						b := bad[(s+i)%len(bad)]
						var out []byte
						err := conn.Invoke(ctx, kinds.Kinds_Unary_FullMethodName, &b, &out, grpc.ForceCodecV2(rawCodec{}))
						if status.Code(err) != codes.Internal {
							return fmt.Errorf("malformed request %x: %v, want code Internal", b[:min(len(b), 16)], err)
						}
						if i%10 == 0 {
							err := conn.Invoke(ctx, hostile.Hostile_Echo_FullMethodName, &deep, &out, grpc.ForceCodecV2(rawCodec{}))
							if status.Code(err) != codes.Internal {
								return fmt.Errorf("10,001 levels: %v, want code Internal", err)
							}
						}
						continue
					}
					want := grpcfasttest.RandomRich(r)
					got, err := client.Unary(ctx, want)
					if err != nil {
						return err
					}
					if !proto.Equal(got, want) {
						return fmt.Errorf("call %d: reply\n%v\nwant\n%v", i, got, want)
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			got, err := hostile.NewHostileClient(conn).Echo(ctx, &hostile.Node{Name: "ok", Child: &hostile.Node{N: 1}})
			if err != nil || got.Name != "ok" || got.Child.GetN() != 1 {
				t.Fatalf("Echo after hostile input: %v, %v", got, err)
			}
		})
	}
}

type hostileClone struct {
	hostile.UnimplementedHostileServer
}

func (hostileClone) Echo(_ context.Context, n *hostile.Node) (*hostile.Node, error) {
	return proto.Clone(n).(*hostile.Node), nil
}

// TestPooledPanicRecovered: a handler that panics on every third call,
// under an interceptor that recovers, fails those calls; the others, at
// once on 8 clients, stay right.
func TestPooledPanicRecovered(t *testing.T) {
	for _, mode := range pooledModes {
		t.Run(mode.name, func(t *testing.T) {
			recovering := grpc.UnaryInterceptor(func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (res any, err error) {
				defer func() {
					if r := recover(); r != nil {
						err = status.Errorf(codes.Internal, "panic: %v", r)
					}
				}()
				return h(ctx, req)
			})
			conn := startPooled(t, pooledUnary{fn: func(_ context.Context, in *kinds.Rich) (*kinds.Rich, error) {
				if in.Id%3 == 0 {
					in.Name = "changed before the panic"
					in.Words = append(in.Words, "appended")
					panic("handler bug")
				}
				return proto.Clone(in).(*kinds.Rich), nil
			}}, mode.opts, recovering)
			client := kinds.NewKindsClient(conn)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			err := grpcfasttest.Concurrently(ctx, 8, func(ctx context.Context, s int) error {
				for i := range 30 {
					want := richWith(int64(s*1000 + i))
					got, err := client.Unary(ctx, want)
					if want.Id%3 == 0 {
						if status.Code(err) != codes.Internal {
							return fmt.Errorf("call %d: %v, want the recovered panic", i, err)
						}
						continue
					}
					if err != nil {
						return err
					}
					if !proto.Equal(got, want) {
						return fmt.Errorf("call %d: reply differs", i)
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// emptyStore serves Store.Clear, whose request, google.protobuf.Empty, has
// no grpcfast methods: the pooled registration keeps protoc-gen-go-grpc's
// handler for it.
type emptyStore struct {
	imports.UnimplementedStoreServer
	keep chan bool
}

func (s emptyStore) Clear(ctx context.Context, _ *emptypb.Empty) (*emptypb.Empty, error) {
	s.keep <- grpcfast.KeepRequest(ctx)
	return &emptypb.Empty{}, nil
}

// TestPooledForeignRequestType: a unary method whose request type comes
// from a package without grpcfast's methods is served as without pooling.
func TestPooledForeignRequestType(t *testing.T) {
	for _, mode := range pooledModes {
		t.Run(mode.name, func(t *testing.T) {
			srv := emptyStore{keep: make(chan bool, 1)}
			_, conn := grpcfasttest.ServeAndDial(t, func(s *grpc.Server) { imports.RegisterStoreServerPooled(s, srv, mode.opts...) }, nil, nil)
			if _, err := imports.NewStoreClient(conn).Clear(context.Background(), &emptypb.Empty{}); err != nil {
				t.Fatal(err)
			}
			if <-srv.keep {
				t.Error("KeepRequest in a handler of a request type that is not pooled: true")
			}
		})
	}
}

// callUnary makes n Unary calls from each of 8 clients at once, the request
// of client s's call i made by req(s*1000+i), and fails t on any error.
func callUnary(t *testing.T, client kinds.KindsClient, n int, req func(id int64) *kinds.Rich) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := grpcfasttest.Concurrently(ctx, 8, func(ctx context.Context, s int) error {
		for i := range n {
			if _, err := client.Unary(ctx, req(int64(s*1000+i))); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestPooledOptions: WithStringsInOneCopy turns on the owned copy, a nil
// option is skipped.
func TestPooledOptions(t *testing.T) {
	for _, tc := range []struct {
		opts []grpcfast.PooledOption
		copy bool
	}{
		{nil, false},
		{[]grpcfast.PooledOption{nil}, false},
		{[]grpcfast.PooledOption{grpcfast.WithStringsInOneCopy()}, true},
		{[]grpcfast.PooledOption{nil, grpcfast.WithStringsInOneCopy(), nil}, true},
	} {
		if got := grpcfast.ResponsesCopy(grpcfast.NewResponses[kinds.Rich](tc.opts...)); got != tc.copy {
			t.Errorf("NewResponses(%v): copy %v, want %v", tc.opts, got, tc.copy)
		}
	}
}
