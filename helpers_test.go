package grpcfast_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
)

// richOfSize returns a Rich whose encoding is exactly size bytes: a Data field
// of deterministic pseudo-random bytes, padded with an Id field.
func richOfSize(t testing.TB, size int) *kinds.Rich {
	t.Helper()
	if size == 0 {
		return &kinds.Rich{}
	}
	for l := max(0, size-24); l <= size; l++ {
		base := 0
		if l > 0 {
			base = 1 + protowire.SizeBytes(l)
		}
		rem := size - base
		var id int64
		switch {
		case rem == 0:
		case rem >= 2 && rem <= 10:
			id = 1 << (7 * (rem - 2)) // a varint of rem-1 bytes
		case rem == 11:
			id = -1 // ten bytes
		default:
			continue
		}
		m := &kinds.Rich{Id: id, Data: pattern(l)}
		if got := m.SizeVT(); got != size {
			t.Fatalf("richOfSize(%d): built a message of %d bytes", size, got)
		}
		return m
	}
	t.Fatalf("richOfSize(%d): no layout", size)
	return nil
}

// pattern returns n bytes that differ from one position to the next, so that
// a shifted or stale copy is noticed.
func pattern(n int) []byte {
	if n == 0 {
		return nil
	}
	b := make([]byte, n)
	x := uint32(n)*2654435761 + 1
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}

// randomRich returns a message with a random subset of Rich's fields set.
func randomRich(r *rand.Rand) *kinds.Rich {
	m := &kinds.Rich{}
	bytesOf := func(max int) []byte {
		b := make([]byte, r.IntN(max+1))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return b
	}
	inner := func() *kinds.Inner {
		in := &kinds.Inner{Label: fmt.Sprint("label", r.IntN(100)), Payload: bytesOf(40)}
		for range r.IntN(4) {
			in.Values = append(in.Values, r.Uint32())
		}
		return in
	}
	if r.IntN(2) == 0 {
		m.Id = r.Int64() - r.Int64()
	}
	if r.IntN(2) == 0 {
		m.Name = fmt.Sprint("name-", r.IntN(1000))
	}
	if r.IntN(2) == 0 {
		m.Data = bytesOf(3000)
	}
	if r.IntN(2) == 0 {
		m.Color = kinds.Color(r.IntN(3))
	}
	for range r.IntN(5) {
		m.Numbers = append(m.Numbers, r.Int64()-r.Int64())
	}
	for range r.IntN(5) {
		m.Words = append(m.Words, fmt.Sprint("w", r.IntN(1e6)))
	}
	for range r.IntN(4) {
		m.Blobs = append(m.Blobs, bytesOf(50))
	}
	if r.IntN(2) == 0 {
		m.Inner = inner()
	}
	for range r.IntN(4) {
		m.Inners = append(m.Inners, inner())
	}
	if n := r.IntN(4); n > 0 {
		m.Counts = map[string]int64{}
		for range n {
			m.Counts[fmt.Sprint("k", r.IntN(100))] = r.Int64N(1000)
		}
	}
	switch r.IntN(4) {
	case 1:
		m.Choice = &kinds.Rich_Text{Text: fmt.Sprint("text", r.IntN(100))}
	case 2:
		m.Choice = &kinds.Rich_Raw{Raw: bytesOf(30)}
	case 3:
		m.Choice = &kinds.Rich_Nested{Nested: inner()}
	}
	if r.IntN(2) == 0 {
		m.Maybe = bytesOf(20) // may be empty but present
	}
	if r.IntN(2) == 0 {
		l := r.Int32N(10) - 5
		m.Level = &l
	}
	if r.IntN(2) == 0 {
		m.Ratio = r.Float64()
	}
	if r.IntN(2) == 0 {
		m.F32 = r.Uint32()
	}
	if r.IntN(2) == 0 {
		m.Sf64 = r.Int64() - r.Int64()
	}
	m.Flag = r.IntN(2) == 0
	for range r.IntN(4) {
		m.Colors = append(m.Colors, kinds.Color(r.IntN(3)))
	}
	return m
}

// fullRich returns a message with every field of Rich set, with data bytes
// of payload.
func fullRich(data int) *kinds.Rich {
	level := int32(-3)
	return &kinds.Rich{
		Id:      -42,
		Name:    "full",
		Data:    pattern(data),
		Color:   kinds.Color_COLOR_GREEN,
		Numbers: []int64{1, -1, 1 << 40},
		Words:   []string{"alpha", "beta", ""},
		Blobs:   [][]byte{{1, 2, 3}, {}, pattern(100)},
		Inner:   &kinds.Inner{Label: "in", Payload: pattern(33), Values: []uint32{7, 8}},
		Inners:  []*kinds.Inner{{Label: "a"}, {Payload: []byte{9}}, {}},
		Counts:  map[string]int64{"x": 1},
		Choice:  &kinds.Rich_Nested{Nested: &kinds.Inner{Label: "nested", Payload: pattern(70)}},
		Maybe:   []byte{},
		Level:   &level,
		Ratio:   3.5,
		F32:     0xdeadbeef,
		Sf64:    -7,
		Flag:    true,
		Colors:  []kinds.Color{kinds.Color_COLOR_RED, kinds.Color_COLOR_GREEN},
	}
}

// sliceAt returns b as a BufferSlice of SliceBuffers cut at the given offsets.
// copyInto returns a function that decodes into a new *M with the owned
// copy of pooled handlers (grpcfast.UnmarshalCopy), for lists of types.
func copyInto[M any, P interface {
	*M
	proto.Message
}]() func(*grpcfast.Codec, mem.BufferSlice) (proto.Message, error) {
	return func(c *grpcfast.Codec, data mem.BufferSlice) (proto.Message, error) {
		m, _, err := grpcfast.UnmarshalCopy[M](c, data)
		return P(m), err
	}
}

func sliceAt(b []byte, cuts ...int) mem.BufferSlice {
	var out mem.BufferSlice
	prev := 0
	for _, c := range cuts {
		out = append(out, mem.SliceBuffer(b[prev:c]))
		prev = c
	}
	return append(out, mem.SliceBuffer(b[prev:]))
}

// pooledAt returns a copy of b as a BufferSlice of buffers from pool cut at
// the given offsets, as gRPC's transport delivers a message: reference
// counted, and given back to pool on their last Free. Free the slice once
// the codec has returned, as gRPC does.
func pooledAt(pool mem.BufferPool, b []byte, cuts ...int) mem.BufferSlice {
	var out mem.BufferSlice
	prev := 0
	for _, c := range append(cuts, len(b)) {
		p := pool.Get(c - prev)
		copy(*p, b[prev:c])
		out = append(out, mem.NewBuffer(p, pool))
		prev = c
	}
	return out
}

// randomCuts returns n sorted cut offsets in [0, size].
func randomCuts(r *rand.Rand, size, n int) []int {
	cuts := make([]int, n)
	for i := range cuts {
		cuts[i] = r.IntN(size + 1)
	}
	for i := 1; i < len(cuts); i++ {
		for j := i; j > 0 && cuts[j] < cuts[j-1]; j-- {
			cuts[j], cuts[j-1] = cuts[j-1], cuts[j]
		}
	}
	return cuts
}
