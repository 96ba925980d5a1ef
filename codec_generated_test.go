package grpcfast_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
	"unsafe"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/grpcfastrecord"
	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"github.com/grpcfast/grpcfast/internal/guardpage"
	"github.com/grpcfast/grpcfast/internal/own"
	"github.com/grpcfast/grpcfast/internal/testprotos/hostile"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
	"github.com/grpcfast/grpcfast/internal/testprotos/otlp"
	"github.com/grpcfast/grpcfast/internal/testprotos/proto2"
)

func marshalOK(t testing.TB, m proto.Message) []byte {
	b, err := proto.Marshal(m)
	if err != nil {
		t.Helper()
		t.Fatal(err)
	}
	return b
}

// decodableInputs returns encodings that the generated decoder must decode
// exactly as protobuf-go does: every field and oneof case, fields repeated
// (the last scalar wins, messages merge, a oneof switches case), repeated
// fields packed and not whatever the field declares, unknown fields, and
// known fields with another wire type.
func decodableInputs(t testing.TB) map[string][]byte {
	in := map[string][]byte{"empty": nil}
	for choice := range 10 {
		in["full/choice="+string(rune('0'+choice))] = marshalOK(t, grpcfasttest.FullDecodable(4, 2, choice))
	}
	in["large"] = marshalOK(t, grpcfasttest.FullDecodable(300, 3, 2))
	tag := func(b []byte, num protowire.Number, typ protowire.Type) []byte {
		return protowire.AppendTag(b, num, typ)
	}
	msg := func(b []byte, num protowire.Number, m proto.Message) []byte {
		return protowire.AppendBytes(tag(b, num, protowire.BytesType), marshalOK(t, m))
	}
	var b []byte
	b = msg(b, 29, &kinds.Decodable{Name: "first", Ri32: []int32{1}})
	b = msg(b, 29, &kinds.Decodable{I64: 2, Ri32: []int32{2}})           // merges into the child
	b = msg(b, 31, &kinds.Rich{Id: 1, Counts: map[string]int64{"a": 1}}) // merges, vtprotobuf's decoder
	b = msg(b, 31, &kinds.Rich{Name: "n", Counts: map[string]int64{"b": 2}})
	b = protowire.AppendVarint(tag(b, 2, protowire.VarintType), 1)
	b = protowire.AppendVarint(tag(b, 2, protowire.VarintType), 2) // the last wins
	in["repeated fields"] = b

	b = nil
	b = protowire.AppendString(tag(b, 33, protowire.BytesType), "text")
	b = msg(b, 35, &kinds.Decodable{Name: "node"})
	b = msg(b, 35, &kinds.Decodable{I32: 3}) // merges into the node
	b = protowire.AppendVarint(tag(b, 36, protowire.VarintType), 4)
	b = protowire.AppendString(tag(b, 33, protowire.BytesType), "again")
	b = msg(b, 43, &kinds.Inner{Label: "i"})
	b = protowire.AppendString(tag(b, 44, protowire.BytesType), "switched")
	in["oneofs switching"] = b

	b = nil
	b = protowire.AppendVarint(tag(b, 17, protowire.VarintType), 5)                      // packed field, unpacked
	b = protowire.AppendBytes(tag(b, 17, protowire.BytesType), []byte{1, 0x80, 0x01, 3}) // and packed
	b = protowire.AppendBytes(tag(b, 19, protowire.BytesType), []byte{1, 0, 0, 0, 2, 0, 0, 0})
	b = protowire.AppendFixed32(tag(b, 19, protowire.Fixed32Type), 3)
	b = protowire.AppendBytes(tag(b, 23, protowire.BytesType), []byte{3, 4})
	b = protowire.AppendBytes(tag(b, 21, protowire.BytesType), nil) // empty packed
	b = protowire.AppendBytes(tag(b, 25, protowire.BytesType), []byte{0, 0, 0x80, 0x7f})
	in["packed and not"] = b

	b = nil
	b = protowire.AppendVarint(tag(b, 1000, protowire.VarintType), 1)
	b = protowire.AppendBytes(tag(b, 15, protowire.BytesType), []byte("name"))
	b = protowire.AppendFixed64(tag(b, 1, protowire.Fixed64Type), 1) // i32 as fixed64: unknown
	b = protowire.AppendVarint(tag(b, 29, protowire.VarintType), 1)  // a message as a varint
	b = append(tag(b, 999, protowire.StartGroupType), tag(nil, 999, protowire.EndGroupType)...)
	in["unknown fields"] = b
	return in
}

