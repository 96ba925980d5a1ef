package generator

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/planetscale/vtprotobuf/vtproto"
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// writePoolNotes writes one note for every message type that a stream
// receives and that vtprotobuf's decoder allocates parts of anew for every
// message unless its pool feature is on: nested messages, and packed
// repeated fields (it checks their length, not their capacity, when the
// message is not pooled). The note names the exact pool= options to add.
// Types pooled through the (vtproto.mempool) message option, or named in
// this plugin's own pool= options, are known to be pooled and get none.
func writePoolNotes(w io.Writer, p *protogen.Plugin, cfg *Config) {
	type streamed struct {
		msg     *protogen.Message
		methods []string
	}
	var order []protoreflect.FullName
	byName := map[protoreflect.FullName]*streamed{}
	add := func(m *protogen.Message, method string) {
		s := byName[m.Desc.FullName()]
		if s == nil {
			s = &streamed{msg: m}
			byName[m.Desc.FullName()] = s
			order = append(order, m.Desc.FullName())
		}
		if !slices.Contains(s.methods, method) {
			s.methods = append(s.methods, method)
		}
	}
	for _, f := range p.Files {
		if !f.Generate || f.Desc.Syntax() == protoreflect.Editions {
			continue // vtprotobuf cannot generate for editions files
		}
		for _, s := range f.Services {
			for _, m := range s.Methods {
				k := kindOf(m)
				name := s.GoName + "." + m.GoName
				if k.serverReceives() {
					add(m.Input, name)
				}
				if k.clientReceives() {
					add(m.Output, name)
				}
			}
		}
	}
	for _, name := range order {
		s := byName[name]
		if !allocatesUnpooled(s.msg) {
			continue
		}
		var opts []string
		closure, more := poolClosure(s.msg, cfg, maxNoteTypes)
		for _, m := range closure {
			opts = append(opts, "pool="+poolName(m))
		}
		if len(opts) == 0 {
			continue
		}
		if more {
			opts = append(opts, "(and the message types reachable from those)")
		}
		fmt.Fprintf(w, "%s: note: %s, received by streams of %s, has nested messages or packed repeated fields, "+
			"which vtprotobuf's decoder allocates anew for every message unless it pools them. Add %s to "+
			"protoc-gen-go-vtproto's options, and the same to %s's to silence this note (or %s=false).\n",
			PluginName, name, strings.Join(s.methods, ", "), strings.Join(opts, " "), PluginName, OptionPoolNotes)
	}
}

// allocatesUnpooled reports whether decoding into a reused m allocates when
// m is not pooled: it has a message field or a packed repeated field.
func allocatesUnpooled(m *protogen.Message) bool {
	for _, f := range m.Fields {
		d := f.Desc
		if isMessage(d) && !d.IsMap() {
			return true
		}
		if d.IsList() && d.IsPacked() {
			return true
		}
	}
	return false
}

// maxNoteTypes bounds the pool= options one note names, and so the work per
// streamed type on trees where every message reaches thousands of others.
const maxNoteTypes = 16

// poolClosure returns m and the message types reachable from it through
// message fields (map values excluded: vtprotobuf allocates those anyway)
// that vtprotobuf can pool and that are not known to be pooled: types
// generated in the user's tree, not protobuf-go's well-known types. It stops
// at max types, and reports whether there were more.
func poolClosure(m *protogen.Message, cfg *Config, max int) (out []*protogen.Message, more bool) {
	seen := map[protoreflect.FullName]bool{}
	queue := []*protogen.Message{m}
	for len(queue) > 0 {
		m := queue[0]
		queue = queue[1:]
		if seen[m.Desc.FullName()] || strings.HasPrefix(string(m.GoIdent.GoImportPath), "google.golang.org/protobuf/") {
			continue
		}
		seen[m.Desc.FullName()] = true
		if !cfg.isPooled(m) {
			if len(out) == max {
				return out, true
			}
			out = append(out, m)
		}
		for _, f := range m.Fields {
			if f.Message != nil && !f.Desc.IsMap() {
				queue = append(queue, f.Message)
			}
		}
	}
	return out, false
}

// poolName is m as vtprotobuf's pool= option names it: its Go import path
// and Go type name.
func poolName(m *protogen.Message) string {
	return string(m.GoIdent.GoImportPath) + "." + m.GoIdent.GoName
}

// isPooled reports whether m is known to be pooled by vtprotobuf.
func (c *Config) isPooled(m *protogen.Message) bool {
	if c.Pool[poolName(m)] {
		return true
	}
	v, _ := proto.GetExtension(m.Desc.Options(), vtproto.E_Mempool).(bool)
	return v
}
