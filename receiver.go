package grpcfast

import (
	"io"
	"iter"
	"reflect"
	"sync"
)

// Stream is the part of a gRPC stream that a Receiver reads from: the
// generic stream types of grpc-go that protoc-gen-go-grpc uses
// (grpc.ClientStreamingServer[Req, Res], grpc.ServerStreamingClient[Res],
// grpc.BidiStreamingServer[Req, Res], grpc.BidiStreamingClient[Req, Res])
// all have it. Recv ties the Receiver's message type to the stream's, so
// that a Receiver of the wrong type does not compile; the Receiver itself
// calls only RecvMsg.
type Stream[M any] interface {
	Recv() (*M, error)
	RecvMsg(m any) error
}

// Receiver receives the messages of one stream into a single message that it
// reuses, where the stream's own Recv allocates a new message every time.
// With the grpcfast codec the reused message also keeps the memory of its
// bytes, repeated and map fields, so that in steady state receiving
// allocates nothing in generated code or in this package.
//
// Lifetime: the message that Recv returns, or that All yields, belongs to
// the Receiver and is overwritten by the next Recv. Until then the caller may
// read and modify it; after that neither it nor anything reached through it
// may be used: its nested messages may be returned to vtprotobuf's pool and
// handed to another stream's decode, on another goroutine. Do not keep it or
// a pointer into it, do not hand it to a goroutine that outlives the next
// Recv, and do not Send it where something may read it after Send returns
// (README, "Sending the same message again"). To keep a message, call Take,
// which hands over the message itself, or copy it (proto.Clone).
//
// When its stream ends (Recv returns io.EOF or another error) the Receiver
// gives its message, with the memory of its fields, to the next Receiver of
// the same message type, on whatever stream and goroutine that is: a server
// that handles many short streams then decodes into messages it already has,
// where each stream would otherwise allocate its message and grow its fields
// again. This needs nothing more of the caller than the rule above, since
// the call to Recv that reports the end is a next Recv: the message it
// replaces is no longer the caller's. A Receiver whose stream is abandoned
// before its end (a handler that returns early, an All loop left with break)
// keeps its message, which the garbage collector reclaims. A message handed
// out by Take is the caller's and is never given to another Receiver.
//
// A Receiver is for one goroutine, like the stream it reads. The zero value
// is not usable: make one with NewReceiver or a generated New...Receiver.
type Receiver[M any] struct {
	stream Stream[M]
	spare  *sync.Pool // messages of type M that ended streams gave back
	msg    *M
	valid  bool // msg holds a fully received message
}

// sparePools holds one *sync.Pool of spare messages per message type:
// reflect.Type of M → *sync.Pool of *M.
var sparePools sync.Map

// spareMessages returns the pool of spare messages of type M.
func spareMessages[M any]() *sync.Pool {
	t := reflect.TypeFor[M]()
	if p, ok := sparePools.Load(t); ok {
		return p.(*sync.Pool)
	}
	p, _ := sparePools.LoadOrStore(t, new(sync.Pool))
	return p.(*sync.Pool)
}

// NewReceiver returns a Receiver that reads stream's messages into a reused
// *M, where M is the message type of the stream's own Recv (examplepb.Chunk
// for a stream of *examplepb.Chunk). Generated New..._...Receiver functions
// call it; call it directly for streams of types generated elsewhere.
func NewReceiver[M any](stream Stream[M]) *Receiver[M] {
	return &Receiver[M]{stream: stream, spare: spareMessages[M]()}
}

// Recv receives the next message and returns it, or nil and the stream's
// error: io.EOF when the peer has finished sending, as with the stream's own
// Recv. The message is valid until the next call to Recv.
func (r *Receiver[M]) Recv() (*M, error) {
	if r.msg == nil {
		if m, ok := r.spare.Get().(*M); ok {
			r.msg = m
		} else {
			r.msg = new(M)
		}
	}
	r.valid = false
	if err := r.stream.RecvMsg(r.msg); err != nil {
		// The stream has ended (gRPC's RecvMsg fails only then, or on a
		// message it could not decode): the message is nobody's now.
		// Decoding into it resets it first, with either codec.
		r.spare.Put(r.msg)
		r.msg = nil
		return nil, err
	}
	r.valid = true
	return r.msg, nil
}

// All returns an iterator over the stream's messages. It ends without an
// error when the peer has finished sending (io.EOF); any other error is
// yielded once, with a nil message, and ends the iteration. Each message is
// valid until the iteration moves on.
//
//	for chunk, err := range r.All() {
//		if err != nil {
//			return err
//		}
//		use(chunk)
//	}
func (r *Receiver[M]) All() iter.Seq2[*M, error] {
	return func(yield func(*M, error) bool) {
		for {
			m, err := r.Recv()
			if err != nil {
				if err != io.EOF {
					yield(nil, err)
				}
				return
			}
			if !yield(m, nil) {
				return
			}
		}
	}
}

// Take returns the message last received and lets go of it: the caller owns
// it from now on, and the next Recv decodes into a new message. It returns
// nil if the last Recv failed or none was made. Take is cheaper than a copy
// when a message must outlive the next Recv; taking every message gives up
// the reuse, and costs what the stream's own Recv costs.
func (r *Receiver[M]) Take() *M {
	if !r.valid {
		return nil
	}
	m := r.msg
	r.msg, r.valid = nil, false
	return m
}
