package codec

import "google.golang.org/protobuf/reflect/protoreflect"

// What the tests of package grpcfast (export_test.go) look into.

// WholeRetries returns how many decodes in pieces failed and were redone
// from one contiguous copy.
func WholeRetries() int64 { return wholeRetries.Load() }

// MinPooledCap is the smallest buffer capacity that gRPC returns to a pool.
func MinPooledCap() int { return minPooledCap }

// CheckUTF8 checks b, the encoding of a message of type md, as the codec
// does before decoding it and after encoding it.
func CheckUTF8(md protoreflect.MessageDescriptor, b []byte) error {
	if p := newUTF8Plan(md); p != nil {
		return p.check(b)
	}
	return nil
}

// ChecksUTF8 reports whether the codec checks the strings of md's messages.
func ChecksUTF8(md protoreflect.MessageDescriptor) bool { return newUTF8Plan(md) != nil }

// ValidUTF8 is the codec's utf8.Valid.
func ValidUTF8(b []byte) bool { return validUTF8(b) }

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
