package grpcfasttest

import (
	"bytes"
	"io"
	"testing"
	"unsafe"

	"github.com/grpcfast/grpcfast"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
)

// Streams that decode with a codec, without the transport.

// CodecStream is a grpcfast.Stream whose RecvMsg decodes a prepared
// message with the grpcfast codec, as gRPC's RecvMsg does once the
// transport has read the message: it measures what receiving costs in our
// code alone, without the transport.
type CodecStream[M any] struct {
	Codec *grpcfast.Codec
	Data  mem.BufferSlice
}

func (s *CodecStream[M]) RecvMsg(m any) error { return s.Codec.Unmarshal(s.Data, m) }

func (s *CodecStream[M]) Recv() (*M, error) {
	m := new(M)
	return m, s.RecvMsg(m)
}

// CodecListStream is a grpcfast.Stream whose RecvMsg decodes the messages of
// wire in turn with the grpcfast codec, then returns io.EOF.
type CodecListStream[M any] struct {
	Codec     *grpcfast.Codec
	Wire      [][]byte
	next      int
	Split     bool           // deliver each message in two buffers, cut in the middle
	Cuts      []int          // or cut every message at these offsets
	Delivered [][]byte       // the buffers of the last message delivered
	Pool      mem.BufferPool // where delivered buffers come from; mem.DefaultBufferPool() if nil
	// Overwritten counts the messages whose buffers held other bytes when
	// the codec returned than those delivered: gRPC's receive buffers are
	// read-only (binary logging reads them after the decode), so a test
	// that delivers anything asserts that it stays 0.
	Overwritten int
}

func (s *CodecListStream[M]) RecvMsg(m any) error {
	if s.next == len(s.Wire) {
		return io.EOF
	}
	s.next++
	b := s.Wire[s.next-1]
	// As gRPC's transport: pooled, reference-counted buffers, freed once
	// the codec has returned.
	pool := s.Pool
	if pool == nil {
		pool = mem.DefaultBufferPool()
	}
	cuts := s.Cuts
	if s.Split {
		cuts = []int{len(b) / 2}
	}
	data := PooledAt(pool, b, cuts...)
	s.Delivered = s.Delivered[:0]
	for _, buf := range data {
		s.Delivered = append(s.Delivered, buf.ReadOnlyData())
	}
	err := s.Codec.Unmarshal(data, m)
	if !bytes.Equal(data.Materialize(), b) {
		s.Overwritten++
	}
	data.Free()
	return err
}

// IsView reports whether b lies in a buffer of the last message delivered.
func (s *CodecListStream[M]) IsView(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	for _, d := range s.Delivered {
		start := uintptr(unsafe.Pointer(unsafe.SliceData(d)))
		if p >= start && p+uintptr(len(b)) <= start+uintptr(len(d)) {
			return true
		}
	}
	return false
}

func (s *CodecListStream[M]) Recv() (*M, error) {
	m := new(M)
	return m, s.RecvMsg(m)
}

// ListStream is a grpcfast.Stream whose RecvMsg decodes the given messages
// in turn with the grpcfast codec, then returns io.EOF.
func ListStream[M any](t testing.TB, msgs ...proto.Message) *CodecListStream[M] {
	t.Helper()
	s := &CodecListStream[M]{Codec: grpcfast.NewCodec()}
	for _, m := range msgs {
		b, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		s.Wire = append(s.Wire, b)
	}
	return s
}
