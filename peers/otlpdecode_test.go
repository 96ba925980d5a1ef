package peers

import (
	"fmt"
	"testing"

	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"go.opentelemetry.io/collector/pdata/xpdata/pref"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/internal/codec"
	"github.com/grpcfast/grpcfast/internal/reuse"
	"github.com/grpcfast/grpcfast/internal/stdcodec"
	"github.com/grpcfast/grpcfast/internal/testprotos/otlp"
)

// Run with:
//
//	go test -run '^$' -bench '^BenchmarkDecodeOTLP$' -benchmem -count 6 . | tee decode.txt
//	benchstat -col /path decode.txt

// BenchmarkDecodeOTLP decodes the recorded OTLP exports (CorpusDir), in
// turn, from one buffer each, on every receive path (decodePaths): the
// root's BenchmarkDecodeOTLP, with pdata's decoder beside grpcfast's.
func BenchmarkDecodeOTLP(b *testing.B) {
	exports, err := ReadCorpus(CorpusDir)
	if err != nil {
		b.Fatal(err)
	}
	size := 0
	for _, e := range exports {
		size += len(e.Wire)
	}
	for _, p := range decodePaths() {
		b.Run("path="+p.name, func(b *testing.B) {
			setGate(b, p.pooling)
			// The owned copies' free list is live heap, and makes the
			// collector run less often: the paths after slot-copy (pdata's)
			// would be measured on a heap that they did not make.
			b.Cleanup(codec.DropFreeCopies)
			decode := p.newDecoder()
			// Every export once, checked, before timing (the first decode
			// fills the pools and slots) and after (what reused memory
			// decoded).
			checkAll := func() {
				for _, e := range exports {
					if err := decode(e.Wire, checkExport(e)); err != nil {
						b.Fatal(err)
					}
				}
			}
			checkAll()
			b.SetBytes(int64(size / len(exports)))
			b.ReportAllocs()
			b.ResetTimer()
			i := 0
			for b.Loop() {
				if err := decode(exports[i%len(exports)].Wire, nil); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.StopTimer()
			checkAll()
		})
	}
}

// setGate sets pdata's pooling gate for the test or benchmark tb, and back
// to off when it ends.
func setGate(tb testing.TB, on bool) {
	tb.Helper()
	if err := setPdataPooling(on); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := setPdataPooling(false); err != nil {
			tb.Error(err)
		}
	})
}

// decodedCheck checks a decoded export: m is it in the generated OTLP
// type, d its digest as the decoder's own API reads it.
type decodedCheck func(m *otlp.ExportTraceServiceRequest, d exportDigest) error

// checkExport returns the check that a decode of e decoded e.
func checkExport(e Export) decodedCheck {
	return func(m *otlp.ExportTraceServiceRequest, d exportDigest) error {
		if !proto.Equal(m, e.Msg) {
			return fmt.Errorf("decoded export differs from the recorded one (%d spans, the last %q)", e.digest.spans, e.digest.last)
		}
		if d != e.digest {
			return fmt.Errorf("decoded %d spans, the last named %q; recorded %d, the last %q", d.spans, d.last, e.digest.spans, e.digest.last)
		}
		return nil
	}
}

// decodePath is one way to decode an export.
type decodePath struct {
	name    string
	pooling bool // pdata's pooling gate, on during this path's decodes
	// newDecoder returns a decoder: it decodes w, calls check (if not nil)
	// with the decoded export, then releases it as a receiver does once
	// the export is consumed.
	newDecoder func() func(w []byte, check decodedCheck) error
}

