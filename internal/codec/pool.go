package codec

import (
	"math/bits"
	"strings"
	"sync"
	"unsafe"

	"google.golang.org/grpc/mem"
)

// Size classes of the buffer pool. Each power of two from 2^poolMinShift to
// 2^poolMaxShift is divided into poolSub classes: 256, 288, 320, …, 448, 512,
// 576, …, 16384, 18432, 20480, …, 64 MiB. A request is rounded up to the next
// class, so at most 1/poolSub (12.5%) of a buffer is wasted. This matters for
// the common case of a 16 KiB chunk: 16384 data bytes plus 4 bytes of field
// framing (16388 bytes) take an 18432-byte buffer, where a pool with one
// class per power of two (gRPC's default) hands out 32 KiB.
const (
	poolSubShift = 3
	poolSub      = 1 << poolSubShift
	poolMinShift = 8  // smallest class: 256 bytes
	poolMaxShift = 26 // largest class: 64 MiB

	poolMinSize    = 1 << poolMinShift
	poolMaxSize    = 1 << poolMaxShift
	poolNumClasses = (poolMaxShift-poolMinShift)*poolSub + 1
)

// bufferPool is the non-zeroing size-class pool returned by NewBufferPool.
type bufferPool struct {
	classes [poolNumClasses]sync.Pool // each holds *[]byte with cap >= classSize(i)
}

// NewBufferPool returns a new non-zeroing size-class pool
// (grpcfast.NewBufferPool documents it).
func NewBufferPool() mem.BufferPool { return new(bufferPool) }

// DefaultPool is the pool of codecs made without grpcfast.WithBufferPool,
// shared by the whole process (grpcfast.DefaultBufferPool).
var DefaultPool = NewBufferPool()

// classOf returns the index of the largest class whose size is at most x,
// for x >= poolMinSize.
func classOf(x uint) int {
	e := bits.Len(x) - 1 // x is in [2^e, 2^(e+1))
	mant := int(x>>(e-poolSubShift)) & (poolSub - 1)
	return (e-poolMinShift)*poolSub + mant
}

// classSize returns the size of class i.
func classSize(i int) int {
	e := i/poolSub + poolMinShift
	return (poolSub + i%poolSub) << (e - poolSubShift)
}

// Get returns a buffer of length n. Its contents are not cleared.
func (p *bufferPool) Get(n int) *[]byte {
	if n < 0 {
		n = 0
	}
	i := 0
	if n > poolMinSize {
		i = classOf(uint(n-1)) + 1 // the smallest class >= n
	}
	if i >= poolNumClasses {
		b := make([]byte, n)
		return &b
	}
	if v := p.classes[i].Get(); v != nil {
		b := v.(*[]byte)
		*b = (*b)[:n]
		return b
	}
	b := uncleared(classSize(i))[:n:classSize(i)]
	return &b
}

// uncleared returns an empty slice whose new array holds at least n > 0
// bytes, not cleared first, as make would clear them. strings.Builder grows
// into such memory (the runtime's MakeNoZero), since it writes every byte
// before anything reads it; so must every caller. The array holds no
// pointers, and is the caller's alone: the builder and its one-byte string
// are dropped here. Older toolchains clear it, as make does.
func uncleared(n int) []byte {
	var sb strings.Builder
	sb.Grow(n)
	sb.WriteByte(0)
	s := sb.String()
	return unsafe.Slice(unsafe.StringData(s), sb.Cap())[:0]
}

// Put returns a buffer to the pool.
func (p *bufferPool) Put(b *[]byte) {
	if b == nil {
		return
	}
	c := cap(*b)
	if c < poolMinSize || c > poolMaxSize {
		return
	}
	p.classes[classOf(uint(c))].Put(b)
}
