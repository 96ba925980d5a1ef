package own

import "unsafe"

// Poison is the byte pattern that checked builds write over memory taken
// back: 0xDEADBEEF repeated, easy to spot in a failing test's output.
var poison = [8]byte{0xDE, 0xAD, 0xBE, 0xEF, 0xDE, 0xAD, 0xBE, 0xEF}

// PoisonBytes overwrites b with the poison pattern in checked builds, and
// does nothing otherwise.
func PoisonBytes(b []byte) {
	if !Checked || len(b) == 0 {
		return
	}
	n := copy(b, poison[:])
	for n < len(b) {
		n += copy(b[n:], b[:n])
	}
}

// PoisonScalars overwrites the whole capacity of s, a slice of a type
// without pointers whose every bit pattern is a valid value (integers,
// floats, enums), with the poison pattern in checked builds.
func PoisonScalars[T any](s []T) {
	if !Checked || cap(s) == 0 {
		return
	}
	var zero T
	s = s[:cap(s)]
	PoisonBytes(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(zero))))
}
