// Package own holds what the grpcfast codec, its receivers and generated
// code share to reuse only memory they allocated themselves, one idea per
// file: the record of what a slot's decodes left (record.go), the nested
// messages and oneof wrappers that a reset recycles for the next decode
// (spares.go), the arrays and maps it keeps in their fields (arrays.go),
// the poisoning of memory taken back in checked builds (poison.go, and the
// build tags' constants: checked_on.go, quarantine_on.go) and the unsafe
// reads of an interface's words (pointers.go).
package own
