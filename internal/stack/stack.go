// Package stack grows a goroutine's stack ahead of a deep call, at a
// shallow frame, where growing it costs least.
//
// The runtime grows a goroutine's stack by copying it to one twice its
// size, and the copy costs in proportion to the frames on it: for each, a
// lookup of its stack map and of its pointers. gRPC-Go's server runs each
// unary call on a new goroutine, whose stack starts small (the average that
// the collector last found in use) and grows twice as the call goes deeper.
// With grpc-go v1.68, the first growth is in gRPC-Go's metadata, before the
// codec runs, and the second inside the decode, a dozen frames down, or,
// when the decode is shallow, in gRPC-Go's writing of the response's
// header. With grpc-go v1.85, whose receive waits in a select, the first is
// in processRPC and the second in that receive, before the codec runs.
//
// Grow makes the second growth happen where it is called, with fewer
// frames on the stack: Codec.Unmarshal calls it where a decode starts,
// and a pooled handler (internal/pooled) at its top, before gRPC-Go's
// receive.
package stack

// Ahead is the stack, in bytes, that Grow leaves free below its caller's
// frame, beyond the guard that the runtime keeps.
const Ahead = 2048
