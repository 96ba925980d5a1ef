package peers

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"storj.io/drpc"
	"storj.io/drpc/drpcenc"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/example/examplepb"
	"github.com/grpcfast/grpcfast/internal/stdcodec"
)

// start serves p on loopback TCP and dials it; both stop when the test ends.
func start(t *testing.T, p Peer) Client {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Serve(lis))
	c, err := p.Dial(lis.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestPayloads moves blobs of sizes around the chunk size on every peer,
// one after the other on one connection, and checks every byte (Get) or
// the size and CRC-32C the server computed (Put).
func TestPayloads(t *testing.T) {
	ctx := context.Background()
	for _, p := range All() {
		t.Run(p.Name, func(t *testing.T) {
			c := start(t, p)
			for _, tc := range []struct {
				size      int64
				chunkSize int
			}{
				{0, ChunkSize}, {1, ChunkSize}, {ChunkSize - 1, ChunkSize}, {ChunkSize, ChunkSize},
				{3*ChunkSize + 5, ChunkSize}, {100_003, 1000}, {1<<20 + 3, 1 << 20},
			} {
				if err := c.Put(ctx, tc.size, tc.chunkSize); err != nil {
					t.Errorf("Put(%d bytes in %d-byte chunks): %v", tc.size, tc.chunkSize, err)
				}
				if err := c.Get(ctx, tc.size, tc.chunkSize); err != nil {
					t.Errorf("Get(%d bytes in %d-byte chunks): %v", tc.size, tc.chunkSize, err)
				}
			}
			for i := 1; i <= 3; i++ {
				resp, err := c.CreateUser(ctx, userRequest())
				if err != nil {
					t.Fatalf("CreateUser: %v", err)
				}
				if want := fmt.Sprint("user-", i); resp.GetId() != want {
					t.Errorf("CreateUser: id %q, want %q", resp.GetId(), want)
				}
			}
			if _, err := c.CreateUser(ctx, &examplepb.CreateUserRequest{}); err == nil {
				t.Error("CreateUser without a name: no error")
			}
			if err := c.Get(ctx, 10, maxChunk+1); err == nil {
				t.Error("Get in chunks larger than the server sends: no error")
			}
		})
	}
}

// TestChecks checks that the checks of the payload fail when they should.
func TestChecks(t *testing.T) {
	b := getBlob(3*ChunkSize + 5)
	var sum putSum
	sum.add(b.data[:ChunkSize])
	sum.add(b.data[2*ChunkSize:])
	sum.add(b.data[ChunkSize : 2*ChunkSize]) // swapped
	if err := checkPut(b, sum.response()); err == nil {
		t.Error("checkPut: no error for swapped chunks")
	}
	g := newGetCheck(int64(len(b.data)), ChunkSize)
	if err := g.add(&examplepb.Chunk{Data: b.data[ChunkSize : 2*ChunkSize]}); err == nil {
		t.Error("getCheck: no error for the second chunk first")
	}
	g = newGetCheck(int64(len(b.data)), ChunkSize)
	if err := g.add(&examplepb.Chunk{Data: b.data[:ChunkSize]}); err != nil {
		t.Fatal(err)
	}
	if err := g.done(); err == nil {
		t.Error("getCheck: no error for a short blob")
	}
	if a, b := getBlob(1000).data, getBlob(2000).data; string(a) != string(b[:1000]) {
		t.Error("a blob is not the prefix of a longer one")
	}
}

// counts are the calls of one codec or encoding type.
type counts struct{ marshal, unmarshal atomic.Int64 }

// counter counts calls per peer and codec type (%T of the codec wrapped).
type counter struct {
	mu sync.Mutex
	m  map[string]*counts // "peer type"
}

func (c *counter) get(peer string, codec any) *counts {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]*counts{}
	}
	k := fmt.Sprintf("%s %T", peer, codec)
	if c.m[k] == nil {
		c.m[k] = new(counts)
	}
	return c.m[k]
}

// of returns "type marshal/unmarshal" for every codec type of a peer,
// sorted by type.
func (c *counter) of(peer string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for k, n := range c.m {
		if typ, ok := strings.CutPrefix(k, peer+" "); ok {
			out = append(out, fmt.Sprintf("%s %d/%d", typ, n.marshal.Load(), n.unmarshal.Load()))
		}
	}
	slices.Sort(out)
	return out
}

