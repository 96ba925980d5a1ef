package generator

import (
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
