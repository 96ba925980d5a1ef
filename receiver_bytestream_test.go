package grpcfast_test

// TestByteStream moves a 64 MiB blob through a ByteStream-shaped service
// (testdata/proto/bytestream), the way a Bazel client talks to a remote
// cache, between a grpcfast end and an end that uses gRPC's standard codec
// and the streams' own Recv, in both directions, over TCP on 127.0.0.1.
//
// Resource names are those of the remote execution API: a blob is uploaded
// to uploads/{id}/blobs/{sha256}/{size} and read from blobs/{sha256}/{size}.
// The server checks every write_offset against the bytes it has committed
// and, at finish_write, the SHA-256 of what it received against the one in
// the name; the client checks the SHA-256 of what it reads back against the
// blob it sent. A stream that ends without finish_write leaves its bytes
// committed, and a later Write resumes from them (QueryWriteStatus says how
// many), as Bazel does after an error.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"iter"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"github.com/grpcfast/grpcfast/internal/own"
	"github.com/grpcfast/grpcfast/internal/testprotos/bytestream"
)

const (
	// bsBlobSize is the size of the blob moved each way.
	bsBlobSize = 64 << 20
	// bsWriteChunk is the data of one WriteRequest: 16 KiB, the default
	// chunk size of Bazel's uploader.
	bsWriteChunk = 16 << 10
	// bsReadChunk is the data of one ReadResponse of the test server.
	bsReadChunk = 64 << 10
)

// bsBlob is bsBlobSize pseudo-random bytes, the same in every run.
var bsBlob = sync.OnceValue(func() []byte {
	b := make([]byte, bsBlobSize)
	rand.NewChaCha8([32]byte{'g', 'r', 'p', 'c', 'f', 'a', 's', 't'}).Read(b)
	return b
})

// bsDigest names a blob by content, as the remote execution API does.
type bsDigest struct {
	hash string // SHA-256, lower-case hex
	size int64
}

func digestOf(b []byte) bsDigest {
	sum := sha256.Sum256(b)
	return bsDigest{hex.EncodeToString(sum[:]), int64(len(b))}
}

func (d bsDigest) uploadName(id string) string {
	return fmt.Sprintf("uploads/%s/blobs/%s/%d", id, d.hash, d.size)
}

func (d bsDigest) blobName() string { return fmt.Sprintf("blobs/%s/%d", d.hash, d.size) }

// parseDigest parses the {sha256}/{size} at the end of a resource name.
func parseDigest(hash, size string) (bsDigest, bool) {
	n, err := strconv.ParseInt(size, 10, 64)
	if _, herr := hex.DecodeString(hash); herr != nil || len(hash) != 2*sha256.Size || err != nil || n < 0 {
		return bsDigest{}, false
	}
	return bsDigest{hash, n}, true
}

// parseUploadName parses uploads/{id}/blobs/{sha256}/{size}.
func parseUploadName(name string) (bsDigest, error) {
	p := strings.Split(name, "/")
	if len(p) == 5 && p[0] == "uploads" && p[1] != "" && p[2] == "blobs" {
		if d, ok := parseDigest(p[3], p[4]); ok {
			return d, nil
		}
	}
	return bsDigest{}, status.Errorf(codes.InvalidArgument, "resource name %q is not uploads/{id}/blobs/{sha256}/{size}", name)
}

// parseBlobName parses blobs/{sha256}/{size}.
func parseBlobName(name string) (bsDigest, error) {
	p := strings.Split(name, "/")
	if len(p) == 3 && p[0] == "blobs" {
		if d, ok := parseDigest(p[1], p[2]); ok {
			return d, nil
		}
	}
	return bsDigest{}, status.Errorf(codes.InvalidArgument, "resource name %q is not blobs/{sha256}/{size}", name)
}

// reuseCheck follows the messages that a generated Receiver returns on one
// stream. The Receiver alternates between two messages (it keeps the last
// one intact until the next one has arrived), and the grpcfast codec keeps
// the memory of each one's data field: a chunk no larger than the one two
// before it lands in the same array. gRPC's standard codec resets the
// message with Reset, which drops that memory, so a moved data field on a
// grpcfast end means the grpcfast codec did not decode the message.
type reuseCheck struct {
	msgs  [2]any
	data  [2]*byte
	n     int
	moves *atomic.Int64 // data fields that moved to a new array
}

