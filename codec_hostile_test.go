package grpcfast_test

import (
	"context"
	"fmt"
	"math/big"
	"testing"

	vtproto2 "github.com/planetscale/vtprotobuf/testproto/proto2"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"github.com/grpcfast/grpcfast/internal/guardpage"
	"github.com/grpcfast/grpcfast/internal/stdcodec"
	"github.com/grpcfast/grpcfast/internal/testprotos/hostile"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
)

// The tests in this file feed the codec input that no conforming encoder
// writes, and compare every outcome with gRPC's standard codec
// (protobuf-go): the same input must be accepted or rejected by both, whole
// and split into pieces, and decode to equal messages.

// hostileCase is an input and the message type it is decoded as.
type hostileCase struct {
	name string
	b    []byte
	msg  func() proto.Message
	// step is the distance between the split points tried (1: every byte
	// edge); 0 chooses one from the size.
	step int
}

func node() proto.Message   { return &hostile.Node{} }
func holder() proto.Message { return &hostile.Holder{} }
func req() proto.Message    { return &hostile.Req{} }
func rich() proto.Message   { return &kinds.Rich{} }

// checkLikeStd fails t unless the codec, given tc.b whole and in two pieces
// split at every step-th byte edge, accepts it exactly when the standard
// codec does, and decodes it to the same message. It returns the standard
// codec's error.
func checkLikeStd(t *testing.T, c *grpcfast.Codec, tc hostileCase) error {
	t.Helper()
	stdErr := stdcodec.Codec().Unmarshal(grpcfasttest.SliceAt(tc.b), tc.msg())
	step := tc.step
	if step == 0 {
		step = max(1, len(tc.b)/64)
	}
	if step < 0 {
		step = len(tc.b)/2 + 1 // deep messages, slow to decode: split once
	}
	var splits [][]int
	splits = append(splits, nil)
	for i := 1; i < len(tc.b); i += step {
		splits = append(splits, []int{i})
	}
	if len(tc.b) > 2 && tc.step >= 0 {
		splits = append(splits, []int{len(tc.b) - 1}, []int{1, len(tc.b) / 2, len(tc.b) - 1})
	}
	for _, cuts := range splits {
		got := tc.msg()
		err := c.Unmarshal(grpcfasttest.SliceAt(tc.b, cuts...), got)
		grpcfasttest.CheckOracleAt(t, fmt.Sprintf("%s (%d bytes, split at %v)", tc.name, len(tc.b), cuts), tc.b, got, err)
	}
	// Whole and in two pieces again, each piece where a page that faults
	// when read begins: a read past a piece's end fails here, where on the
	// heap it reads what follows the slice.
	for _, cuts := range [][]int{nil, {len(tc.b) / 2}} {
		what := fmt.Sprintf("%s (%d bytes, split at %v, guarded)", tc.name, len(tc.b), cuts)
		guardpage.Check(t, what, grpcfasttest.PiecesAt(tc.b, cuts...), func(in [][]byte) {
			got := tc.msg()
			err := c.Unmarshal(grpcfasttest.Buffers(in), got)
			grpcfasttest.CheckOracleAt(t, what, tc.b, got, err)
		})
	}
	return stdErr
}

