package example_test

import (
	"bytes"
	"context"
	"hash/crc32"
	"io"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/stats"
	"google.golang.org/grpc/status"

	"github.com/grpcfast/grpcfast/example"
	"github.com/grpcfast/grpcfast/example/examplepb"
)

func TestFillPattern(t *testing.T) {
	whole := make([]byte, 3*4096+1000)
	example.FillPattern(whole, 0)
	// Any piece filled at its offset matches the whole.
	for _, p := range [][2]int{{0, 1}, {1, 7}, {3, 4100}, {4090, 20}, {4096, 8}, {4100, 5000}, {251, 502}, {12000, 1288}} {
		off, n := p[0], p[1]
		piece := make([]byte, n)
		example.FillPattern(piece, int64(off))
		if !bytes.Equal(piece, whole[off:off+n]) {
			t.Errorf("FillPattern at %d, %d bytes, differs from the whole blob", off, n)
		}
	}
	// Swapping two 251-byte-aligned blocks changes the bytes (the stamps),
	// so the checksum catches chunks that arrive out of order.
	a, b := make([]byte, 4096*251), make([]byte, 4096*251)
	example.FillPattern(a, 0)
	example.FillPattern(b, int64(len(a)))
	if bytes.Equal(a, b) {
		t.Error("two consecutive chunks of 4096*251 bytes are equal")
	}
	// PatternChecksum agrees with the bytes.
	if got, want := example.PatternChecksum(int64(len(whole))), crc32.Checksum(whole, crc32.MakeTable(crc32.Castagnoli)); got != want {
		t.Errorf("PatternChecksum = %08x, want %08x", got, want)
	}
}

// TestBlobs moves blobs of sizes around the chunk boundaries both ways, on
// both paths, with and without fresh sends.
func TestBlobs(t *testing.T) {
	ctx := context.Background()
	sizes := []int64{0, 1, 16375, 16376, 16377, 16384, 16385, 3*16384 + 7, 1 << 20}
	chunks := []int{0, 1000, example.FrameChunkSize, example.DefaultChunkSize, 64 << 10}
	for _, path := range paths {
		for _, fresh := range []bool{false, true} {
			var sopts []example.Option
			if fresh {
				sopts = append(sopts, example.WithFreshSends())
			}
			name := path
			if fresh {
				name += "/fresh"
			}
			t.Run(name, func(t *testing.T) {
				e := startEnv(t, path, nil, nil)
				opts := append(e.opts, sopts...)
				for _, size := range sizes {
					for _, chunk := range chunks {
						if err := example.PutBlob(ctx, e.chunk, size, chunk, opts...); err != nil {
							t.Errorf("PutBlob(%d, %d): %v", size, chunk, err)
						}
						if err := example.GetBlob(ctx, e.chunk, size, chunk, opts...); err != nil {
							t.Errorf("GetBlob(%d, %d): %v", size, chunk, err)
						}
					}
				}
			})
		}
	}
}

func TestGetInvalid(t *testing.T) {
	e := startEnv(t, "grpcfast", nil, nil)
	for _, req := range []*examplepb.GetRequest{
		{Size: -1},
		{Size: 10, ChunkSize: -1},
		{Size: 10, ChunkSize: example.MaxChunkSize + 1},
	} {
		stream, err := e.chunk.Get(context.Background(), req)
		if err == nil {
			_, err = stream.Recv()
		}
		if status.Code(err) != codes.InvalidArgument {
			t.Errorf("Get(%v) = %v, want InvalidArgument", req, err)
		}
	}
	if err := example.GetBlob(context.Background(), e.chunk, -1, 0); err == nil {
		t.Error("GetBlob with a negative size succeeded")
	}
	if err := example.PutBlob(context.Background(), e.chunk, 1, -1); err == nil {
		t.Error("PutBlob with a negative chunk size succeeded")
	}
}

// badChunks is a ChunkService that answers with the wrong data.
type badChunks struct {
	examplepb.UnimplementedChunkServiceServer
	mode string
}

func (s *badChunks) Put(stream grpc.ClientStreamingServer[examplepb.Chunk, examplepb.PutResponse]) error {
	var n int64
	for {
		c, err := stream.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		n += int64(len(c.Data))
	}
	return stream.SendAndClose(&examplepb.PutResponse{Size: n, Crc32C: 12345})
}

func (s *badChunks) Get(req *examplepb.GetRequest, stream grpc.ServerStreamingServer[examplepb.Chunk]) error {
	size, chunk := req.GetSize(), int64(req.GetChunkSize())
	var chunks [][]byte
	for off := int64(0); off < size; off += chunk {
		b := make([]byte, min(chunk, size-off))
		example.FillPattern(b, off)
		chunks = append(chunks, b)
	}
	switch s.mode {
	case "flip":
		chunks[len(chunks)/2][3] ^= 1
	case "swap":
		chunks[1], chunks[2] = chunks[2], chunks[1]
	case "short":
		chunks = chunks[:len(chunks)-1]
	case "extra":
		chunks = append(chunks, []byte{1})
	case "split":
		last := chunks[0]
		chunks = append([][]byte{last[:1], last[1:]}, chunks[1:]...)
	}
	for _, c := range chunks {
		if err := stream.Send(&examplepb.Chunk{Data: c}); err != nil {
			return err
		}
	}
	return nil
}

