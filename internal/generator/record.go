package generator

import (
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// keepAction says what a slot's reset does with a field's memory, and so
// how a decode records it (decodeGen.logArrays).
type keepAction int

const (
	drop         keepAction = iota // Reset clears it; not recorded
	keepBytes                      // grpcfastimpl.LogBytes: a bytes field without presence
	keepScalars                    // grpcfastimpl.LogScalars: repeated numbers and enums
	keepCleared                    // grpcfastimpl.LogCleared: repeated strings, bytes and bools
	keepMap                        // grpcfastimpl.LogMap
	keepMessages                   // grpcfastimpl.LogCleared: repeated messages, which are the slot's spares
	release                        // singular and oneof messages: the slot's spares, not recorded here
)

func keepActionOf(fd *protogen.Field) keepAction {
	d := fd.Desc
	switch {
	case realOneof(fd) != nil && isMessage(d):
		return release
	case realOneof(fd) != nil:
		return drop
	case d.IsMap():
		return keepMap
	case d.IsList():
		switch d.Kind() {
		case protoreflect.MessageKind, protoreflect.GroupKind:
			return keepMessages
		case protoreflect.BytesKind, protoreflect.StringKind, protoreflect.BoolKind:
			return keepCleared
		default:
			return keepScalars
		}
	case d.Kind() == protoreflect.BytesKind && !d.HasPresence():
		// A bytes field that tracks presence must become nil: an empty,
		// non-nil slice would read as present.
		return keepBytes
	case isMessage(d):
		return release
	default:
		return drop
	}
}

// realOneof returns the oneof fd belongs to, or nil if it belongs to none or
// to the synthetic oneof of a proto3 optional field: protoc-gen-go makes
// such a field a plain pointer field, with no oneof wrapper type.
func realOneof(fd *protogen.Field) *protogen.Oneof {
	if fd.Oneof == nil || fd.Oneof.Desc.IsSynthetic() {
		return nil
	}
	return fd.Oneof
}

func isMessage(d protoreflect.FieldDescriptor) bool {
	return d.Kind() == protoreflect.MessageKind || d.Kind() == protoreflect.GroupKind
}

// genOwner writes GrpcfastUnknownFields (grpcfastimpl.Owner), where the
// slots and the codec leave their marks: a slot prepares and pools a
// message only of a type that has it.
func genOwner(g *protogen.GeneratedFile, m *protogen.Message) {
	comment(g, unknownMethod+" implements "+g.QualifiedGoIdent(implPackage.Ident("Owner"))+".")
	g.P("func (x *", m.GoIdent, ") ", unknownMethod, "() *[]byte {")
	g.P("return &x.unknownFields")
	g.P("}")
	g.P()
}

func genBytesField(g *protogen.GeneratedFile, m *protogen.Message) {
	var fields []*protogen.Field
	for _, fd := range m.Fields {
		d := fd.Desc
		if realOneof(fd) == nil && d.Kind() == protoreflect.BytesKind && d.Cardinality() != protoreflect.Repeated {
			fields = append(fields, fd)
		}
	}
	if len(fields) == 0 {
		return
	}
	comment(g, bytesFieldMethod+" implements "+g.QualifiedGoIdent(implPackage.Ident("BytesFielder"))+".")
	g.P("func (x *", m.GoIdent, ") ", bytesFieldMethod, "(num ", protowirePackage.Ident("Number"), ") *[]byte {")
	g.P("switch num {")
	for _, fd := range fields {
		g.P("case ", fd.Desc.Number(), ":")
		g.P("return &x.", fd.GoName)
	}
	g.P("}")
	g.P("return nil")
	g.P("}")
	g.P()
}
