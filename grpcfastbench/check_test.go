package grpcfastbench

import (
	"context"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"

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

// richMessages returns n Rich messages of inners Inner elements each, every
// element a small message of its own: a decoded corpus's shape.
func richMessages(n, inners int) []proto.Message {
	list := make([]proto.Message, n)
	for i := range list {
		r := &kinds.Rich{Id: int64(i), Name: "rich " + strconv.Itoa(i)}
		for j := range inners {
			r.Inners = append(r.Inners, &kinds.Inner{Label: "inner " + strconv.Itoa(j), Values: []uint32{uint32(j)}})
		}
		list[i] = r
	}
	return list
}

// scanHeap returns the bytes of heap that the collector scans, after a
// collection.
func scanHeap() int64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/scan/heap:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// TestStubKeepsRequestsEncoded checks that a stub server holds the requests
// it checks against as bytes that the collector does not scan: a decoded
// corpus would be heap that a server in its own process marks in every
// collection, on every path.
func TestStubKeepsRequestsEncoded(t *testing.T) {
	const n, inners = 16, 1000
	base := scanHeap()
	decoded := richMessages(n, inners)
	held := scanHeap() - base
	runtime.KeepAlive(decoded)
	// The control: decoded messages are scanned heap, about 1.5 MiB here.
	if held < n*inners*64 {
		t.Fatalf("%d decoded messages hold %d bytes of scanned heap; want at least %d", n, held, n*inners*64)
	}

	base = scanHeap()
	st := &stub{reqs: encodeSent(richMessages(n, inners))}
	kept := scanHeap() - base
	// The encoded requests are bytes the collector does not scan: what
	// the stub adds is their slice headers. A quarter leaves room for
	// whatever another goroutine of the process keeps meanwhile.
	if kept > held/4 {
		t.Errorf("a stub holding %d requests adds %d bytes of scanned heap, where the decoded requests hold %d; want at most %d",
			n, kept, held, held/4)
	}
	// A checked call still finds the requests as they were sent.
	sent, err := st.sentReqs(check{on: true, call: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := richMessages(n, inners)
	if len(sent) != n {
		t.Fatalf("sentReqs returned %d requests; want %d", len(sent), n)
	}
	for i := range sent {
		if !proto.Equal(sent[i], want[i]) {
			t.Errorf("request %d decodes unlike the one sent", i)
		}
	}
	if got, err := st.sentReqs(check{}); got != nil || err != nil {
		t.Errorf("an unchecked call decoded %d requests (%v); want none", len(got), err)
	}
	runtime.KeepAlive(st)
}

// TestSentMsgsKeepsWhatDoesNotEncode checks that requests that do not
// encode (an invalid UTF-8 string of proto3), or that are not all of one
// type, are kept as they are, for the check to compare with what the
// client's codec sends.
func TestSentMsgsKeepsWhatDoesNotEncode(t *testing.T) {
	bad := &kinds.Rich{Name: "\xff"}
	for _, list := range [][]proto.Message{
		{&kinds.Rich{Id: 1}, bad},
		{&kinds.Rich{Id: 1}, &kinds.Inner{Label: "x"}},
	} {
		s := encodeSent(list)
		got, err := s.decode()
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(list) {
			t.Fatalf("decode returned %d messages; want %d", len(got), len(list))
		}
		for i := range list {
			if got[i] != list[i] {
				t.Errorf("message %d (%T) was not kept as it is", i, list[i])
			}
		}
	}
	if got, err := encodeSent(nil).decode(); len(got) != 0 || err != nil {
		t.Errorf("no requests decode as %d (%v); want none", len(got), err)
	}
}
