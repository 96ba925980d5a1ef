package own

import (
	"sync/atomic"
	"unsafe"
)

// Spares. A slot owns the nested messages and oneof wrappers
// (&AnyValue_StringValue{}) that generated decoders put into its message:
// its record holds them, one list per Go type (SpareKind). A decode takes
// them from there (TakeSpare), or allocates them and adds them to the list
// (Adopt); the next reset of the slot resets every one the decode took,
// wherever the handler left it, and makes it a spare again (Recycle). A
// message in the list is never also in another slot's, and nothing but the
// slot's message refers to it, unless a handler keeps what it was not given
// (checked builds then find it reset). The lists hold no more than the last
// two decodes took.

// SpareKind names the list of spares of one Go type; generated code gets
// one per type from NewSpareKind at init.
type SpareKind int32

var kinds atomic.Int32

// NewSpareKind returns a new SpareKind.
func NewSpareKind() SpareKind { return SpareKind(kinds.Add(1) - 1) }

// Generated reports whether the record is of a decode by a generated
// decoder (SetGenerated): the next reset recycles what it took and keeps
// the arrays it recorded.
func (o *Record) Generated() bool { return o != nil && o.generated }

// SetGenerated marks the record as that of a decode by a generated decoder,
// until Clear.
func (o *Record) SetGenerated() { o.generated = true }

// spareList is the list of one kind: p[:u] were taken by the decodes since
// the last Recycle, in the order they took them, and p[u:] are spares,
// reset, in the order the decode before took them: each decode takes them
// in the same order, so that a message gets the memory that the message in
// its place had, and the arrays that it kept fit it.
type spareList struct {
	p    []unsafe.Pointer
	u    int
	last int     // how many the decode before took (recycle)
	ops  KindOps // resets, poisons and clears each element, a *T of the kind's type
}

// TakeSpare returns a spare of kind k, or nil if there is none. It is the
// decode's from now on, until the next Recycle.
func (o *Record) TakeSpare(k SpareKind) unsafe.Pointer {
	if o == nil || uint(k) >= uint(len(o.spares)) {
		return nil
	}
	l := &o.spares[k]
	if l.u == len(l.p) {
		return nil
	}
	l.u++
	return l.p[l.u-1]
}

// Adopt adds p, a new message or wrapper of kind k, to what the decode took:
// the next Recycle resets it with ops (Ops of the kind's type) and keeps it
// as a spare.
func (o *Record) Adopt(k SpareKind, p unsafe.Pointer, ops KindOps) {
	if int(k) >= len(o.spares) {
		o.spares = append(o.spares, make([]spareList, int(k)+1-len(o.spares))...)
	}
	l := &o.spares[k]
	if l.ops == nil {
		l.ops = ops
		o.kinds = append(o.kinds, k)
	}
	l.p = append(l.p, p)
	if last := len(l.p) - 1; l.u != last {
		// Spares are left (never, as TakeSpare gave none): after them.
		l.p[l.u], l.p[last] = l.p[last], l.p[l.u]
	}
	l.u++
}

// KindOps is what a record does with the spares of one kind: Ops of the
// kind's Go type.
type KindOps interface {
	reset(ps []unsafe.Pointer)           // ResetAll
	poison(ps []unsafe.Pointer, on bool) // PoisonOwn each, or ClearOwn each
}

// Ops are the KindOps of the spares of Go type T.
type Ops[T any] struct{}

func (Ops[T]) reset(ps []unsafe.Pointer) { ResetAll[T](ps) }

func (Ops[T]) poison(ps []unsafe.Pointer, on bool) {
	for _, p := range ps {
		if on {
			PoisonOwn((*T)(p))
		} else {
			ClearOwn((*T)(p))
		}
	}
}

// Poison overwrites, in checked builds but quarantine ones, what the
// recycled spares hold of their own, and the elements of the arrays that
// their repeated message fields keep (PoisonOwn), until Unpoison, which
// the slot's next decode must come after.
func (o *Record) Poison() { o.poison(true) }

// Unpoison clears what Poison poisoned (ClearOwn), so that the spares are
// reset again for the next decode.
func (o *Record) Unpoison() { o.poison(false) }

func (o *Record) poison(on bool) {
	if !Checked || Quarantine {
		return
	}
	for _, k := range o.kinds {
		l := &o.spares[k]
		l.ops.poison(l.p[l.u:], on)
	}
}

// recycle resets what the decodes since the last call took and makes it
// spares again. It keeps, of each kind, twice what the last decode took and
// 16 more, or what the decode before took if that is more, and lets go of
// the rest: a message whose repeated fields alternate between long and
// short finds what the long one left, and a slot keeps no more than a few
// times what its last two messages needed, whatever decoded them.
// Quarantine builds keep nothing.
func (o *Record) recycle() {
	for _, k := range o.kinds {
		l := &o.spares[k]
		took := l.u
		if took > 0 {
			l.ops.reset(l.p[:took])
		}
		keep := max(2*took+16, l.last)
		l.last = took
		if Quarantine {
			keep = 0
		}
		if keep < len(l.p) {
			clear(l.p[keep:])
			l.p = l.p[:keep]
		}
		l.u = 0
	}
}

// Held returns how many nested messages and oneof wrappers the record
// holds, spare or taken.
func (o *Record) Held() int {
	n := 0
	for _, k := range o.kinds {
		n += len(o.spares[k].p)
	}
	return n
}

// Disown lets go of every spare and of what the decode took, without a
// reset: the slot's message, and what it holds, is handed over for good.
func (o *Record) Disown() {
	for _, k := range o.kinds {
		l := &o.spares[k]
		clear(l.p)
		l.p, l.u, l.last = l.p[:0], 0, 0
	}
	clear(o.arrays)
	o.arrays = o.arrays[:0]
}

// ResetAll resets the *T that each of ps points to, as a generated message's
// Reset does: a Recycle's reset of a kind whose type is T. In quarantine
// builds, which never reuse them, it then poisons their fields
// (PoisonFields), so that a handler or a reply that still holds one finds
// the pattern rather than an empty message.
func ResetAll[T any](ps []unsafe.Pointer) {
	for _, p := range ps {
		*(*T)(p) = *new(T)
	}
	if Quarantine {
		for _, p := range ps {
			PoisonFields((*T)(p))
		}
	}
}
