// Package stack grows a goroutine's stack ahead of a deep call, at a
// shallow frame, where growing it costs least.
//
// The runtime grows a goroutine's stack by copying it to one twice its
// size, and the copy costs in proportion to the frames on it: for each, a
// lookup of its stack map and of its pointers. gRPC-Go's server runs each
// unary call on a new goroutine, whose stack starts small (the average that
// the collector last found in use) and grows as the call goes deeper: once
// in gRPC-Go's metadata, before the codec runs, and again inside the
// decode, a dozen frames down, or, when the decode is shallow, in gRPC-Go's
// writing of the response's header. Grow, called where the decode starts,
// makes that second growth happen there, with the fewest frames on the
// stack.
package stack

// Ahead is the stack, in bytes, that Grow leaves free below its caller's
// frame, beyond the guard that the runtime keeps.
const Ahead = 2048