func (c *reuseCheck) see(m any, data []byte) error {
	i := c.n % 2
	c.n++
	if c.msgs[i] != nil && m != c.msgs[i] {
		return errors.New("the Receiver returned a new message rather than one of its two reused ones")
	}
	c.msgs[i] = m
	if len(data) > 0 {
		p := unsafe.SliceData(data)
		if c.data[i] != nil && p != c.data[i] {
			c.moves.Add(1)
		}
		c.data[i] = p
	}
	return nil
}

// ---------------------------------------------------------------------------
// The server: an in-memory content-addressed store.

type bsServer struct {
	bytestream.UnimplementedByteStreamServer
	// plain receives with the streams' own Recv, as a server without
	// grpcfast does; otherwise with the generated Receiver.
	plain bool
	// moves counts the moves of the data field of the Receiver's reused
	// message (reuseCheck).
	moves atomic.Int64

	mu      sync.Mutex
	uploads map[string]*bsUpload // by upload resource name
	blobs   map[bsDigest][]byte  // finished and verified
}

type bsUpload struct {
	name     string
	digest   bsDigest
	data     []byte // committed so far
	complete bool
}

func newBSServer(plain bool) *bsServer {
	return &bsServer{plain: plain, uploads: map[string]*bsUpload{}, blobs: map[bsDigest][]byte{}}
}

func (s *bsServer) Write(stream grpc.ClientStreamingServer[bytestream.WriteRequest, bytestream.WriteResponse]) error {
	recv := grpcfasttest.RecvFunc(s.plain, stream.Recv, bytestream.NewByteStream_WriteRequestReceiver(stream))
	check := reuseCheck{moves: &s.moves}
	var up *bsUpload
	for {
		req, err := recv()
		if err == io.EOF {
			if up == nil {
				return status.Error(codes.InvalidArgument, "Write stream without a request")
			}
			// Ended without finish_write: what arrived stays committed,
			// and a later Write may resume from it.
			return stream.SendAndClose(&bytestream.WriteResponse{CommittedSize: s.committed(up)})
		}
		if err != nil {
			return err
		}
		if !s.plain {
			if err := check.see(req, req.Data); err != nil {
				return status.Error(codes.Internal, err.Error())
			}
		}
		if up == nil {
			if up, err = s.startUpload(req.ResourceName, req.WriteOffset); err != nil {
				return err
			}
		} else if req.ResourceName != "" && req.ResourceName != up.name {
			return status.Errorf(codes.InvalidArgument, "resource name changed from %q to %q within one Write", up.name, req.ResourceName)
		}
		finished, err := s.commit(up, req)
		if err != nil {
			return err
		}
		if finished {
			if _, err := recv(); err != io.EOF {
				if err == nil {
					return status.Error(codes.InvalidArgument, "request after the one with finish_write")
				}
				return err
			}
			return stream.SendAndClose(&bytestream.WriteResponse{CommittedSize: up.digest.size})
		}
	}
}

// startUpload returns the upload that a Write stream's first request names:
// a new one at write_offset 0, otherwise the one to resume.
func (s *bsServer) startUpload(name string, offset int64) (*bsUpload, error) {
	d, err := parseUploadName(name)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	up := s.uploads[name]
	if up == nil || offset == 0 {
		up = &bsUpload{name: name, digest: d, data: make([]byte, 0, min(d.size, bsBlobSize))}
		s.uploads[name] = up
	}
	return up, nil
}

