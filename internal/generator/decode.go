package generator

import (
	"fmt"
	"hash/fnv"

	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/gofeaturespb"
)

// decodeMethod is the generated decoder (grpcfastimpl.Decoder).
const decodeMethod = "GrpcfastDecode"

var mathPackage = protogen.GoImportPath("math")

// decodable reports whether the generator writes a decoder for m: a proto3
// message of the open Go API whose fields are numbers, enums, strings,
// bytes, messages, repeated fields of these and oneofs of these. Maps and
// optional fields are left to vtprotobuf's decoder, as are proto2 and
// editions files, whose closed enums, groups, required fields and field
// presence a decoder of these few shapes would get wrong.
func decodable(m *protogen.Message) bool {
	d := m.Desc
	if d.IsMapEntry() || m.APILevel == gofeaturespb.GoFeatures_API_OPAQUE ||
		d.ParentFile().Syntax() != protoreflect.Proto3 || d.ExtensionRanges().Len() > 0 {
		return false
	}
	for _, fd := range m.Fields {
		f := fd.Desc
		if f.IsMap() || f.IsWeak() || f.Kind() == protoreflect.GroupKind || f.HasOptionalKeyword() {
			return false
		}
	}
	return true
}

// spares names the SpareKind variables of one generated file, one per Go
// type whose values a generated decoder takes from a record's spares.
type spares struct {
	names map[protogen.GoIdent]string
	order []protogen.GoIdent
	used  map[string]bool
	file  string
}

func newSpares(f *protogen.File) *spares {
	return &spares{names: map[protogen.GoIdent]string{}, used: map[string]bool{}, file: fileTag(f)}
}

// fileTag makes the spares' variable names of f unlike those of the other
// files of its Go package, which declare their own: a hash of the proto
// file's path, in hex, so that the name's end says where the type's name
// ends.
func fileTag(f *protogen.File) string {
	h := fnv.New32a()
	h.Write([]byte(f.Desc.Path()))
	return fmt.Sprintf("%08x", h.Sum32())
}

// of returns the variable that holds the SpareKind of t, declaring it.
func (s *spares) of(t protogen.GoIdent) string {
	if n, ok := s.names[t]; ok {
		return n
	}
	n := "grpcfastSpare_" + t.GoName + "_" + s.file
	for i := 2; s.used[n]; i++ {
		n = fmt.Sprintf("grpcfastSpare%d_%s_%s", i, t.GoName, s.file)
	}
	s.used[n] = true
	s.names[t] = n
	s.order = append(s.order, t)
	return n
}

// gen writes the variables that of declared.
func (s *spares) gen(g *protogen.GeneratedFile) {
	if len(s.order) == 0 {
		return
	}
	g.P("// The lists of spares (nested messages and oneof wrappers that a reset gave")
	g.P("// back) that the generated decoders of this file take from, one per type.")
	g.P("var (")
	for _, t := range s.order {
		g.P(s.names[t], " = ", implPackage.Ident("NewSpareKind"), "() // ", g.QualifiedGoIdent(t))
	}
	g.P(")")
	g.P()
}

// sameFile reports whether message type m is generated into the file that
// g writes, and gets a decoder there.
func decodedHere(g *protogen.GeneratedFile, f *protogen.File, m *protogen.Message) bool {
	return m.Desc.ParentFile() == f.Desc && decodable(m)
}

