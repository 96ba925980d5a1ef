package codec_test

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"testing"
	"unsafe"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"github.com/grpcfast/grpcfast/internal/pooled"
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
	for name, b := range grpcfasttest.Malformed() {
		inputs["malformed "+name] = b
	}
	for name, m := range grpcfasttest.UTF8Cases() {
		if b := grpcfasttest.VTMarshal(t, m); b != nil {
			inputs["utf8 "+name] = b
		}
	}
	full, _ := proto.Marshal(grpcfasttest.FullRich(3000))
	inputs["full"] = full
	inputs["empty"] = nil
	inputs["10,001 levels"] = grpcfasttest.Nested(grpcfasttest.RepeatTags(10001, grpcfasttest.Tag(1, 2)), nil)
	inputs["wire type mismatch"] = []byte{0x10, 0x01}
	for name, b := range inputs {
		for _, tc := range []struct {
			newMsg   func() proto.Message
			copyInto func(*grpcfast.Codec, mem.BufferSlice) (proto.Message, error)
		}{
			{func() proto.Message { return &kinds.Rich{} }, grpcfasttest.CopyInto[kinds.Rich]()},
			{func() proto.Message { return &kinds.Pooled{} }, grpcfasttest.CopyInto[kinds.Pooled]()},
			{func() proto.Message { return &hostile.Node{} }, grpcfasttest.CopyInto[hostile.Node]()},
		} {
			for _, cuts := range [][]int{nil, {len(b) / 2}, {1, len(b) / 3, len(b) - 1}} {
				if len(cuts) > 0 && len(b) < 3*len(cuts) {
					continue
				}
				plain := tc.newMsg()
				errPlain := c.Unmarshal(grpcfasttest.SliceAt(b, cuts...), plain)
				viewed, errViewed := tc.copyInto(c, grpcfasttest.SliceAt(b, cuts...))
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
	want := &kinds.Rich{Name: "a name", Data: grpcfasttest.Pattern(100), Words: []string{"one", "two"}}
	b, _ := proto.Marshal(want)
	in := append([]byte(nil), b...)
	m, copied, err := grpcfasttest.UnmarshalCopy[kinds.Rich](c, mem.BufferSlice{mem.SliceBuffer(in)})
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

// TestCopyKeptThroughRecycling: what a pooled handler with the owned copy
// keeps of its requests (a string, a bytes field, the whole request with
// KeepRequest) stays as it was received while the codec recycles the arrays
// of copies that nothing refers to any more, through collections between
// calls and later requests of other content in the same size class.
func TestCopyKeptThroughRecycling(t *testing.T) {
	c := grpcfast.NewCodec()
	type kept struct {
		name  string
		data  []byte
		whole *kinds.Rich // kept with KeepRequest
	}
	var keep []kept
	n := 0
	h := pooled.New("/grpcfast.testdata.kinds.Kinds/Rich", func(_ any, ctx context.Context, in *kinds.Rich) (any, error) {
		k := kept{name: in.Name}
		if n%3 == 0 {
			k.data = in.Data
		}
		if n%5 == 0 && grpcfast.KeepRequest(ctx) {
			k.whole = in
		}
		keep = append(keep, k)
		return nil, nil
	}, pooled.Config{Copy: true})
	var sent []*kinds.Rich
	for n = range 200 {
		m := grpcfasttest.FullRich(6000 + n%7*1000) // size classes of 8 and 16 KiB
		m.Name = fmt.Sprintf("request %d", n)
		m.Data[0] = byte(n)
		sent = append(sent, m)
		b, _ := proto.Marshal(m)
		if _, err := h.Handle(nil, context.Background(), func(v any) error { return c.Unmarshal(grpcfasttest.SliceAt(b, len(b)/2), v) }, nil); err != nil {
			t.Fatal(err)
		}
		if n%4 == 0 {
			runtime.GC()
			runtime.Gosched() // let the finalizers run
		}
	}
	for i, k := range keep {
		if k.name != sent[i].Name {
			t.Fatalf("request %d: the kept name is %q, want %q", i, k.name, sent[i].Name)
		}
		if k.data != nil && !bytes.Equal(k.data, sent[i].Data) {
			t.Fatalf("request %d: the kept bytes field changed", i)
		}
		if k.whole != nil && !proto.Equal(k.whole, sent[i]) {
			t.Fatalf("request %d: the request kept with KeepRequest changed", i)
		}
	}
}
