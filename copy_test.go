package grpcfast_test

import (
	"testing"
	"unsafe"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/internal/testprotos/hostile"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
)

// TestCopyParity: decoding into one owned copy (a pooled handler with
// WithStringsInOneCopy) accepts and rejects what the codec accepts and
// rejects without it, with the same error, and decodes to the same message:
// malformed input, strings that must be valid UTF-8 (or not), too deep
// nesting, in one buffer and in pieces.
func TestCopyParity(t *testing.T) {
	c := grpcfast.NewCodec()
	inputs := map[string][]byte{}
	for name, b := range malformed() {
		inputs["malformed "+name] = b
	}
	for name, m := range utf8Cases() {
		if b := vtMarshal(t, m); b != nil {
			inputs["utf8 "+name] = b
		}
	}
	full, _ := proto.Marshal(fullRich(3000))
	inputs["full"] = full
	inputs["empty"] = nil
	inputs["10,001 levels"] = nested(repeatTags(10001, tag(1, 2)), nil)
	inputs["wire type mismatch"] = []byte{0x10, 0x01}
	for name, b := range inputs {
		for _, tc := range []struct {
			newMsg   func() proto.Message
			copyInto func(*grpcfast.Codec, mem.BufferSlice) (proto.Message, error)
		}{
			{func() proto.Message { return &kinds.Rich{} }, copyInto[kinds.Rich]()},
			{func() proto.Message { return &kinds.Pooled{} }, copyInto[kinds.Pooled]()},
			{func() proto.Message { return &hostile.Node{} }, copyInto[hostile.Node]()},
		} {
			for _, cuts := range [][]int{nil, {len(b) / 2}, {1, len(b) / 3, len(b) - 1}} {
				if len(cuts) > 0 && len(b) < 3*len(cuts) {
					continue
				}
				plain := tc.newMsg()
				errPlain := c.Unmarshal(sliceAt(b, cuts...), plain)
				viewed, errViewed := tc.copyInto(c, sliceAt(b, cuts...))
				if (errPlain == nil) != (errViewed == nil) || (errPlain != nil && errPlain.Error() != errViewed.Error()) {
					t.Errorf("%s into %T, cut at %v: without the copy: %v; with: %v", name, plain, cuts, errPlain, errViewed)
					continue
				}
				if errPlain == nil && !proto.Equal(plain, viewed) {
					t.Errorf("%s into %T, cut at %v: decoded differently into the owned copy", name, plain, cuts)
				}
			}
		}
	}
}

// TestCopyViews: a valid message marked for the owned copy is decoded with
// its strings and bytes viewing one array that is not the input's; a type
// without UnmarshalVTUnsafe or that the codec leaves to protobuf-go is not
// marked as copied.
func TestCopyViews(t *testing.T) {
	c := grpcfast.NewCodec()
	want := &kinds.Rich{Name: "a name", Data: pattern(100), Words: []string{"one", "two"}}
	b, _ := proto.Marshal(want)
	in := append([]byte(nil), b...)
	m, copied, err := grpcfast.UnmarshalCopy[kinds.Rich](c, mem.BufferSlice{mem.SliceBuffer(in)})
	if err != nil {
		t.Fatal(err)
	}
	if !copied {
		t.Fatal("not decoded into an owned copy")
	}
	if !proto.Equal(m, want) {
		t.Fatalf("decoded %v, want %v", m, want)
	}
	base := uintptr(unsafe.Pointer(unsafe.StringData(m.Name)))
	for _, p := range []uintptr{uintptr(unsafe.Pointer(&m.Data[0])), uintptr(unsafe.Pointer(unsafe.StringData(m.Words[1])))} {
		if p < base || p-base >= uintptr(len(b)) {
			t.Errorf("a string or bytes field is not a view of the copy that holds Name")
		}
	}
	clear(in) // gRPC frees its buffer: the message must not change
	if !proto.Equal(m, want) {
		t.Fatalf("the message changed with the input: %v", m)
	}
}
