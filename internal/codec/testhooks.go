package codec

import "google.golang.org/protobuf/reflect/protoreflect"

// What the tests of package grpcfast (export_test.go) look into.

// MinPooledCap is the smallest buffer capacity that gRPC returns to a pool.
func MinPooledCap() int { return minPooledCap }

// HasExtensionRanges reports whether md or a message type reachable from it
// has extension ranges.
func HasExtensionRanges(md protoreflect.MessageDescriptor) bool {
	return hasExtensionRanges(md, map[protoreflect.FullName]bool{})
}