type countingGRPCCodec struct {
	encoding.CodecV2
	n *counts
}

func (c countingGRPCCodec) Marshal(v any) (mem.BufferSlice, error) {
	c.n.marshal.Add(1)
	return c.CodecV2.Marshal(v)
}

func (c countingGRPCCodec) Unmarshal(data mem.BufferSlice, v any) error {
	c.n.unmarshal.Add(1)
	return c.CodecV2.Unmarshal(data, v)
}

type countingConnectCodec struct {
	connect.Codec
	n *counts
}

func (c countingConnectCodec) Marshal(v any) ([]byte, error) {
	c.n.marshal.Add(1)
	return c.Codec.Marshal(v)
}

func (c countingConnectCodec) MarshalAppend(b []byte, v any) ([]byte, error) {
	c.n.marshal.Add(1)
	return c.Codec.(interface {
		MarshalAppend([]byte, any) ([]byte, error)
	}).MarshalAppend(b, v)
}

func (c countingConnectCodec) Unmarshal(b []byte, v any) error {
	c.n.unmarshal.Add(1)
	return c.Codec.Unmarshal(b, v)
}

func (c countingConnectCodec) IsBinary() bool { return true }

// countingEncoding counts the calls of a drpc encoding, and keeps its
// MarshalAppend, if it has one.
type countingEncoding struct {
	enc drpc.Encoding
	n   *counts
}

func (e countingEncoding) Marshal(msg drpc.Message) ([]byte, error) {
	e.n.marshal.Add(1)
	return e.enc.Marshal(msg)
}

func (e countingEncoding) MarshalAppend(buf []byte, msg drpc.Message) ([]byte, error) {
	e.n.marshal.Add(1)
	return drpcenc.MarshalAppend(msg, e.enc, buf)
}

func (e countingEncoding) Unmarshal(buf []byte, msg drpc.Message) error {
	e.n.unmarshal.Add(1)
	return e.enc.Unmarshal(buf, msg)
}

// countingStream, countingConn and countingHandler count the encodings of
// every message a drpc stream sends and receives.
type countingStream struct {
	drpc.Stream
	wrap func(drpc.Encoding) drpc.Encoding
}

func (s countingStream) MsgSend(msg drpc.Message, enc drpc.Encoding) error {
	return s.Stream.MsgSend(msg, s.wrap(enc))
}

func (s countingStream) MsgRecv(msg drpc.Message, enc drpc.Encoding) error {
	return s.Stream.MsgRecv(msg, s.wrap(enc))
}

type countingConn struct {
	drpc.Conn
	wrap func(drpc.Encoding) drpc.Encoding
}

func (c countingConn) Invoke(ctx context.Context, rpc string, enc drpc.Encoding, in, out drpc.Message) error {
	return c.Conn.Invoke(ctx, rpc, c.wrap(enc), in, out)
}

func (c countingConn) NewStream(ctx context.Context, rpc string, enc drpc.Encoding) (drpc.Stream, error) {
	s, err := c.Conn.NewStream(ctx, rpc, c.wrap(enc))
	if err != nil {
		return nil, err
	}
	return countingStream{s, c.wrap}, nil
}

type countingHandler struct {
	drpc.Handler
	wrap func(drpc.Encoding) drpc.Encoding
}

func (h countingHandler) HandleRPC(stream drpc.Stream, rpc string) error {
	return h.Handler.HandleRPC(countingStream{stream, h.wrap}, rpc)
}