// TestHostileNesting: messages nested at and past protobuf-go's limit
// (10,000) through every kind of message field, and through
// google.protobuf.Value, Struct and ListValue.
func TestHostileNesting(t *testing.T) {
	c := grpcfast.NewCodec()
	leafNode, _ := proto.Marshal(&hostile.Node{Name: "leaf", N: 7})
	leafValue := []byte{0x1a, 0x01, 'x'} // Value.string_value = "x"
	paths := []struct {
		name  string
		msg   func() proto.Message
		tags  [][]byte // one level of nesting
		first []byte   // the outermost tag, if not tags[0]
		leaf  []byte
	}{
		{name: "Node.child", msg: node, tags: [][]byte{grpcfasttest.Tag(1, 2)}, leaf: leafNode},
		{name: "Node.children", msg: node, tags: [][]byte{grpcfasttest.Tag(4, 2)}, leaf: leafNode},
		{name: "Node.alt (oneof)", msg: node, tags: [][]byte{grpcfasttest.Tag(10, 2)}, leaf: leafNode},
		{name: "Node.by_name (map entry, value)", msg: node, tags: [][]byte{grpcfasttest.Tag(5, 2), grpcfasttest.Tag(2, 2)}, leaf: leafNode},
		{name: "Holder.value list_value", msg: holder, first: grpcfasttest.Tag(1, 2), tags: [][]byte{grpcfasttest.Tag(6, 2), grpcfasttest.Tag(1, 2)}, leaf: leafValue},
		{name: "Holder.fields struct_value", msg: holder, first: grpcfasttest.Tag(2, 2), tags: [][]byte{grpcfasttest.Tag(1, 2), grpcfasttest.Tag(2, 2), grpcfasttest.Tag(5, 2)}, leaf: nil},
		// The deepest OneOf is one string field, which the OneOf that
		// holds it decodes itself (codec_inlined_test.go), past the
		// check of the depth or not.
		{name: "Wrapped.value OneOf.nested (the leaf inlined)", msg: func() proto.Message { return &kinds.Wrapped{} },
			first: grpcfasttest.Tag(4, 2), tags: [][]byte{grpcfasttest.Tag(9, 2)}, leaf: []byte{0x0a, 0x01, 'x'}},
	}
	for _, p := range paths {
		t.Run(p.name, func(t *testing.T) {
			accepted, rejected := false, false
			// 20002: a path through map entries nests half as many
			// messages as it has tags where protobuf-go does not count
			// the entries (v1.36.0; mapEntryIsLevel).
			for _, depth := range []int{1, 2, 3, 9999, 10000, 10001, 20002} {
				tags := grpcfasttest.RepeatTags(depth, p.tags...)
				if p.first != nil {
					tags = append([][]byte{p.first}, tags[:depth-1]...)
				}
				b := grpcfasttest.Nested(tags, p.leaf)
				step := -1
				if depth < 10 {
					step = 1
				}
				err := checkLikeStd(t, c, hostileCase{name: fmt.Sprintf("%s nested %d", p.name, depth), b: b, msg: p.msg, step: step})
				accepted = accepted || err == nil
				rejected = rejected || err != nil
			}
			if !accepted || !rejected {
				t.Fatalf("the standard codec accepted some: %v, rejected some: %v; want both", accepted, rejected)
			}
		})
	}
}

// TestHostileDeepNoCrash: a message nested a million levels (a few MiB),
// which used to exhaust the goroutine stack (a fatal error, not a panic),
// is rejected, in one buffer and in pieces.
func TestHostileDeepNoCrash(t *testing.T) {
	c := grpcfast.NewCodec()
	for _, tc := range []hostileCase{
		{name: "Node.child", b: grpcfasttest.Nested(grpcfasttest.RepeatTags(1<<20, grpcfasttest.Tag(1, 2)), nil), msg: node},
		{name: "Value list", b: grpcfasttest.Nested(append([][]byte{grpcfasttest.Tag(1, 2)}, grpcfasttest.RepeatTags(1<<20, grpcfasttest.Tag(6, 2), grpcfasttest.Tag(1, 2))...), nil), msg: holder},
	} {
		for _, cuts := range [][]int{nil, {len(tc.b) / 3, len(tc.b) / 2}} {
			if err := c.Unmarshal(grpcfasttest.SliceAt(tc.b, cuts...), tc.msg()); err == nil {
				t.Errorf("%s nested 2^20 (%d bytes, split at %v): accepted", tc.name, len(tc.b), cuts)
			}
		}
	}
}

