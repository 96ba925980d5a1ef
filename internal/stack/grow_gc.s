//go:build gc

#include "go_asm.h"
#include "funcdata.h"

// func Grow(): a frame of Ahead bytes (stack.go) and nothing in it.
TEXT ·Grow(SB), 0, $const_Ahead-0
	NO_LOCAL_POINTERS
	RET