// decodePaths are the root's benchDecodePaths for OTLP exports, and pdata's
// decoder:
//
//   - std: gRPC's standard codec (protobuf-go), into a new message;
//   - vt: vtprotobuf's UnmarshalVT, into a new message;
//   - fresh: grpcfast's codec, into a new message (its default path);
//   - slot, slot-copy: grpcfast's codec into a reused slot as a pooled
//     handler prepares it, without and with WithStringsInOneCopy, and the
//     slot's reset for the next export;
//   - pdata: pdata's generated decoder (ptraceotlp.ExportRequest's
//     UnmarshalProto), into a new export, with the pooling gate off, and
//     its release (pref.UnrefTraces, which does nothing then);
//   - pdata-pooled: the same with the gate on: every message of the export
//     comes from pdata's pools, and the release gives them all back.
func decodePaths() []decodePath {
	check := func(m *otlp.ExportTraceServiceRequest, check decodedCheck) error {
		if check == nil {
			return nil
		}
		return check(m, digestOf(m))
	}
	codecPath := func(name string, codec func() encoding.CodecV2) decodePath {
		return decodePath{name: name, newDecoder: func() func([]byte, decodedCheck) error {
			c := codec()
			return func(w []byte, ck decodedCheck) error {
				m := new(otlp.ExportTraceServiceRequest)
				if err := c.Unmarshal(mem.BufferSlice{mem.SliceBuffer(w)}, m); err != nil {
					return err
				}
				return check(m, ck)
			}
		}}
	}
	slotPath := func(name string, copied bool) decodePath {
		return decodePath{name: name, newDecoder: func() func([]byte, decodedCheck) error {
			c := grpcfast.NewCodec()
			s := reuse.New[otlp.ExportTraceServiceRequest]()
			prepare := func() {
				s.Prepare()
				if copied && !s.PrepareCopy() {
					panic("otlp.ExportTraceServiceRequest has no generated decoder")
				}
			}
			prepare()
			return func(w []byte, ck decodedCheck) error {
				err := c.Unmarshal(mem.BufferSlice{mem.SliceBuffer(w)}, s.Msg)
				s.Settle(err)
				if err == nil {
					if !s.Generated() {
						err = fmt.Errorf("%s: not decoded by the generated decoder", name)
					} else {
						err = check(s.Msg, ck)
					}
				}
				prepare()
				return err
			}
		}}
	}
	pdataPath := func(name string, pooling bool) decodePath {
		return decodePath{name: name, pooling: pooling, newDecoder: func() func([]byte, decodedCheck) error {
			return func(w []byte, ck decodedCheck) error {
				// As pdata's gRPC handler makes its request: from the pool
				// when the gate is on (ptraceotlp.NewExportRequest does not
				// take it from the pool, ptrace.NewTraces does).
				req := ptraceotlp.NewExportRequestFromTraces(ptrace.NewTraces())
				td := req.Traces()
				if pref.MarkPipelineOwnedTraces(td) {
					defer pref.UnrefTraces(td)
				}
				if err := req.UnmarshalProto(w); err != nil {
					return err
				}
				if ck == nil {
					return nil
				}
				m, err := fromPdata(req)
				if err != nil {
					return err
				}
				return ck(m, digestOfTraces(td))
			}
		}}
	}
	return []decodePath{
		codecPath("std", stdcodec.Codec),
		{name: "vt", newDecoder: func() func([]byte, decodedCheck) error {
			return func(w []byte, ck decodedCheck) error {
				m := new(otlp.ExportTraceServiceRequest)
				if err := m.UnmarshalVT(w); err != nil {
					return err
				}
				return check(m, ck)
			}
		}},
		codecPath("fresh", func() encoding.CodecV2 { return grpcfast.NewCodec() }),
		slotPath("slot", false),
		slotPath("slot-copy", true),
		pdataPath("pdata", false),
		pdataPath("pdata-pooled", true),
	}
}

func readCorpus(t *testing.T) []Export {
	t.Helper()
	exports, err := ReadCorpus(CorpusDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(exports) < 2 {
		t.Fatalf("the corpus has %d exports, want 2 or more", len(exports))
	}
	for i, e := range exports {
		if e.digest.spans == 0 || e.digest.last == "" {
			t.Fatalf("export %d: %d spans, the last named %q: nothing to check", i, e.digest.spans, e.digest.last)
		}
	}
	return exports
}

// TestDecodeOTLPPaths checks what BenchmarkDecodeOTLP's paths decode: every
// recorded export, twice in turn (the second time into what the first left:
// slots, pdata's pools), equals the recorded message, with its span count and
// the name of its last span as the decoder's API reads them; and the check
// fails on another export's decode.
func TestDecodeOTLPPaths(t *testing.T) {
	exports := readCorpus(t)
	for _, p := range decodePaths() {
		t.Run(p.name, func(t *testing.T) {
			setGate(t, p.pooling)
			decode := p.newDecoder()
			for range 2 {
				for i, e := range exports {
					if err := decode(e.Wire, checkExport(e)); err != nil {
						t.Fatalf("export %d: %v", i, err)
					}
				}
			}
			other := exports[1]
			if err := decode(exports[0].Wire, checkExport(other)); err == nil {
				t.Fatal("export 0's decode passed the check of export 1")
			}
		})
	}
}

// TestPdataPoolingGate checks what the pooling gate changes in pdata's
// decode, as the decode paths pdata and pdata-pooled use it: with the gate
// on, the release gives an export's messages back to pdata's pools and the
// next decode takes them from there, so it allocates at most 85% of what
// it allocates with the gate off (strings are allocated either way). The
// race detector's sync.Pool drops a share of what is put back: the margin
// allows for it.
func TestPdataPoolingGate(t *testing.T) {
	exports := readCorpus(t)
	allocs := func(name string) float64 {
		var p decodePath
		for _, q := range decodePaths() {
			if q.name == name {
				p = q
			}
		}
		setGate(t, p.pooling)
		decode := p.newDecoder()
		return testing.AllocsPerRun(20, func() {
			for _, e := range exports {
				if err := decode(e.Wire, nil); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
	off := allocs("pdata")
	on := allocs("pdata-pooled")
	t.Logf("allocations per %d exports: gate off %.0f, on %.0f", len(exports), off, on)
	if on > 0.85*off {
		t.Errorf("with %s on, a decode allocates %.0f times per %d exports, with it off %.0f: the pools are not used", PdataPoolingGate, on, len(exports), off)
	}
}
