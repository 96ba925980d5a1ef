package peers

import (
	"context"
	"net"
	"strings"
	"sync"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast/internal/testprotos/otlp"
)

// TestExportDigestCheck checks the client's check of a collector's answer.
func TestExportDigestCheck(t *testing.T) {
	d := exportDigest{spans: 100, last: "GET /a"}
	if err := d.check(d.response()); err != nil {
		t.Fatal(err)
	}
	for _, wrong := range []exportDigest{{spans: 99, last: "GET /a"}, {spans: 100, last: "GET /b"}, {}} {
		if err := d.check(wrong.response()); err == nil {
			t.Errorf("an answer of %+v passed the check of %+v", wrong, d)
		}
	}
	if err := d.check(&otlp.ExportTraceServiceResponse{}); err == nil {
		t.Error("an empty answer passed the check")
	}
}

// TestOTLPCollectors replays the corpus, twice, to every collector served
// in this process (pdata's gate set as the collector's process sets it):
// every export succeeds with the collector's answer of its span count and
// last span's name, and every export the collector decoded equals the one
// sent.
func TestOTLPCollectors(t *testing.T) {
	exports := readCorpus(t)
	var mu sync.Mutex
	seen := map[string][]*otlp.ExportTraceServiceRequest{}
	for _, c := range newCollectors(func(name string, m *otlp.ExportTraceServiceRequest) {
		mu.Lock()
		defer mu.Unlock()
		seen[name] = append(seen[name], m)
	}) {
		t.Run(c.Name, func(t *testing.T) {
			setGate(t, c.PdataPooling)
			lis, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			stop := c.Serve(lis)
			defer stop()
			cl, err := DialCollector(c, lis.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			var sent []Export
			for range 2 {
				for _, e := range exports {
					if err := cl.Export(t.Context(), e); err != nil {
						t.Fatal(err)
					}
					sent = append(sent, e)
				}
			}
			stop()
			mu.Lock()
			got := seen[c.Name]
			mu.Unlock()
			if len(got) != len(sent) {
				t.Fatalf("the collector decoded %d exports, sent %d", len(got), len(sent))
			}
			for i := range got {
				if !proto.Equal(got[i], sent[i].Msg) {
					t.Errorf("export %d: the collector decoded another export than the one sent", i)
				}
			}
		})
	}
}

// TestCollectorClientMethod checks that a collector answers only on its
// own method: pdata serves OTLP's service name, the generated collectors
// that of internal/testprotos/otlp, and a client of one kind gets
// Unimplemented from the other.
func TestCollectorClientMethod(t *testing.T) {
	exports := readCorpus(t)
	cs := Collectors()
	var pdata, generated Collector
	for _, c := range cs {
		switch c.Name {
		case CollectorPdata:
			pdata = c
		case CollectorGrpcfast:
			generated = c
		}
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pdata.Serve(lis)()
	cl, err := DialCollector(generated, lis.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	err = cl.Export(context.Background(), exports[0])
	if err == nil || !strings.Contains(err.Error(), "Unimplemented") {
		t.Fatalf("the generated collector's method on pdata's server: %v, want Unimplemented", err)
	}
}

// TestOTLPCollectorsProcess serves every collector in its own process, as
// BenchmarkOTLPCollectors does: the process announces the pooling gate's
// value the collector needs (collectorChild checks it), answers every
// export of the corpus, and its CPU time and allocations grow with them.
func TestOTLPCollectorsProcess(t *testing.T) {
	exports := readCorpus(t)
	for _, c := range Collectors() {
		t.Run(c.Name, func(t *testing.T) {
			child, addr, err := collectorChild(c)
			if err != nil {
				t.Fatal(err)
			}
			cl, err := DialCollector(c, addr)
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			s0, err := child.Stats()
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range exports {
				if err := cl.Export(t.Context(), e); err != nil {
					t.Fatal(err)
				}
			}
			s1, err := child.Stats()
			if err != nil {
				t.Fatal(err)
			}
			if s1.CPUNs <= s0.CPUNs || s1.Mallocs <= s0.Mallocs {
				t.Errorf("the collector's process: CPU %d to %d ns, allocations %d to %d, after %d exports", s0.CPUNs, s1.CPUNs, s0.Mallocs, s1.Mallocs, len(exports))
			}
		})
	}
}
