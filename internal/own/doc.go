// Package own holds what the grpcfast codec, its receivers and generated
// code share to reuse only memory they allocated themselves, one idea per
// file: the record of what a decode left in a message (record.go), the
// spares that a reset gives back to the next decode (spares.go), the
// poisoning of memory taken back in checked builds (poison.go, and the
// build tags' constants: checked_on.go, quarantine_on.go), vtprotobuf's
// pool (vtpool.go) and the unsafe reads of an interface's words
// (pointers.go).
package own