// commit appends req's data to the upload if it starts where the committed
// bytes end, and with finish_write checks the whole upload against its
// digest and stores it.
func (s *bsServer) commit(up *bsUpload, req *bytestream.WriteRequest) (finished bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if up.complete {
		return false, status.Errorf(codes.InvalidArgument, "%s is already complete", up.name)
	}
	if have := int64(len(up.data)); req.WriteOffset != have {
		return false, status.Errorf(codes.InvalidArgument, "write_offset %d, want %d: the bytes committed so far", req.WriteOffset, have)
	}
	if end := int64(len(up.data) + len(req.Data)); end > up.digest.size {
		return false, status.Errorf(codes.InvalidArgument, "data up to offset %d, past the size %d in the resource name", end, up.digest.size)
	}
	up.data = append(up.data, req.Data...)
	if !req.FinishWrite {
		return false, nil
	}
	if int64(len(up.data)) != up.digest.size {
		return false, status.Errorf(codes.InvalidArgument, "finish_write at %d bytes, the resource name says %d", len(up.data), up.digest.size)
	}
	if got := digestOf(up.data); got != up.digest {
		return false, status.Errorf(codes.InvalidArgument, "the data's SHA-256 is %s, the resource name says %s", got.hash, up.digest.hash)
	}
	up.complete = true
	s.blobs[up.digest] = up.data
	return true, nil
}

func (s *bsServer) committed(up *bsUpload) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return int64(len(up.data))
}

func (s *bsServer) QueryWriteStatus(_ context.Context, req *bytestream.QueryWriteStatusRequest) (*bytestream.QueryWriteStatusResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	up := s.uploads[req.ResourceName]
	if up == nil {
		return nil, status.Errorf(codes.NotFound, "no upload %q", req.ResourceName)
	}
	return &bytestream.QueryWriteStatusResponse{CommittedSize: int64(len(up.data)), Complete: up.complete}, nil
}

func (s *bsServer) Read(req *bytestream.ReadRequest, stream grpc.ServerStreamingServer[bytestream.ReadResponse]) error {
	d, err := parseBlobName(req.ResourceName)
	if err != nil {
		return err
	}
	s.mu.Lock()
	blob, ok := s.blobs[d]
	s.mu.Unlock()
	if !ok {
		return status.Errorf(codes.NotFound, "no blob %s", req.ResourceName)
	}
	size := int64(len(blob))
	if req.ReadOffset < 0 || req.ReadOffset > size {
		return status.Errorf(codes.OutOfRange, "read_offset %d outside the blob's %d bytes", req.ReadOffset, size)
	}
	if req.ReadLimit < 0 {
		return status.Errorf(codes.InvalidArgument, "negative read_limit %d", req.ReadLimit)
	}
	end := size
	if req.ReadLimit > 0 && req.ReadLimit < size-req.ReadOffset {
		end = req.ReadOffset + req.ReadLimit
	}
	for off := req.ReadOffset; off < end; off += bsReadChunk {
		if err := stream.Send(&bytestream.ReadResponse{Data: blob[off:min(off+bsReadChunk, end)]}); err != nil {
			return err
		}
	}
	return nil
}

// startBS serves impl on 127.0.0.1 and dials it.
func startBS(t *testing.T, impl bytestream.ByteStreamServer, sopts []grpc.ServerOption, dopts []grpc.DialOption) bytestream.ByteStreamClient {
	t.Helper()
	_, conn := grpcfasttest.ServeAndDial(t, func(s *grpc.Server) { bytestream.RegisterByteStreamServer(s, impl) }, sopts, dopts)
	return bytestream.NewByteStreamClient(conn)
}

// ---------------------------------------------------------------------------
// The client.

// bsChunks returns the requests that upload blob[from:] to name: chunks of
// bsWriteChunk bytes, each with its write_offset, the first with the
// resource name, the last with finish_write.
func bsChunks(name string, blob []byte, from int) iter.Seq[*bytestream.WriteRequest] {
	return func(yield func(*bytestream.WriteRequest) bool) {
		for off := from; ; off += bsWriteChunk {
			end := min(off+bsWriteChunk, len(blob))
			req := &bytestream.WriteRequest{WriteOffset: int64(off), Data: blob[off:end], FinishWrite: end == len(blob)}
			if off == from {
				req.ResourceName = name
			}
			if !yield(req) || req.FinishWrite {
				return
			}
		}
	}
}

