package grpcfastimpl

import (
	"unsafe"

	"github.com/grpcfast/grpcfast/internal/own"
)

// The calls below are what a generated decoder does at the end of a
// message's decode into a slot (d.Record is not nil): it records each
// field of the message that holds an array or a map, so that the slot's
// next reset keeps it there, emptied, if the field still holds it then
// (own.Record.CheckArrays).

// LogBytes records bytes field *f, unless it is a view of the input (d's
// strings and bytes are views of the owned copy).
func LogBytes(d *Decoding, f *[]byte) {
	if cap(*f) > 0 && !d.Views() {
		d.Record.LogArray(unsafe.Pointer(f), unsafe.Pointer(unsafe.SliceData(*f)), cap(*f), own.KeepBytes{})
	}
}

// LogScalars records repeated numeric or enum field *f.
func LogScalars[T Scalar](d *Decoding, f *[]T) {
	if cap(*f) > 0 {
		d.Record.LogArray(unsafe.Pointer(f), unsafe.Pointer(unsafe.SliceData(*f)), cap(*f), own.KeepScalars[T]{})
	}
}

// LogCleared records repeated string, bytes, bool or message field *f,
// whose elements are cleared when it is kept: the messages are the record's
// (own.Record.Recycle), the strings and bytes views or copies.
func LogCleared[T any](d *Decoding, f *[]T) {
	if cap(*f) > 0 {
		d.Record.LogArray(unsafe.Pointer(f), unsafe.Pointer(unsafe.SliceData(*f)), cap(*f), own.KeepCleared[T]{})
	}
}

// LogMap records map field *f.
func LogMap[K comparable, V any](d *Decoding, f *map[K]V) {
	if *f != nil {
		d.Record.LogArray(unsafe.Pointer(f), *(*unsafe.Pointer)(unsafe.Pointer(f)), 0, own.KeepMap[K, V]{})
	}
}
