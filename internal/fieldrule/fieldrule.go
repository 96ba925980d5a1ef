// Package fieldrule holds what the plugin and the runtime both decide from a
// field's descriptor, so that generated decoders and the codec's walk agree.
package fieldrule

import "google.golang.org/protobuf/reflect/protoreflect"

// EnforceUTF8 reports whether protobuf-go validates the UTF-8 of fd's
// values, as its internal strs.EnforceUTF8 does (without the legacy build
// flag): editions fields by their utf8_validation feature, proto3 string
// fields always, proto2 never.
func EnforceUTF8(fd protoreflect.FieldDescriptor) bool {
	if fd.Kind() != protoreflect.StringKind {
		return false
	}
	if fd.Syntax() == protoreflect.Editions {
		if e, ok := fd.(interface{ EnforceUTF8() bool }); ok {
			return e.EnforceUTF8()
		}
	}
	return fd.Syntax() == protoreflect.Proto3
}

// NegZeroField reports whether fd is a float or double field without
// presence (proto3's, editions' IMPLICIT), outside a list or a map: the
// fields whose -0.0 vtprotobuf's encoding leaves out (it writes them when
// they are != 0), where protobuf-go writes it. A oneof member, an optional
// or repeated field and a map's value are written by both.
func NegZeroField(fd protoreflect.FieldDescriptor) bool {
	k := fd.Kind()
	return (k == protoreflect.FloatKind || k == protoreflect.DoubleKind) && !fd.IsList() && !fd.IsMap() && !fd.HasPresence()
}

// HoldsNegZero reports whether md, or a message type reachable through its
// fields (map values included), has a NegZeroField: whether a message of
// type md can hold a -0.0 that vtprotobuf's encoding leaves out. The
// generated messages for which it is true have GrpcfastNegZero.
func HoldsNegZero(md protoreflect.MessageDescriptor) bool {
	return holdsNegZero(md, map[protoreflect.FullName]bool{})
}

func holdsNegZero(md protoreflect.MessageDescriptor, seen map[protoreflect.FullName]bool) bool {
	if seen[md.FullName()] {
		return false
	}
	seen[md.FullName()] = true
	fields := md.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if fd.IsMap() {
			fd = fd.MapValue() // a value that is not a message is always sent
			if fd.Message() == nil {
				continue
			}
		}
		if sub := fd.Message(); sub != nil {
			if holdsNegZero(sub, seen) {
				return true
			}
		} else if NegZeroField(fd) {
			return true
		}
	}
	return false
}
