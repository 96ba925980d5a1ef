package grpcfast_test

import (
	"bytes"
	"fmt"
	"testing"

	"google.golang.org/grpc/encoding"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"github.com/grpcfast/grpcfast/internal/stdcodec"
	"github.com/grpcfast/grpcfast/internal/testprotos/hostile"
)

// hostileInputs returns malformed messages of about 4 MiB, gRPC's default
// receive limit, built to cost the codec the most relative to the standard
// codec, and one valid message that protobuf-go decides alone, and whether
// the standard codec accepts each.
func hostileInputs() []struct {
	name string
	b    []byte
	msg  func() proto.Message
	ok   bool
} {
	const size = 4 << 20
	// Children with a name each: many small nested messages, the walk's
	// costliest valid content per byte.
	var children []byte
	child, _ := proto.Marshal(&hostile.Node{Children: []*hostile.Node{{Name: "abcdefgh", N: 1}}})
	for len(children) < size-64 {
		children = append(children, child...)
	}
	// Items, each a whole Req with its id: the top-level Req lacks its own.
	var items []byte
	item, _ := proto.Marshal(&hostile.Req{Id: proto.Int32(2), Name: proto.String("abcdefgh")})
	item = protowire.AppendBytes(grpcfasttest.Tag(3, protowire.BytesType), item)
	for len(items) < size-64 {
		items = append(items, item...)
	}
	cat := func(a, b []byte) []byte { return append(append([]byte{}, a...), b...) }
	return []struct {
		name string
		b    []byte
		msg  func() proto.Message
		ok   bool
	}{
		// Required field missing at the top, checked after everything.
		{"required-missing", items, req, false},
		{"deep-child", grpcfasttest.Nested(grpcfasttest.RepeatTags(size/4, grpcfasttest.Tag(1, 2)), nil), node, false},
		{"deep-value", grpcfasttest.Nested(append([][]byte{grpcfasttest.Tag(1, 2)}, grpcfasttest.RepeatTags(size/4, grpcfasttest.Tag(6, 2), grpcfasttest.Tag(1, 2))...), nil), holder, false},
		{"alias-at-end", cat(children, append(grpcfasttest.BigTag(grpcfasttest.Pow2(32, 3), 0), 1)), node, false},
		{"utf8-at-end", cat(children, []byte{0x12, 0x02, 0xff, 0xfe}), node, false},
		{"truncated-at-end", cat(children, []byte{0x22, 0x05, 0x08}), node, false},
		{"bad-packed-at-end", cat(children, []byte{0x42, 0x03, 1, 2, 3}), node, false},
		{"groups-deep", bytes.Repeat(grpcfasttest.Tag(99, 3), size/2), node, false},
		// Valid: a known field with another wire type, at the end.
		{"wrong-wire-type-at-end", cat(children, []byte{0x10, 0x01}), node, true},
	}
}

// BenchmarkHostile compares the CPU time the codec and gRPC's standard
// codec spend on the worst malformed input of 4 MiB, in one buffer and in
// 16 KiB frames (goal: at most 1.5x):
//
//	go test -run='^$' -bench=BenchmarkHostile -count=6 . | tee /tmp/hostile.bench
//	benchstat -col /codec /tmp/hostile.bench
func BenchmarkHostile(b *testing.B) {
	codecs := []struct {
		name  string
		codec encoding.CodecV2
	}{{"std", stdcodec.Codec()}, {"grpcfast", grpcfast.NewCodec()}}
	for _, in := range hostileInputs() {
		for _, bufs := range []string{"1", "frames"} {
			data := grpcfasttest.SliceAt(in.b)
			if bufs == "frames" {
				data = grpcfasttest.Frames(in.b)
			}
			for _, cc := range codecs {
				b.Run(fmt.Sprintf("input=%s/bufs=%s/codec=%s", in.name, bufs, cc.name), func(b *testing.B) {
					b.SetBytes(int64(len(in.b)))
					b.ReportAllocs()
					for range b.N {
						if err := cc.codec.Unmarshal(data, in.msg()); (err == nil) != in.ok {
							b.Fatalf("error %v, want accepted: %v", err, in.ok)
						}
					}
				})
			}
		}
	}
}