// TestCodecs checks that every peer encodes with the codec it names:
//   - every codec or drpc encoding that the peers are given is counted, by
//     type, on both ends, over one Put and one Get of 4 chunks and one
//     CreateUser: 12 messages each way;
//   - vtprotobuf's methods neither check nor refuse invalid UTF-8 in a
//     proto3 string, where protobuf-go and grpcfast refuse to send it: a
//     CreateUser with such a name goes through exactly the peers that
//     encode with vtprotobuf (drpc's generated encoding included, which
//     cannot be counted on connect-go's default codec, which is not
//     exported).
func TestCodecs(t *testing.T) {
	var n counter
	var mu sync.Mutex
	var grpcCodecs = map[string]encoding.CodecV2{}
	h := hooks{
		grpcCodec: func(peer string, c encoding.CodecV2) encoding.CodecV2 {
			mu.Lock()
			grpcCodecs[peer] = c
			mu.Unlock()
			return countingGRPCCodec{c, n.get(peer, c)}
		},
		drpcConn: func(peer string, c drpc.Conn) drpc.Conn {
			return countingConn{c, func(e drpc.Encoding) drpc.Encoding { return countingEncoding{e, n.get(peer, e)} }}
		},
		drpcHandler: func(peer string, h drpc.Handler) drpc.Handler {
			return countingHandler{h, func(e drpc.Encoding) drpc.Encoding { return countingEncoding{e, n.get(peer, e)} }}
		},
		connectCodec: func(peer string, c connect.Codec) connect.Codec {
			return countingConnectCodec{c, n.get(peer, c)}
		},
	}
	const gen = "drpcpb.drpcEncoding_File_examplepb_"
	want := map[string][]string{
		PeerGrpcfast: {"*grpcfast.Codec 12/12"},
		PeerGRPCStd:  {fmt.Sprintf("%T 12/12", stdcodec.Codec())},
		// Its own chunks (the 4 of Put, the 4 of Get) without the
		// codec it wraps: counted as its own.
		PeerGRPCFloor: {"peers.floorCodec 12/12"},
		// Put: 4 chunks and the response; Get: the request and 4 chunks.
		PeerDRPCVTProto: {gen + "chunk_proto 10/10", gen + "user_proto 2/2"},
		// The chunks and CreateUser with vtEncoding; the Put's response and
		// the Get's request with the generated encoding.
		PeerDRPCReuse:      {gen + "chunk_proto 2/2", "peers.vtEncoding 10/10"},
		PeerConnect:        nil,
		PeerConnectVTProto: {"peers.vtCodec 12/12"},
	}
	vt := map[string]bool{PeerDRPCVTProto: true, PeerDRPCReuse: true, PeerConnectVTProto: true}
	ctx := context.Background()
	for _, p := range newPeers(h) {
		t.Run(p.Name, func(t *testing.T) {
			c := start(t, p)
			callEach(t, ctx, c)
			if got := n.of(p.Name); !reflect.DeepEqual(got, want[p.Name]) {
				t.Errorf("codec calls (marshal/unmarshal) by type: %q, want %q", got, want[p.Name])
			}
			_, err := c.CreateUser(ctx, &examplepb.CreateUserRequest{Name: "\xff"})
			if vt[p.Name] && err != nil {
				t.Errorf("CreateUser with invalid UTF-8, which vtprotobuf sends and accepts: %v", err)
			}
			if !vt[p.Name] && err == nil {
				t.Error("CreateUser with invalid UTF-8, which protobuf-go and grpcfast refuse to send: no error")
			}
		})
	}
	if _, ok := grpcCodecs[PeerGrpcfast].(*grpcfast.Codec); !ok {
		t.Errorf("grpcfast's codec is a %T", grpcCodecs[PeerGrpcfast])
	}
	if grpcCodecs[PeerGRPCStd] != stdcodec.Codec() {
		t.Errorf("grpc-std's codec is a %T, not gRPC's standard codec", grpcCodecs[PeerGRPCStd])
	}
}

// TestConnectProtocol checks that the connect peers speak the Connect
// protocol (not gRPC's), with binary protobuf, over HTTP/2, and compress
// nothing either way.
func TestConnectProtocol(t *testing.T) {
	type seen struct{ proto, contentType, reqEncoding, respEncoding string }
	var mu sync.Mutex
	var got []seen
	h := hooks{httpHandler: func(_ string, next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			s := seen{
				proto:       r.Proto,
				contentType: r.Header.Get("Content-Type"),
				reqEncoding: r.Header.Get("Content-Encoding") + r.Header.Get("Connect-Content-Encoding"),
			}
			// Record the response's headers before anything of it is
			// written, so that the client cannot see its end first.
			next.ServeHTTP(&headerRecorder{ResponseWriter: w, record: func(h http.Header) {
				s.respEncoding = h.Get("Content-Encoding") + h.Get("Connect-Content-Encoding")
				mu.Lock()
				got = append(got, s)
				mu.Unlock()
			}}, r)
		})
	}}
	ctx := context.Background()
	for _, p := range newPeers(h) {
		if !strings.HasPrefix(p.Name, "connect") {
			continue
		}
		t.Run(p.Name, func(t *testing.T) {
			mu.Lock()
			got = nil
			mu.Unlock()
			callEach(t, ctx, start(t, p))
			want := []seen{
				{"HTTP/2.0", "application/connect+proto", "", ""},
				{"HTTP/2.0", "application/connect+proto", "", ""},
				{"HTTP/2.0", "application/proto", "", ""},
			}
			mu.Lock()
			defer mu.Unlock()
			if !reflect.DeepEqual(got, want) {
				t.Errorf("requests (protocol, content type, request and response encodings):\n got %q\nwant %q", got, want)
			}
		})
	}
}