// TestHostileFieldNumbers: field numbers outside [1, 2^29-1], at the top,
// nested, in a map entry and in an unknown group (where protobuf-go allows up
// to 2^31-1), with every wire type; 2^32+n and 2^61+n alias field n in
// vtprotobuf's int32(tag>>3).
func TestHostileFieldNumbers(t *testing.T) {
	c := grpcfast.NewCodec()
	nums := []*big.Int{
		big.NewInt(0), big.NewInt(1), big.NewInt(2), big.NewInt(3),
		grpcfasttest.Pow2(29, -1), grpcfasttest.Pow2(29, 0), grpcfasttest.Pow2(31, -1), grpcfasttest.Pow2(31, 0),
		grpcfasttest.Pow2(32, 0), grpcfasttest.Pow2(32, 1), grpcfasttest.Pow2(32, 2), grpcfasttest.Pow2(32, 3), grpcfasttest.Pow2(32, 6),
		grpcfasttest.Pow2(61, 1), grpcfasttest.Pow2(61, 2), grpcfasttest.Pow2(61, 3), grpcfasttest.Pow2(63, 2), grpcfasttest.Pow2(64, 2),
	}
	values := map[protowire.Type][]byte{
		protowire.VarintType:  {0x05},
		protowire.Fixed32Type: {1, 2, 3, 4},
		protowire.Fixed64Type: {1, 2, 3, 4, 5, 6, 7, 8},
		protowire.BytesType:   append([]byte{7}, "\xff\xfeadmin"...),
	}
	wraps := []struct {
		name string
		wrap func(field []byte) []byte
	}{
		{"top", func(f []byte) []byte { return f }},
		{"after a valid field", func(f []byte) []byte { return append([]byte{0x18, 0x01}, f...) }},
		{"in child", func(f []byte) []byte { return grpcfasttest.Nested([][]byte{grpcfasttest.Tag(1, 2)}, f) }},
		{"5 deep", func(f []byte) []byte {
			return grpcfasttest.Nested(grpcfasttest.RepeatTags(5, grpcfasttest.Tag(4, 2)), f)
		}},
		{"in map entry", func(f []byte) []byte { return grpcfasttest.Nested([][]byte{grpcfasttest.Tag(5, 2)}, f) }},
		{"in map value", func(f []byte) []byte {
			return grpcfasttest.Nested([][]byte{grpcfasttest.Tag(5, 2), grpcfasttest.Tag(2, 2)}, f)
		}},
		{"in unknown group", func(f []byte) []byte {
			return append(append(grpcfasttest.Tag(99, protowire.StartGroupType), f...), grpcfasttest.Tag(99, protowire.EndGroupType)...)
		}},
		{"in Value", nil},
	}
	for _, w := range wraps {
		for _, num := range nums {
			for typ, v := range values {
				f := append(grpcfasttest.BigTag(num, typ), v...)
				tc := hostileCase{name: fmt.Sprintf("%s: field %v, wire type %d", w.name, num, typ), msg: node, step: 1}
				if w.wrap == nil {
					tc.msg, tc.b = holder, grpcfasttest.Nested([][]byte{grpcfasttest.Tag(1, 2)}, f)
				} else {
					tc.b = w.wrap(f)
				}
				checkLikeStd(t, c, tc)
			}
		}
	}
}

// TestHostileAliasing: the cases of the issue. A tag of 2^32+2 is field 2
// to vtprotobuf: it must not deliver an invalid UTF-8 "name".
func TestHostileAliasing(t *testing.T) {
	c := grpcfast.NewCodec()
	for _, tc := range []hostileCase{
		{name: "2^32+2 string", b: append(grpcfasttest.BigTag(grpcfasttest.Pow2(32, 2), 2), append([]byte{7}, "\xff\xfeadmin"...)...), msg: node},
		{name: "2^32+3 varint", b: append(grpcfasttest.BigTag(grpcfasttest.Pow2(32, 3), 0), 0x2a), msg: node},
		{name: "2^32+3 varint nested", b: grpcfasttest.Nested([][]byte{grpcfasttest.Tag(1, 2)}, append(grpcfasttest.BigTag(grpcfasttest.Pow2(32, 3), 0), 0x2a)), msg: node},
		{name: "2^61+3 varint", b: append(grpcfasttest.BigTag(grpcfasttest.Pow2(61, 3), 0), 0x2a), msg: node},
		{name: "2^29 unknown", b: append(grpcfasttest.BigTag(grpcfasttest.Pow2(29, 0), 0), 0x2a), msg: node},
		{name: "2^32+2 in Rich", b: append(grpcfasttest.BigTag(grpcfasttest.Pow2(32, 2), 2), append([]byte{3}, "\xff\xfe\xfd"...)...), msg: rich},
	} {
		got := tc.msg()
		if err := c.Unmarshal(grpcfasttest.SliceAt(tc.b), got); err == nil {
			t.Errorf("%s: accepted as %v", tc.name, got)
		}
		if err := checkLikeStd(t, c, tc); err == nil {
			t.Errorf("%s: the standard codec accepts it", tc.name)
		}
	}
}

// TestHostileLengths: lengths past the end, near and past 2 GiB and 4 GiB,
// at the top and nested, for bytes, strings, messages and packed fields.
func TestHostileLengths(t *testing.T) {
	c := grpcfast.NewCodec()
	lengths := []uint64{1, 5, 1<<31 - 1, 1 << 31, 1<<31 + 1, 1<<32 - 1, 1 << 32, 1<<63 - 1, 1 << 63, 1<<64 - 1}
	for _, num := range []protowire.Number{1, 2, 5, 6, 7, 8, 99} {
		for _, l := range lengths {
			f := protowire.AppendVarint(grpcfasttest.Tag(num, 2), l)
			f = append(f, "abc"...)
			for name, b := range map[string][]byte{
				"top":                    f,
				"nested":                 grpcfasttest.Nested([][]byte{grpcfasttest.Tag(1, 2)}, f),
				"inside a nested length": append(protowire.AppendVarint(grpcfasttest.Tag(1, 2), l), f...),
			} {
				checkLikeStd(t, c, hostileCase{name: fmt.Sprintf("%s: field %d, length %d", name, num, l), b: b, msg: node, step: 1})
			}
		}
	}
}

