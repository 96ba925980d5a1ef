package generator

import (
	"strconv"
	"strings"

	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/types/descriptorpb"
)

// reusingClient holds the names of a service's reusing client: the methods
// that receive a single response (unary and client-streaming), and the
// names of its helper methods, which never collide with a method's name.
type reusingClient struct {
	typ, constructor string
	methods          []reusedMethod
	release          string
}

type reusedMethod struct {
	n     methodNames
	field string // the *grpcfast.Responses field
	take  string // Take<Method>
	close string // CloseAndRecv<Method>, for client-streaming methods
}

func newReusingClient(s serviceNames) (reusingClient, bool) {
	c := reusingClient{
		typ:         s.service.GoName + "ReusingClient",
		constructor: "New" + s.service.GoName + "ReusingClient",
	}
	taken := map[string]bool{}
	for _, n := range s.methods {
		if n.kind == unary {
			taken[n.method.GoName] = true
		}
	}
	// name returns base, or base with "_" appended until it is free.
	name := func(base string) string {
		for taken[base] {
			base += "_"
		}
		taken[base] = true
		return base
	}
	c.release = name("Release")
	for _, n := range s.methods {
		if n.kind != unary && n.kind != clientStreaming {
			continue
		}
		// GoNames are unique and exported: the fields, unexported, never
		// collide with them, with the helpers or with cc.
		m := reusedMethod{n: n, field: strings.ToLower(n.method.GoName[:1]) + n.method.GoName[1:] + "Responses"}
		if n.kind == clientStreaming {
			m.close = name("CloseAndRecv" + n.method.GoName)
		}
		m.take = name("Take" + n.method.GoName)
		c.methods = append(c.methods, m)
	}
	return c, len(c.methods) > 0
}

// genReusingClient writes <Service>ReusingClient for a service with unary
// or client-streaming methods: their single responses decoded into
// messages that it reuses (grpcfast.Responses), one set per method.
func genReusingClient(g *protogen.GeneratedFile, s serviceNames) {
	c, ok := newReusingClient(s)
	if !ok {
		return
	}
	svc := s.service
	serviceDeprecated := svc.Desc.Options().(*descriptorpb.ServiceOptions).GetDeprecated()
	responses := g.QualifiedGoIdent(runtimePackage.Ident("Responses"))
	option := g.QualifiedGoIdent(runtimePackage.Ident("PooledOption"))
	names := make([]string, len(c.methods))
	for i, m := range c.methods {
		names[i] = m.n.method.GoName
	}
	comment(g, c.typ+" receives the responses of "+svc.GoName+"'s methods that have one ("+
		strings.Join(names, ", ")+") into messages that it reuses, one pair per method, where "+
		svc.GoName+"Client allocates a new response for every call ("+responses+"). A response is "+
		"valid only until the next successful call of the same method through the client, or "+c.release+
		"; keep one with the method's Take, or copy it (proto.Clone). A failed call leaves the last "+
		"response as it was.")
	g.P("//")
	comment(g, sentenceArticle(c.typ)+" "+c.typ+" is for one goroutine at a time: give each goroutine its own. Rules: "+
		"docs/receivers.md of github.com/grpcfast/grpcfast.")
	if serviceDeprecated {
		g.P("//")
		g.P(deprecationComment)
	}
	g.P("type ", c.typ, " struct {")
	g.P("cc ", grpcPackage.Ident("ClientConnInterface"))
	for _, m := range c.methods {
		g.P(m.field, " *", responses, "[", m.n.method.Output.GoIdent, "]")
	}
	g.P("}")
	g.P()
	comment(g, c.constructor+" returns "+article(c.typ)+" "+c.typ+" that calls cc. Options: "+
		g.QualifiedGoIdent(runtimePackage.Ident("WithStringsInOneCopy"))+
		" decodes strings and bytes as views of one copy of each response (docs/pooled.md).")
	if serviceDeprecated {
		g.P("//")
		g.P(deprecationComment)
	}
	g.P("func ", c.constructor, "(cc ", grpcPackage.Ident("ClientConnInterface"), ", opts ...", option, ") *", c.typ, " {")
	g.P("return &", c.typ, "{")
	g.P("cc: cc,")
	for _, m := range c.methods {
		g.P(m.field, ": ", runtimePackage.Ident("NewResponses"), "[", m.n.method.Output.GoIdent, "](opts...),")
	}
	g.P("}")
	g.P("}")
	g.P()
	for _, m := range c.methods {
		genReusedMethod(g, s, c, m)
	}
	comment(g, c.release+" gives the client's responses, and the memory they keep, to the next user of "+
		"their types; the responses of its last calls must not be used after it. The client may be "+
		"used again.")
	g.P("func (c *", c.typ, ") ", c.release, "() {")
	for _, m := range c.methods {
		g.P("c.", m.field, ".Release()")
	}
	g.P("}")
	g.P()
}

func genReusedMethod(g *protogen.GeneratedFile, s serviceNames, c reusingClient, m reusedMethod) {
	meth := m.n.method
	full := s.service.GoName + "." + meth.GoName
	out := g.QualifiedGoIdent(meth.Output.GoIdent)
	leading := strings.TrimSpace(meth.Comments.Leading.String())
	doc := func(text string) {
		comment(g, text)
		if leading != "" {
			g.P("//")
			g.P("// ", full, ":")
			g.P(leading)
		}
		if deprecated(s.service, meth) {
			g.P("//")
			g.P(deprecationComment)
		}
	}
	if m.n.kind == unary {
		doc(meth.GoName + " calls " + full + " as " + s.service.GoName + "Client's " + meth.GoName +
			" does, and returns the response in a message that c reuses: valid until the next successful " +
			meth.GoName + " through c.")
		g.P("func (c *", c.typ, ") ", meth.GoName, "(ctx ", contextPackage.Ident("Context"), ", in *",
			meth.Input.GoIdent, ", opts ...", grpcPackage.Ident("CallOption"), ") (*", out, ", error) {")
		g.P("return c.", m.field, ".Invoke(ctx, c.cc, ", strconv.Quote("/"+string(s.service.Desc.FullName())+"/"+
			string(meth.Desc.Name())), ", in, opts...)")
		g.P("}")
		g.P()
	} else {
		doc(m.close + " closes the sending side of stream, " + article(full) + " " + full + " call, and receives its response " +
			"into a message that c reuses, as stream.CloseAndRecv() does into a new one: valid until the " +
			"next successful " + m.close + " through c.")
		g.P("func (c *", c.typ, ") ", m.close, "(stream ", streamType(g, grpcPackage.Ident("ClientStreamingClient"),
			meth.Input, meth.Output, clientStreaming), ") (*", out, ", error) {")
		g.P("return c.", m.field, ".CloseAndRecv(stream)")
		g.P("}")
		g.P()
	}
	comment(g, m.take+" returns the response of the last "+full+" call through c and lets go of it: "+
		"it is the caller's for good. It returns nil if that call failed or none was made.")
	g.P("func (c *", c.typ, ") ", m.take, "() *", out, " {")
	g.P("return c.", m.field, ".Take()")
	g.P("}")
	g.P()
}