// scalar describes how a number, bool or enum field is read: its wire type,
// the protowire function that consumes it, and the Go conversion of the
// value that function returns.
func scalarOf(g *protogen.GeneratedFile, fd *protogen.Field) (wire, consume, conv string) {
	wv := g.QualifiedGoIdent(protowirePackage.Ident("VarintType"))
	w32 := g.QualifiedGoIdent(protowirePackage.Ident("Fixed32Type"))
	w64 := g.QualifiedGoIdent(protowirePackage.Ident("Fixed64Type"))
	cv := g.QualifiedGoIdent(protowirePackage.Ident("ConsumeVarint"))
	c32 := g.QualifiedGoIdent(protowirePackage.Ident("ConsumeFixed32"))
	c64 := g.QualifiedGoIdent(protowirePackage.Ident("ConsumeFixed64"))
	zz := g.QualifiedGoIdent(protowirePackage.Ident("DecodeZigZag"))
	switch fd.Desc.Kind() {
	case protoreflect.BoolKind:
		return wv, cv, g.QualifiedGoIdent(protowirePackage.Ident("DecodeBool")) + "(%s)"
	case protoreflect.EnumKind:
		return wv, cv, g.QualifiedGoIdent(fd.Enum.GoIdent) + "(int32(%s))"
	case protoreflect.Int32Kind:
		return wv, cv, "int32(%s)"
	case protoreflect.Int64Kind:
		return wv, cv, "int64(%s)"
	case protoreflect.Uint32Kind:
		return wv, cv, "uint32(%s)"
	case protoreflect.Uint64Kind:
		return wv, cv, "%s"
	case protoreflect.Sint32Kind:
		return wv, cv, "int32(" + zz + "(%s & " + g.QualifiedGoIdent(mathPackage.Ident("MaxUint32")) + "))"
	case protoreflect.Sint64Kind:
		return wv, cv, zz + "(%s)"
	case protoreflect.Fixed32Kind:
		return w32, c32, "%s"
	case protoreflect.Sfixed32Kind:
		return w32, c32, "int32(%s)"
	case protoreflect.FloatKind:
		return w32, c32, g.QualifiedGoIdent(mathPackage.Ident("Float32frombits")) + "(%s)"
	case protoreflect.Fixed64Kind:
		return w64, c64, "%s"
	case protoreflect.Sfixed64Kind:
		return w64, c64, "int64(%s)"
	case protoreflect.DoubleKind:
		return w64, c64, g.QualifiedGoIdent(mathPackage.Ident("Float64frombits")) + "(%s)"
	}
	panic("not a scalar: " + fd.Desc.Kind().String())
}

