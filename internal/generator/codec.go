package generator

import (
	"fmt"
	"strconv"

	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/gofeaturespb"
)

// genRegistration registers the grpcfast codec under "proto" when the
// generated package is initialised.
func genRegistration(g *protogen.GeneratedFile) {
	g.P("func init() {")
	comment(g, "Registers the grpcfast codec under the name \"proto\" unless a grpcfast "+
		"codec is registered already. The register_codec=false option turns this off.")
	g.P(implPackage.Ident("RegisterDefault"), "()")
	g.P("}")
	g.P()
}

// genVTProtoCheck asserts at compile time that every message of the file
// has the vtprotobuf methods the codec uses, so that a build without
// protoc-gen-go-vtproto's output fails loudly instead of silently falling
// back to the standard path. vtprotobuf cannot generate for editions files,
// which are left out.
func genVTProtoCheck(g *protogen.GeneratedFile, f *protogen.File) {
	if f.Desc.Syntax() == protoreflect.Editions {
		return
	}
	var ms []*protogen.Message
	for _, m := range allMessages(f.Messages) {
		if !m.Desc.IsMapEntry() && m.APILevel != gofeaturespb.GoFeatures_API_OPAQUE {
			ms = append(ms, m)
		}
	}
	if len(ms) == 0 {
		return
	}
	comment(g, "Compile-time check that protoc-gen-go-vtproto generated the marshal, unmarshal and "+
		"size methods of this file's messages: without them the grpcfast codec falls back to "+
		"gRPC's standard path for them, and gains nothing. Run protoc-gen-go-vtproto on this file "+
		"with features=marshal+unmarshal+size (or more), or turn this check off with "+OptionVTProtoCheck+"=false.")
	g.P("var (")
	for _, m := range ms {
		g.P("_ ", implPackage.Ident("RunProtocGenGoVTProtoWithFeaturesMarshalUnmarshalSize"), " = (*", m.GoIdent, ")(nil)")
	}
	g.P(")")
	g.P()
}

// genMessages writes, for every message declared in the file, the methods
// the codec uses: a reset that keeps capacity (grpcfastimpl.Resetter) and an
// accessor for singular bytes fields (grpcfastimpl.BytesFielder). A message
// gets a method only when it has fields for it to act on; without one the
// codec falls back to ResetVT or Reset, which do the same for such a message.
func genMessages(g *protogen.GeneratedFile, f *protogen.File) error {
	for _, m := range allMessages(f.Messages) {
		if m.Desc.IsMapEntry() || m.APILevel == gofeaturespb.GoFeatures_API_OPAQUE {
			continue
		}
		if err := checkNameClash(m); err != nil {
			return err
		}
		genReset(g, m)
		genBytesField(g, m)
	}
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
	for _, name := range []string{resetMethod, bytesFieldMethod} {
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

// keepAction says what the reset does with a field's memory.
type keepAction int

const (
	drop       keepAction = iota // Reset clears it
	keep                         // keep the slice's capacity
	clearKeep                    // zero the elements, so they can be collected, and keep the capacity
	clearMap                     // empty the map and keep it
	resetElems                   // repeated messages: grpcfastimpl.ResetRepeated
	release                      // singular messages: grpcfastimpl.Release, then Reset clears the field
)

func keepActionOf(fd *protogen.Field) keepAction {
	d := fd.Desc
	switch {
	case realOneof(fd) != nil && isMessage(d):
		return release
	case realOneof(fd) != nil:
		return drop
	case d.IsMap():
		return clearMap
	case d.IsList():
		switch d.Kind() {
		case protoreflect.MessageKind, protoreflect.GroupKind:
			return resetElems
		case protoreflect.BytesKind, protoreflect.StringKind:
			return clearKeep
		default:
			return keep
		}
	case d.Kind() == protoreflect.BytesKind && !d.HasPresence():
		// A bytes field that tracks presence must become nil: an empty,
		// non-nil slice would read as present.
		return keep
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

func genReset(g *protogen.GeneratedFile, m *protogen.Message) {
	var fields []*protogen.Field
	for _, fd := range m.Fields {
		if keepActionOf(fd) != drop {
			fields = append(fields, fd)
		}
	}
	if len(fields) == 0 {
		return
	}
	comment(g, resetMethod+" resets x like Reset, but keeps the memory of its bytes, "+
		"repeated and map fields for the next message decoded into x, and returns its "+
		"message fields to vtprotobuf's pool where their type is pooled. Fields that "+
		"track presence, oneofs and message fields are cleared as Reset clears them. "+
		"It implements "+g.QualifiedGoIdent(implPackage.Ident("Resetter"))+
		"; the grpcfast codec calls it before decoding into x.")
	g.P("func (x *", m.GoIdent, ") ", resetMethod, "() {")
	g.P("if x == nil {")
	g.P("return")
	g.P("}")
	var kept []*protogen.Field
	for _, fd := range fields {
		v := "f" + strconv.Itoa(len(kept))
		switch keepActionOf(fd) {
		case keep:
			g.P(v, " := x.", fd.GoName, "[:0]")
		case clearKeep:
			g.P("clear(x.", fd.GoName, ")")
			g.P(v, " := x.", fd.GoName, "[:0]")
		case clearMap:
			g.P(v, " := x.", fd.GoName)
			g.P("clear(", v, ")")
		case resetElems:
			g.P(v, " := ", implPackage.Ident("ResetRepeated"), "(x.", fd.GoName, ")")
		case release:
			if o := realOneof(fd); o != nil {
				g.P("if o, ok := x.", o.GoName, ".(*", fd.GoIdent, "); ok {")
				g.P(implPackage.Ident("Release"), "(o.", fd.GoName, ")")
				g.P("}")
			} else {
				g.P(implPackage.Ident("Release"), "(x.", fd.GoName, ")")
			}
			continue
		}
		kept = append(kept, fd)
	}
	g.P("x.Reset()")
	for i, fd := range kept {
		g.P("x.", fd.GoName, " = f", strconv.Itoa(i))
	}
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
	comment(g, bytesFieldMethod+" returns a pointer to x's singular bytes field numbered "+
		"num, or nil if x has none. It implements "+g.QualifiedGoIdent(implPackage.Ident("BytesFielder"))+
		": the grpcfast codec decodes a bytes field that arrived split across "+
		"transport buffers straight into it.")
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
