package generator

import (
	"strconv"
	"strings"

	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/types/descriptorpb"
)

// genPooledRegistration writes Register<Service>ServerPooled for a service
// with at least one unary method: protoc-gen-go-grpc's
// Register<Service>Server, through a registrar (grpcfastimpl.PooledRegistrar)
// that serves the unary methods with pooled requests. Stream methods keep
// protoc-gen-go-grpc's handlers.
func genPooledRegistration(g *protogen.GeneratedFile, s serviceNames) {
	var unaries []methodNames
	for _, n := range s.methods {
		if n.kind == unary {
			unaries = append(unaries, n)
		}
	}
	if len(unaries) == 0 {
		return
	}
	names := make([]string, len(unaries))
	for i, n := range unaries {
		names[i] = n.method.GoName
	}
	which := "the unary method " + names[0] + " decodes each request into a message taken from a pool, and gives"
	if len(names) > 1 {
		which = "the unary methods (" + strings.Join(names, ", ") + ") decode each request into a message " +
			"taken from a pool, and give"
	}
	comment(g, s.registerPooled+" registers srv with s as "+s.registerServer+" does, but "+which+
		" it back when the method and the interceptors have returned: the request is valid only until then. "+
		"To keep it, call "+g.QualifiedGoIdent(runtimePackage.Ident("KeepRequest"))+"(ctx) before returning, "+
		"or copy it (proto.Clone). A reply must not share memory (bytes, slices, nested messages) with the "+
		"request: gRPC encodes it after the method returns. Streams are served as "+s.registerServer+" serves them.")
	g.P("//")
	comment(g, "Options: "+g.QualifiedGoIdent(runtimePackage.Ident("WithStringsInOneCopy"))+
		" decodes strings and bytes as views of one copy of each request. Rules and trade-offs: "+
		"docs/pooled.md of github.com/grpcfast/grpcfast.")
	if s.service.Desc.Options().(*descriptorpb.ServiceOptions).GetDeprecated() {
		g.P("//")
		g.P(deprecationComment)
	}
	g.P("func ", s.registerPooled, "(s ", grpcPackage.Ident("ServiceRegistrar"), ", srv ", s.serverInterface,
		", opts ...", runtimePackage.Ident("PooledOption"), ") {")
	g.P(s.registerServer, "(", implPackage.Ident("PooledRegistrar"), "(s, opts,")
	for _, n := range unaries {
		m := n.method
		g.P(implPackage.Ident("PooledUnary"), "(", strconv.Quote(string(m.Desc.Name())), ", func(impl any, ctx ",
			contextPackage.Ident("Context"), ", in *", m.Input.GoIdent, ") (any, error) {")
		g.P("return impl.(", s.serverInterface, ").", m.GoName, "(ctx, in)")
		g.P("}),")
	}
	g.P("), srv)")
	g.P("}")
	g.P()
}
