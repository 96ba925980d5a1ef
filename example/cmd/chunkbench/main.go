// Command chunkbench moves a blob through the example ChunkService over
// TCP on 127.0.0.1, client and server in this one process, once the
// standard way and once with grpcfast, and prints the throughput, the CPU
// time and the memory allocated per blob of each, next to what a raw TCP
// copy over the same loopback achieves.
//
//	go run ./example/cmd/chunkbench [-size 16777216] [-chunk 16384] [-repeat 5] [-bulk=true] [-timeout 1m]
//
// The standard path forces gRPC's standard codec on its server
// (grpc.ForceServerCodecV2) and its calls (grpc.ForceCodecV2), because
// importing examplepb registers grpcfast's codec, and receives with the
// streams' own Recv. The grpcfast path forces grpcfast's codec on both ends
// (grpcfast.ServerOption, grpcfast.DialOption) and receives with the
// generated helpers. Each path has its own server. Put is a client stream
// (the server receives), Get a server stream (the client receives). Every
// blob is checked by CRC-32C.
//
// By default both paths also get the transport configuration for bulk
// streams, example.BulkServerOptions on the servers and
// example.BulkDialOptions on the connections (larger transport buffers and
// a transport buffer pool that does not clear): it is gRPC configuration,
// the same for both paths. -bulk=false runs both on gRPC's transport
// defaults instead. The header of the output says which.
//
// Figures are medians over -repeat blobs after one warm-up blob. Only
// loopback addresses are used; nothing listens on other interfaces.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"slices"
	"text/tabwriter"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/example"
	"github.com/grpcfast/grpcfast/example/examplepb"
)

func main() {
	size := flag.Int64("size", 16<<20, "bytes per blob")
	chunk := flag.Int("chunk", example.DefaultChunkSize, fmt.Sprintf("bytes per chunk (at most %d; %d fits one HTTP/2 frame)", example.MaxChunkSize, example.FrameChunkSize))
	repeat := flag.Int("repeat", 5, "blobs measured per path and direction (1 to 100)")
	bulk := flag.Bool("bulk", true, "give both paths example.BulkServerOptions and example.BulkDialOptions (false: gRPC's transport defaults)")
	timeout := flag.Duration("timeout", time.Minute, "give up after this long")
	flag.Parse()
	if flag.NArg() > 0 || *size <= 0 || *size > 1<<34 || *chunk <= 0 || *chunk > example.MaxChunkSize || *repeat < 1 || *repeat > 100 || *timeout <= 0 {
		flag.Usage()
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := run(ctx, os.Stdout, *size, *chunk, *repeat, *bulk); err != nil {
		fmt.Fprintln(os.Stderr, "chunkbench:", err)
		os.Exit(1)
	}
}

// sample is one measured blob.
type sample struct {
	wall, cpu time.Duration
	alloc     uint64
}

// result is the median of the samples of one path and direction.
type result struct {
	mibps, cpuMS, allocMiB float64
}

func median(samples []sample, size int64) result {
	pick := func(f func(sample) float64) float64 {
		v := make([]float64, len(samples))
		for i, s := range samples {
			v[i] = f(s)
		}
		slices.Sort(v)
		if n := len(v); n%2 == 0 {
			return (v[n/2-1] + v[n/2]) / 2
		}
		return v[len(v)/2]
	}
	mib := float64(size) / (1 << 20)
	return result{
		mibps:    pick(func(s sample) float64 { return mib / s.wall.Seconds() }),
		cpuMS:    pick(func(s sample) float64 { return float64(s.cpu) / float64(time.Millisecond) }),
		allocMiB: pick(func(s sample) float64 { return float64(s.alloc) / (1 << 20) }),
	}
}

// measure runs fn once to warm up, then n times, measuring each.
func measure(ctx context.Context, n int, fn func(context.Context) error) ([]sample, error) {
	if err := fn(ctx); err != nil {
		return nil, err
	}
	var ms runtime.MemStats
	samples := make([]sample, 0, n)
	for range n {
		runtime.ReadMemStats(&ms)
		alloc := ms.TotalAlloc
		cpu := example.ProcessCPUTime()
		start := time.Now()
		if err := fn(ctx); err != nil {
			return nil, err
		}
		s := sample{wall: time.Since(start), cpu: example.ProcessCPUTime() - cpu}
		runtime.ReadMemStats(&ms)
		s.alloc = ms.TotalAlloc - alloc
		samples = append(samples, s)
	}
	return samples, nil
}

func run(ctx context.Context, w io.Writer, size int64, chunk, repeat int, bulk bool) error {
	fmt.Fprintf(w, "chunkbench: %s blobs in %d-byte chunks, median of %d, GOMAXPROCS=%d, client and server in one process\n",
		sizeString(size), chunk, repeat, runtime.GOMAXPROCS(0))
	if bulk {
		fmt.Fprintf(w, "transport: bulk on both paths (example.BulkServerOptions, example.BulkDialOptions: %d KiB write and %d KiB read buffers, non-clearing buffer pool); -bulk=false for gRPC's defaults\n\n",
			example.BulkWriteBufferSize>>10, example.BulkReadBufferSize>>10)
	} else {
		fmt.Fprintf(w, "transport: gRPC's defaults on both paths (-bulk=false); -bulk=true adds example.BulkServerOptions and example.BulkDialOptions\n\n")
	}

	raw, err := measureRawTCP(ctx, size, repeat)
	if err != nil {
		return fmt.Errorf("raw TCP: %w", err)
	}
	rawRes := median(raw, size)

	type row struct {
		name     string
		std, gf  result
		rawShare float64
	}
	var rows []row
	results := map[string]map[string]result{}
	for _, path := range []string{"std", "grpcfast"} {
		c, stop, err := startPath(path, bulk)
		if err != nil {
			return err
		}
		results[path] = map[string]result{}
		for _, op := range []string{"Put", "Get"} {
			fn := func(ctx context.Context) error {
				if op == "Put" {
					return example.PutBlob(ctx, c.client, size, chunk, c.opts...)
				}
				return example.GetBlob(ctx, c.client, size, chunk, c.opts...)
			}
			samples, err := measure(ctx, repeat, fn)
			if err != nil {
				stop()
				return fmt.Errorf("%s %s: %w", path, op, err)
			}
			results[path][op] = median(samples, size)
		}
		stop()
	}
	for _, op := range []string{"Put", "Get"} {
		rows = append(rows, row{name: op, std: results["std"][op], gf: results["grpcfast"][op]})
	}

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "\tstd MiB/s\tgrpcfast MiB/s\tspeed-up\tof raw TCP\tstd CPU ms\tgrpcfast CPU ms\tCPU ratio\tstd alloc MiB\tgrpcfast alloc MiB\t")
	for _, r := range rows {
		label := map[string]string{"Put": "Put (client stream)", "Get": "Get (server stream)"}[r.name]
		fmt.Fprintf(tw, "%s\t%.0f\t%.0f\t%.2fx\t%.0f%%\t%.1f\t%.1f\t%.2f\t%.2f\t%.2f\t\n", label,
			r.std.mibps, r.gf.mibps, r.gf.mibps/r.std.mibps, 100*r.gf.mibps/rawRes.mibps,
			r.std.cpuMS, r.gf.cpuMS, r.gf.cpuMS/r.std.cpuMS, r.std.allocMiB, r.gf.allocMiB)
	}
	fmt.Fprintf(tw, "raw TCP (256 KiB writes)\t%.0f\t\t\t\t%.1f\t\t\t%.2f\t\t\n", rawRes.mibps, rawRes.cpuMS, rawRes.allocMiB)
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nCPU and allocations are per blob, client and server together.")
	return nil
}

