package peers

// Run with:
//
//	go test -run '^$' -bench '^BenchmarkOTLPCollectors$' -benchmem -count 6 -benchtime 0.5s . | tee otlp.txt
//	benchstat -col /collector otlp.txt
//
// Every op is one export of the recorded corpus (CorpusDir: 4 exports of
// 100 spans, about 45 KB each, sent in turn), sent by the same client,
// which sends each export's recorded encoding as it is. The collector runs
// in a process of its own (collectorChild): ns/op, B/op, allocs/op and
// cpu-ns/op are the client's, srv-cpu-ns/op, srv-B/op and srv-allocs/op
// the collector's, what a receiver costs per export.

import (
	"context"
	"runtime"
	"testing"

	"github.com/grpcfast/grpcfast/grpcfastbench"
	"github.com/grpcfast/grpcfast/internal/childproc"
)

// BenchmarkOTLPCollectors replays the corpus to every OTLP collector
// (Collectors): BenchmarkOTLPCollectors/collector=NAME.
func BenchmarkOTLPCollectors(b *testing.B) {
	exports, err := ReadCorpus(CorpusDir)
	if err != nil {
		b.Fatal(err)
	}
	size := 0
	for _, e := range exports {
		size += len(e.Wire)
	}
	for _, c := range Collectors() {
		b.Run("collector="+c.Name, func(b *testing.B) {
			child, addr, err := collectorChild(c)
			if err != nil {
				b.Fatal(err)
			}
			cl, err := DialCollector(c, addr)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { cl.Close() })
			ctx := context.Background()
			// Every export once before timing: it connects, warms the
			// collector's pools and checks that it decodes each.
			for _, e := range exports {
				if err := cl.Export(ctx, e); err != nil {
					b.Fatalf("%s: %v", c.Name, err)
				}
			}
			b.SetBytes(int64(size / len(exports)))
			b.ReportAllocs()
			// Neither process's run counts the previous collector's
			// garbage.
			if err := child.Collect(); err != nil {
				b.Fatal(err)
			}
			srv0, err := child.Stats()
			if err != nil {
				b.Fatal(err)
			}
			runtime.GC()
			b.ResetTimer()
			cpu0 := grpcfastbench.CPUTime()
			i := 0
			for b.Loop() {
				if err := cl.Export(ctx, exports[i%len(exports)]); err != nil {
					b.Fatalf("%s: %v", c.Name, err)
				}
				i++
			}
			cpu := grpcfastbench.CPUTime() - cpu0
			b.StopTimer()
			srv1, err := child.Stats()
			if err != nil {
				b.Fatal(err)
			}
			reportServer(b, cpu.Nanoseconds(), srv0, srv1)
		})
	}
}

// reportServer reports the client's CPU time per op (cpuNs in all) and
// the server process's CPU time, allocated bytes and allocations per op
// between srv0 and srv1.
func reportServer(b *testing.B, cpuNs int64, srv0, srv1 childproc.Stats) {
	n := float64(b.N)
	b.ReportMetric(float64(cpuNs)/n, "cpu-ns/op")
	b.ReportMetric(float64(srv1.CPUNs-srv0.CPUNs)/n, "srv-cpu-ns/op")
	b.ReportMetric(float64(srv1.Bytes-srv0.Bytes)/n, "srv-B/op")
	b.ReportMetric(float64(srv1.Mallocs-srv0.Mallocs)/n, "srv-allocs/op")
}
