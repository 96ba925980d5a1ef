package generator

import (
	"fmt"

	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/gofeaturespb"

	"github.com/grpcfast/grpcfast/internal/fieldrule"
)

// genMessages writes, for every message declared in the file, the methods
// the codec and the slots use: its unknown fields, where they leave their
// marks (grpcfastimpl.Owner), an accessor for singular bytes fields
// (grpcfastimpl.BytesFielder) and, where it gets one (decodable), the
// decoder, which records what a slot's next reset keeps, and the test of a
// -0.0 that vtprotobuf would not send (grpcfastimpl.NegZeroHolder). The
// codec hands a message without a decoder to the codec it registered in
// front of, and a slot resets such a message with Reset before each decode.
func genMessages(g *protogen.GeneratedFile, f *protogen.File) error {
	kinds := newSpares(f)
	for _, m := range allMessages(f.Messages) {
		if m.Desc.IsMapEntry() || m.APILevel == gofeaturespb.GoFeatures_API_OPAQUE {
			continue
		}
		if err := checkNameClash(m); err != nil {
			return err
		}
		genOwner(g, m)
		genBytesField(g, m)
		if !decodable(m) {
			continue
		}
		genDecode(g, f, m, kinds)
		if fieldrule.HoldsNegZero(m.Desc) {
			genNegZero(g, f, m)
		}
		if flat(m) {
			comment(g, flatMethod+" implements "+g.QualifiedGoIdent(implPackage.Ident("Flat"))+".")
			g.P("func (x *", m.GoIdent, ") ", flatMethod, "() {}")
			g.P()
		}
		if holdsRequired(m.Desc, map[protoreflect.FullName]bool{}) {
			comment(g, requiredMethod+" implements "+g.QualifiedGoIdent(implPackage.Ident("RequiredHolder"))+".")
			g.P("func (x *", m.GoIdent, ") ", requiredMethod, "() {}")
			g.P()
		}
	}
	kinds.gen(g)
	return nil
}

func allMessages(ms []*protogen.Message) []*protogen.Message {
	var out []*protogen.Message
	for _, m := range ms {
		out = append(out, m)
		out = append(out, allMessages(m.Messages)...)
	}
	return out
}

// checkNameClash fails when a field of m would be named like a method the
// generator adds to m, which would not compile.
func checkNameClash(m *protogen.Message) error {
	names := []string{unknownMethod, bytesFieldMethod}
	if decodable(m) {
		names = append(names, decodeMethod)
		if holdsRequired(m.Desc, map[protoreflect.FullName]bool{}) {
			names = append(names, requiredMethod)
		}
		if flat(m) {
			names = append(names, flatMethod)
		}
		if fieldrule.HoldsNegZero(m.Desc) {
			names = append(names, negZeroMethod)
		}
	}
	for _, name := range names {
		for _, fd := range m.Fields {
			if fd.GoName == name {
				return fmt.Errorf("%s: field %s of message %s has the Go name %s, which %s needs for a method; rename the field",
					m.Location.SourceFile, fd.Desc.Name(), m.Desc.FullName(), name, PluginName)
			}
		}
		for _, o := range m.Oneofs {
			if !o.Desc.IsSynthetic() && o.GoName == name {
				return fmt.Errorf("%s: oneof %s of message %s has the Go name %s, which %s needs for a method; rename the oneof",
					m.Location.SourceFile, o.Desc.Name(), m.Desc.FullName(), name, PluginName)
			}
		}
	}
	return nil
}
