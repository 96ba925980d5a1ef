package grpcfast

import (
	"context"
	"sync/atomic"

	"google.golang.org/grpc"

	"github.com/grpcfast/grpcfast/internal/pooled"
	"github.com/grpcfast/grpcfast/internal/reuse"
)

// Responses decodes the responses of one unary or client-streaming method,
// call after call, into messages that it reuses, where protoc-gen-go-grpc's
// client allocates a new response for every call. With the grpcfast codec
// the reused messages also keep the memory of their bytes fields, repeated
// fields, maps and nested messages, so that a client calling one
// method in a loop allocates nothing in steady state to receive its
// responses. Generated <Service>ReusingClient types hold one per method;
// make one with NewResponses for a method of a package generated elsewhere.
//
// The rules are a Receiver's (docs/receivers.md): the response that a call
// returns belongs to the Responses and is reused after the next successful
// call through it. Until then the caller may read and modify it; after
// that neither it nor anything reached through it may be used. Take hands
// the last response over for good; Release gives the Responses' messages to
// the next Responses of the same type. A failed call (a status error, a
// response that fails to decode) returns nil and leaves the response of
// the last successful call exactly as it was.
//
// Only memory that a grpcfast codec allocated is reused: what the caller
// put into a response is dropped at the next call, never written into. A
// response that another codec decoded (gRPC's standard codec forced on the
// connection or the call, vtprotobuf's registered by main) is right, and
// its memory is not reused. In checked builds (-race, or the
// grpcfast_checked build tag) a response taken back is poisoned first.
//
// A Responses is for one goroutine at a time: a call through it while
// another is in progress panics (the two would decode into the same
// messages). Give each goroutine its own. The zero value is ready to use,
// without the options of NewResponses.
type Responses[M any] struct {
	slots slotPair[M]
	copy  bool
	busy  atomic.Bool
}

// NewResponses returns a Responses for a method whose responses are *M.
// WithStringsInOneCopy decodes each response into one copy of its
// encoding, strings and bytes fields as views of it, as it does for pooled
// requests (docs/pooled.md): where M has a generated decoder and the
// response is decoded by the grpcfast codec.
func NewResponses[M any](opts ...PooledOption) *Responses[M] {
	return &Responses[M]{copy: pooled.ConfigOf(opts).Copy && reuse.HasGeneratedDecoder[M]()}
}

// Invoke calls the unary method (its full name, "/package.Service/Method")
// on cc with the request in, as protoc-gen-go-grpc's generated client does
// (cc.Invoke: interceptors, call options, metadata, status), and decodes the
// response into a reused *M. It returns the response, valid until the next
// successful call through r, or nil and the call's error.
func (r *Responses[M]) Invoke(ctx context.Context, cc grpc.ClientConnInterface, method string, in any, opts ...grpc.CallOption) (*M, error) {
	r.enter()
	defer r.busy.Store(false)
	s := r.get()
	return r.slots.settle(s, cc.Invoke(ctx, method, in, s.Msg, opts...))
}

// CloseAndRecv closes the sending side of a client-streaming call and
// receives its response into a reused *M, as the stream's own CloseAndRecv
// does into a new message. The response is valid until the next successful
// call through r.
func (r *Responses[M]) CloseAndRecv(stream grpc.ClientStream) (*M, error) {
	r.enter()
	defer r.busy.Store(false)
	if err := stream.CloseSend(); err != nil {
		r.slots.valid = false // a failed call: Take returns nil, as after any other
		return nil, err
	}
	s := r.get()
	return r.slots.settle(s, stream.RecvMsg(s.Msg))
}

// Take returns the response of the last call and lets go of it: the caller
// owns it from now on, and r never reuses it. It returns nil if the last
// call failed or none was made.
func (r *Responses[M]) Take() *M {
	r.enter()
	defer r.busy.Store(false)
	return r.slots.take()
}

// Release gives r's messages, and the memory they keep, to the next
// Responses (or Receiver) of the same message type. After Release, the
// response of the last call, and anything reached through it, must not be
// used. A response handed out by Take is not affected. Release is
// idempotent, and r may be used again after it.
func (r *Responses[M]) Release() {
	r.enter()
	defer r.busy.Store(false)
	r.slots.release()
}

func (r *Responses[M]) get() *reuse.Slot[M] {
	s := r.slots.get()
	if r.copy {
		s.PrepareCopy()
	}
	return s
}

// enter marks r busy, and panics if it was: two goroutines using one
// Responses at once would decode into, and hand out, the same messages.
func (r *Responses[M]) enter() {
	if !r.busy.CompareAndSwap(false, true) {
		panic("grpcfast: a Responses (or a generated ReusingClient's method) used by two goroutines at once; " +
			"give each goroutine its own")
	}
}
