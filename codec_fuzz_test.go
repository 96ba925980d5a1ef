package grpcfast_test

import (
	"bytes"
	"math"
	"math/big"
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"github.com/grpcfast/grpcfast/internal/stdcodec"
	"github.com/grpcfast/grpcfast/internal/testprotos/hostile"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
	"github.com/grpcfast/grpcfast/internal/testprotos/proto2"
)

// FuzzUnmarshal decodes arbitrary input into a Rich whole and split into
// pieces at fuzzer-chosen points. Both must fail or succeed together, with
// the same error, and succeed with the same message, also when decoded into
// a reused message that held other contents; every scratch buffer must go
// back to the pool.
//
// protobuf-go, which gRPC's standard codec uses, is the oracle, in both
// directions: the codec must accept exactly the input that proto.Unmarshal
// accepts, and decode it to an equal message, as a Rich (maps, oneofs,
// nested and repeated messages, packed fields, unknown fields), as a Pooled
// (vtprotobuf's pool, reused nested and repeated messages), as a proto2
// Extendable (extensions), as a Node (recursive), as a Holder
// (google.protobuf.Value and Struct), as a Req (proto2 required fields at
// every depth) and as an Inner (flat, grpcfastimpl.Flat: decoded in the
// shared state without slabs or chunks).
//
//	go test -run='^$' -fuzz=FuzzUnmarshal -fuzztime=10s .
func FuzzUnmarshal(f *testing.F) {
	for _, m := range []*kinds.Rich{
		{},
		grpcfasttest.FullRich(0),
		grpcfasttest.FullRich(40),
		grpcfasttest.FullRich(300),
		{Data: grpcfasttest.Pattern(200), Words: []string{"a", "b"}},
		{Choice: &kinds.Rich_Raw{Raw: grpcfasttest.Pattern(20)}, Maybe: []byte{}},
		{Data: grpcfasttest.Pattern(1500), Maybe: grpcfasttest.Pattern(1100), Id: 3}, // views (reuse.MinView)
		// Runs of words of one length, which decode.viewRun and copyRun
		// take in loops of their own, then of another length.
		grpcfasttest.StringsMessage(400),
		{Words: append(slices.Repeat([]string{"0123456789abcdef"}, 8), slices.Repeat([]string{"ab"}, 12)...)},
	} {
		b, err := proto.Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint16(len(b)/2), uint16(0), uint8(0))
		f.Add(b, uint16(3), uint16(len(b)-2), uint8(5))
		f.Add(b[:len(b)*2/3], uint16(len(b)/3), uint16(0), uint8(0)) // truncated
		garbled := append([]byte{}, b...)
		if len(garbled) > 10 {
			garbled[len(garbled)/2] ^= 0xff
			garbled[len(garbled)/3] = 0x80
		}
		f.Add(garbled, uint16(len(b)/2), uint16(len(b)/3), uint8(1))
	}
	for _, b := range grpcfasttest.Malformed() {
		f.Add(b, uint16(len(b)/2), uint16(1), uint8(0))
	}
	// A flat message: a label, a payload, packed values (kinds.Inner).
	flat, err := proto.Marshal(&kinds.Inner{Label: "label", Payload: []byte("payload"), Values: []uint32{1, 300}})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(flat, uint16(len(flat)/2), uint16(0), uint8(0))
	// Map entries that repeat, reorder or leave out their fields, closed
	// enum values the enum does not name (proto2.Entries).
	for _, b := range mapEntryInputs(f) {
		f.Add(b, uint16(len(b)/2), uint16(0), uint8(0))
	}
	// A field decoded as a view, sent again: short, after a group
	// (TestViewsLaterOccurrence).
	view, err := proto.Marshal(&kinds.Rich{Data: grpcfasttest.Pattern(1500)})
	if err != nil {
		f.Fatal(err)
	}
	again := append(append([]byte{}, view...), 0x1a, 0x02, 'h', 'i')
	f.Add(again, uint16(len(view)), uint16(0), uint8(0))
	f.Add(append(append(append([]byte{}, view...), 0x83, 0x3e, 0x84, 0x3e), again[len(view):]...), uint16(len(view)), uint16(0), uint8(0))
	// An unknown group, valid and nested, which UnmarshalVT skips.
	f.Add([]byte{0xa3, 0x06, 0x08, 0x01, 0xab, 0x06, 0xac, 0x06, 0xa4, 0x06, 0x08, 0x05}, uint16(3), uint16(7), uint8(0))

	// Found by fuzzing: a packed varint that runs past the end of its field,
	// which a single UnmarshalVT accepts by reading into the next field.
	f.Add([]byte("*\x01\xff0"), uint16(204), uint16(38), uint8(0))
	// Hostile input (codec_hostile_test.go): nesting at and past the limit,
	// field numbers that vtprotobuf aliases or keeps where protobuf-go
	// rejects them, bits beyond the 64th, groups closed wrongly.
	for _, b := range [][]byte{
		// Past the limit only: a message nested 9,999 deep, accepted, is
		// slow to mutate and decode (codec_hostile_test.go has it).
		grpcfasttest.Nested(grpcfasttest.RepeatTags(10000, grpcfasttest.Tag(1, 2)), nil),
		grpcfasttest.Nested(grpcfasttest.RepeatTags(10001, grpcfasttest.Tag(4, 2)), nil),
		append(grpcfasttest.BigTag(grpcfasttest.Pow2(32, 2), 2), append([]byte{3}, "\xff\xfe\xfd"...)...),
		append(grpcfasttest.BigTag(grpcfasttest.Pow2(32, 1), 0), 0x2a),
		append(grpcfasttest.BigTag(grpcfasttest.Pow2(61, 1), 0), 0x2a),
		append(grpcfasttest.BigTag(grpcfasttest.Pow2(29, 0), 0), 0x2a),
		append(grpcfasttest.BigTag(grpcfasttest.Pow2(29, -1), 0), 0x2a),
		append(grpcfasttest.BigTag(big.NewInt(0), 0), 0x2a),
		{0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02},
		{0xa3, 0x06, 0x08, 0x01, 0xac, 0x06},
		{0x10, 0x01}, // a known string field with wire type 0
	} {
		f.Add(b, uint16(len(b)/2), uint16(1), uint8(0))
	}

	pool := grpcfasttest.NewCountingPool(grpcfast.NewBufferPool())
	c := grpcfast.NewCodec(grpcfast.WithBufferPool(pool))
	f.Fuzz(func(t *testing.T, b []byte, cut1, cut2 uint16, every uint8) {
		whole := &kinds.Rich{}
		errWhole := c.Unmarshal(mem.BufferSlice{mem.SliceBuffer(b)}, whole)
		grpcfasttest.CheckOracle(t, b, whole, errWhole)
		pooled := grpcfasttest.FullPooled()
		grpcfasttest.CheckOracle(t, b, pooled, c.Unmarshal(mem.BufferSlice{mem.SliceBuffer(b)}, pooled))
		ext := &proto2.Extendable{}
		grpcfasttest.CheckOracle(t, b, ext, c.Unmarshal(grpcfasttest.SliceAt(b, len(b)/2), ext))
		copies := []func(*grpcfast.Codec, mem.BufferSlice) (proto.Message, error){
			grpcfasttest.CopyInto[hostile.Node](), grpcfasttest.CopyInto[hostile.Holder](), grpcfasttest.CopyInto[hostile.Req](), grpcfasttest.CopyInto[proto2.Entries](),
			grpcfasttest.CopyInto[kinds.Inner](),
		}
		for i, m := range []proto.Message{&hostile.Node{}, &hostile.Holder{}, &hostile.Req{}, &proto2.Entries{}, &kinds.Inner{}} {
			grpcfasttest.CheckOracle(t, b, m, c.Unmarshal(mem.BufferSlice{mem.SliceBuffer(b)}, m))
			m = m.ProtoReflect().New().Interface()
			grpcfasttest.CheckOracle(t, b, m, c.Unmarshal(grpcfasttest.SliceAt(b, len(b)/3, len(b)*2/3), m))
			// The owned copy of pooled handlers (WithStringsInOneCopy).
			m, err := copies[i](c, grpcfasttest.SliceAt(b, len(b)/2))
			grpcfasttest.CheckOracle(t, b, m, err)
		}
		// The owned copy accepts, rejects and decodes exactly as the codec
		// does without it, with the same error.
		viewed, _, errViewed := grpcfasttest.UnmarshalCopy[kinds.Rich](c, grpcfasttest.SliceAt(b, len(b)/3))
		grpcfasttest.CheckOracle(t, b, viewed, errViewed)
		if (errViewed == nil) != (errWhole == nil) || (errWhole != nil && errViewed.Error() != errWhole.Error()) {
			t.Fatalf("whole: %v; into one owned copy: %v", errWhole, errViewed)
		}

		var cuts []int
		if every > 0 {
			// Many small pieces, as a worst case.
			for i := int(every); i < len(b); i += int(every) {
				cuts = append(cuts, i)
			}
		} else if len(b) > 0 {
			c1, c2 := int(cut1)%(len(b)+1), int(cut2)%(len(b)+1)
			cuts = []int{min(c1, c2), max(c1, c2)}
		}
		for _, into := range []*kinds.Rich{{}, grpcfasttest.FullRich(500)} {
			errPieces := c.Unmarshal(grpcfasttest.SliceAt(b, cuts...), into)
			if (errWhole == nil) != (errPieces == nil) {
				t.Fatalf("whole: %v; in pieces at %v: %v", errWhole, cuts, errPieces)
			}
			if errWhole != nil {
				if errWhole.Error() != errPieces.Error() {
					t.Fatalf("whole: %v; in pieces at %v: %v", errWhole, cuts, errPieces)
				}
				continue
			}
			if !proto.Equal(whole, into) {
				t.Fatalf("in pieces at %v: decoded\n%v\nwhole:\n%v", cuts, into, whole)
			}
		}
		pool.Check(t, "scratch buffers")

		// Through a Receiver, in reference-counted transport buffers: large
		// bytes fields are views; the third message, cut where the pieces
		// above were, decodes into the first's memory. The codec never
		// writes into those buffers.
		first, err := proto.Marshal(grpcfasttest.FullRich(1500))
		if err != nil {
			t.Fatal(err)
		}
		rs := &grpcfasttest.CodecListStream[kinds.Rich]{Codec: c, Wire: [][]byte{first, b, b}}
		r := grpcfast.NewReceiver[kinds.Rich](rs)
		for i, w := range rs.Wire {
			if i == 2 {
				rs.Cuts = cuts
			}
			m, err := r.Recv()
			if err != nil {
				if proto.Unmarshal(w, new(kinds.Rich)) == nil {
					t.Fatalf("through a Receiver, message %d: %v; protobuf-go accepts it", i, err)
				}
				continue
			}
			grpcfasttest.CheckOracle(t, w, m, nil)
		}
		if rs.Overwritten > 0 {
			t.Fatalf("through a Receiver: the codec wrote into the transport buffers of %d messages", rs.Overwritten)
		}
		r.Release()
	})
}