// TestBlobChecksFail: the client helpers notice every kind of wrong answer.
func TestBlobChecksFail(t *testing.T) {
	for _, mode := range []string{"flip", "swap", "short", "extra", "split"} {
		t.Run(mode, func(t *testing.T) {
			srv := grpc.NewServer()
			examplepb.RegisterChunkServiceServer(srv, &badChunks{mode: mode})
			conn := serve(t, srv)
			c := examplepb.NewChunkServiceClient(conn)
			// 4096*251 bytes in chunks of that size: swapped chunks would
			// have equal bytes but for the pattern's stamps.
			if err := example.GetBlob(context.Background(), c, 4*4096*251, 4096*251/4); err == nil {
				t.Error("GetBlob accepted a wrong blob")
			}
			if mode == "flip" {
				if err := example.PutBlob(context.Background(), c, 100000, 0); err == nil || !strings.Contains(err.Error(), "crc32c") {
					t.Errorf("PutBlob with a wrong server checksum = %v, want a checksum error", err)
				}
			}
		})
	}
}

func TestEchoAndUser(t *testing.T) {
	for _, path := range paths {
		for _, fresh := range []bool{false, true} {
			name := path
			if fresh {
				name += "/fresh"
			}
			t.Run(name, func(t *testing.T) {
				e := startEnv(t, path, nil, nil, freshSends(fresh)...)
				ctx := context.Background()
				stream, err := e.echo.Echo(ctx)
				if err != nil {
					t.Fatal(err)
				}
				r := examplepb.NewEchoService_EchoResponseReceiver(stream)
				for i, n := range []int{0, 1, 16376, 16384, 100000, 5} {
					want := make([]byte, n)
					example.FillPattern(want, int64(i))
					if err := stream.Send(&examplepb.Chunk{Data: want}); err != nil {
						t.Fatal(err)
					}
					got, err := r.Recv()
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(got.Data, want) {
						t.Fatalf("echo %d: %d bytes back, differ from the %d sent", i, len(got.Data), n)
					}
				}
				stream.CloseSend()
				if _, err := r.Recv(); err != io.EOF {
					t.Fatalf("after CloseSend, Recv = %v, want io.EOF", err)
				}

				a, err := e.user.CreateUser(ctx, &examplepb.CreateUserRequest{Name: "a"})
				if err != nil {
					t.Fatal(err)
				}
				b, err := e.user.CreateUser(ctx, &examplepb.CreateUserRequest{Name: "b"})
				if err != nil {
					t.Fatal(err)
				}
				if a.Id != "user-1" || b.Id != "user-2" {
					t.Errorf("ids %q, %q; want user-1, user-2", a.Id, b.Id)
				}
				if _, err := e.user.CreateUser(ctx, &examplepb.CreateUserRequest{}); status.Code(err) != codes.InvalidArgument {
					t.Errorf("CreateUser without a name = %v, want InvalidArgument", err)
				}
				// A batch with a user without a name registers none.
				bad := &examplepb.CreateUsersRequest{Users: []*examplepb.CreateUserRequest{{Name: "c"}, {}}}
				if _, err := e.user.CreateUsers(ctx, bad); status.Code(err) != codes.InvalidArgument {
					t.Errorf("CreateUsers with a user without a name = %v, want InvalidArgument", err)
				}
				batch, err := e.user.CreateUsers(ctx, &examplepb.CreateUsersRequest{
					Users: []*examplepb.CreateUserRequest{{Name: "c"}, {Name: "d"}, {Name: "e"}}})
				if err != nil {
					t.Fatal(err)
				}
				var ids []string
				for _, u := range batch.GetUsers() {
					ids = append(ids, u.GetId())
				}
				if strings.Join(ids, ",") != "user-3,user-4,user-5" {
					t.Errorf("CreateUsers ids %q, want user-3, user-4, user-5 in order", ids)
				}
			})
		}
	}
}

// keepingHandler is a stats handler that keeps every message the server
// sends, with the checksum of its data when it was sent: the kind of
// handler that makes reusing a sent message unsafe.
type keepingHandler struct {
	mu   sync.Mutex
	sent []*examplepb.Chunk
	sums []uint32
}

func (h *keepingHandler) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context {
	return ctx
}
func (h *keepingHandler) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context {
	return ctx
}
func (h *keepingHandler) HandleConn(context.Context, stats.ConnStats) {}

func (h *keepingHandler) HandleRPC(_ context.Context, s stats.RPCStats) {
	if out, ok := s.(*stats.OutPayload); ok && !out.Client {
		if c, ok := out.Payload.(*examplepb.Chunk); ok {
			h.mu.Lock()
			h.sent = append(h.sent, c)
			h.sums = append(h.sums, crc32.ChecksumIEEE(c.Data))
			h.mu.Unlock()
		}
	}
}

// changed returns how many kept messages no longer hold what was sent.
func (h *keepingHandler) changed() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for i, c := range h.sent {
		if crc32.ChecksumIEEE(c.Data) != h.sums[i] {
			n++
		}
	}
	return n
}

// TestFreshSends shows what the package documentation says: a stats handler
// that keeps the messages a server sends sees them change when the server
// reuses one message (the bytes on the wire are right either way), and
// does not with WithFreshSends.
func TestFreshSends(t *testing.T) {
	for _, fresh := range []bool{false, true} {
		h := &keepingHandler{}
		e := startEnv(t, "grpcfast", []grpc.ServerOption{grpc.StatsHandler(h)}, nil, freshSends(fresh)...)
		if err := example.GetBlob(context.Background(), e.chunk, 10*4096, 4096); err != nil {
			t.Fatal(err)
		}
		n := h.changed()
		switch {
		case fresh && n != 0:
			t.Errorf("with fresh sends, %d of %d kept messages changed after Send", n, len(h.sent))
		case !fresh && n == 0:
			t.Errorf("reusing one message, none of the %d kept messages changed: the test does not see reuse", len(h.sent))
		}
	}
}

// freshSends returns example.WithFreshSends if fresh.
func freshSends(fresh bool) []example.Option {
	if fresh {
		return []example.Option{example.WithFreshSends()}
	}
	return nil
}