// TestHostileVarints: varints cut at every byte, of 10 bytes with bits
// beyond the 64th, and of 11 bytes, as values, lengths, tags and packed
// elements.
func TestHostileVarints(t *testing.T) {
	c := grpcfast.NewCodec()
	ten := func(last byte) []byte {
		return append([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, last)
	}
	var cases []hostileCase
	for _, last := range []byte{0x00, 0x01, 0x02, 0x7f, 0x80} {
		v := ten(last)
		cases = append(cases,
			hostileCase{name: fmt.Sprintf("value ..%02x", last), b: append(grpcfasttest.Tag(3, 0), v...)},
			hostileCase{name: fmt.Sprintf("value ..%02x, more", last), b: append(append(grpcfasttest.Tag(3, 0), v...), 0x18, 0x01)},
			hostileCase{name: fmt.Sprintf("packed ..%02x", last), b: append(append(grpcfasttest.Tag(7, 2), byte(len(v))), v...)},
			hostileCase{name: fmt.Sprintf("packed ..%02x, then 1", last), b: append(append(grpcfasttest.Tag(7, 2), byte(len(v)+1)), append(v, 1)...)},
			hostileCase{name: fmt.Sprintf("length ..%02x", last), b: append(grpcfasttest.Tag(6, 2), v...)},
			hostileCase{name: fmt.Sprintf("tag ..%02x", last), b: append(v, 0x01)},
			// A 10-byte tag whose value, bits beyond the 64th dropped, is field 3.
			hostileCase{name: fmt.Sprintf("non-minimal tag of field 3, ..%02x", last), b: append(append([]byte{0x98, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80}, last), 0x05)},
		)
	}
	cases = append(cases,
		hostileCase{name: "11-byte value", b: append(append(grpcfasttest.Tag(3, 0), ten(0x80)...), 0x01)},
		hostileCase{name: "packed varint running past its field", b: []byte{0x3a, 0x01, 0xff, 0x18, 0x01}},
		hostileCase{name: "packed varint running past its field, nested", b: grpcfasttest.Nested([][]byte{grpcfasttest.Tag(1, 2)}, []byte{0x3a, 0x01, 0xff, 0x18, 0x01})},
	)
	// Every prefix of a message full of long varints and tags, in pieces.
	full, _ := proto.Marshal(&hostile.Node{
		N: -1, Z: -1 << 62, Name: "name", Data: grpcfasttest.Pattern(200), Packed: []int64{-1, 1 << 40, 3},
		Fixed: []uint32{1, 2}, Ratios: []float64{1.5}, Child: &hostile.Node{N: -5, Name: "c"},
		ByName: map[string]*hostile.Node{"k": {N: 1 << 50}}, Choice: &hostile.Node_Label{Label: "l"},
	})
	full = append(full, grpcfasttest.BigTag(big.NewInt(1<<20), 0)...)
	full = append(full, 0xff, 0xff, 0x01)
	for end := 0; end <= len(full); end++ {
		cases = append(cases, hostileCase{name: fmt.Sprintf("prefix of %d", end), b: full[:end], step: 1})
	}
	for _, tc := range cases {
		tc.msg = node
		if tc.step == 0 {
			tc.step = 1
		}
		checkLikeStd(t, c, tc)
	}
}

// TestHostilePacked: packed fields whose length is not a whole number of
// elements.
func TestHostilePacked(t *testing.T) {
	c := grpcfast.NewCodec()
	for _, num := range []protowire.Number{7, 8, 9} {
		for l := range 18 {
			payload := make([]byte, l)
			for i := range payload {
				payload[i] = byte(i + 1)
			}
			f := append(protowire.AppendVarint(grpcfasttest.Tag(num, 2), uint64(l)), payload...)
			for name, b := range map[string][]byte{
				"top":    f,
				"then":   append(append([]byte{}, f...), 0x18, 0x01, 0x12, 0x01, 'x'),
				"nested": grpcfasttest.Nested([][]byte{grpcfasttest.Tag(4, 2)}, f),
			} {
				checkLikeStd(t, c, hostileCase{name: fmt.Sprintf("%s: field %d, %d bytes", name, num, l), b: b, msg: node, step: 1})
			}
		}
	}
}

// TestHostileGroups: unknown groups opened and closed wrongly, nested at
// and past protobuf-go's limit, and known fields sent as groups.
func TestHostileGroups(t *testing.T) {
	c := grpcfast.NewCodec()
	sg := func(n protowire.Number) []byte { return grpcfasttest.Tag(n, protowire.StartGroupType) }
	eg := func(n protowire.Number) []byte { return grpcfasttest.Tag(n, protowire.EndGroupType) }
	cat := func(parts ...[]byte) []byte {
		var b []byte
		for _, p := range parts {
			b = append(b, p...)
		}
		return b
	}
	deepGroups := func(n int, close bool) []byte {
		var b []byte
		for range n {
			b = append(b, sg(99)...)
		}
		if close {
			for range n {
				b = append(b, eg(99)...)
			}
		}
		return b
	}
	cases := []hostileCase{
		{name: "valid", b: cat(sg(99), []byte{0x08, 0x01}, eg(99))},
		{name: "wrong end", b: cat(sg(99), []byte{0x08, 0x01}, eg(98))},
		{name: "end only", b: eg(99)},
		{name: "end only, nested", b: grpcfasttest.Nested([][]byte{grpcfasttest.Tag(1, 2)}, eg(99))},
		{name: "unclosed", b: cat(sg(99), []byte{0x08, 0x01})},
		{name: "unclosed in nested", b: grpcfasttest.Nested([][]byte{grpcfasttest.Tag(1, 2)}, cat(sg(99), []byte{0x08, 0x01}))},
		{name: "closed after nested end", b: cat(grpcfasttest.Nested([][]byte{grpcfasttest.Tag(1, 2)}, sg(99)), eg(99))},
		{name: "nested groups", b: cat(sg(99), sg(98), eg(98), eg(99))},
		{name: "crossed", b: cat(sg(99), sg(98), eg(99), eg(98))},
		{name: "field 0 inside", b: cat(sg(99), []byte{0x00, 0x01}, eg(99))},
		{name: "2^29 inside", b: cat(sg(99), grpcfasttest.BigTag(grpcfasttest.Pow2(29, 0), 0), []byte{1}, eg(99))},
		{name: "2^31-1 inside", b: cat(sg(99), grpcfasttest.BigTag(grpcfasttest.Pow2(31, -1), 0), []byte{1}, eg(99))},
		{name: "2^31 inside", b: cat(sg(99), grpcfasttest.BigTag(grpcfasttest.Pow2(31, 0), 0), []byte{1}, eg(99))},
		{name: "wire type 6 inside", b: cat(sg(99), []byte{0x0e, 0x01}, eg(99))},
		{name: "group of field 0", b: cat([]byte{0x03}, eg(0))},
		{name: "group of 2^29", b: cat(grpcfasttest.BigTag(grpcfasttest.Pow2(29, 0), 3), grpcfasttest.BigTag(grpcfasttest.Pow2(29, 0), 4))},
		{name: "known string field as a group", b: cat(sg(2), []byte{0x08, 0x01}, eg(2))},
		{name: "known message field as a group", b: cat(sg(1), []byte{0x18, 0x01}, eg(1))},
		{name: "known map field as a group", b: cat(sg(5), eg(5))},
		{name: "known string field with wire type 0", b: []byte{0x10, 0x01}},
		{name: "known message field with wire type 5", b: []byte{0x0d, 1, 2, 3, 4}},
		{name: "map entry key with wire type 0", b: grpcfasttest.Nested([][]byte{grpcfasttest.Tag(5, 2)}, []byte{0x08, 0x01})},
	}
	for _, n := range []int{10000, 10001, 10002, 10003} {
		cases = append(cases,
			hostileCase{name: fmt.Sprintf("%d nested groups", n), b: deepGroups(n, true), step: 977},
			hostileCase{name: fmt.Sprintf("%d nested groups in a nested message", n), b: grpcfasttest.Nested(grpcfasttest.RepeatTags(50, grpcfasttest.Tag(1, 2)), deepGroups(n, true)), step: 977},
			hostileCase{name: fmt.Sprintf("%d unclosed groups", n), b: deepGroups(n, false), step: 977},
		)
	}
	for _, tc := range cases {
		tc.msg = node
		if tc.step == 0 {
			tc.step = 1
		}
		checkLikeStd(t, c, tc)
	}
}

// TestHostileWrongWireTypeDeepMap: a map field with another wire type at
// the deepest level protobuf-go allows (it counts the map entry first).
func TestHostileWrongWireTypeDeepMap(t *testing.T) {
	c := grpcfast.NewCodec()
	for _, depth := range []int{9999, 10000} {
		for _, f := range [][]byte{{0x28, 0x01}, {0x2a, 0x00}, {0x10, 0x01}} {
			checkLikeStd(t, c, hostileCase{name: fmt.Sprintf("%x at depth %d", f, depth), b: grpcfasttest.Nested(grpcfasttest.RepeatTags(depth, grpcfasttest.Tag(1, 2)), f), msg: node, step: -1})
		}
	}
}

// TestHostileRequired: a required field missing at every depth, through a
// singular, a repeated and a map field, and supplied by a second occurrence
// of the message that merges into the first.
func TestHostileRequired(t *testing.T) {
	c := grpcfast.NewCodec()
	id := []byte{0x08, 0x01}
	for depth := range 6 {
		for _, via := range []struct {
			name string
			tags [][]byte
		}{
			{"child", [][]byte{grpcfasttest.Tag(2, 2)}},
			{"items", [][]byte{grpcfasttest.Tag(3, 2)}},
			{"by_id", [][]byte{grpcfasttest.Tag(5, 2), grpcfasttest.Tag(2, 2)}},
		} {
			for missing := -1; missing <= depth; missing++ {
				// Level i holds id unless i == missing.
				var b []byte
				if missing != depth {
					b = id
				}
				for lvl := depth - 1; lvl >= 0; lvl-- {
					inner := b
					for k := len(via.tags) - 1; k >= 0; k-- {
						inner = append(protowire.AppendVarint(append([]byte{}, via.tags[k]...), uint64(len(inner))), inner...)
					}
					b = inner
					if lvl != missing {
						b = append(append([]byte{}, id...), b...)
					}
				}
				checkLikeStd(t, c, hostileCase{name: fmt.Sprintf("%s depth %d, missing at %d", via.name, depth, missing), b: b, msg: req, step: 1})
			}
		}
	}
	// Merged: child without id, then child with id; and the reverse.
	checkLikeStd(t, c, hostileCase{name: "merged", b: []byte{0x08, 0x01, 0x12, 0x00, 0x12, 0x02, 0x08, 0x02}, msg: req, step: 1})
	checkLikeStd(t, c, hostileCase{name: "merged, reversed", b: []byte{0x08, 0x01, 0x12, 0x02, 0x08, 0x02, 0x12, 0x00}, msg: req, step: 1})
	for name, b := range map[string][]byte{
		"map entry without value":         {0x08, 0x01, 0x2a, 0x02, 0x08, 0x05},
		"map entry with an empty value":   {0x08, 0x01, 0x2a, 0x04, 0x08, 0x05, 0x12, 0x00},
		"map value in two parts":          {0x08, 0x01, 0x2a, 0x08, 0x08, 0x05, 0x12, 0x00, 0x12, 0x02, 0x08, 0x03},
		"map value in two parts, reverse": {0x08, 0x01, 0x2a, 0x08, 0x08, 0x05, 0x12, 0x02, 0x08, 0x03, 0x12, 0x00},
		"same key twice, first incomplete": {0x08, 0x01, 0x2a, 0x04, 0x08, 0x05, 0x12, 0x00,
			0x2a, 0x06, 0x08, 0x05, 0x12, 0x02, 0x08, 0x03},
		"items element incomplete then complete": {0x08, 0x01, 0x1a, 0x00, 0x1a, 0x02, 0x08, 0x03},
		"wrong wire type for id":                 {0x0d, 1, 2, 3, 4},
		"wrong wire type for id, then id":        {0x0d, 1, 2, 3, 4, 0x08, 0x01},
	} {
		checkLikeStd(t, c, hostileCase{name: name, b: b, msg: req, step: 1})
	}
	// Wide's required field 20 has a two-byte tag, 0xa0 0x01; an unknown
	// field 36 starts with the same byte (0xa0 0x02).
	wide := func() proto.Message { return &hostile.Wide{} }
	for name, b := range map[string][]byte{
		"far":                            {0xa0, 0x01, 0x05},
		"unknown 36 only":                {0xa0, 0x02, 0x05},
		"far with wire type 5":           {0xa5, 0x01, 1, 2, 3, 4},
		"far with wire type 5, then far": {0xa5, 0x01, 1, 2, 3, 4, 0xa0, 0x01, 0x05},
		"next lacks far":                 {0xa0, 0x01, 0x05, 0x0a, 0x03, 0xa0, 0x02, 0x05},
		"next has far":                   {0xa0, 0x01, 0x05, 0x0a, 0x03, 0xa0, 0x01, 0x05},
	} {
		checkLikeStd(t, c, hostileCase{name: name, b: b, msg: wide, step: 1})
	}
}

// TestHostileUTF8Option: WithoutUTF8Validation turns off the UTF-8 check
// only.
func TestHostileUTF8Option(t *testing.T) {
	// Without UTF-8 validation, the walk still rejects what it must.
	c := grpcfast.NewCodec(grpcfast.WithoutUTF8Validation())
	bad := append(grpcfasttest.Tag(2, 2), append([]byte{2}, "\xff\xfe"...)...)
	if err := c.Unmarshal(grpcfasttest.SliceAt(bad), &hostile.Node{}); err != nil {
		t.Errorf("invalid UTF-8 without validation: %v", err)
	}
	if err := c.Unmarshal(grpcfasttest.SliceAt(grpcfasttest.Nested(grpcfasttest.RepeatTags(10001, grpcfasttest.Tag(1, 2)), nil)), &hostile.Node{}); err == nil {
		t.Error("10,001 levels without UTF-8 validation: accepted")
	}
	if err := c.Unmarshal(grpcfasttest.SliceAt(append(grpcfasttest.BigTag(grpcfasttest.Pow2(32, 2), 2), bad[1:]...)), &hostile.Node{}); err == nil {
		t.Error("2^32+2 without UTF-8 validation: accepted")
	}
}

// rawCodec sends and receives bytes as they are, under the name "proto":
// the client sends what no conforming encoder writes.
type rawCodec struct{}

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(*v.(*[]byte))}, nil
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	*v.(*[]byte) = data.Materialize()
	return nil
}

