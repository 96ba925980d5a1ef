package grpcfast

import "google.golang.org/protobuf/reflect/protoreflect"

// WholeRetries returns how many decodes in pieces failed and were redone
// from one contiguous copy.
func WholeRetries() int64 { return wholeRetries.Load() }

// DefaultPoolingThreshold is the pooling threshold of a codec made without
// WithPoolingThreshold, for the tests' message sizes.
const DefaultPoolingThreshold = defaultPoolingThreshold

// MinPooledCap is the smallest buffer capacity that gRPC returns to a pool.
var MinPooledCap = minPooledCap

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
var ValidUTF8 = validUTF8

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