// bsWrite sends reqs on one Write stream and returns the committed size, or
// the call's status. It stops sending when the server has ended the call.
func bsWrite(ctx context.Context, c bytestream.ByteStreamClient, reqs iter.Seq[*bytestream.WriteRequest]) (int64, error) {
	stream, err := c.Write(ctx)
	if err != nil {
		return 0, err
	}
	for req := range reqs {
		if err := stream.Send(req); err == io.EOF {
			break // the server ended the call: CloseAndRecv returns its status
		} else if err != nil {
			return 0, err
		}
	}
	resp, err := stream.CloseAndRecv()
	if err != nil {
		return 0, err
	}
	return resp.CommittedSize, nil
}

// bsRead reads with req and hands every chunk to fn; it returns the number
// of messages received. plain receives with the stream's own Recv, otherwise
// with the generated Receiver, checked by a reuseCheck counting into moves.
func bsRead(ctx context.Context, c bytestream.ByteStreamClient, req *bytestream.ReadRequest, plain bool, moves *atomic.Int64, fn func([]byte)) (int, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := c.Read(ctx, req)
	if err != nil {
		return 0, err
	}
	recv := grpcfasttest.RecvFunc(plain, stream.Recv, bytestream.NewByteStream_ReadResponseReceiver(stream))
	check := reuseCheck{moves: moves}
	for n := 0; ; n++ {
		m, err := recv()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		if !plain {
			if err := check.see(m, m.Data); err != nil {
				return n, err
			}
		}
		fn(m.Data)
	}
}

// readAll reads the range of blob that req asks for and checks it byte for
// byte against want.
func readAll(ctx context.Context, c bytestream.ByteStreamClient, req *bytestream.ReadRequest, plain bool, moves *atomic.Int64, want []byte) error {
	var got []byte
	if _, err := bsRead(ctx, c, req, plain, moves, func(b []byte) { got = append(got, b...) }); err != nil {
		return err
	}
	if !bytes.Equal(got, want) {
		return fmt.Errorf("read %d bytes from offset %d (limit %d) that differ from the %d bytes written there",
			len(got), req.ReadOffset, req.ReadLimit, len(want))
	}
	return nil
}

func wantCode(t *testing.T, what string, err error, code codes.Code, msg string) {
	t.Helper()
	if status.Code(err) != code || !strings.Contains(status.Convert(err).Message(), msg) {
		t.Errorf("%s: got %v, want %v mentioning %q", what, err, code, msg)
	}
}

// ---------------------------------------------------------------------------
// The test.