// FuzzMarshal decodes arbitrary input with protobuf-go into messages of
// every shape the codec encodes with vtprotobuf (a Decodable, which holds
// Rich, oneofs, nested and repeated messages and floats without presence;
// a Signed, with maps of messages and a FloatValue; a WellKnown; a Rich
// with its maps; a PooledMaybe, pooled by vtprotobuf; a Req, with proto2
// required fields, which protobuf-go decodes partial here; a Holder, with
// Struct and Value; an Entries, with closed enums in maps), or, where
// protobuf-go refuses it, the codec decodes it without its UTF-8 check (so
// that strings that are not UTF-8 are sent too), and checks that the codec
// sends what gRPC's standard codec sends: the same error or none, and an
// encoding that protobuf-go reads back to the same message, bit for bit (a
// -0.0 and a NaN's payload included: both are re-encoded deterministically
// and compared), whatever the fuzzer put in the floats.
//
//	go test -run='^$' -fuzz=FuzzMarshal -fuzztime=10s .
func FuzzMarshal(f *testing.F) {
	negZero := math.Copysign(0, -1)
	for _, m := range []proto.Message{
		&kinds.Decodable{Db: negZero, Fl: float32(negZero), Child: &kinds.Decodable{Riches: []*kinds.Rich{{Ratio: negZero}}}},
		&kinds.Decodable{Choice: &kinds.Decodable_Node{Node: &kinds.Decodable{Db: math.NaN()}}, Rdb: []float64{negZero}},
		&kinds.Signed{ByKey: map[string]*kinds.Signed{"k": {Db: negZero}}, Wf: wrapperspb.Float(float32(negZero))},
		&kinds.WellKnown{Ratio: wrapperspb.Double(negZero)},
		grpcfasttest.FullRich(40),
	} {
		b, err := proto.Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	// Strings that are not UTF-8, in a Rich's nested messages (the fourth
	// after three valid ones), and at its top level after them: what the
	// decode without the check (below) gives the encoding to refuse.
	inners := func(labels ...string) (b []byte) {
		for _, label := range labels {
			inner := protowire.AppendString(protowire.AppendTag(nil, 1, protowire.BytesType), label)
			b = protowire.AppendBytes(protowire.AppendTag(b, 9, protowire.BytesType), inner)
		}
		return b
	}
	f.Add(inners("ok", "ok \u00e9", "ok", "bad\xff"))
	f.Add(protowire.AppendString(protowire.AppendTag(inners("ok", "ok", "ok"), 2, protowire.BytesType), "\xc3("))
	c := grpcfast.NewCodec()
	noUTF8 := grpcfast.NewCodec(grpcfast.WithoutUTF8Validation())
	det := proto.MarshalOptions{Deterministic: true}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, m := range []proto.Message{&kinds.Decodable{}, &kinds.Signed{}, &kinds.WellKnown{}, &kinds.Rich{}, &kinds.PooledMaybe{}, &hostile.Req{}, &hostile.Holder{}, &proto2.Entries{}} {
			if (proto.UnmarshalOptions{AllowPartial: true}).Unmarshal(b, m) != nil {
				// What protobuf-go refuses for a string that is not
				// UTF-8 the codec decodes without its check, so that
				// the message holds one: then both codecs must refuse
				// to send it.
				proto.Reset(m)
				if noUTF8.Unmarshal(mem.BufferSlice{mem.SliceBuffer(b)}, m) != nil {
					continue
				}
			}
			// The one difference docs/differences.md keeps: unknown
			// fields inside well-known types are not sent.
			dropWellKnownUnknown(m.ProtoReflect())
			want, errStd := stdcodec.Codec().Marshal(m)
			got, err := c.Marshal(m)
			if (err == nil) != (errStd == nil) {
				t.Fatalf("%T: grpcfast %v, the standard codec %v", m, err, errStd)
			}
			if err != nil {
				continue
			}
			back := m.ProtoReflect().New().Interface()
			if err := proto.Unmarshal(got.Materialize(), back); err != nil {
				t.Fatalf("%T: protobuf-go cannot read what grpcfast sent: %v", m, err)
			}
			stdBack := m.ProtoReflect().New().Interface()
			if err := proto.Unmarshal(want.Materialize(), stdBack); err != nil {
				t.Fatal(err)
			}
			g, err := det.Marshal(back)
			if err != nil {
				t.Fatal(err)
			}
			w, err := det.Marshal(stdBack)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(g, w) {
				t.Fatalf("%T: the peer reads %x from grpcfast, %x from the standard codec", m, g, w)
			}
			got.Free()
			want.Free()
		}
	})
}

// dropWellKnownUnknown clears the unknown fields of every well-known type
// (google.protobuf.*) that m holds.
func dropWellKnownUnknown(m protoreflect.Message) {
	if strings.HasPrefix(string(m.Descriptor().FullName()), "google.protobuf.") {
		m.SetUnknown(nil)
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsMap():
			if fd.MapValue().Message() != nil {
				v.Map().Range(func(_ protoreflect.MapKey, e protoreflect.Value) bool {
					dropWellKnownUnknown(e.Message())
					return true
				})
			}
		case fd.IsList():
			if fd.Message() != nil {
				for i := range v.List().Len() {
					dropWellKnownUnknown(v.List().Get(i).Message())
				}
			}
		case fd.Message() != nil:
			dropWellKnownUnknown(v.Message())
		}
		return true
	})
}
