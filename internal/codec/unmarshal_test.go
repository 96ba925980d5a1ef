package codec_test

import (
	"encoding/hex"
	"testing"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/grpcfastimpl"
	"github.com/grpcfast/grpcfast/internal/codec"
	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
	"github.com/grpcfast/grpcfast/internal/testprotos/proto2"
)

// countingRich is a Rich without its generated decoder (hideDecoder makes
// the promoted GrpcfastDecode ambiguous), as a vtprotobuf type that the
// plugin did not generate, whose UnmarshalVT counts the bytes it is given.
type countingRich struct {
	*kinds.Rich
	//lint:ignore U1000 embedded for its method, which hides Rich's GrpcfastDecode
	hideDecoder
	decoded *int
}

//lint:ignore U1000 embedded in countingRich for its method alone
type hideDecoder struct{}

//lint:ignore U1000 never called: it makes countingRich's GrpcfastDecode ambiguous
func (hideDecoder) GrpcfastDecode() {}

func (m countingRich) UnmarshalVT(b []byte) error {
	*m.decoded += len(b)
	return m.Rich.UnmarshalVT(b)
}

// generatedRich is a Rich whose generated decoder counts the bytes it is
// given at the top level.
type generatedRich struct {
	*kinds.Rich
	decoded *int
}

func (m generatedRich) GrpcfastDecode(b []byte, d *grpcfastimpl.Decoding, depth int) error {
	*m.decoded += len(b)
	return m.Rich.GrpcfastDecode(b, d, depth)
}

// decodeOnceInput is a message of 2000 fields, valid or with something at
// its end that is rejected or that UnmarshalVT would reject.
type decodeOnceInput struct {
	name string
	b    []byte
	ok   bool
}

func decodeOnceInputs() []decodeOnceInput {
	valid := []byte{}
	for range 2000 {
		valid = append(valid, 0x4a, 0x05, 0x0a, 0x03, 'a', 'b', 'c') // inners {label: "abc"}
	}
	cat := func(tail ...byte) []byte { return append(append([]byte{}, valid...), tail...) }
	return []decodeOnceInput{
		{name: "valid", b: valid, ok: true},
		{name: "field number 2^32+2 at the end", b: cat(0x82, 0x80, 0x80, 0x80, 0x10, 0x01)},
		{name: "invalid UTF-8 at the end", b: cat(0x12, 0x01, 0xff)},
		{name: "truncated at the end", b: cat(0x4a, 0x05, 0x0a)},
		{name: "wrong wire type at the end", b: cat(0x10, 0x01), ok: true},
	}
}

// TestGeneratedDecodedOnce: a message with a generated decoder is decoded by
// it alone, once, in one pass, whole or in frames, whether it is valid or
// not: no walk before it, no protobuf-go after a failure.
func TestGeneratedDecodedOnce(t *testing.T) {
	c := grpcfast.NewCodec()
	for _, tc := range decodeOnceInputs() {
		for _, cuts := range [][]int{nil, {100}, {3, 5000, 9000}} {
			n := 0
			m := generatedRich{&kinds.Rich{}, &n}
			err := c.Unmarshal(grpcfasttest.SliceAt(tc.b, cuts...), m)
			if (err == nil) != tc.ok {
				t.Errorf("%s, cut at %v: %v, want accepted: %v", tc.name, cuts, err, tc.ok)
			}
			if n != len(tc.b) {
				t.Errorf("%s, cut at %v: the generated decoder was given %d bytes of %d, want all once", tc.name, cuts, n, len(tc.b))
			}
			grpcfasttest.CheckOracle(t, tc.b, m.Rich, err)
		}
	}
}

// TestVTOnlyHandedOn: a vtprotobuf type that the plugin did not generate
// a decoder for is handed to the codec registered before grpcfast's, whole
// or in frames, valid or not: UnmarshalVT never sees it, and what is
// accepted and decoded is what gRPC's standard codec accepts and decodes.
func TestVTOnlyHandedOn(t *testing.T) {
	c := codec.New() // hands what it does not keep to gRPC's standard codec
	for _, tc := range decodeOnceInputs() {
		for _, cuts := range [][]int{nil, {100}, {3, 5000, 9000}} {
			n := 0
			m := countingRich{Rich: &kinds.Rich{}, decoded: &n}
			err := c.Unmarshal(grpcfasttest.SliceAt(tc.b, cuts...), m)
			if (err == nil) != tc.ok {
				t.Errorf("%s, cut at %v: %v, want accepted: %v", tc.name, cuts, err, tc.ok)
			}
			if n != 0 {
				t.Errorf("%s, cut at %v: UnmarshalVT decoded %d bytes, want none (the standard codec decodes)", tc.name, cuts, n)
			}
			grpcfasttest.CheckOracle(t, tc.b, m.Rich, err)
		}
	}
}

// TestRequiredCheckedWholeInSlot: a message in one transport buffer (a
// unary request, a short stream message) decoded into a slot, a receiver's
// or a pooled handler's with or without the owned copy, has its required
// fields checked as gRPC's standard codec checks them: one missing from the
// whole tree is rejected, one present is accepted.
func TestRequiredCheckedWholeInSlot(t *testing.T) {
	c := grpcfast.NewCodec()
	for _, tc := range []struct {
		name string
		hex  string
		ok   bool
	}{
		{"top-level id missing", "1a020801", false},
		{"next without id", "3001" + "3a020801", false},
		{"id present", "3001", true},
		{"next with id", "3001" + "3a023005", true},
	} {
		b, _ := hex.DecodeString(tc.hex)
		slots := map[string]*grpcfasttest.CopySlot[proto2.Entries]{
			"plain slot": grpcfasttest.NewPlainSlot[proto2.Entries](),
			"copy slot":  grpcfasttest.NewCopySlot[proto2.Entries](),
		}
		for name, s := range slots {
			_, err := s.Decode(c, grpcfasttest.SliceAt(b)) // one buffer
			if (err == nil) != tc.ok {
				t.Errorf("%s, %s: %v, want accepted: %v", tc.name, name, err, tc.ok)
			}
			grpcfasttest.CheckOracle(t, b, s.Msg(), err)
		}
	}
}