func (rawCodec) Name() string { return "proto" }

type echoServer struct {
	hostile.UnimplementedHostileServer
}

func (echoServer) Echo(_ context.Context, n *hostile.Node) (*hostile.Node, error) { return n, nil }

func (echoServer) EchoHolder(_ context.Context, h *hostile.Holder) (*hostile.Holder, error) {
	return h, nil
}

// TestHostileServer: a gRPC server at its default limits answers a deep
// request, and one with an aliasing tag, with an error status, and goes on
// serving valid requests on the same connection.
func TestHostileServer(t *testing.T) {
	_, conn := grpcfasttest.ServeAndDial(t, func(s *grpc.Server) { hostile.RegisterHostileServer(s, echoServer{}) },
		[]grpc.ServerOption{grpc.ForceServerCodecV2(grpcfast.NewCodec())}, nil)
	ctx := context.Background()
	valid, _ := proto.Marshal(&hostile.Node{Name: "ok", Child: &hostile.Node{N: 1}})
	deep := grpcfasttest.Nested(grpcfasttest.RepeatTags(10001, grpcfasttest.Tag(1, 2)), nil)
	deepValue := grpcfasttest.Nested(append([][]byte{grpcfasttest.Tag(1, 2)}, grpcfasttest.RepeatTags(4_000_000/2/3, grpcfasttest.Tag(6, 2), grpcfasttest.Tag(1, 2))...), nil)
	alias := append(grpcfasttest.BigTag(grpcfasttest.Pow2(32, 2), 2), append([]byte{7}, "\xff\xfeadmin"...)...)
	call := func(method string, b []byte) ([]byte, error) {
		var out []byte
		err := conn.Invoke(ctx, "/grpcfast.testdata.hostile.Hostile/"+method, &b, &out, grpc.ForceCodecV2(rawCodec{}))
		return out, err
	}
	for _, tc := range []struct {
		name, method string
		b            []byte
	}{
		{"10,001 levels", "Echo", deep},
		{"Value nested to 4 MB", "EchoHolder", deepValue},
		{"2^32+2 aliasing", "Echo", alias},
	} {
		if len(tc.b) > 4<<20 {
			t.Fatalf("%s: %d bytes, above the default limit", tc.name, len(tc.b))
		}
		_, err := call(tc.method, tc.b)
		if status.Code(err) != codes.Internal {
			t.Errorf("%s: %v, want code Internal", tc.name, err)
		}
		out, err := call("Echo", valid)
		if err != nil {
			t.Fatalf("after %s: valid request: %v", tc.name, err)
		}
		got := &hostile.Node{}
		if err := proto.Unmarshal(out, got); err != nil || got.GetName() != "ok" || got.GetChild().GetN() != 1 {
			t.Fatalf("after %s: valid request answered %v (%v)", tc.name, got, err)
		}
	}
}