// TestGeneratedDecode decodes every decodableInputs into one slot in turn,
// as a pooled handler with the owned copy does, after a large message and
// twice each, so that each decode reuses what the one before left (kept
// arrays, elements, and the spares of nested messages and oneof wrappers).
// Each must equal protobuf-go's decode, and valid input must have been
// decoded by the generated decoder.
func TestGeneratedDecode(t *testing.T) {
	c := grpcfast.NewCodec()
	in := decodableInputs(t)
	s := grpcfasttest.NewCopySlot[kinds.Decodable]()
	for _, name := range []string{"large", "full/choice=2", "empty", "repeated fields", "large", "oneofs switching",
		"packed and not", "full/choice=7", "unknown fields", "full/choice=0", "large", "full/choice=9"} {
		b := in[name]
		for round := range 2 {
			generated, err := s.Decode(c, grpcfasttest.SliceAt(b, len(b)/2))
			grpcfasttest.CheckOracle(t, b, s.Msg(), err)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if !generated {
				t.Errorf("%s, round %d: not decoded by the generated decoder", name, round)
			}
			s.Reset()
		}
	}
	for _, b := range in {
		// Without a slot (no spares), vtprotobuf's unsafe decoder.
		m, _, err := grpcfasttest.UnmarshalCopy[kinds.Decodable](c, grpcfasttest.SliceAt(b, len(b)/3))
		grpcfasttest.CheckOracle(t, b, m, err)
	}
}

// TestGeneratedDecodeOwnership: what a handler put into a decoded message
// (its own nested message, oneof wrapper, repeated element), or moved
// within it, is never written into nor handed to the next decode; the next
// decode is still exact.
func TestGeneratedDecodeOwnership(t *testing.T) {
	if own.Quarantine {
		t.Skip("quarantine builds keep nothing")
	}
	c := grpcfast.NewCodec()
	full := marshalOK(t, grpcfasttest.FullDecodable(5, 2, 0))
	s := grpcfasttest.NewCopySlot[kinds.Decodable]()
	if generated, err := s.Decode(c, grpcfasttest.SliceAt(full, 10)); err != nil || !generated {
		t.Fatalf("decode: generated %v, %v", generated, err)
	}
	m := s.Msg()
	mine := &kinds.Decodable{Name: "mine"}
	myWrapper := &kinds.Decodable_Text{Text: "my text"}
	myInner := &kinds.Decodable_Inner{Inner: &kinds.Inner{Label: "my inner"}}
	myData := []byte("my data, not the decoder's")
	myInts := []int32{7, 7, 7, 7, 7, 7, 7, 7}
	myWords := []string{"mine", "mine", "mine", "mine", "mine", "mine", "mine"}
	m.Data = myData[:0] // with room to decode into
	m.Ri32 = myInts[:1]
	m.Words = myWords[:0]
	m.Child = mine
	m.Choice = myWrapper
	m.Second = myInner
	m.Children[1] = m.Children[0] // the same element twice
	m.Riches = append(m.Riches[:0:0], m.Riches...)
	s.Reset()
	for _, b := range [][]byte{full, marshalOK(t, grpcfasttest.FullDecodable(7, 3, 0))} {
		generated, err := s.Decode(c, grpcfasttest.SliceAt(b, len(b)/2))
		grpcfasttest.CheckOracle(t, b, s.Msg(), err)
		if !generated {
			t.Fatal("not decoded by the generated decoder")
		}
		m := s.Msg()
		if m.Child == mine || m.Choice == myWrapper || m.Second == myInner ||
			len(m.Children) > 1 && m.Children[0] == m.Children[1] {
			t.Fatalf("the decode reused what the handler put into the message: %p %p %p", m.Child, m.Choice, m.Second)
		}
		s.Reset()
	}
	if mine.Name != "mine" || len(mine.Words) != 0 || myWrapper.Text != "my text" || myInner.Inner.Label != "my inner" {
		t.Fatalf("the handler's messages were written into: %v, %v, %v", mine, myWrapper, myInner)
	}
	for _, v := range myInts {
		if v != 7 {
			t.Fatalf("the handler's repeated field was written into: %v", myInts)
		}
	}
	for _, w := range myWords {
		if w != "mine" {
			t.Fatalf("the handler's repeated strings were written into: %q", myWords)
		}
	}
	if string(myData) != "my data, not the decoder's" {
		t.Fatalf("the handler's bytes were written into: %q", myData)
	}
}

