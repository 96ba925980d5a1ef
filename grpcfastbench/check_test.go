package grpcfastbench

import (
	"context"
	"strings"
	"testing"

	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"

	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
)

// lossyCodec decodes nothing into the messages drop accepts: they stay
// empty, as with a codec that is broken or skips data.
type lossyCodec struct {
	encoding.CodecV2
	drop func(any) bool
}

func (c lossyCodec) Unmarshal(data mem.BufferSlice, v any) error {
	if c.drop(v) {
		return nil
	}
	return c.CodecV2.Unmarshal(data, v)
}

// lossyCodecV1 is lossyCodec for the path with a V1 codec.
type lossyCodecV1 struct {
	encoding.Codec
	drop func(any) bool
}

func (c lossyCodecV1) Unmarshal(data []byte, v any) error {
	if c.drop(v) {
		return nil
	}
	return c.Codec.Unmarshal(data, v)
}

func dropAll(any) bool { return true }

func dropSummary(v any) bool {
	_, ok := v.(*kinds.Summary)
	return ok
}

// loseOn makes the codec of the path named broken decode nothing into the
// messages drop accepts, for the rest of the test.
func loseOn(t *testing.T, broken string, drop func(any) bool) {
	wrapCodec = func(name string, c encoding.CodecV2) encoding.CodecV2 {
		if name != broken {
			return c
		}
		return lossyCodec{c, drop}
	}
	wrapCodecV1 = func(name string, c encoding.Codec) encoding.Codec {
		if name != broken {
			return c
		}
		return lossyCodecV1{c, drop}
	}
	t.Cleanup(func() { wrapCodec, wrapCodecV1 = nil, nil })
}

// TestLossyCodecFailsTheBenchmark proves that a codec that decodes nothing
// fails the benchmark of every kind of method, on every path, at its
// checked warm-up call.
func TestLossyCodecFailsTheBenchmark(t *testing.T) {
	for _, path := range []string{PathProto, PathVtproto, PathGrpcfast} {
		for _, m := range kindsMethods() {
			t.Run(path+"/"+m.Name(), func(t *testing.T) {
				loseOn(t, path, dropAll)
				var failed bool
				withFlags(t, func(c *config) { c.msgs = 3 }, func() {
					testing.Benchmark(func(b *testing.B) {
						Run(b, "grpcfast.testdata.kinds.Kinds", m)
						failed = b.Failed()
					})
				})
				if !failed {
					t.Errorf("the benchmark passed with a codec on codec=%s that decodes nothing", path)
				}
			})
		}
	}
}

// TestCheckedCallErrors checks what the warm-up call says, on the side that
// received the wrong message: the server for requests, the client for
// responses, and that calls without the mark are not checked.
func TestCheckedCallErrors(t *testing.T) {
	methods := kindsMethods()
	for _, tc := range []struct {
		method string
		drop   func(any) bool
		want   string
	}{
		{"Unary", dropAll, "grpcfastbench: Unary: the server received request 0 unlike the one sent"},
		{"ClientStream", dropAll, "grpcfastbench: ClientStream: the server received request 0 unlike the one sent"},
		{"ClientStream", dropSummary, "grpcfastbench: ClientStream: the client received response 0 unlike the one sent"},
		{"ServerStream", dropAll, "grpcfastbench: ServerStream: the server received request 0 unlike the one sent"},
		{"Bidi", dropAll, "grpcfastbench: Bidi: the server received request 0 unlike the one sent"},
	} {
		t.Run(tc.method, func(t *testing.T) {
			loseOn(t, PathGrpcfast, tc.drop)
			cfg := flags
			cfg.msgs = 3
			ms, _, err := fillMessages("grpcfast.testdata.kinds.Kinds", methods, &cfg)
			if err != nil {
				t.Fatal(err)
			}
			paths := newPaths(&cfg)
			envs, err := start("", "grpcfast.testdata.kinds.Kinds", methods, ms, paths, &cfg)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				for _, e := range envs {
					e.close()
				}
			})
			for i, m := range methods {
				if m.Name() != tc.method {
					continue
				}
				for j, p := range paths {
					c := &client{cfg: &cfg, reqs: ms[i].reqs, ress: ms[i].ress, conns: envs[j].conns, n: 1}
					full := "/grpcfast.testdata.kinds.Kinds/" + m.Name()
					err := m.call(checkContext(context.Background()), c, p, full)
					if p.name != PathGrpcfast {
						if err != nil {
							t.Errorf("codec=%s: %v", p.name, err)
						}
						continue
					}
					if err == nil || !strings.Contains(err.Error(), tc.want) {
						t.Errorf("codec=grpcfast: %v, want an error with %q", err, tc.want)
					}
					// Unchecked calls (the timed ones) compare nothing.
					if err := m.call(context.Background(), c, p, full); err != nil {
						t.Errorf("codec=grpcfast, unchecked: %v", err)
					}
				}
			}
		})
	}
}