// TestRejectsWhatVTProtobufAccepts: malformed input that vtprotobuf's
// UnmarshalVT accepts and protobuf-go rejects (surplus varint bits, a packed
// fixed32 field of 5 bytes, unknown groups that end wrong or not at all,
// field number 0) is rejected, whole and split, by the generated decoder
// and by the walk before UnmarshalVT.
func TestRejectsWhatVTProtobufAccepts(t *testing.T) {
	varint := []byte{0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}
	packed := []byte{
		0x0d, 1, 0, 0, 0, // required_field (fixed32)
		0x22, 0x05, 1, 2, 3, 4, 5, // packed_field: 5 bytes, not a multiple of 4
		0, 0, 0, // read as the rest of a second element
	}
	for _, tc := range []struct {
		name   string
		b      []byte
		newMsg func() proto.Message
	}{
		{"10-byte varint with surplus bits", varint, func() proto.Message { return &kinds.Rich{} }},
		{"packed fixed32 field of 5 bytes", packed, func() proto.Message { return &vtproto2.Fixed32Message{} }},
		{"unknown group ended by another field's end tag", []byte{0xa3, 0x06, 0x08, 0x01, 0xac, 0x06}, func() proto.Message { return &kinds.Rich{} }},
		{"field number 0 inside an unknown group", []byte{0xa3, 0x06, 0x00, 0x01, 0xa4, 0x06}, func() proto.Message { return &kinds.Rich{} }},
		{"unclosed unknown group at the end", []byte{0xa3, 0x06, 0x08, 0x01}, func() proto.Message { return &kinds.Rich{} }},
		{"unclosed unknown group at the end of a nested message", []byte{0x42, 0x04, 0xa3, 0x06, 0x08, 0x01}, func() proto.Message { return &kinds.Rich{} }},
		{"field number 0", []byte{0x00, 0x01}, func() proto.Message { return &kinds.Rich{} }},
	} {
		for _, data := range [][]int{nil, {len(tc.b) / 2}} {
			err := grpcfast.NewCodec().Unmarshal(grpcfasttest.SliceAt(tc.b, data...), tc.newMsg())
			stdErr := stdcodec.Codec().Unmarshal(grpcfasttest.SliceAt(tc.b, data...), tc.newMsg())
			if stdErr == nil {
				t.Fatalf("%s: the standard codec accepts it", tc.name)
			}
			if err == nil {
				t.Errorf("%s (split at %v): grpcfast accepts it; standard codec: %v", tc.name, data, stdErr)
			}
		}
	}
}

