package grpcfastbench

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/grpcfast/grpcfast/internal/testprotos/bytestream"
	"github.com/grpcfast/grpcfast/internal/testprotos/content"
	"github.com/grpcfast/grpcfast/internal/testprotos/editions"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
	"github.com/grpcfast/grpcfast/internal/testprotos/otlp"
	"github.com/grpcfast/grpcfast/internal/testprotos/proto2"
)

// TestByteStreamShape checks what -grpcfast.size=16384 grows in a
// ByteStream-shaped service: each chunk's data, not its resource_name, and
// not Write's single response.
func TestByteStreamShape(t *testing.T) {
	methods := []Method{
		ServerStream[bytestream.ReadRequest, bytestream.ReadResponse]("Read", bytestream.NewByteStream_ReadResponseReceiver),
		ClientStream[bytestream.WriteRequest, bytestream.WriteResponse]("Write", bytestream.NewByteStream_WriteRequestReceiver),
	}
	cfg := flags
	cfg.size = 16384
	ms, _, err := fillMessages("grpcfast.testdata.bytestream.ByteStream", methods, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	if r := ms[0].ress[0].(*bytestream.ReadResponse); proto.Size(r) != 16384 {
		t.Errorf("ReadResponse: %d bytes, want 16384", proto.Size(r))
	}
	w := ms[1].reqs[0].(*bytestream.WriteRequest)
	if proto.Size(w) != 16384 || len(w.ResourceName) > 64 || len(w.Data) < 16300 {
		t.Errorf("WriteRequest: %d bytes, resource_name %d, data %d: want 16384 with the data grown", proto.Size(w), len(w.ResourceName), len(w.Data))
	}
	if n := proto.Size(ms[1].ress[0]); n > 16 {
		t.Errorf("WriteResponse: %d bytes, want it small", n)
	}
}

// TestOTLPShape checks the OTLP-shaped service: with -grpcfast.grow naming
// the spans, an Export request of 64 KiB is spans, its schema_url stays
// short and the acknowledgement small; with the corpus, the 4 exports of
// 100 spans are sent.
func TestOTLPShape(t *testing.T) {
	methods := []Method{Unary[otlp.ExportTraceServiceRequest, otlp.ExportTraceServiceResponse]("Export")}
	cfg := flags
	cfg.size = 65536
	cfg.grow = []string{"grpcfast.testdata.otlp.ScopeSpans.spans"}
	ms, _, err := fillMessages("grpcfast.testdata.otlp.TraceService", methods, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	req := ms[0].reqs[0].(*otlp.ExportTraceServiceRequest)
	if n := proto.Size(req); n < 65536 || n > 66000 {
		t.Errorf("request: %d bytes, want about 65536", n)
	}
	for _, rs := range req.ResourceSpans {
		if len(rs.SchemaUrl) > 64 {
			t.Errorf("schema_url grew to %d bytes", len(rs.SchemaUrl))
		}
		for _, ss := range rs.ScopeSpans {
			if len(ss.Spans) < 50 {
				t.Errorf("%d spans in a scope, want the spans grown", len(ss.Spans))
			}
			for _, sp := range ss.Spans {
				if len(sp.TraceId) > 8 {
					t.Errorf("trace_id grew to %d bytes", len(sp.TraceId))
				}
			}
		}
	}
	if n := proto.Size(ms[0].ress[0]); n > 64 {
		t.Errorf("response: %d bytes, want it small", n)
	}

	cfg = flags
	cfg.replay = filepath.Join("..", "internal", "testprotos", "otlp", "testdata", "corpus")
	ms, replayed, err := fillMessages("grpcfast.testdata.otlp.TraceService", methods, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	if replayed[0] != [2]int{4, 1} {
		t.Fatalf("replayed %v, want 4 requests and 1 response", replayed[0])
	}
	for i, m := range ms[0].reqs {
		if n := len(m.(*otlp.ExportTraceServiceRequest).ResourceSpans[0].ScopeSpans[0].Spans); n != 100 {
			t.Errorf("export %d: %d spans, want 100", i, n)
		}
	}
}

// TestVtprotoSkip checks that codec=vtproto is left out, with the reason,
// for messages vtprotobuf cannot round-trip (proto2 groups) or that have no
// vtprotobuf methods, and kept for the others.
func TestVtprotoSkip(t *testing.T) {
	for _, tc := range []struct {
		m    Method
		want string
	}{
		{Unary[proto2.Item, proto2.Item]("Get"), "vtprotobuf fails to round-trip grpcfast.testdata.proto2.Item: proto: unexpected end of group"},
		{Unary[editions.Note, editions.Note]("Get"), "grpcfast.testdata.editions.Note has no vtprotobuf methods"},
		{Unary[kinds.Rich, emptypb.Empty]("Get"), "google.protobuf.Empty has no vtprotobuf methods"},
		{Unary[emptypb.Empty, kinds.Rich]("Get"), "google.protobuf.Empty has no vtprotobuf methods"},
		{Unary[editions.Note, emptypb.Empty]("Get"), "grpcfast.testdata.editions.Note and google.protobuf.Empty have no vtprotobuf methods"},
		{kindsMethods()[0], ""},
	} {
		cfg := flags
		ms, _, err := fillMessages("x.S", []Method{tc.m}, &cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got := vtSkip(tc.m, ms[0]); got != tc.want {
			t.Errorf("%T: %q, want %q", tc.m.newReq(), got, tc.want)
		}
	}
}

func contentMethods() []Method {
	return []Method{
		Unary[content.InfoRequest, content.InfoResponse]("Info"),
		ServerStream[content.ReadContentRequest, content.ReadContentResponse]("Read", content.NewContent_ReadResponseReceiver),
		Bidi[content.WriteContentRequest, content.WriteContentResponse]("Write", content.NewContent_WriteRequestReceiver, content.NewContent_WriteResponseReceiver),
	}
}

// baseSize is the encoded size of m's type filled at size 0.
func baseSize(t *testing.T, m proto.Message) int {
	t.Helper()
	c := m.ProtoReflect().New().Interface()
	if err := Fill(c, 0); err != nil {
		t.Fatal(err)
	}
	return proto.Size(c)
}

// TestContentShape checks a chunk protocol in the shape of containerd's
// content API at -grpcfast.size=1048576: the data messages (Read's
// responses, Write's requests) grow to 1 MiB through their data; the
// request by digest and the acknowledgement, which have no bytes and no
// repeated field, keep their filled size, as their digests keep their
// length (it grew both digests to 1 MiB, and measured a string decode of 1
// MiB per acknowledgement). Info, whose two messages are ids alone, still
// grows its request's digest: a string is all there is. The notes say so.
func TestContentShape(t *testing.T) {
	const size = 1 << 20
	cfg := flags
	cfg.size = size
	ms, _, err := fillMessages("grpcfast.testdata.content.Content", contentMethods(), &cfg)
	if err != nil {
		t.Fatal(err)
	}
	info, read, write := ms[0], ms[1], ms[2]
	rreq := read.reqs[0].(*content.ReadContentRequest)
	wres := write.ress[0].(*content.WriteContentResponse)
	for _, tc := range []struct {
		name      string
		m         proto.Message
		want      int
		digestLen int // -1: not checked
	}{
		{"ReadContentRequest", rreq, baseSize(t, rreq), len("digest")},
		{"ReadContentResponse", read.ress[0], size, -1},
		{"WriteContentRequest", write.reqs[0], size, -1},
		{"WriteContentResponse", wres, baseSize(t, wres), len("digest")},
		{"InfoRequest", info.reqs[0], size, -1},
		{"InfoResponse", info.ress[0], baseSize(t, info.ress[0]), -1}, // a unary response
	} {
		if got := proto.Size(tc.m); got != tc.want {
			t.Errorf("%s: %d bytes, want %d", tc.name, got, tc.want)
		}
	}
	if len(rreq.Digest) != len("digest") || len(wres.Digest) != len("digest") {
		t.Errorf("digests of %d and %d bytes, want them as filled (%d)", len(rreq.Digest), len(wres.Digest), len("digest"))
	}
	if w := write.reqs[0].(*content.WriteContentRequest); len(w.Data) < size-256 || len(w.Ref) > 16 || len(w.Expected) > 16 {
		t.Errorf("WriteContentRequest: data %d, ref %d, expected %d bytes: want the data grown alone", len(w.Data), len(w.Ref), len(w.Expected))
	}
	if r := info.reqs[0].(*content.InfoRequest); len(r.Digest) < size-8 {
		t.Errorf("InfoRequest: digest %d bytes, want it grown", len(r.Digest))
	}
	wantNotes := map[*growNote]string{
		read.notes[0]: fmt.Sprintf("-grpcfast.size=1048576 keeps grpcfast.testdata.content.ReadContentRequest at %d bytes: "+
			"it has no bytes or repeated field, and its method's other message has one: "+
			"its strings are ids, not a payload, and keep their length (-grpcfast.grow names a field to grow anyway)", proto.Size(rreq)),
		write.notes[0]: fmt.Sprintf("-grpcfast.size=1048576 grows grpcfast.testdata.content.WriteContentRequest from %d to 1048576 bytes: "+
			"WriteContentRequest.data (bytes), longer", baseSize(t, write.reqs[0])),
		info.notes[0]: fmt.Sprintf("-grpcfast.size=1048576 grows grpcfast.testdata.content.InfoRequest from %d to 1048576 bytes: "+
			"InfoRequest.digest (string), longer", baseSize(t, info.reqs[0])),
	}
	for n, want := range wantNotes {
		if n == nil || n.String() != want {
			t.Errorf("note %v\nwant %s", n, want)
		}
	}
	if info.notes[1] != nil {
		t.Errorf("a note for Info's response, which no flag grows: %v", info.notes[1])
	}
	for i, m := range ms {
		if m.batch != nil {
			t.Errorf("%s has a batch case; no message of it holds a repeated message field", contentMethods()[i].Name())
		}
	}
	// -grpcfast.grow still grows an id where asked.
	cfg.grow = []string{"grpcfast.testdata.content.ReadContentRequest.digest"}
	if ms, _, err = fillMessages("grpcfast.testdata.content.Content", contentMethods(), &cfg); err != nil {
		t.Fatal(err)
	}
	if n := proto.Size(ms[1].reqs[0]); n != size {
		t.Errorf("ReadContentRequest with -grpcfast.grow naming its digest: %d bytes, want %d", n, size)
	}
}

// TestBatchCase checks the shape=batch case: a message holding a repeated
// message field at the top level grows to about -grpcfast.batch bytes by
// elements of that field alone; a message without one is the default
// case's own; -grpcfast.batch=0 turns the case off.
func TestBatchCase(t *testing.T) {
	methods := kindsMethods() // Rich holds repeated Inner inners; Summary none
	cfg := flags
	ms, _, err := fillMessages("grpcfast.testdata.kinds.Kinds", methods, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	inner := new(kinds.Inner)
	if err := Fill(inner, 0); err != nil {
		t.Fatal(err)
	}
	elem := proto.Size(inner) + 3 // its tag and length
	for i, m := range ms {
		name := methods[i].Name()
		if m.batch == nil {
			t.Fatalf("%s: no batch case", name)
		}
		def := m.reqs[0].(*kinds.Rich)
		got := m.batch.reqs[0].(*kinds.Rich)
		if n := proto.Size(got); n < defaultBatch || n >= defaultBatch+elem {
			t.Errorf("%s: batch request of %d bytes, want %d to %d", name, n, defaultBatch, defaultBatch+elem)
		}
		if len(got.Inners) <= len(def.Inners) || len(got.Words) != len(def.Words) || len(got.Numbers) != len(def.Numbers) ||
			len(got.Inners[len(got.Inners)-1].Label) != len(def.Inners[0].Label) {
			t.Errorf("%s: inners %d, words %d, numbers %d: want only inners grown (default: %d, %d, %d)",
				name, len(got.Inners), len(got.Words), len(got.Numbers), len(def.Inners), len(def.Words), len(def.Numbers))
		}
		if proto.Size(def) != baseSize(t, def) {
			t.Errorf("%s: the default case's request changed to %d bytes", name, proto.Size(def))
		}
		want := fmt.Sprintf("-grpcfast.batch=16384 (shape=batch) grows grpcfast.testdata.kinds.Rich from %d to %d bytes: "+
			"Rich.inners (repeated Inner), by added elements", proto.Size(def), proto.Size(got))
		if n := m.batch.notes[0]; n == nil || n.String() != want {
			t.Errorf("%s: note %v\nwant %s", name, n, want)
		}
	}
	// ClientStream answers with a Summary, which holds no batch: the batch
	// case sends the default one.
	if ms[1].batch.ress[0] != ms[1].ress[0] || ms[1].batch.notes[1] != nil {
		t.Errorf("ClientStream's batch case has a response of its own: %v", ms[1].batch.ress[0])
	}
	cfg.batch = 0
	if ms, _, err = fillMessages("grpcfast.testdata.kinds.Kinds", methods, &cfg); err != nil {
		t.Fatal(err)
	}
	for i, m := range ms {
		if m.batch != nil {
			t.Errorf("%s: a batch case with -grpcfast.batch=0", methods[i].Name())
		}
	}
}

// onceRuns numbers the runs of TestNotesOnce in this process: newNotes
// remembers what it returned for the rest of the process, so each run (go
// test -count=N) takes a message name of its own.
var onceRuns atomic.Int32

// TestNotesOnce checks that each note is printed once per process and
// flag, however many methods fill its message type.
func TestNotesOnce(t *testing.T) {
	msg := protoreflect.FullName(fmt.Sprintf("grpcfast.testdata.once%d.M", onceRuns.Add(1)))
	n := growNote{"-grpcfast.size=7", msg, growth{kept: keptNothing}}
	other := n
	other.flag = "-grpcfast.respsize=7"
	got := newNotes([]growNote{n, n, other})
	if len(got) != 2 || got[0].String() != n.String() || got[1].String() != other.String() {
		t.Errorf("first: %v, want %v and %v", got, n, other)
	}
	if again := newNotes([]growNote{n, other}); len(again) != 0 {
		t.Errorf("again: %v, want none", again)
	}
	if s := n.String(); !strings.HasPrefix(s, "-grpcfast.size=7 keeps "+string(msg)+" at 0 bytes: it has no bytes") {
		t.Errorf("%q", s)
	}
}
