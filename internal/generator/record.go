package generator

import (
	"strconv"

	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// keepAction says what a message's reuse does with a field's memory, and
// so how its record is made.
type keepAction int

const (
	drop         keepAction = iota // Reset clears it; not recorded
	keepBytes                      // grpcfastimpl.KeepBytes: a bytes field without presence
	keepScalars                    // grpcfastimpl.KeepScalars: repeated numbers and enums
	keepCleared                    // grpcfastimpl.KeepCleared: repeated strings, bytes and bools
	keepMap                        // grpcfastimpl.KeepMap
	keepMessages                   // grpcfastimpl.KeepMessages: repeated messages
	release                        // grpcfastimpl.ReleaseMessage: singular and oneof messages
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

// genOwner writes GrpcfastRecord, GrpcfastReuse and GrpcfastUnknownFields
// (grpcfastimpl.Owner). GrpcfastReuse reads the record in the order
// GrpcfastRecord writes it: both visit the fields that keepActionOf keeps,
// in declaration order, except that, for a message with a generated decoder,
// each oneof is one group at its first field: the wrapper, then the message
// of a message case.
func genOwner(g *protogen.GeneratedFile, f *protogen.File, m *protogen.Message, sp *spares) {
	dec := sp != nil
	// direct: the field's message type has a decoder in this file, so the
	// record and reuse call its methods without a type assertion.
	direct := func(fd *protogen.Field) bool { return dec && decodedHere(g, f, fd.Message) }
	var fields []*protogen.Field
	wrapped := map[*protogen.Oneof]int{} // oneofs whose wrappers are recorded: index of their variable
	for _, fd := range m.Fields {
		o := realOneof(fd)
		if dec && o != nil {
			// The wrapper and its message case are recorded as one group,
			// at the oneof's first field.
			if o.Fields[0] == fd {
				wrapped[o] = len(wrapped)
				fields = append(fields, fd)
			}
			continue
		}
		if keepActionOf(fd) != drop {
			fields = append(fields, fd)
		}
	}
	if len(fields) == 0 && !dec {
		return
	}
	owner := g.QualifiedGoIdent(implPackage.Ident("Owner"))
	owned := implPackage.Ident("Record")
	oneofStart := func(fd *protogen.Field) (*protogen.Oneof, bool) {
		o := realOneof(fd)
		if o == nil || o.Fields[0] != fd {
			return nil, false
		}
		_, ok := wrapped[o]
		return o, ok
	}

	comment(g, recordMethod+" implements "+owner+".")
	g.P("func (x *", m.GoIdent, ") ", recordMethod, "(rEc *", owned, ") {")
	for _, fd := range fields {
		if o, ok := oneofStart(fd); ok {
			v := "oN" + strconv.Itoa(wrapped[o])
			g.P(v, " := rEc.OpenOneof(x.", o.GoName, ")")
			if cases := messageCases(o); len(cases) > 0 {
				g.P("switch cAse := x.", o.GoName, ".(type) {")
				for _, c := range cases {
					g.P("case *", c.GoIdent, ":")
					if direct(c) {
						g.P(implPackage.Ident("RecordOwner"), "(rEc, cAse.", c.GoName, ")")
					} else {
						g.P(implPackage.Ident("RecordMessage"), "(rEc, cAse.", c.GoName, ")")
					}
				}
				g.P("}")
			}
			g.P("rEc.Close(", v, ")")
			continue
		}
		switch keepActionOf(fd) {
		case keepBytes, keepScalars, keepCleared:
			g.P(implPackage.Ident("RecordSlice"), "(rEc, x.", fd.GoName, ")")
		case keepMap:
			g.P(implPackage.Ident("RecordMap"), "(rEc, x.", fd.GoName, ")")
		case keepMessages:
			if direct(fd) {
				g.P(implPackage.Ident("RecordOwners"), "(rEc, x.", fd.GoName, ")")
			} else {
				g.P(implPackage.Ident("RecordMessages"), "(rEc, x.", fd.GoName, ")")
			}
		case release:
			if direct(fd) {
				g.P(implPackage.Ident("RecordOwner"), "(rEc, ", messageField(g, fd), ")")
			} else {
				g.P(implPackage.Ident("RecordMessage"), "(rEc, ", messageField(g, fd), ")")
			}
		}
	}
	g.P("}")
	g.P()

	comment(g, reuseMethod+" implements "+owner+".")
	g.P("func (x *", m.GoIdent, ") ", reuseMethod, "(rEc *", owned, ") {")
	g.P("if x == nil {")
	g.P("return")
	g.P("}")
	var kept []*protogen.Field
	for _, fd := range fields {
		if o, ok := oneofStart(fd); ok {
			i := strconv.Itoa(wrapped[o])
			g.P("wR", i, ", eNd", i, " := rEc.MatchOneof(x.", o.GoName, ")")
			if cases := messageCases(o); len(cases) > 0 {
				g.P("if wR", i, " {")
				g.P("switch cAse := x.", o.GoName, ".(type) {")
				for _, c := range cases {
					g.P("case *", c.GoIdent, ":")
					if direct(c) {
						g.P(implPackage.Ident("SpareOwner"), "(rEc, ", sp.of(c.Message.GoIdent), ", cAse.", c.GoName, ")")
					} else {
						g.P(implPackage.Ident("SpareMessage"), "(rEc, ", sp.of(c.Message.GoIdent), ", cAse.", c.GoName, ")")
					}
				}
				g.P("}")
				g.P("}")
			}
			g.P("rEc.Seek(eNd", i, ")")
			continue
		}
		v := "f" + strconv.Itoa(len(kept))
		switch keepActionOf(fd) {
		case keepBytes:
			g.P(v, " := ", implPackage.Ident("KeepBytes"), "(rEc, x.", fd.GoName, ")")
		case keepScalars:
			g.P(v, " := ", implPackage.Ident("KeepScalars"), "(rEc, x.", fd.GoName, ")")
		case keepCleared:
			g.P(v, " := ", implPackage.Ident("KeepCleared"), "(rEc, x.", fd.GoName, ")")
		case keepMap:
			g.P(v, " := ", implPackage.Ident("KeepMap"), "(rEc, x.", fd.GoName, ")")
		case keepMessages:
			if direct(fd) {
				g.P(v, " := ", implPackage.Ident("KeepOwnersSpare"), "(rEc, ", sp.of(fd.Message.GoIdent), ", x.", fd.GoName, ")")
			} else if dec {
				g.P(v, " := ", implPackage.Ident("KeepMessagesSpare"), "(rEc, ", sp.of(fd.Message.GoIdent), ", x.", fd.GoName, ")")
			} else {
				g.P(v, " := ", implPackage.Ident("KeepMessages"), "(rEc, x.", fd.GoName, ")")
			}
		case release:
			if direct(fd) {
				mf := messageField(g, fd)
				g.P(implPackage.Ident("SpareOwner"), "(rEc, ", sp.of(fd.Message.GoIdent), ", ", mf, ")")
			} else if dec {
				mf := messageField(g, fd)
				g.P(implPackage.Ident("SpareMessage"), "(rEc, ", sp.of(fd.Message.GoIdent), ", ", mf, ")")
			} else {
				g.P(implPackage.Ident("ReleaseMessage"), "(rEc, ", messageField(g, fd), ")")
			}
			continue
		default:
			continue
		}
		kept = append(kept, fd)
	}
	for _, o := range oneofsOf(m) {
		i, ok := wrapped[o]
		if !ok {
			continue
		}
		g.P("if wR", strconv.Itoa(i), " {")
		g.P("switch wR := x.", o.GoName, ".(type) {")
		for _, fd := range o.Fields {
			g.P("case *", fd.GoIdent, ":")
			g.P("*wR = ", fd.GoIdent, "{}")
			g.P(implPackage.Ident("PutSpare"), "(rEc, ", sp.of(fd.GoIdent), ", wR)")
		}
		g.P("}")
		g.P("}")
	}
	// As Reset, without its store of the message's type information, which
	// protobuf-go makes again when it needs it.
	g.P("*x = ", m.GoIdent, "{")
	for i, fd := range kept {
		g.P(fd.GoName, ": f", strconv.Itoa(i), ",")
	}
	g.P("}")
	g.P("}")
	g.P()

	comment(g, unknownMethod+" implements "+owner+".")
	g.P("func (x *", m.GoIdent, ") ", unknownMethod, "() *[]byte {")
	g.P("return &x.unknownFields")
	g.P("}")
	g.P()
}

// messageCases returns the message fields of oneof o.
func messageCases(o *protogen.Oneof) []*protogen.Field {
	var cs []*protogen.Field
	for _, fd := range o.Fields {
		if isMessage(fd.Desc) {
			cs = append(cs, fd)
		}
	}
	return cs
}

// messageField returns the expression of a message field's value: the field
// itself or, for a oneof's message field, a variable that it first declares,
// holding the field if that case is set and nil otherwise.
func messageField(g *protogen.GeneratedFile, fd *protogen.Field) string {
	o := realOneof(fd)
	if o == nil {
		return "x." + fd.GoName
	}
	v := "m" + fd.GoName
	g.P("var ", v, " *", fd.Message.GoIdent)
	g.P("if cAse, oK := x.", o.GoName, ".(*", fd.GoIdent, "); oK {")
	g.P(v, " = cAse.", fd.GoName)
	g.P("}")
	return v
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