// TestHostileTruncatedGuarded: every prefix of valid encodings (a Rich with
// every kind of field, 1 KiB of short strings in one repeated field, a
// string-heavy message), each ending where a page that faults when read
// begins, decodes as the standard codec decodes it, into a new message and
// into a reused slot (without the owned copy, which is on the heap): no
// decode reads past the end of its input, wherever the input ends.
func TestHostileTruncatedGuarded(t *testing.T) {
	if !guardpage.Guarded {
		t.Skip("no guard pages on this system")
	}
	c := grpcfast.NewCodec()
	for _, m := range []struct {
		name string
		msg  *kinds.Rich
	}{{"FullRich(20)", grpcfasttest.FullRich(20)}, {"strings 1 KiB", grpcfasttest.StringsMessage(1024)}, {"wordy", grpcfasttest.WordyMessage()}} {
		b, err := proto.Marshal(m.msg)
		if err != nil {
			t.Fatal(err)
		}
		slot := grpcfasttest.NewPlainSlot[kinds.Rich]()
		for cut := len(b); cut >= 0; cut-- {
			what := fmt.Sprintf("%s, first %d of %d bytes", m.name, cut, len(b))
			guardpage.Check(t, what, [][]byte{b[:cut]}, func(in [][]byte) {
				got := new(kinds.Rich)
				err := c.Unmarshal(grpcfasttest.Buffers(in), got)
				grpcfasttest.CheckOracleAt(t, what+", new message", b[:cut], got, err)
				_, err = slot.Decode(c, grpcfasttest.Buffers(in))
				grpcfasttest.CheckOracleAt(t, what+", slot", b[:cut], slot.Msg(), err)
				slot.Reset()
			})
		}
	}
}