// TestFreshShortFieldsApart: in a decode into a new message, the short
// repeated message fields (an OTLP span's attributes, events, links) have
// their pointers side by side in the decode's chunks, each of capacity
// exactly its length: a handler that appends to each of them, or sets
// their elements, changes no other field, and the message then is what
// protobuf-go decodes with the same changes made.
func TestFreshShortFieldsApart(t *testing.T) {
	msgs, err := grpcfastrecord.Read("internal/testprotos/otlp/testdata/corpus", "grpcfast.testdata.otlp.TraceService", "Export", true,
		func() proto.Message { return new(otlp.ExportTraceServiceRequest) })
	if err != nil {
		t.Fatal(err)
	}
	c := grpcfast.NewCodec()
	for i, m := range msgs {
		b := marshalOK(t, m)
		got := new(otlp.ExportTraceServiceRequest)
		if err := c.Unmarshal(mem.BufferSlice{mem.SliceBuffer(b)}, got); err != nil {
			t.Fatal(err)
		}
		want := proto.Clone(m).(*otlp.ExportTraceServiceRequest)
		if n := changeExport(got); n < 300 || changeExport(want) != n {
			t.Fatalf("export %d: %d lists changed, want the same on both and at least 300", i, n)
		}
		if !proto.Equal(got, want) {
			t.Fatalf("export %d: appending to the decoded message's fields changed others", i)
		}
	}
}

// changeExport appends a KeyValue to every attribute list, an event, a
// link and a span to every list of them, and replaces the first attribute
// of each span, as a careless handler might: it returns how many lists it
// changed.
func changeExport(m *otlp.ExportTraceServiceRequest) (lists int) {
	for _, rs := range m.ResourceSpans {
		if r := rs.Resource; r != nil {
			r.Attributes = append(r.Attributes, &otlp.KeyValue{Key: "added"})
			lists++
		}
		for _, ss := range rs.ScopeSpans {
			for _, sp := range ss.Spans {
				sp.Attributes = append(sp.Attributes, &otlp.KeyValue{Key: "added to " + sp.Name})
				if len(sp.Attributes) > 1 {
					sp.Attributes[0] = &otlp.KeyValue{Key: "replaced"}
				}
				sp.Events = append(sp.Events, &otlp.Span_Event{Name: "added"})
				for _, e := range sp.Events {
					e.Attributes = append(e.Attributes, &otlp.KeyValue{Key: "added to an event"})
				}
				sp.Links = append(sp.Links, &otlp.Span_Link{TraceState: "added"})
				lists += 3 + len(sp.Events)
			}
			ss.Spans = append(ss.Spans, &otlp.Span{Name: "added"})
			lists++
		}
	}
	return lists
}

// appendingOTLP is a default-path TraceService whose handler changes every
// list of the request it got (changeExport), then checks that the request
// is the export its client sent with the same changes made.
type appendingOTLP struct {
	otlp.UnimplementedTraceServiceServer
}

func (appendingOTLP) Export(_ context.Context, in *otlp.ExportTraceServiceRequest) (*otlp.ExportTraceServiceResponse, error) {
	c, i, err := otlp.VaryingExportOf(in)
	if err != nil {
		return nil, status.Errorf(codes.DataLoss, "request %v: %v", in, err)
	}
	want := otlp.VaryingExport(c, i)
	if n := changeExport(in); n == 0 || changeExport(want) != n || !proto.Equal(in, want) {
		return nil, status.Errorf(codes.DataLoss, "export %d of client %d: appending to its lists changed others", i, c)
	}
	return &otlp.ExportTraceServiceResponse{}, nil
}