// genDecode writes m's GrpcfastDecode (grpcfastimpl.Decoder): the decode of a
// message that the codec has checked (walk), as vtprotobuf's UnmarshalVT
// would decode it, but into the memory that GrpcfastReuse kept and with the
// nested messages and oneof wrappers it gave back. A known field that comes
// with another wire type is kept among the unknown fields, as protobuf-go
// keeps it; any malformed input is an error (never a panic), after which the
// codec lets protobuf-go decide.
func genDecode(g *protogen.GeneratedFile, f *protogen.File, m *protogen.Message, sp *spares) {
	pw := func(name string) string { return g.QualifiedGoIdent(protowirePackage.Ident(name)) }
	impl := func(name string) string { return g.QualifiedGoIdent(implPackage.Ident(name)) }
	check := func(n string) {
		g.P("if ", n, " < 0 {")
		g.P("return ", pw("ParseError"), "(", n, ")")
		g.P("}")
	}
	// on writes the case of a field value of wire type wire: consume reads
	// it into vAl from dAtA, and body stores it.
	on := func(wire, consume string, body func()) {
		g.P("if tYp == ", wire, " {")
		g.P("vAl, nN := ", consume, "(dAtA)")
		check("nN")
		g.P("dAtA = dAtA[nN:]")
		body()
		g.P("continue")
		g.P("}")
	}
	// value returns how a field's value is read, and, for a field that is
	// not a message, the Go expression of the value read (vAl).
	value := func(fd *protogen.Field) (wire, consume, expr string) {
		switch fd.Desc.Kind() {
		case protoreflect.MessageKind:
			return pw("BytesType"), pw("ConsumeBytes"), ""
		case protoreflect.StringKind:
			return pw("BytesType"), pw("ConsumeBytes"), impl("String") + "(vAl)"
		case protoreflect.BytesKind:
			return pw("BytesType"), pw("ConsumeBytes"), impl("View") + "(vAl)"
		}
		wire, consume, conv := scalarOf(g, fd)
		return wire, consume, fmt.Sprintf(conv, "vAl")
	}
	// decodeInto writes the decode of vAl into message expression e of
	// type mt, which ensure first sets if it is nil.
	decodeInto := func(e string, mt *protogen.Message, ensure bool) {
		if ensure {
			g.P("if ", e, " == nil {")
			g.P(e, " = ", impl("Spare"), "[", mt.GoIdent, "](oWn, ", sp.of(mt.GoIdent), ")")
			g.P("}")
		}
		if decodedHere(g, f, mt) {
			g.P("if eRr := ", e, ".", decodeMethod, "(vAl, oWn); eRr != nil {")
		} else {
			g.P("if eRr := ", impl("DecodeMessage"), "(", e, ", vAl, oWn); eRr != nil {")
		}
		g.P("return eRr")
		g.P("}")
	}

	comment(g, decodeMethod+" decodes dAtA, the owned copy, into x, which is empty, as UnmarshalVTUnsafe "+
		"would, reusing the memory that "+reuseMethod+" kept and the nested messages and oneof wrappers "+
		"it gave back to oWn. The grpcfast codec calls it on input that it has checked as the standard "+
		"codec would. It implements "+impl("Decoder")+".")
	g.P("func (x *", m.GoIdent, ") ", decodeMethod, "(dAtA []byte, oWn *", implPackage.Ident("Owned"), ") error {")
	g.P("for len(dAtA) > 0 {")
	g.P("nUm, tYp, nN := ", pw("ConsumeTag"), "(dAtA)")
	check("nN")
	g.P("fIeld := dAtA")
	g.P("dAtA = dAtA[nN:]")
	if len(m.Fields) > 0 {
		g.P("switch nUm {")
	}
	for _, fd := range m.Fields {
		d := fd.Desc
		g.P("case ", d.Number(), ": // ", d.Name())
		wire, consume, expr := value(fd)
		isMessage := d.Kind() == protoreflect.MessageKind
		switch oneof := realOneof(fd); {
		case oneof != nil:
			on(wire, consume, func() {
				g.P("wR, oK := x.", oneof.GoName, ".(*", fd.GoIdent, ")")
				g.P("if !oK {")
				g.P("wR = ", impl("Spare"), "[", fd.GoIdent, "](oWn, ", sp.of(fd.GoIdent), ")")
				g.P("x.", oneof.GoName, " = wR")
				g.P("}")
				if isMessage {
					decodeInto("wR."+fd.GoName, fd.Message, true)
				} else {
					g.P("wR.", fd.GoName, " = ", expr)
				}
			})
		case d.IsList() && isMessage:
			on(wire, consume, func() {
				g.P("var eL *", fd.Message.GoIdent)
				g.P("if nN := len(x.", fd.GoName, "); nN < cap(x.", fd.GoName, ") {")
				g.P("x.", fd.GoName, " = x.", fd.GoName, "[:nN+1]")
				g.P("eL = x.", fd.GoName, "[nN]")
				g.P("} else {")
				g.P("x.", fd.GoName, " = append(x.", fd.GoName, ", nil)")
				g.P("}")
				g.P("if eL == nil {")
				g.P("eL = ", impl("Spare"), "[", fd.Message.GoIdent, "](oWn, ", sp.of(fd.Message.GoIdent), ")")
				g.P("x.", fd.GoName, "[len(x.", fd.GoName, ")-1] = eL")
				g.P("}")
				decodeInto("eL", fd.Message, false)
			})
		case d.IsList():
			on(wire, consume, func() { g.P("x.", fd.GoName, " = append(x.", fd.GoName, ", ", expr, ")") })
			if d.Kind() != protoreflect.StringKind && d.Kind() != protoreflect.BytesKind {
				// Packed: the same values, one after the other.
				g.P("if tYp == ", pw("BytesType"), " {")
				g.P("pAcked, nN := ", pw("ConsumeBytes"), "(dAtA)")
				check("nN")
				g.P("dAtA = dAtA[nN:]")
				g.P("for len(pAcked) > 0 {")
				g.P("vAl, nN := ", consume, "(pAcked)")
				check("nN")
				g.P("pAcked = pAcked[nN:]")
				g.P("x.", fd.GoName, " = append(x.", fd.GoName, ", ", expr, ")")
				g.P("}")
				g.P("continue")
				g.P("}")
			}
		case isMessage:
			on(wire, consume, func() { decodeInto("x."+fd.GoName, fd.Message, true) })
		default:
			on(wire, consume, func() { g.P("x.", fd.GoName, " = ", expr) })
		}
	}
	if len(m.Fields) > 0 {
		g.P("}")
	}
	g.P("// An unknown field, or a known one with another wire type: kept as")
	g.P("// protobuf-go keeps it.")
	g.P("nN = ", pw("ConsumeFieldValue"), "(nUm, tYp, dAtA)")
	check("nN")
	g.P("dAtA = dAtA[nN:]")
	g.P("x.unknownFields = append(x.unknownFields, fIeld[:len(fIeld)-len(dAtA)]...)")
	g.P("}")
	g.P("return nil")
	g.P("}")
	g.P()
}

// oneofsOf returns the real oneofs of m, in the order of their first fields.
func oneofsOf(m *protogen.Message) []*protogen.Oneof {
	var out []*protogen.Oneof
	for _, o := range m.Oneofs {
		if !o.Desc.IsSynthetic() {
			out = append(out, o)
		}
	}
	return out
}
