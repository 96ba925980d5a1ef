package grpcfasttest

import (
	"math/rand/v2"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast"
)

// CopyInto returns a function that decodes into a new *M with the owned
// copy of pooled handlers (UnmarshalCopy), for lists of types.
func CopyInto[M any, P interface {
	*M
	proto.Message
}]() func(*grpcfast.Codec, mem.BufferSlice) (proto.Message, error) {
	return func(c *grpcfast.Codec, data mem.BufferSlice) (proto.Message, error) {
		m, _, err := UnmarshalCopy[M](c, data)
		return P(m), err
	}
}

// SliceAt returns b as a BufferSlice of SliceBuffers cut at the given offsets.
func SliceAt(b []byte, cuts ...int) mem.BufferSlice { return Buffers(PiecesAt(b, cuts...)) }

// Buffers returns pieces as a BufferSlice of SliceBuffers, views of them (a
// test's guarded copies: guardpage.Check).
func Buffers(pieces [][]byte) mem.BufferSlice {
	out := make(mem.BufferSlice, 0, len(pieces))
	for _, p := range pieces {
		out = append(out, mem.SliceBuffer(p))
	}
	return out
}

// PiecesAt returns b cut at the given offsets, in order: views of b.
func PiecesAt(b []byte, cuts ...int) [][]byte {
	var out [][]byte
	prev := 0
	for _, c := range cuts {
		out = append(out, b[prev:c])
		prev = c
	}
	return append(out, b[prev:])
}

// PooledAt returns a copy of b as a BufferSlice of buffers from pool cut at
// the given offsets, as gRPC's transport delivers a message: reference
// counted, and given back to pool on their last Free. Free the slice once
// the codec has returned, as gRPC does.
func PooledAt(pool mem.BufferPool, b []byte, cuts ...int) mem.BufferSlice {
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

// RandomCuts returns n sorted cut offsets in [0, size].
func RandomCuts(r *rand.Rand, size, n int) []int {
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

// Frames cuts an encoded message as gRPC's transport hands it over: HTTP/2
// DATA frames of 16 KiB, the first shortened by the 5-byte message header.
func Frames(b []byte) mem.BufferSlice {
	var cuts []int
	for c := 16384 - 5; c < len(b); c += 16384 {
		cuts = append(cuts, c)
	}
	return SliceAt(b, cuts...)
}
