package peers

// Run with make bench-peers, or:
//
//	go test -run '^$' -bench Peers -benchmem -count 5 -benchtime 0.5s . | tee peers.txt
//	benchstat -col /peer peers.txt
//
// Every op is one call: Put and Get move BlobSize bytes (4 MiB) in
// ChunkSize chunks (16 KiB), as make bench does; Unary is one CreateUser
// with a small request. server=inprocess: client and server share this
// process, so ns/op, B/op, allocs/op and cpu-ns/op count both.
// server=process: the server of every peer runs in one child process (the
// test binary run again); the figures above are then the client's, and
// srv-cpu-ns/op, srv-B/op and srv-allocs/op the server's.

import (
	"context"
	"net"
	"runtime"
	"testing"

	"github.com/grpcfast/grpcfast/example/examplepb"
	"github.com/grpcfast/grpcfast/grpcfastbench"
	"github.com/grpcfast/grpcfast/internal/childproc"
)

// userRequest is the unary request, example/bench_test.go's.
func userRequest() *examplepb.CreateUserRequest {
	return &examplepb.CreateUserRequest{Name: "Ada Lovelace", Email: "ada@example.com", Age: 36, Tags: []string{"math", "engines"}}
}

type benchOp struct {
	name  string
	bytes int64
	call  func(ctx context.Context, c Client) error
}

var benchOps = []benchOp{
	{"Put", BlobSize, func(ctx context.Context, c Client) error { return c.Put(ctx, BlobSize, ChunkSize) }},
	{"Get", BlobSize, func(ctx context.Context, c Client) error { return c.Get(ctx, BlobSize, ChunkSize) }},
	{"Unary", 0, func(ctx context.Context, c Client) error {
		_, err := c.CreateUser(ctx, userRequest())
		return err
	}},
}

// BenchmarkPeers runs every op on every peer, the server in this process
// and in its own: BenchmarkPeers/OP/server=WHERE/peer=NAME.
func BenchmarkPeers(b *testing.B) {
	getBlob(BlobSize) // not in any op's figures
	for _, op := range benchOps {
		b.Run(op.name, func(b *testing.B) {
			for _, where := range []string{"inprocess", "process"} {
				b.Run("server="+where, func(b *testing.B) {
					for _, p := range All() {
						b.Run("peer="+p.Name, func(b *testing.B) {
							benchPeer(b, p, op, where == "process")
						})
					}
				})
			}
		})
	}
}

func benchPeer(b *testing.B, p Peer, op benchOp, process bool) {
	var child *childproc.Proc
	addr := ""
	if process {
		var err error
		if child, err = theChild(); err != nil {
			b.Fatal(err)
		}
		addr = child.Addrs[p.Name]
		if addr == "" {
			b.Fatalf("the server process serves no peer %s", p.Name)
		}
	} else {
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(p.Serve(lis))
		addr = lis.Addr().String()
	}
	c, err := p.Dial(addr)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	ctx := context.Background()
	// One call before timing: it connects, warms the pools and checks that
	// the op works on this peer.
	if err := op.call(ctx, c); err != nil {
		b.Fatalf("%s on %s: %v", op.name, p.Name, err)
	}
	if op.bytes > 0 {
		b.SetBytes(op.bytes)
	}
	b.ReportAllocs()
	var srv0, srv1 childproc.Stats
	if child != nil {
		// Neither process's run counts the previous peer's garbage.
		if err = child.Collect(); err == nil {
			srv0, err = child.Stats()
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	runtime.GC()
	b.ResetTimer()
	cpu0 := grpcfastbench.CPUTime()
	for b.Loop() {
		if err := op.call(ctx, c); err != nil {
			b.Fatalf("%s on %s: %v", op.name, p.Name, err)
		}
	}
	cpu := grpcfastbench.CPUTime() - cpu0
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(float64(cpu.Nanoseconds())/n, "cpu-ns/op")
	if child != nil {
		if srv1, err = child.Stats(); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(srv1.CPUNs-srv0.CPUNs)/n, "srv-cpu-ns/op")
		b.ReportMetric(float64(srv1.Bytes-srv0.Bytes)/n, "srv-B/op")
		b.ReportMetric(float64(srv1.Mallocs-srv0.Mallocs)/n, "srv-allocs/op")
	}
}
