package grpcfast_test

import (
	"context"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/example/examplepb"
	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"github.com/grpcfast/grpcfast/internal/own"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
)

// TestReceiverReuseAcrossShortStreams runs many short streams of every kind
// at once, with the generated receivers on both ends, so that the message a
// Receiver gives back when its stream ends is decoded into by another
// stream's Receiver on another goroutine, while other streams still check
// what they received. Every handler and client follows the documented
// lifetime and nothing more: a message is used until the next Recv, or
// taken. Under the race detector, a message handed to one stream while
// another could still touch it is a reported race; without it, a stale
// field left by an earlier stream fails grpcfasttest.CheckRich. Messages taken with Take
// are checked after every stream has ended: no other Receiver may have
// decoded into them.
func TestReceiverReuseAcrossShortStreams(t *testing.T) {
	workers, perWorker, msgs := 8, 40, 4
	if testing.Short() {
		perWorker = 10
	}
	srv, cli := grpcfasttest.NewEndpoint(grpcfasttest.FastSide, "server"), grpcfasttest.NewEndpoint(grpcfasttest.FastSide, "client")
	e := grpcfasttest.StartEnv(t, &grpcfasttest.KindsServer{}, srv.ServerOptions(), cli.DialOptions())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	var (
		mu    sync.Mutex
		used  = map[*kinds.Rich]bool{} // the messages the client's receivers decoded into
		taken []*kinds.Rich
	)
	// serverStream receives one short server stream; every tenth stream
	// takes its last message.
	serverStream := func(ctx context.Context, s int) error {
		stream, err := e.Client.ServerStream(ctx, &kinds.Rich{Id: grpcfasttest.MsgID(s, 0), Numbers: []int64{int64(msgs)}})
		if err != nil {
			return err
		}
		r := kinds.NewKinds_ServerStreamResponseReceiver(stream)
		defer r.Release()
		for i := 0; ; i++ {
			m, err := r.Recv()
			if err == io.EOF {
				if i != msgs {
					return fmt.Errorf("%d messages, want %d", i, msgs)
				}
				return nil
			}
			if err != nil {
				return err
			}
			if err := grpcfasttest.CheckRich(m, grpcfasttest.MsgID(s, i)); err != nil {
				return err
			}
			mu.Lock()
			used[m] = true
			if i == msgs-1 && s%10 == 0 {
				taken = append(taken, r.Take())
			}
			mu.Unlock()
		}
	}
	for _, k := range []struct {
		name string
		run  func(ctx context.Context, s int) error
	}{
		{"ServerStream", serverStream},
		{"ClientStream", func(ctx context.Context, s int) error { return grpcfasttest.RunClientStream(ctx, e.Client, s, msgs) }},
		{"Bidi", func(ctx context.Context, s int) error { return grpcfasttest.RunBidi(ctx, e.Client, s, msgs, false) }},
		{"PooledBidi", func(ctx context.Context, s int) error {
			return grpcfasttest.RunPooledBidi(ctx, e.Client, s, msgs, false)
		}},
	} {
		err := grpcfasttest.Concurrently(ctx, workers, func(ctx context.Context, w int) error {
			for i := range perWorker {
				if err := k.run(ctx, w*perWorker+i); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", k.name, err)
		}
	}
	for _, m := range taken {
		if err := grpcfasttest.CheckRich(m, -1); err != nil {
			t.Errorf("a taken message changed after its stream ended: %v", err)
		}
	}
	// Without Release every server stream would decode into two messages of
	// its own. With it, a message is new only where none was spare: at most
	// two per stream running at once, one per Take, and a few more if a
	// collection empties the pool. The race detector makes sync.Pool drop a
	// quarter of what it is given, so then only some reuse can be asserted.
	streams, limit := workers*perWorker, len(taken)+8*workers
	switch {
	case own.Quarantine:
		// Release gives nothing back in quarantine builds: two messages
		// per stream.
		limit = 2 * streams
	case grpcfasttest.Race:
		limit = streams - len(taken) - 1
	}
	if len(used) > limit {
		t.Errorf("%d server streams decoded into %d distinct messages, want at most %d", streams, len(used), limit)
	}
	srv.CheckUsed(t, "server")
	cli.CheckUsed(t, "client")
}

// endingStream is a grpcfast.Stream that decodes n copies of a prepared
// message with the grpcfast codec, then returns io.EOF: a short stream
// without the transport.
type endingStream[M any] struct {
	grpcfasttest.CodecStream[M]
	left int
}

func (s *endingStream[M]) RecvMsg(m any) error {
	if s.left == 0 {
		return io.EOF
	}
	s.left--
	return s.CodecStream.RecvMsg(m)
}

func (s *endingStream[M]) Recv() (*M, error) {
	m := new(M)
	return m, s.RecvMsg(m)
}

// TestShortStreamAllocs: once a stream of 16 KiB chunks has ended and its
// Receiver was released, the next stream's Receiver decodes into the
// messages the first gave back, with the capacity of their bytes fields: a
// whole stream of four chunks allocates at most the Receiver (nothing, where
// the compiler keeps it on the stack). Without Release, each stream
// allocates its two messages and their bytes.
func TestShortStreamAllocs(t *testing.T) {
	grpcfasttest.SkipInCheckedBuild(t, "allocation counts: Release gives no slot back for the next stream to reuse")
	if grpcfasttest.Race {
		t.Skip("the race detector makes sync.Pool drop items at random")
	}
	chunk := &examplepb.Chunk{Data: grpcfasttest.NoiseBytes(1, 16<<10)}
	wire, err := chunk.MarshalVT()
	if err != nil {
		t.Fatal(err)
	}
	s := &endingStream[examplepb.Chunk]{CodecStream: grpcfasttest.CodecStream[examplepb.Chunk]{Codec: grpcfast.NewCodec(), Data: grpcfasttest.SliceAt(wire)}}
	release := true
	stream := func() {
		s.left = 4
		n := 0
		r := grpcfast.NewReceiver[examplepb.Chunk](s)
		if release {
			defer r.Release()
		}
		for m, err := range r.All() {
			if err != nil {
				panic(err)
			}
			if len(m.Data) != 16<<10 {
				panic("wrong message")
			}
			n++
		}
		if n != 4 {
			panic("wrong count")
		}
	}
	stream()
	if n := testing.AllocsPerRun(100, stream); n > 1 {
		t.Errorf("with Release, a stream of four 16 KiB chunks allocates %v times, want at most 1 (the Receiver)", n)
	}
	release = false
	if n := testing.AllocsPerRun(100, stream); n > 4 {
		t.Errorf("without Release, a stream of four 16 KiB chunks allocates %v times, want at most 4 (two messages and their data)", n)
	}
}
