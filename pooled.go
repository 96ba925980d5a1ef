package grpcfast

import (
	"context"

	"github.com/grpcfast/grpcfast/internal/pooled"
)

// PooledOption configures the unary handlers that a generated
// Register<Service>ServerPooled function registers, and the responses of a
// generated New<Service>ReusingClient (NewResponses). WithStringsInOneCopy
// makes one. Other packages cannot implement it (its method takes a type
// internal to this module), so that no value of another type can be passed
// as an option and then ignored; a struct that embeds a PooledOption is
// that option.
type PooledOption interface{ pooled.Option }

// pooledOption is the PooledOption that sets a field of pooled.Config;
// pooled.ConfigOf applies it.
type pooledOption func(*pooled.Config)

func (o pooledOption) Apply(c *pooled.Config) { o(c) }

// WithStringsInOneCopy makes pooled unary handlers decode each request (and
// reusing clients each response) into one copy of its encoding, made for
// that message alone: the request's strings and bytes fields are views of
// that copy instead of copies of their own. The codec makes the copy of a
// later message in the same array only once the garbage collector has found
// that nothing refers to it any more (copies of 4 KiB to 4 MiB, which then
// take their size rounded up by at most an eighth). The decode is the request type's
// generated decoder, which also reuses the request's oneof wrappers and
// nested messages. It applies to every request type that has one (all but
// types with groups or extension ranges, which are decoded as without the
// option), and only with the grpcfast codec.
//
// The trade-off: a string or a bytes slice of the request keeps the whole
// copy alive (up to 1.125 times the request's size), as long as anything
// refers to it. Use it where requests are
// consumed and dropped (ingestion: export, write, batch upload), not where
// handlers keep small strings of large requests for long (put those in
// strings.Clone first). Strings stay valid and never change after the call,
// like any Go string; the request itself, and its bytes fields, follow the
// pooled requests' rules (docs/pooled.md).
func WithStringsInOneCopy() PooledOption {
	return pooledOption(func(c *pooled.Config) { c.Copy = true })
}

// KeepRequest makes the request of the pooled unary call that ctx belongs to
// the caller's for good: the handler does not give it back to the pool when
// it returns, and it may be kept, sent to a goroutine that outlives the call
// and modified, as a request of a handler registered the usual way.
//
// Call it from the handler, or from an interceptor, with the call's context
// or any context derived from it, before the handler returns. It reports
// whether the request is kept: false if ctx is not the context of a handler
// registered with a Register<Service>ServerPooled function (a request that is
// not pooled is the caller's anyway), or if that handler has returned
// already and gave the request back.
func KeepRequest(ctx context.Context) bool { return pooled.Keep(ctx) }