// TestFreshShortFieldsApartOverGRPC: the same over gRPC, on the default
// path (requests decoded into new messages), 8 clients at once: a handler
// that appends to the short lists of its request changes nothing else of
// it, nor of another call's.
func TestFreshShortFieldsApartOverGRPC(t *testing.T) {
	_, conn := grpcfasttest.ServeAndDial(t, func(s *grpc.Server) {
		otlp.RegisterTraceServiceServer(s, appendingOTLP{})
	}, nil, nil)
	client := otlp.NewTraceServiceClient(conn)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := grpcfasttest.Concurrently(ctx, 8, func(ctx context.Context, c int) error {
		for i := range 40 {
			if _, err := client.Export(ctx, otlp.VaryingExport(c, i)); err != nil {
				return fmt.Errorf("export %d of client %d: %v", i, c, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestGeneratedDecodeViews: with the owned copy the strings and bytes are
// views of it, and a bytes field cannot grow into what follows it.
func TestGeneratedDecodeViews(t *testing.T) {
	c := grpcfast.NewCodec()
	b := marshalOK(t, &kinds.Decodable{Data: []byte("abc"), Name: "after", Blobs: [][]byte{[]byte("x")}})
	s := grpcfasttest.NewCopySlot[kinds.Decodable]()
	if generated, err := s.Decode(c, grpcfasttest.SliceAt(b, 3)); err != nil || !generated {
		t.Fatalf("decode: generated %v, %v", generated, err)
	}
	m := s.Msg()
	if cap(m.Data) != len(m.Data) || cap(m.Blobs[0]) != 1 {
		t.Fatalf("a bytes view can grow into the copy: cap %d, %d", cap(m.Data), cap(m.Blobs[0]))
	}
	_ = append(m.Data, "XXXXXXXXXX"...)
	if m.Name != "after" {
		t.Fatalf("appending to a bytes field changed a string: %q", m.Name)
	}
	d, n := uintptr(unsafe.Pointer(unsafe.SliceData(m.Data))), uintptr(unsafe.Pointer(unsafe.StringData(m.Name)))
	if max(d, n)-min(d, n) > uintptr(len(b)) {
		t.Fatalf("the string is not a view of the copy the bytes field views")
	}
}

// FuzzGeneratedDecode decodes arbitrary input with the generated decoder,
// into a slot that a full message was decoded into before (its kept memory
// and spares), twice; protobuf-go is the oracle.
//
//	go test -run='^$' -fuzz=FuzzGeneratedDecode -fuzztime=10s .
func FuzzGeneratedDecode(f *testing.F) {
	for name, b := range decodableInputs(f) {
		if name != "large" { // too large to mutate quickly
			f.Add(b, uint16(len(b)/2))
		}
	}
	for _, b := range grpcfasttest.Malformed() {
		f.Add(b, uint16(1))
	}
	f.Add(marshalOK(f, &otlp.AnyValue{Value: &otlp.AnyValue_StringValue{StringValue: "s"}}), uint16(2))
	// Maps, optional fields and proto2 (Rich, proto2.Entries).
	f.Add(marshalOK(f, grpcfasttest.FullRich(30)), uint16(9))
	for _, b := range mapEntryInputs(f) {
		f.Add(b, uint16(len(b)/2))
	}
	// Nested messages of one field, which their holder decodes itself.
	for _, b := range inlineInputs() {
		f.Add(b, uint16(len(b)/2))
	}
	// google.protobuf's wrappers, which their holder decodes itself too.
	for _, b := range wrapperInputs() {
		if len(b) < 1024 { // larger ones are slow to mutate
			f.Add(b, uint16(len(b)/2))
		}
	}
	f.Fuzz(fuzzBody)
}

var (
	fuzzCodec   = grpcfast.NewCodec()
	fuzzFull    = marshalOK(nil, grpcfasttest.FullDecodable(3, 2, 2))
	fuzzWrapped = marshalOK(nil, fullWrapped())
	fuzzWraps   = marshalOK(nil, fullWrappers())
)

func fuzzBody(t *testing.T, b []byte, cut uint16) {
	c, full := fuzzCodec, fuzzFull
	{
		s := grpcfasttest.NewCopySlot[kinds.Decodable]()
		if generated, err := s.Decode(c, mem.BufferSlice{mem.SliceBuffer(full)}); err != nil || !generated {
			t.Fatalf("decoding a full message: generated %v, %v", generated, err)
		}
		for range 2 {
			s.Reset()
			_, err := s.Decode(c, grpcfasttest.SliceAt(b, int(cut)%(len(b)+1)))
			grpcfasttest.CheckOracle(t, b, s.Msg(), err)
		}
		// The same through OTLP's types, whose oneof is AnyValue's, and
		// through messages of one field that their holder decodes itself
		// (kinds.Wrapped, and google.protobuf's wrappers in
		// kinds.Wrappers), after a full one.
		o := grpcfasttest.NewCopySlot[otlp.KeyValue]()
		w := grpcfasttest.NewCopySlot[kinds.Wrapped]()
		if _, err := w.Decode(c, mem.BufferSlice{mem.SliceBuffer(fuzzWrapped)}); err != nil {
			t.Fatal(err)
		}
		ws := grpcfasttest.NewPlainSlot[kinds.Wrappers]()
		if _, err := ws.Decode(c, mem.BufferSlice{mem.SliceBuffer(fuzzWraps)}); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			_, err := o.Decode(c, mem.BufferSlice{mem.SliceBuffer(b)})
			grpcfasttest.CheckOracle(t, b, o.Msg(), err)
			o.Reset()
			w.Reset()
			_, err = w.Decode(c, grpcfasttest.SliceAt(b, int(cut)%(len(b)+1)))
			grpcfasttest.CheckOracle(t, b, w.Msg(), err)
			ws.Reset()
			_, err = ws.Decode(c, grpcfasttest.SliceAt(b, int(cut)%(len(b)+1)))
			grpcfasttest.CheckOracle(t, b, ws.Msg(), err)
		}
		// Maps, optional fields, proto2 and required fields, into reused
		// slots and into new messages.
		r := grpcfasttest.NewCopySlot[kinds.Rich]()
		e := grpcfasttest.NewCopySlot[proto2.Entries]()
		for range 2 {
			_, err := r.Decode(c, grpcfasttest.SliceAt(b, int(cut)%(len(b)+1)))
			grpcfasttest.CheckOracle(t, b, r.Msg(), err)
			r.Reset()
			_, err = e.Decode(c, mem.BufferSlice{mem.SliceBuffer(b)})
			grpcfasttest.CheckOracle(t, b, e.Msg(), err)
			e.Reset()
		}
		// Into new messages, and into a slot without the owned copy, from
		// pieces that each end where a page that faults when read begins:
		// these decodes read the input itself, and must read nothing past
		// a piece's end.
		guardpage.Check(t, "guarded", grpcfasttest.PiecesAt(b, int(cut)%(len(b)+1)), func(in [][]byte) {
			data := grpcfasttest.Buffers(in)
			for _, m := range []proto.Message{&kinds.Rich{}, &proto2.Entries{}, &hostile.Node{}, &kinds.Wrapped{}, &kinds.Wrappers{}} {
				grpcfasttest.CheckOracle(t, b, m, c.Unmarshal(data, m))
			}
			p := grpcfasttest.NewPlainSlot[kinds.Rich]()
			_, err := p.Decode(c, data)
			grpcfasttest.CheckOracle(t, b, p.Msg(), err)
		})
	}
}

// TestCopyBytesCannotGrow: with the owned copy, no bytes field of the
// request, at the top or nested, singular, repeated, optional or in a
// oneof, can grow into the copy: an append to it would change the strings
// that view what follows.
func TestCopyBytesCannotGrow(t *testing.T) {
	c := grpcfast.NewCodec()
	rich := &kinds.Rich{
		Data: []byte("abc"), Maybe: []byte("m"), Blobs: [][]byte{[]byte("b")},
		Choice: &kinds.Rich_Raw{Raw: []byte("r")}, Name: "after", Words: []string{"after"},
		Inner: &kinds.Inner{Payload: []byte("p"), Label: "after"},
	}
	check := func(what string, r *kinds.Rich, views bool) {
		t.Helper()
		for _, b := range [][]byte{r.Data, r.Maybe, r.Blobs[0], r.Choice.(*kinds.Rich_Raw).Raw, r.Inner.Payload} {
			// A view of the copy must end where its value does; a copy
			// of its own (UnmarshalVT's) may have room to grow.
			if views && cap(b) != len(b) {
				t.Errorf("%s: a bytes field %q has capacity %d: an append writes into the copy", what, b, cap(b))
			}
			_ = append(b, "XXXXXXXXXXXXXXXXXXXX"...)
		}
		if r.Name != "after" || r.Words[0] != "after" || r.Inner.Label != "after" {
			t.Errorf("%s: appending to bytes fields changed strings: %q %q %q", what, r.Name, r.Words[0], r.Inner.Label)
		}
	}
	b := marshalOK(t, rich)
	s := grpcfasttest.NewCopySlot[kinds.Rich]()
	if _, err := s.Decode(c, grpcfasttest.SliceAt(b, 7)); err != nil {
		t.Fatal(err)
	}
	check("a Rich", s.Msg(), true)

	// Empty bytes fields, which protobuf-go never sends but a peer may: a
	// view of no bytes still has the capacity of the rest of the copy.
	var e []byte
	e = protowire.AppendBytes(protowire.AppendTag(e, 3, protowire.BytesType), nil)
	e = protowire.AppendString(protowire.AppendTag(e, 2, protowire.BytesType), "after")
	e = protowire.AppendBytes(protowire.AppendTag(e, 8, protowire.BytesType), []byte("\x12\x00\x0a\x05after"))
	e = protowire.AppendBytes(protowire.AppendTag(e, 7, protowire.BytesType), nil)
	e = protowire.AppendString(protowire.AppendTag(e, 6, protowire.BytesType), "after")
	e = protowire.AppendBytes(protowire.AppendTag(e, 12, protowire.BytesType), nil)
	e = protowire.AppendBytes(protowire.AppendTag(e, 14, protowire.BytesType), nil)
	s.Reset()
	if _, err := s.Decode(c, mem.BufferSlice{mem.SliceBuffer(e)}); err != nil {
		t.Fatal(err)
	}
	r := s.Msg()
	for _, b := range [][]byte{r.Data, r.Inner.Payload, r.Blobs[0], r.Choice.(*kinds.Rich_Raw).Raw, r.Maybe} {
		if cap(b) != 0 {
			t.Errorf("an empty bytes field has capacity %d: an append writes into the copy", cap(b))
		}
	}
	if r.Maybe == nil {
		t.Error("clipping dropped the presence of an empty optional bytes field")
	}

	d := marshalOK(t, &kinds.Decodable{Rich: rich, Riches: []*kinds.Rich{rich}, Choice: &kinds.Decodable_Other{Other: rich}})
	ds := grpcfasttest.NewCopySlot[kinds.Decodable]()
	if generated, err := ds.Decode(c, grpcfasttest.SliceAt(d, 7)); err != nil || !generated {
		t.Fatalf("generated %v, %v", generated, err)
	}
	m := ds.Msg()
	// Under a generated decoder, vtprotobuf's UnmarshalVT copies.
	check("a Rich under a Decodable", m.Rich, false)
	check("a Rich in a repeated field of a Decodable", m.Riches[0], false)
	check("a Rich in a oneof of a Decodable", m.Choice.(*kinds.Decodable_Other).Other, false)
}

// TestGeneratedDecodeVaryingCounts: requests whose repeated fields
// alternate in length allocate no more, once warm, than those of a
// constant shape (the owned copy): the elements that a shorter request left
// unused wait among the slot's spares for the next longer one.
func TestGeneratedDecodeVaryingCounts(t *testing.T) {
	grpcfasttest.SkipIfRace(t)
	if own.Quarantine {
		t.Skip("quarantine builds never reuse")
	}
	c := grpcfast.NewCodec()
	var in []mem.BufferSlice
	for _, n := range []int{10, 3} {
		m := &kinds.Decodable{Name: "n"}
		for i := range n {
			m.Children = append(m.Children, &kinds.Decodable{I32: int32(i), Ri32: []int32{1, 2}, Choice: &kinds.Decodable_Num{Num: 1}})
		}
		in = append(in, mem.BufferSlice{mem.SliceBuffer(marshalOK(t, m))})
	}
	s := grpcfasttest.NewCopySlot[kinds.Decodable]()
	i := 0
	got := testing.AllocsPerRun(100, func() {
		data := in[i%len(in)]
		i++
		if generated, err := s.Decode(c, data); err != nil || !generated {
			t.Fatalf("generated %v, %v", generated, err)
		}
		s.Reset()
	})
	if got > 1 {
		t.Errorf("%v allocations per decode of requests of 10 and 3 children in turn, want 1 (the copy)", got)
	}
}

// TestSlotBounded: what a slot keeps is bounded by its last messages, not
// by every message it has decoded. Request j has j empty children and then
// one with 200 children: a slot that kept every element it ever had, with
// what each held, grew to 40,201 messages after 200 requests.
func TestSlotBounded(t *testing.T) {
	c := grpcfast.NewCodec()
	s := grpcfasttest.NewCopySlot[kinds.Decodable]()
	big := &kinds.Decodable{Children: make([]*kinds.Decodable, 200)}
	for i := range big.Children {
		big.Children[i] = &kinds.Decodable{}
	}
	for j := range 200 {
		m := &kinds.Decodable{}
		for range j {
			m.Children = append(m.Children, &kinds.Decodable{})
		}
		m.Children = append(m.Children, big)
		b := marshalOK(t, m)
		if _, err := s.Decode(c, mem.BufferSlice{mem.SliceBuffer(b)}); err != nil {
			t.Fatal(err)
		}
		s.Reset()
	}
	// Everything reachable from the slot's message, within its slices'
	// capacity, after its reset, and what its record holds.
	var count func(m *kinds.Decodable) int
	count = func(m *kinds.Decodable) int {
		n := 1
		for _, c := range m.Children[:cap(m.Children)] {
			if c != nil {
				n += count(c)
			}
		}
		return n
	}
	// The last request took 400 nested messages, the one before 399: the
	// slot keeps those (at most twice the last and 16 more), where keeping
	// every element grew to 40,201 messages, and more with every request.
	if n, max := count(s.Msg())+s.Held(), 1+400; n > max {
		t.Errorf("the slot holds %d messages after 200 requests of at most 401, want at most %d", n, max)
	}
	// Two small requests later, it keeps what they need, and 16 more.
	small := marshalOK(t, &kinds.Decodable{Children: []*kinds.Decodable{{}}})
	for range 2 {
		if _, err := s.Decode(c, mem.BufferSlice{mem.SliceBuffer(small)}); err != nil {
			t.Fatal(err)
		}
		s.Reset()
	}
	if n, max := count(s.Msg())+s.Held(), 1+2*1+16; n > max {
		t.Errorf("the slot holds %d messages after two requests of 2, want at most %d", n, max)
	}
}

// TestGeneratedDecodeHostile: hostile input after a valid field, split at
// every byte (every 7919th for the deep one), decoded by the generated
// decoder into a slot that a full message was decoded into before, and a
// second time into what that left: exactly as protobuf-go decides, never a
// panic. Decodable nests through child (field 29), past protobuf-go's limit
// of 10,000.
func TestGeneratedDecodeHostile(t *testing.T) {
	name := protowire.AppendString(grpcfasttest.Tag(15, protowire.BytesType), "before")
	after := func(b ...[]byte) []byte {
		out := append([]byte{}, name...)
		for _, p := range b {
			out = append(out, p...)
		}
		return out
	}
	cases := []struct {
		name string
		b    []byte
		step int
	}{
		{"valid", after(protowire.AppendString(grpcfasttest.Tag(27, protowire.BytesType), "w")), 1},
		{"field 2^32+6", after(grpcfasttest.BigTag(grpcfasttest.Pow2(32, 6), protowire.BytesType), []byte{1, 'x'}), 1},
		{"field 2^29", after(grpcfasttest.BigTag(grpcfasttest.Pow2(29, 0), protowire.VarintType), []byte{1}), 1},
		{"varint too long", after(grpcfasttest.Tag(2, protowire.VarintType), bytes.Repeat([]byte{0xff}, 11)), 1},
		{"unclosed group", after(grpcfasttest.Tag(40, protowire.StartGroupType)), 1},
		{"string not UTF-8", after(protowire.AppendBytes(grpcfasttest.Tag(33, protowire.BytesType), []byte{0xff})), 1},
		{"nested 9,999", after(grpcfasttest.Nested(grpcfasttest.RepeatTags(9999, grpcfasttest.Tag(29, protowire.BytesType)), nil)), 7919},
		{"nested 10,001", after(grpcfasttest.Nested(grpcfasttest.RepeatTags(10001, grpcfasttest.Tag(29, protowire.BytesType)), nil)), 7919},
	}
	c := grpcfast.NewCodec()
	full := marshalOK(t, grpcfasttest.FullDecodable(4, 3, 1))
	for _, tc := range cases {
		for cut := 0; cut < len(tc.b); cut += tc.step {
			s := grpcfasttest.NewCopySlot[kinds.Decodable]()
			if generated, err := s.Decode(c, grpcfasttest.SliceAt(full, len(full)/2)); err != nil || !generated {
				t.Fatalf("a full message: generated %v, %v", generated, err)
			}
			for round := range 2 {
				s.Reset()
				var cuts []int
				if cut > 0 {
					cuts = []int{cut}
				}
				_, err := s.Decode(c, grpcfasttest.SliceAt(tc.b, cuts...))
				grpcfasttest.CheckOracle(t, tc.b, s.Msg(), err)
				if t.Failed() {
					t.Fatalf("%s, split at %v, round %d", tc.name, cuts, round)
				}
			}
		}
	}
}

// TestOneofRecordOwnership: a oneof's record is one group, the wrapper and
// its message case. A handler that keeps the decoder's wrapper but puts its
// own message in it, or puts the decoder's message in a wrapper of its own,
// gets neither written into nor reused, and the next decodes are right.
func TestOneofRecordOwnership(t *testing.T) {
	if own.Quarantine {
		t.Skip("quarantine builds keep nothing")
	}
	c := grpcfast.NewCodec()
	full := marshalOK(t, grpcfasttest.FullDecodable(5, 2, 2)) // Choice: a Node; Second: an Inner
	s := grpcfasttest.NewCopySlot[kinds.Decodable]()
	if generated, err := s.Decode(c, grpcfasttest.SliceAt(full)); err != nil || !generated {
		t.Fatalf("decode: generated %v, %v", generated, err)
	}
	m := s.Msg()
	node, ok := m.Choice.(*kinds.Decodable_Node)
	if !ok {
		t.Fatalf("Choice is %T, want a Node", m.Choice)
	}
	mine := &kinds.Decodable{Name: "mine"}
	node.Node = mine // the decoder's wrapper, the handler's message
	inner := m.Second.(*kinds.Decodable_Inner).Inner
	myWrapper := &kinds.Decodable_Inner{Inner: inner} // the handler's wrapper, the decoder's message
	m.Second = myWrapper
	s.Reset()
	for _, b := range [][]byte{full, marshalOK(t, grpcfasttest.FullDecodable(3, 2, 2)), full} {
		generated, err := s.Decode(c, grpcfasttest.SliceAt(b, len(b)/3))
		grpcfasttest.CheckOracle(t, b, s.Msg(), err)
		if !generated {
			t.Fatal("not decoded by the generated decoder")
		}
		m := s.Msg()
		if n, ok := m.Choice.(*kinds.Decodable_Node); ok && n.Node == mine {
			t.Fatal("the decode reused the handler's message from the decoder's wrapper")
		}
		if m.Second == myWrapper {
			t.Fatal("the decode reused the handler's wrapper")
		}
		s.Reset()
	}
	if mine.Name != "mine" || mine.Child != nil || len(mine.Words) != 0 {
		t.Fatalf("the handler's message was written into: %v", mine)
	}
	if myWrapper.Inner != inner {
		t.Fatalf("the handler's wrapper was written into: %v", myWrapper)
	}
}

// reorder returns b, an encoding of a message of type md, with its fields
// in another order at every level of nesting: reversed, rotated by one or
// shuffled (order), each nested message and map entry reordered alike.
func reorder(t *testing.T, md protoreflect.MessageDescriptor, b []byte, order string, rnd *rand.Rand) []byte {
	var fields [][]byte
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if n < 0 || m < 0 {
			t.Fatalf("reorder: malformed input at %x", b)
		}
		f := b[:n+m]
		if fd := md.Fields().ByNumber(num); fd != nil && typ == protowire.BytesType && fd.Message() != nil {
			v, _ := protowire.ConsumeBytes(b[n:])
			f = protowire.AppendBytes(protowire.AppendTag(nil, num, typ), reorder(t, fd.Message(), v, order, rnd))
		}
		fields = append(fields, f)
		b = b[n+m:]
	}
	switch order {
	case "reversed":
		slices.Reverse(fields)
	case "rotated":
		if len(fields) > 1 {
			fields = append(fields[1:], fields[0])
		}
	default:
		rnd.Shuffle(len(fields), func(i, j int) { fields[i], fields[j] = fields[j], fields[i] })
	}
	return slices.Concat(fields...)
}

// TestGeneratedDecodeFieldOrders: a generated decoder goes from a field's
// code straight to the next field's where the next tag is the one that
// field number order predicts; input in any other order, at any depth, is
// decoded as protobuf-go decodes it, whole and split, into a new message
// and into slots with and without the owned copy.
func TestGeneratedDecodeFieldOrders(t *testing.T) {
	c := grpcfast.NewCodec()
	rnd := rand.New(rand.NewPCG(1, 2))
	msgs := []proto.Message{
		grpcfasttest.FullDecodable(4, 2, 2), grpcfasttest.FullDecodable(3, 3, 7),
		grpcfasttest.FullRich(5), grpcfasttest.WordyMessage(),
	}
	if exports, err := grpcfastrecord.Read("internal/testprotos/otlp/testdata/corpus", "grpcfast.testdata.otlp.TraceService", "Export", true,
		func() proto.Message { return new(otlp.ExportTraceServiceRequest) }); err != nil {
		t.Fatal(err)
	} else {
		msgs = append(msgs, exports[0])
	}
	for _, m := range msgs {
		in := marshalOK(t, m)
		for _, order := range []string{"reversed", "rotated", "shuffled", "shuffled again"} {
			b := reorder(t, m.ProtoReflect().Descriptor(), in, order, rnd)
			what := fmt.Sprintf("%T %s", m, order)
			for _, cut := range []int{0, len(b) / 3} {
				got := m.ProtoReflect().New().Interface()
				grpcfasttest.CheckOracleAt(t, what, b, got, c.Unmarshal(grpcfasttest.SliceAt(b, cut), got))
			}
			switch m.(type) {
			case *kinds.Decodable:
				for _, s := range []*grpcfasttest.CopySlot[kinds.Decodable]{grpcfasttest.NewCopySlot[kinds.Decodable](), grpcfasttest.NewPlainSlot[kinds.Decodable]()} {
					_, err := s.Decode(c, grpcfasttest.SliceAt(b))
					grpcfasttest.CheckOracleAt(t, what+" in a slot", b, s.Msg(), err)
				}
			case *otlp.ExportTraceServiceRequest:
				s := grpcfasttest.NewCopySlot[otlp.ExportTraceServiceRequest]()
				_, err := s.Decode(c, grpcfasttest.SliceAt(b))
				grpcfasttest.CheckOracleAt(t, what+" in a slot", b, s.Msg(), err)
			}
		}
	}
}