// headerRecorder calls record with the response's headers when the handler
// first writes or flushes.
type headerRecorder struct {
	http.ResponseWriter
	record   func(http.Header)
	recorded bool
}

func (w *headerRecorder) once() {
	if !w.recorded {
		w.recorded = true
		w.record(w.Header())
	}
}

func (w *headerRecorder) WriteHeader(code int) {
	w.once()
	w.ResponseWriter.WriteHeader(code)
}

func (w *headerRecorder) Write(b []byte) (int, error) {
	w.once()
	return w.ResponseWriter.Write(b)
}

func (w *headerRecorder) Flush() {
	w.once()
	http.NewResponseController(w.ResponseWriter).Flush()
}

func (w *headerRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// TestServerProcess runs every op once on every peer against the server
// process that server=process benchmarks use.
func TestServerProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	child, err := theChild()
	if err != nil {
		t.Fatal(err)
	}
	s0, err := child.Stats()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, p := range All() {
		t.Run(p.Name, func(t *testing.T) {
			c, err := p.Dial(child.Addrs[p.Name])
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			for _, op := range benchOps {
				if err := op.call(ctx, c); err != nil {
					t.Errorf("%s: %v", op.name, err)
				}
			}
		})
	}
	s1, err := child.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if s1.CPUNs <= s0.CPUNs || s1.Mallocs <= s0.Mallocs || s1.Bytes <= s0.Bytes {
		t.Errorf("the server process's stats did not grow: %+v, then %+v", s0, s1)
	}
}

// callEach makes one Put and one Get of four chunks, and one CreateUser.
func callEach(t *testing.T, ctx context.Context, c Client) {
	t.Helper()
	if err := c.Put(ctx, 4*ChunkSize, ChunkSize); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, 4*ChunkSize, ChunkSize); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateUser(ctx, userRequest()); err != nil {
		t.Fatal(err)
	}
}

// TestFloorCodec checks that grpc-floor's codec encodes a chunk as
// vtprotobuf does, without copying its bytes, and everything else as the
// codec it wraps.
func TestFloorCodec(t *testing.T) {
	c := floorCodec{grpcfast.NewCodec()}
	for _, n := range []int{1, 127, 128, ChunkSize, 1 << 20} {
		m := &examplepb.Chunk{Data: getBlob(int64(n)).data}
		want, err := m.MarshalVT()
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Materialize(), want) {
			t.Errorf("%d bytes: the encoding differs from MarshalVT's", n)
		}
		if len(got) != 2 || &got[1].ReadOnlyData()[0] != &m.Data[0] {
			t.Errorf("%d bytes: the encoding does not point at the chunk's bytes", n)
		}
		var back examplepb.Chunk
		if err := c.Unmarshal(got, &back); err != nil || !bytes.Equal(back.Data, m.Data) {
			t.Errorf("%d bytes: decoded %d bytes, %v", n, len(back.Data), err)
		}
		got.Free()
	}
	empty, err := c.Marshal(&examplepb.Chunk{})
	if err != nil || empty.Len() != 0 {
		t.Errorf("an empty chunk: %d bytes, %v", empty.Len(), err)
	}
	req := &examplepb.GetRequest{Size: 5, ChunkSize: 3}
	got, err := c.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := req.MarshalVT(); !bytes.Equal(got.Materialize(), want) {
		t.Error("a GetRequest: the encoding differs from MarshalVT's")
	}
}
