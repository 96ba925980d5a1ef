package grpcfast_test

import (
	"fmt"
	"testing"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/example/examplepb"
	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
)

// BenchmarkShortStream receives short streams of 16 KiB chunks through the
// grpcfast codec, without the transport, three ways in one run: the stream's
// own Recv (a new message per chunk), a Receiver left to the garbage
// collector at the end of each stream (the default), and a Receiver released
// at the end of each stream (Release). B/op is per stream.
func BenchmarkShortStream(b *testing.B) {
	chunk := &examplepb.Chunk{Data: grpcfasttest.NoiseBytes(1, 16<<10)}
	wire, err := chunk.MarshalVT()
	if err != nil {
		b.Fatal(err)
	}
	for _, msgs := range []int{1, 4, 64} {
		for _, how := range []string{"recv", "receiver", "release"} {
			b.Run(fmt.Sprintf("msgs=%d/how=%s", msgs, how), func(b *testing.B) {
				s := &endingStream[examplepb.Chunk]{CodecStream: grpcfasttest.CodecStream[examplepb.Chunk]{Codec: grpcfast.NewCodec(), Data: grpcfasttest.SliceAt(wire, 16384-5)}}
				b.SetBytes(int64(msgs * len(chunk.Data)))
				b.ReportAllocs()
				for range b.N {
					s.left = msgs
					if how == "recv" {
						for {
							if _, err := s.Recv(); err != nil {
								break
							}
						}
						continue
					}
					r := grpcfast.NewReceiver[examplepb.Chunk](s)
					for _, err := range r.All() {
						if err != nil {
							b.Fatal(err)
						}
					}
					if how == "release" {
						r.Release()
					}
				}
			})
		}
	}
}