func TestByteStream(t *testing.T) {
	size := bsBlobSize
	if testing.Short() {
		size = 4 << 20
	}
	blob := bsBlob()[:size]
	digest := digestOf(blob)
	for _, mix := range []struct{ srv, cli grpcfasttest.Side }{{grpcfasttest.FastSide, grpcfasttest.StdSide}, {grpcfasttest.StdSide, grpcfasttest.FastSide}} {
		t.Run(fmt.Sprintf("server=%v/client=%v", mix.srv, mix.cli), func(t *testing.T) {
			srv, cli := grpcfasttest.NewEndpoint(mix.srv, "server"), grpcfasttest.NewEndpoint(mix.cli, "client")
			impl := newBSServer(srv.Plain)
			c := startBS(t, impl, srv.ServerOptions(), cli.DialOptions())
			var cliMoves atomic.Int64
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()

			// A Bazel cache's error paths, on a small blob, before the big
			// one: the same server and connection must serve it after them.
			t.Run("Errors", func(t *testing.T) {
				small := blob[:5*bsWriteChunk+1000]
				d := digestOf(small)
				chunk := func(name string, i int, off int64) *bytestream.WriteRequest {
					return &bytestream.WriteRequest{ResourceName: name, WriteOffset: off, Data: small[i*bsWriteChunk : (i+1)*bsWriteChunk]}
				}
				for _, tc := range []struct {
					name string
					bad  int64 // write_offset of the third chunk, which starts at 2*bsWriteChunk
				}{
					{"ResentChunk", bsWriteChunk},
					{"SkippedChunk", 3 * bsWriteChunk},
				} {
					name := d.uploadName(tc.name)
					_, err := bsWrite(ctx, c, func(yield func(*bytestream.WriteRequest) bool) {
						_ = yield(chunk(name, 0, 0)) && yield(chunk("", 1, bsWriteChunk)) && yield(chunk("", 2, tc.bad))
					})
					wantCode(t, tc.name, err, codes.InvalidArgument, fmt.Sprintf("write_offset %d, want %d", tc.bad, 2*bsWriteChunk))
					// What came before the bad chunk stays committed, and
					// the upload resumes from there.
					st, err := c.QueryWriteStatus(ctx, &bytestream.QueryWriteStatusRequest{ResourceName: name})
					if err != nil {
						t.Fatalf("%s: QueryWriteStatus: %v", tc.name, err)
					}
					if st.CommittedSize != 2*bsWriteChunk || st.Complete {
						t.Errorf("%s: after the error, committed %d (complete %v), want %d (incomplete)", tc.name, st.CommittedSize, st.Complete, 2*bsWriteChunk)
					}
					committed, err := bsWrite(ctx, c, bsChunks(name, small, int(st.CommittedSize)))
					if err != nil {
						t.Fatalf("%s: resuming: %v", tc.name, err)
					}
					if committed != d.size {
						t.Errorf("%s: resumed write committed %d bytes, want %d", tc.name, committed, d.size)
					}
				}
				if err := readAll(ctx, c, &bytestream.ReadRequest{ResourceName: d.blobName()}, cli.Plain, &cliMoves, small); err != nil {
					t.Errorf("reading the resumed blob: %v", err)
				}

				// A blob whose bytes do not match the digest in its name is
				// refused at finish_write and cannot be read.
				liar := bsDigest{digestOf(blob[1 : len(small)+1]).hash, d.size}
				_, err := bsWrite(ctx, c, bsChunks(liar.uploadName("liar"), small, 0))
				wantCode(t, "wrong digest", err, codes.InvalidArgument, "SHA-256")
				_, err = bsRead(ctx, c, &bytestream.ReadRequest{ResourceName: liar.blobName()}, cli.Plain, &cliMoves, func([]byte) {})
				wantCode(t, "reading the refused blob", err, codes.NotFound, "no blob")

				// A Write whose first request resumes an upload nobody began.
				// As in every error case here, the client sends nothing after
				// the request the server refuses: a message still in flight
				// when the call ends may be lost to its sender's pool in
				// gRPC-Go (TestStreamEndsReleaseEverything), and the pools
				// are checked exactly at the end.
				_, err = bsWrite(ctx, c, func(yield func(*bytestream.WriteRequest) bool) {
					yield(chunk(d.uploadName("never-begun"), 1, bsWriteChunk))
				})
				wantCode(t, "resuming an unknown upload", err, codes.InvalidArgument, fmt.Sprintf("write_offset %d, want 0", bsWriteChunk))
			})

			t.Run("Blob", func(t *testing.T) {
				// The standard end's codec sees every message of a call,
				// each once; the grpcfast end's codec takes a buffer from
				// its pool for every chunk it sends, and its Receiver keeps
				// one message whose data never moves.
				std := srv.Std
				if std == nil {
					std = cli.Std
				}
				fast := srv.Pool
				if fast == nil {
					fast = cli.Pool
				}
				moves := &impl.moves
				if !cli.Plain {
					moves = &cliMoves
				}
				std0, fast0, moves0 := std.Calls.Load(), fast.LargeGets.Load(), moves.Load()

				start := time.Now()
				committed, err := bsWrite(ctx, c, bsChunks(digest.uploadName("blob"), blob, 0))
				if err != nil {
					t.Fatalf("upload: %v", err)
				}
				up := time.Since(start)
				if committed != int64(size) {
					t.Fatalf("upload committed %d bytes, want %d", committed, size)
				}
				chunks := int64((size + bsWriteChunk - 1) / bsWriteChunk)
				if got := std.Calls.Load() - std0; got != chunks+1 {
					t.Errorf("upload: the standard codec encoded or decoded %d messages, want %d chunks and a response", got, chunks+1)
				}
				if mix.cli == grpcfasttest.FastSide {
					if got := fast.LargeGets.Load() - fast0; got < chunks {
						t.Errorf("upload: the grpcfast client's codec took %d buffers from its pool for %d chunks", got, chunks)
					}
				}
				st, err := c.QueryWriteStatus(ctx, &bytestream.QueryWriteStatusRequest{ResourceName: digest.uploadName("blob")})
				if err != nil {
					t.Fatal(err)
				}
				if st.CommittedSize != int64(size) || !st.Complete {
					t.Errorf("QueryWriteStatus: committed %d (complete %v), want %d (complete)", st.CommittedSize, st.Complete, size)
				}

				std0, fast0 = std.Calls.Load(), fast.LargeGets.Load()
				start = time.Now()
				h, read := sha256.New(), 0
				msgs, err := bsRead(ctx, c, &bytestream.ReadRequest{ResourceName: digest.blobName()}, cli.Plain, &cliMoves,
					func(b []byte) { h.Write(b); read += len(b) })
				if err != nil {
					t.Fatalf("download: %v", err)
				}
				down := time.Since(start)
				if got := hex.EncodeToString(h.Sum(nil)); read != size || got != digest.hash {
					t.Fatalf("downloaded %d bytes with SHA-256 %s, want %d bytes with %s", read, got, size, digest.hash)
				}
				if want := (size + bsReadChunk - 1) / bsReadChunk; msgs != want {
					t.Errorf("download: %d messages, want %d", msgs, want)
				}
				if got := std.Calls.Load() - std0; got != int64(msgs)+1 {
					t.Errorf("download: the standard codec encoded or decoded %d messages, want a request and %d chunks", got, msgs)
				}
				if mix.srv == grpcfasttest.FastSide {
					if got := fast.LargeGets.Load() - fast0; got < int64(msgs) {
						t.Errorf("download: the grpcfast server's codec took %d buffers from its pool for %d chunks", got, msgs)
					}
				}
				// A grpcfast_checked build keeps no memory of a message (own.Quarantine).
				if got := moves.Load() - moves0; got != 0 && !own.Quarantine {
					t.Errorf("the data field of the grpcfast end's reused message moved %d times: was the grpcfast codec decoding?", got)
				}
				t.Logf("%d MiB: upload %v (%.0f MiB/s) in %d chunks, download %v (%.0f MiB/s) in %d chunks",
					size>>20, up.Round(time.Millisecond), float64(size>>20)/up.Seconds(), chunks,
					down.Round(time.Millisecond), float64(size>>20)/down.Seconds(), msgs)

				// read_offset and read_limit.
				for _, r := range []struct{ off, limit int64 }{
					{int64(size)/3 + 12345, 3<<20 + 7}, // inside, not on a chunk boundary
					{int64(size) - 100, 1000},          // the limit runs past the end
					{int64(size) - bsReadChunk - 1, 0}, // to the end
					{int64(size), 0},                   // at the end: nothing
				} {
					end := int64(size)
					if r.limit > 0 {
						end = min(end, r.off+r.limit)
					}
					req := &bytestream.ReadRequest{ResourceName: digest.blobName(), ReadOffset: r.off, ReadLimit: r.limit}
					if err := readAll(ctx, c, req, cli.Plain, &cliMoves, blob[r.off:end]); err != nil {
						t.Error(err)
					}
				}
				for _, r := range []struct {
					off, limit int64
					code       codes.Code
					msg        string
				}{
					{int64(size) + 1, 0, codes.OutOfRange, "read_offset"},
					{-1, 0, codes.OutOfRange, "read_offset"},
					{0, -1, codes.InvalidArgument, "read_limit"},
				} {
					req := &bytestream.ReadRequest{ResourceName: digest.blobName(), ReadOffset: r.off, ReadLimit: r.limit}
					_, err := bsRead(ctx, c, req, cli.Plain, &cliMoves, func([]byte) {})
					wantCode(t, fmt.Sprintf("read_offset %d, read_limit %d", r.off, r.limit), err, r.code, r.msg)
				}
			})

			srv.CheckUsed(t, "server")
			cli.CheckUsed(t, "client")
			if srv.Pool != nil {
				grpcfasttest.WaitBalanced(t, "server", srv.Pool)
			}
			if cli.Pool != nil {
				grpcfasttest.WaitBalanced(t, "client", cli.Pool)
			}
		})
	}
}
