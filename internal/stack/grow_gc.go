//go:build gc

package stack

// Grow makes sure that the calling goroutine's stack has Ahead bytes free
// below the caller's frame, growing it now if it has not; where the stack
// has the room, it costs a comparison. It is a function of assembly
// (grow_gc.s) whose frame is Ahead bytes and that does nothing: its prologue
// checks the stack as every Go function's does, and, unlike a Go function
// with a local of that size, it clears nothing.
func Grow()
