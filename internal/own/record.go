package own

import "unsafe"

// Record records the memory that a grpcfast codec's decode left in a message,
// so that the next reset keeps only that memory: a slice, map or nested
// message that someone else put into the message since then is dropped, as
// Reset drops it, and never written into.
//
// A record is a sequence of entries in the order in which the message's
// generated GrpcfastRecord method visits its fields; the generated
// GrpcfastReuse method reads them back in the same order. Entries hold
// pointers, so that recorded memory cannot be freed and its address reused
// by an allocation of the caller's between the record and the reset.
type Record struct {
	e       []entry
	i       int      // the next entry to read
	inline  [4]entry // e's first array: small messages record without allocating
	noBytes bool     // leave out the arrays of bytes fields (LeaveOutBytes)

	generated bool        // decoded by a generated decoder (SetGenerated)
	spares    []spareList // by SpareKind (spares.go); kept by Clear
	older     []spareList // the spares of the reset before (DropSpares)
}

type entry struct {
	p unsafe.Pointer
	n int // capacity of a slice; entries under a message
}

// Clear empties the record for a new one.
func (o *Record) Clear() {
	clear(o.e)
	o.e = o.e[:0]
	o.i = 0
	o.noBytes = false
	o.generated = false
}

// Rewind makes the record readable from its start.
func (o *Record) Rewind() { o.i = 0 }

func (o *Record) add(p unsafe.Pointer, n int) {
	if o.e == nil {
		o.e = o.inline[:0]
	}
	o.e = append(o.e, entry{p, n})
}

// next returns the next entry; a zero entry if the record has ended (a
// record made for another message), which matches only nil.
func (o *Record) next() entry {
	if o.i >= len(o.e) {
		return entry{n: -1}
	}
	e := o.e[o.i]
	o.i++
	return e
}

// RecordSlice records s's array and capacity.
func RecordSlice[T any](o *Record, s []T) {
	if o.noBytes && isBytes[T]() {
		o.add(nil, 0) // matches nothing: the field is dropped, as Reset drops it
		return
	}
	o.add(unsafe.Pointer(unsafe.SliceData(s)), cap(s))
}

// MatchSlice reads the next entry and reports whether it records s's array
// and capacity, and that array holds something.
func MatchSlice[T any](o *Record, s []T) bool {
	e := o.next()
	return cap(s) > 0 && e.p == unsafe.Pointer(unsafe.SliceData(s)) && e.n == cap(s)
}

// mapPointer returns the pointer that a map value is.
func mapPointer[K comparable, V any](m map[K]V) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Pointer(&m))
}

// RecordMap records map m.
func RecordMap[K comparable, V any](o *Record, m map[K]V) { o.add(mapPointer(m), 0) }

// MatchMap reads the next entry and reports whether it records m.
func MatchMap[K comparable, V any](o *Record, m map[K]V) bool {
	e := o.next()
	return m != nil && e.p == mapPointer(m)
}

// Open starts the entry of nested message p; Close ends it once the nested
// message's own entries follow.
func (o *Record) Open(p unsafe.Pointer) int {
	o.add(p, 0)
	return len(o.e) - 1
}

// Close ends the entry that Open started at i.
func (o *Record) Close(i int) { o.e[i].n = len(o.e) - i - 1 }

// MatchMessage reads the entry of a nested message and returns whether it
// records p, and the index of the entry that follows the nested message's
// own entries. If it does not record p, the record moves there; if it does,
// the caller reads the nested message's entries (its GrpcfastReuse) and then
// Seeks there.
func (o *Record) MatchMessage(p unsafe.Pointer) (bool, int) {
	e := o.next()
	end := min(o.i+max(e.n, 0), len(o.e))
	if p != nil && e.p == p {
		return true, end
	}
	o.i = end
	return false, end
}

// OpenOneof starts the record of a oneof field v: the wrapper it holds (nil
// if unset), then the message of a message case, up to the Close of the
// index it returns.
func (o *Record) OpenOneof(v any) int { return o.Open(PointerOf(v)) }

// MatchOneof reads the record that OpenOneof started and reports whether it
// records the wrapper that v holds (then the case's message, if any, is read
// next), and the index of the entry that follows the oneof's (for Seek).
func (o *Record) MatchOneof(v any) (bool, int) { return o.MatchMessage(PointerOf(v)) }

// OpenGroup starts an entry that counts the entries after it, up to the
// Close of the index it returns: the elements of a repeated message field.
func (o *Record) OpenGroup() int { return o.Open(nil) }

// ReadGroup reads the entry that OpenGroup started and returns the index of
// the entry that follows the group.
func (o *Record) ReadGroup() int {
	e := o.next()
	return min(o.i+max(e.n, 0), len(o.e))
}

// Seek moves to entry i.
func (o *Record) Seek(i int) { o.i = min(max(i, 0), len(o.e)) }

// Forget removes from the record every slice entry for the array at p:
// memory that the message points into but that the decode did not allocate
// (a view of a transport buffer), which the next reset must drop.
func (o *Record) Forget(p unsafe.Pointer) {
	for i := range o.e {
		if o.e[i].p == p && o.e[i].n > 0 {
			o.e[i] = entry{}
		}
	}
}

// LeaveOutBytes makes the record leave out, from now until Clear, the arrays of
// bytes fields: after a decode into one owned copy they are views of it,
// which must never be written into (strings of the same message point into
// it too) nor reused.
func (o *Record) LeaveOutBytes() { o.noBytes = true }

// isBytes reports whether T is byte: a []byte is a bytes field (no other
// field is a slice of bytes).
func isBytes[T any]() bool {
	var zero T
	_, ok := any(zero).(byte)
	return ok
}
