package own

import "unsafe"

// PointerOf returns the pointer that v, an interface holding a pointer (a
// message), holds; nil for a nil interface.
func PointerOf(v any) unsafe.Pointer {
	return (*[2]unsafe.Pointer)(unsafe.Pointer(&v))[1]
}

// TypePointerOf returns the address of the runtime type descriptor of v's
// dynamic type (the interface's first word); nil for a nil interface.
func TypePointerOf(v any) unsafe.Pointer {
	return (*[2]unsafe.Pointer)(unsafe.Pointer(&v))[0]
}
