package example_test

// Benchmarks of the example service over TCP on 127.0.0.1, client and server
// in this one process, each path against the other in one run:
//
//	go test -run '^$' -bench . -benchmem -count 6 ./example/ | tee example.bench
//	benchstat -col /path example.bench
//
// path=std is what a program without grpcfast does: gRPC's standard codec
// (forced on both ends, since importing examplepb registers grpcfast's) and
// the streams' own Recv. path=grpcfast forces grpcfast's codec on both ends
// (grpcfast.ServerOption, grpcfast.DialOption) and receives with the
// generated helpers. Both paths force a codec, so both pay the same
// content-subtype overhead. Both send from one reused Chunk.
//
// Every path runs on two transport configurations, the same for both paths:
// transport=default is gRPC's defaults, transport=bulk adds
// bulkServerOptions and bulkDialOptions (larger transport
// buffers and a transport buffer pool that does not clear). benchstat
// -col /path then shows std against grpcfast on one row per benchmark and
// transport; benchstat -col /transport -row .name,/path shows what the
// transport configuration does to each path.
//
// Besides ns/op, B/s, B/op and allocs/op (which count client and server
// together), every benchmark reports cpu-ms/op: the process's user+system
// CPU time per operation, client and server together (getrusage; 0 where
// there is no getrusage). BenchmarkRawTCP is the ceiling for a stream: the
// same bytes copied over a bare TCP connection.

import (
	"context"
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"github.com/grpcfast/grpcfast/example"
	"github.com/grpcfast/grpcfast/example/examplepb"
	"github.com/grpcfast/grpcfast/grpcfastbench"
)

const (
	blobSize  = 16 << 20
	chunkSize = example.DefaultChunkSize
)

// benchPaths runs fn as sub-benchmark transport=…/path=… for every
// transport configuration and path, with a fresh server and connection, and
// reports cpu-ms/op.
func benchPaths(b *testing.B, bytes int64, fn func(b *testing.B, e *testEnv) error) {
	benchPathsOn(b, transports, bytes, fn)
}

// benchPathsOn is benchPaths on the given transport configurations only.
func benchPathsOn(b *testing.B, transports []string, bytes int64, fn func(b *testing.B, e *testEnv) error) {
	for _, transport := range transports {
		b.Run("transport="+transport, func(b *testing.B) {
			sopts, dopts := transportOptions(transport)
			for _, path := range paths {
				b.Run("path="+path, func(b *testing.B) {
					e := startEnv(b, path, sopts, dopts)
					// One warm-up operation: connection set-up, pools, sizes.
					if err := fn(b, e); err != nil {
						b.Fatal(err)
					}
					if bytes > 0 {
						b.SetBytes(bytes)
					}
					b.ReportAllocs()
					b.ResetTimer()
					cpu := grpcfastbench.CPUTime()
					for range b.N {
						if err := fn(b, e); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(grpcfastbench.CPUTime()-cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
				})
			}
		})
	}
}

// BenchmarkPut uploads 16 MiB in 16 KiB chunks per op (client stream).
func BenchmarkPut(b *testing.B) {
	benchPaths(b, blobSize, func(b *testing.B, e *testEnv) error {
		return example.PutBlob(context.Background(), e.chunk, blobSize, chunkSize, e.opts...)
	})
}

// BenchmarkGet downloads 16 MiB in 16 KiB chunks per op (server stream).
func BenchmarkGet(b *testing.B) {
	benchPaths(b, blobSize, func(b *testing.B, e *testEnv) error {
		return example.GetBlob(context.Background(), e.chunk, blobSize, chunkSize, e.opts...)
	})
}

// BenchmarkFrameChunk is BenchmarkPut (op=put) and BenchmarkGet (op=get)
// with chunks of example.FrameChunkSize (16376 bytes), whose gRPC message
// fits one 16 KiB HTTP/2 frame, on gRPC's default transport: compared with
// those, it shows what the 9-byte tail frame of every 16 KiB chunk costs.
func BenchmarkFrameChunk(b *testing.B) {
	b.Run("op=put", func(b *testing.B) {
		benchPathsOn(b, transports[:1], blobSize, func(b *testing.B, e *testEnv) error {
			return example.PutBlob(context.Background(), e.chunk, blobSize, example.FrameChunkSize, e.opts...)
		})
	})
	b.Run("op=get", func(b *testing.B) {
		benchPathsOn(b, transports[:1], blobSize, func(b *testing.B, e *testEnv) error {
			return example.GetBlob(context.Background(), e.chunk, blobSize, example.FrameChunkSize, e.opts...)
		})
	})
}

// BenchmarkUnary calls UserService.CreateUser with a small request.
func BenchmarkUnary(b *testing.B) {
	req := &examplepb.CreateUserRequest{Name: "Ada Lovelace", Email: "ada@example.com", Age: 36, Tags: []string{"math", "engines"}}
	benchPaths(b, 0, func(b *testing.B, e *testEnv) error {
		resp, err := e.user.CreateUser(context.Background(), req)
		if err == nil && resp.GetId() == "" {
			b.Fatal("empty id")
		}
		return err
	})
}

// BenchmarkRawTCP copies 16 MiB per op over a TCP connection on 127.0.0.1.
// write=256KiB is the ceiling for a stream on this machine. write=64KiB
// writes in the batches that gRPC-Go's transport is held to on one stream:
// a stream may have at most 64 KiB queued for its writer (defaultWriteQuota
// in gRPC-Go v1.85.0, not configurable), so the writer seldom finds more to
// put in one write(2).
func BenchmarkRawTCP(b *testing.B) {
	for _, write := range []int{256 << 10, 64 << 10} {
		b.Run(fmt.Sprintf("write=%dKiB", write>>10), func(b *testing.B) {
			benchRawTCP(b, write)
		})
	}
}

func benchRawTCP(b *testing.B, write int) {
	w, done, stop, err := startRawTCP()
	if err != nil {
		b.Fatal(err)
	}
	defer stop()
	buf := make([]byte, write)
	copyOnce := func() {
		for sent := 0; sent < blobSize; sent += len(buf) {
			if _, err := w.Write(buf); err != nil {
				b.Fatal(err)
			}
		}
		if got := <-done; got != blobSize {
			b.Fatalf("the reader got %d bytes, want %d", got, blobSize)
		}
	}
	copyOnce()
	b.SetBytes(blobSize)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := grpcfastbench.CPUTime()
	for range b.N {
		copyOnce()
	}
	b.ReportMetric(float64(grpcfastbench.CPUTime()-cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}

// startRawTCP connects to a reader on 127.0.0.1 that reports on done every
// time it has read another blobSize bytes.
func startRawTCP() (w net.Conn, done <-chan int, stop func(), err error) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, nil, err
	}
	ch := make(chan int, 1)
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		r, err := lis.Accept()
		if err != nil {
			return
		}
		defer r.Close()
		buf := make([]byte, 256<<10)
		n := 0
		for {
			k, err := r.Read(buf)
			n += k
			for n >= blobSize {
				ch <- blobSize
				n -= blobSize
			}
			if err != nil {
				if err != io.EOF {
					ch <- -1
				}
				return
			}
		}
	}()
	w, err = net.Dial("tcp", lis.Addr().String())
	if err != nil {
		lis.Close()
		return nil, nil, nil, err
	}
	return w, ch, func() {
		w.Close()
		lis.Close()
		<-readerDone
	}, nil
}
