package own

import "unsafe"

// Arrays. At the end of a decode into a slot's message, a generated decoder
// records, for the message it decoded, each of its fields that holds an
// array or a map (LogArray): where the field is and what it held. The
// slot's next reset (Recycle) keeps, emptied, in its field, each array or map
// that the field still holds (CheckArrays): one that a handler replaced,
// moved, shortened from the front or shared with another field is dropped,
// as Reset drops it, and never written into. The fields recorded lie in the
// slot's message or in messages of its record's spare lists, which stay
// the slot's.

// arrayEntry is the record of one field.
type arrayEntry struct {
	field unsafe.Pointer // the field: a slice, or a map
	p     unsafe.Pointer // the array, or the map, it held
	n     int            // the slice's capacity; 0 for a map; -1 once dropped
	keep  Keeper
}

// Keeper empties an array or a map that the record kept (or poisons it,
// in checked builds) and puts it back into its field, unless in quarantine
// builds. The Keepers of this package are structs of no size, which an
// interface holds without an allocation.
type Keeper interface {
	Keep(field, p unsafe.Pointer, n int)
}

// sliceHeader is the layout of every Go slice.
type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

// LogArray records that slice field *field (of any element type) holds
// array p of capacity n > 0, or that map field *field holds map p (n is 0),
// at the end of its message's decode. keep empties the array or map (or
// poisons it, in checked builds) and puts it back into the field.
func (o *Record) LogArray(field, p unsafe.Pointer, n int, keep Keeper) {
	if o.arrays == nil {
		o.arrays = o.inline[:0]
	}
	o.arrays = append(o.arrays, arrayEntry{field, p, n, keep})
}

// Forget drops every entry of array p: memory that the message points into
// but that the decode did not allocate (a view of a transport buffer).
func (o *Record) Forget(p unsafe.Pointer) {
	for i := range o.arrays {
		if e := &o.arrays[i]; e.p == p && e.n > 0 {
			e.n = -1
		}
	}
}

// CheckArrays drops every entry whose field no longer holds the array (with
// its capacity) or the map it recorded. It runs before the reset that clears
// the fields.
func (o *Record) CheckArrays() {
	for i := range o.arrays {
		e := &o.arrays[i]
		switch {
		case e.n > 0:
			if h := (*sliceHeader)(e.field); h.data != e.p || h.cap != e.n {
				e.n = -1
			}
		case e.n == 0:
			if *(*unsafe.Pointer)(e.field) != e.p {
				e.n = -1
			}
		}
	}
}

// Recycle resets what the decode took (spares.go), once CheckArrays has
// checked the arrays; then, if keepArrays, it puts every array and map that
// CheckArrays kept back into its field, emptied (poisoned in checked builds;
// dropped in quarantine builds). A field recorded twice (a message that came
// twice, merged) gets its array once more: the same.
func (o *Record) Recycle(keepArrays bool) {
	o.recycle()
	if keepArrays {
		for i := range o.arrays {
			if e := &o.arrays[i]; e.n >= 0 {
				e.keep.Keep(e.field, e.p, e.n)
			}
		}
	}
	clear(o.arrays)
	o.arrays = o.arrays[:0]
}

// KeepBytes is the Keeper of a bytes field's array.
type KeepBytes struct{}

func (KeepBytes) Keep(field, p unsafe.Pointer, n int) {
	s := unsafe.Slice((*byte)(p), n)
	PoisonBytes(s)
	if !Quarantine {
		*(*[]byte)(field) = s[:0]
	}
}

// KeepScalars is the Keeper of a repeated field of numbers or enums.
type KeepScalars[T any] struct{}

func (KeepScalars[T]) Keep(field, p unsafe.Pointer, n int) {
	s := unsafe.Slice((*T)(p), n)
	PoisonScalars(s)
	if !Quarantine {
		*(*[]T)(field) = s[:0]
	}
}

// KeepCleared is the Keeper of a repeated field whose elements cannot be
// poisoned in place (strings, bytes, bools, messages): they are cleared,
// or replaced by the pattern where the next decode cannot see it
// (poisonElems). A repeated message field's array is poisoned apart, until
// the slot's next decode (PoisonOwn).
type KeepCleared[T any] struct{}

func (KeepCleared[T]) Keep(field, p unsafe.Pointer, n int) {
	s := unsafe.Slice((*T)(p), n)
	if !Checked || !poisonElems(s) {
		clear(s)
	}
	if !Quarantine {
		*(*[]T)(field) = s[:0]
	}
}

// KeepMap is the Keeper of a map field.
type KeepMap[K comparable, V any] struct{}

func (KeepMap[K, V]) Keep(field, p unsafe.Pointer, _ int) {
	m := *(*map[K]V)(unsafe.Pointer(&p))
	clear(m)
	if !Quarantine {
		*(*map[K]V)(field) = m
	}
}
