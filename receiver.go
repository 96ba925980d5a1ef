package grpcfast

import (
	"io"
	"iter"

	"github.com/grpcfast/grpcfast/internal/reuse"
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

// Receiver receives the messages of one stream into messages that it
// reuses, where the stream's own Recv allocates a new message every time.
// With the grpcfast codec the reused messages also keep the memory of their
// bytes, repeated and map fields, so that in steady state receiving
// allocates nothing in generated code or in this package.
//
// Lifetime: the message that Recv returns, or that All yields, belongs to
// the Receiver and is reused after the next successful Recv. Until then the
// caller may read and modify it, and may put its own slices, maps and
// messages into it; after that neither it nor anything reached through it
// may be used. Do not keep it or a pointer into it past the next Recv, do not
// hand it to a goroutine that outlives the next Recv, and do not Send it
// where something may read it after Send returns (docs/receivers.md,
// "Sending the same message again"). To keep a message, call Take, which hands over the
// message itself, or copy it (proto.Clone).
//
// When the stream ends (Recv returns io.EOF or another error), the message
// that the last successful Recv returned stays exactly as it was and stays
// the caller's, as with the stream's own Recv: a handler may keep it, use it
// after the loop, or return it.
//
// What the Receiver keeps stays with the Receiver: it is decoded into again
// only by this Receiver's Recv, on this stream. Release gives the Receiver's
// messages, with their memory, to the next Receiver of the same message type,
// on any stream and goroutine; call it when the last message is no longer
// used, typically with defer. Without Release the garbage collector
// reclaims them.
//
// Only memory that a grpcfast codec allocated when it decoded into the
// Receiver's message is reused: a slice, map or nested message that the
// caller put into the message is dropped at the next Recv, as Reset drops
// it, never written into. Messages that another codec decoded (gRPC's
// standard codec, or vtprotobuf's codec registered in main) are right, and
// their memory is not reused. The generated decoder decodes the next
// message into the nested messages, repeated elements and oneof wrappers
// of the last one, whatever vtprotobuf pools.
//
// In checked builds (the grpcfast_checked build tag, and every build with
// the race detector) memory that a Receiver takes back is overwritten with
// a poison pattern (0xDEADBEEF) first, so that a use after the next Recv or
// after Release shows up as wrong data in the caller's tests.
//
// A Receiver is for one goroutine, like the stream it reads. The zero value
// is not usable: make one with NewReceiver or a generated New...Receiver.
type Receiver[M any] struct {
	stream Stream[M]
	slots  slotPair[M]
}

// NewReceiver returns a Receiver that reads stream's messages into reused
// *M, where M is the message type of the stream's own Recv (examplepb.Chunk
// for a stream of *examplepb.Chunk). Generated New..._...Receiver functions
// call it; call it directly for streams of types generated elsewhere.
func NewReceiver[M any](stream Stream[M]) *Receiver[M] {
	return &Receiver[M]{stream: stream}
}

// Recv receives the next message and returns it, or nil and the stream's
// error: io.EOF when the peer has finished sending, as with the stream's own
// Recv. The message is valid until the next successful Recv, or Release.
func (r *Receiver[M]) Recv() (*M, error) {
	s := r.slots.get()
	return r.slots.settle(s, r.stream.RecvMsg(s.Msg))
}

// All returns an iterator over the stream's messages. It ends without an
// error when the peer has finished sending (io.EOF); any other error is
// yielded once, with a nil message, and ends the iteration. Each message is
// valid until the iteration moves on; the last one stays valid after the
// loop, until Release.
//
//	defer r.Release()
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
// it from now on, and the Receiver never reuses it. It returns nil if the
// last Recv failed or none was made. Take is cheaper than a copy when a
// message must outlive the next Recv; taking every message gives up the
// reuse, and costs what the stream's own Recv costs.
func (r *Receiver[M]) Take() *M { return r.slots.take() }

// Release gives the Receiver's messages, and the memory they keep, to the
// next Receiver of the same message type, on whatever stream and goroutine
// that is: a server that handles many short streams then decodes into
// messages it already has. After Release, the message that Recv last
// returned, and anything reached through it, must not be used: it may be
// decoded into by another stream at any moment (in checked builds it is
// poisoned at once). A message handed out by Take is not affected.
//
// Release is idempotent, and the Receiver may be used again after it. Like
// vtprotobuf's ReturnToVTPool, it is an explicit hand-over: call it, for
// instance with defer right after making the Receiver, only where nothing
// keeps the last message.
func (r *Receiver[M]) Release() { r.slots.release() }

// slotPair is the two messages that a Receiver or a Responses alternates
// between: the one it last returned, which stays the caller's until the
// next successful receive, and the one it decodes into next.
type slotPair[M any] struct {
	cur   *reuse.Slot[M]  // holds the message the last successful receive returned
	next  *reuse.Slot[M]  // holds a message ready to be decoded into
	slots *reuse.Slots[M] // where get takes and release gives back slots
	valid bool            // cur holds the message the last receive returned
}

// get returns the prepared slot to decode the next message into.
func (p *slotPair[M]) get() *reuse.Slot[M] {
	s := p.next
	p.next = nil
	if s == nil {
		return p.slotsOf().Get()
	}
	s.Unpoison()
	return s
}

// slotsOf returns the spare slots of M, found on first use so that the
// zero slotPair works.
func (p *slotPair[M]) slotsOf() *reuse.Slots[M] {
	if p.slots == nil {
		p.slots = reuse.SlotsOf[M]()
	}
	return p.slots
}

// settle records the outcome err of a receive into s, which get returned,
// and returns s's message, or nil and err. On success the message returned
// before is taken back (prepared, poisoned in checked builds) to be decoded
// into next; on error it stays as it was, and the caller's.
func (p *slotPair[M]) settle(s *reuse.Slot[M], err error) (*M, error) {
	if !s.Settle(err) {
		p.next = s
		p.valid = false
		return nil, err
	}
	if old := p.cur; old != nil {
		old.Prepare()
		old.Poison()
		p.next = old
	}
	p.cur, p.valid = s, true
	return s.Msg, nil
}

// take hands the message last returned over for good (Receiver.Take).
func (p *slotPair[M]) take() *M {
	if !p.valid {
		return nil
	}
	m := p.cur.Msg
	p.cur.Detach()
	p.cur, p.valid = nil, false
	return m
}

// release gives both slots to the next user of the type (Receiver.Release).
func (p *slotPair[M]) release() {
	for _, s := range [2]*reuse.Slot[M]{p.cur, p.next} {
		if s != nil {
			p.slotsOf().Put(s)
		}
	}
	p.cur, p.next, p.valid = nil, nil, false
}
