package generator

import (
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/grpcfast/grpcfast/internal/fieldrule"
)

const negZeroMethod = "GrpcfastNegZero"

// Wrappers whose value field vtprotobuf's helpers write only when != 0.
const (
	doubleValueName protoreflect.FullName = "google.protobuf.DoubleValue"
	floatValueName  protoreflect.FullName = "google.protobuf.FloatValue"
)

// genNegZero writes m's GrpcfastNegZero (grpcfastimpl.NegZeroHolder), for a
// message whose type can hold a -0.0 that vtprotobuf would not send
// (fieldrule.HoldsNegZero, which the codec also reads, to look for the
// method only on those types): it
// tests m's own fields, then every message it holds whose type can hold
// one, through that type's GrpcfastNegZero where this file declares it and
// through grpcfastimpl.NegZeroOf otherwise.
func genNegZero(g *protogen.GeneratedFile, f *protogen.File, m *protogen.Message) {
	comment(g, negZeroMethod+" implements "+g.QualifiedGoIdent(implPackage.Ident("NegZeroHolder"))+".")
	g.P("func (x *", m.GoIdent, ") ", negZeroMethod, "() bool {")
	g.P("if x == nil {")
	g.P("return false")
	g.P("}")
	impl := func(name string) string { return g.QualifiedGoIdent(implPackage.Ident(name)) }
	// holds returns the test of message e, of type mt, or "" if mt cannot
	// hold such a -0.0.
	holds := func(e string, mt *protogen.Message) string {
		switch {
		case mt.Desc.FullName() == doubleValueName || mt.Desc.FullName() == floatValueName:
			return impl(negZeroFunc(mt.Desc.Fields().ByNumber(1).Kind())) + "(" + e + ".GetValue())"
		case !fieldrule.HoldsNegZero(mt.Desc):
			return ""
		case mt.Desc.ParentFile() == f.Desc && decodable(mt):
			// The nil test inline: most message fields are unset, and a
			// call, even one that returns at once, costs more.
			return e + " != nil && " + e + "." + negZeroMethod + "()"
		}
		return impl("NegZeroOf") + "(" + e + ")"
	}
	var oneofs []*protogen.Oneof
	for _, fd := range m.Fields {
		d := fd.Desc
		if o := realOneof(fd); o != nil {
			if len(oneofs) == 0 || oneofs[len(oneofs)-1] != o {
				oneofs = append(oneofs, o)
			}
			continue
		}
		switch {
		case fieldrule.NegZeroField(d):
			g.P("if ", impl(negZeroFunc(d.Kind())), "(x.", fd.GoName, ") {")
			g.P("return true")
			g.P("}")
		case d.IsMap():
			if v := fd.Message.Fields[1].Message; v != nil {
				if t := holds("eLem", v); t != "" {
					genLoop(g, "x."+fd.GoName, t)
				}
			}
		case fd.Message == nil:
		case d.IsList():
			if t := holds("eLem", fd.Message); t != "" {
				genLoop(g, "x."+fd.GoName, t)
			}
		default:
			if t := holds("x."+fd.GoName, fd.Message); t != "" {
				g.P("if ", t, " {")
				g.P("return true")
				g.P("}")
			}
		}
	}
	for _, o := range oneofs {
		var cases []*protogen.Field
		for _, fd := range o.Fields {
			if fd.Message != nil && holds("oNe", fd.Message) != "" {
				cases = append(cases, fd)
			}
		}
		if len(cases) == 0 {
			continue
		}
		g.P("switch oNe := x.", o.GoName, ".(type) {")
		for _, fd := range cases {
			// A oneof may hold a nil wrapper, which protobuf-go takes
			// for an unset oneof.
			g.P("case *", fd.GoIdent, ":")
			g.P("if oNe != nil && ", holds("oNe."+fd.GoName, fd.Message), " {")
			g.P("return true")
			g.P("}")
		}
		g.P("}")
	}
	g.P("return false")
	g.P("}")
	g.P()
}

// negZeroFunc names grpcfastimpl's test of a -0.0 of kind k (float or
// double).
func negZeroFunc(k protoreflect.Kind) string {
	if k == protoreflect.FloatKind {
		return "NegZero32"
	}
	return "NegZero64"
}

// genLoop writes a loop over the elements eLem of a list or the values eLem
// of a map that returns true where test holds. The locals' names, like the
// decoders', are unlike any Go package's name that an import may take.
func genLoop(g *protogen.GeneratedFile, field, test string) {
	g.P("for _, eLem := range ", field, " {")
	g.P("if ", test, " {")
	g.P("return true")
	g.P("}")
	g.P("}")
}
