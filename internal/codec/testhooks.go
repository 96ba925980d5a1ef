package codec

import "google.golang.org/protobuf/reflect/protoreflect"

// What the tests of package grpcfast (export_test.go) look into.

// WholeRetries returns how many decodes in pieces failed and were redone
// from one contiguous copy.
func WholeRetries() int64 { return wholeRetries.Load() }

// MinPooledCap is the smallest buffer capacity that gRPC returns to a pool.
func MinPooledCap() int { return minPooledCap }

// PoolKeepsPresence is poolKeepsPresence with the pooled message types
// named by pooled.
func PoolKeepsPresence(md protoreflect.MessageDescriptor, pooled map[protoreflect.FullName]bool) bool {
	return poolKeepsPresence(md, func(md protoreflect.MessageDescriptor) bool { return pooled[md.FullName()] })
}

// HasExtensionRanges reports whether md or a message type reachable from it
// has extension ranges.
func HasExtensionRanges(md protoreflect.MessageDescriptor) bool {
	return hasExtensionRanges(md, map[protoreflect.FullName]bool{})
}
