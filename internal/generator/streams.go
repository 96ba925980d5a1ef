package generator

import (
	"strings"

	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/types/descriptorpb"
)

const deprecationComment = "// Deprecated: Do not use."

// genStreamHelpers writes a receive helper for every side of every method
// that receives a stream: the server side of client-streaming and bidi
// methods, the client side of server-streaming and bidi methods.
func genStreamHelpers(g *protogen.GeneratedFile, s serviceNames) {
	for _, n := range s.methods {
		m := n.method
		if n.requestReceiver != "" {
			genReceiver(g, s, n, n.requestReceiver, "requests", "server", m.Input,
				streamType(g, n.serverStream, m.Input, m.Output, n.kind))
		}
		if n.responseReceiver != "" {
			genReceiver(g, s, n, n.responseReceiver, "responses", "client", m.Output,
				streamType(g, n.clientStream, m.Input, m.Output, n.kind))
		}
	}
}

// streamType spells grpc-go's generic stream type for a method side: the
// server-streaming client type has only the response type parameter.
func streamType(g *protogen.GeneratedFile, t protogen.GoIdent, in, out *protogen.Message, k methodKind) string {
	if k == serverStreaming {
		return g.QualifiedGoIdent(t) + "[" + g.QualifiedGoIdent(out.GoIdent) + "]"
	}
	return g.QualifiedGoIdent(t) + "[" + g.QualifiedGoIdent(in.GoIdent) + ", " + g.QualifiedGoIdent(out.GoIdent) + "]"
}

func genReceiver(g *protogen.GeneratedFile, s serviceNames, n methodNames, name, what, side string, msg *protogen.Message, stream string) {
	m := n.method
	full := s.service.GoName + "." + m.GoName
	comment(g, name+" returns a Receiver that reads the "+what+" of "+article(full)+" "+full+" stream ("+
		n.kind.String()+", "+side+" side) into reused *"+g.QualifiedGoIdent(msg.GoIdent)+
		" (two, in turn) instead of allocating one per message: replace stream.Recv() with r.Recv(), or "+
		"range over r.All().")
	g.P("//")
	comment(g, "The message is valid only until the next Recv, and so are pointers into it "+
		"(its nested messages may be reused too). Keep one with r.Take(), or copy it "+
		"with proto.Clone. See "+g.QualifiedGoIdent(runtimePackage.Ident("Receiver"))+
		" for the rules.")
	if c := strings.TrimSpace(m.Comments.Leading.String()); c != "" {
		g.P("//")
		g.P("// ", full, ":")
		g.P(c)
	}
	if deprecated(s.service, m) {
		g.P("//")
		g.P(deprecationComment)
	}
	g.P("func ", name, "(stream ", stream, ") *", runtimePackage.Ident("Receiver"), "[", msg.GoIdent, "] {")
	g.P("return ", runtimePackage.Ident("NewReceiver"), "[", msg.GoIdent, "](stream)")
	g.P("}")
	g.P()
}

// deprecated reports whether the method or its service is deprecated.
func deprecated(s *protogen.Service, m *protogen.Method) bool {
	return s.Desc.Options().(*descriptorpb.ServiceOptions).GetDeprecated() ||
		m.Desc.Options().(*descriptorpb.MethodOptions).GetDeprecated()
}