func sizeString(n int64) string {
	switch {
	case n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d-byte", n)
}

// pathClient is a connection to a server of one path.
type pathClient struct {
	client examplepb.ChunkServiceClient
	opts   []example.Option
}

// startPath starts a server on 127.0.0.1 configured for path and dials it,
// with the bulk transport options if bulk.
func startPath(path string, bulk bool) (*pathClient, func(), error) {
	var (
		sopts []grpc.ServerOption
		dopts = []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
		opts  []example.Option
	)
	switch path {
	case "std":
		std := grpcfast.StandardCodec()
		sopts = append(sopts, grpc.ForceServerCodecV2(std))
		dopts = append(dopts, grpc.WithDefaultCallOptions(grpc.ForceCodecV2(std)))
		opts = append(opts, example.WithStandardRecv())
	case "grpcfast":
		sopts = append(sopts, grpcfast.ServerOption())
		dopts = append(dopts, grpcfast.DialOption())
	}
	if bulk {
		sopts = append(sopts, example.BulkServerOptions()...)
		dopts = append(dopts, example.BulkDialOptions()...)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	srv := grpc.NewServer(sopts...)
	example.Register(srv, opts...)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(lis) }()
	conn, err := grpc.NewClient(lis.Addr().String(), dopts...)
	if err != nil {
		srv.Stop()
		return nil, nil, err
	}
	stop := func() {
		conn.Close()
		srv.Stop()
		<-served
	}
	return &pathClient{client: examplepb.NewChunkServiceClient(conn), opts: opts}, stop, nil
}

// measureRawTCP copies size bytes over a 127.0.0.1 TCP connection in
// 256 KiB writes, once to warm up and then repeat times.
func measureRawTCP(ctx context.Context, size int64, repeat int) ([]sample, error) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	defer lis.Close()
	got := make(chan int64, 1)
	go func() {
		r, err := lis.Accept()
		if err != nil {
			return
		}
		defer r.Close()
		buf := make([]byte, 256<<10)
		var n int64
		for {
			k, err := r.Read(buf)
			n += int64(k)
			for n >= size {
				got <- size
				n -= size
			}
			if err != nil {
				return
			}
		}
	}()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", lis.Addr().String())
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if deadline, ok := ctx.Deadline(); ok {
		conn.SetDeadline(deadline)
	}
	buf := make([]byte, 256<<10)
	return measure(ctx, repeat, func(ctx context.Context) error {
		for sent := int64(0); sent < size; {
			n := min(int64(len(buf)), size-sent)
			if _, err := conn.Write(buf[:n]); err != nil {
				return err
			}
			sent += n
		}
		select {
		case <-got:
			return nil
		case <-ctx.Done():
			return errors.New("timed out waiting for the reader")
		}
	})
}
