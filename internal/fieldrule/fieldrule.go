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
