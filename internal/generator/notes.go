package generator

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/planetscale/vtprotobuf/generator/pattern"
	"github.com/planetscale/vtprotobuf/vtproto"
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// writeRegisteredNotes writes a note for every file to generate whose
// generated Go code clashes with the copy that Google or a well-known module
// registers already. Three shapes, each recognised from the request itself:
//   - a file that registeredFiles names, generated into another Go package:
//     the note names the module and its Go package;
//   - any other file of Google's (under google/, in a google.* proto
//     package: googleapis' Pub/Sub, Cloud APIs...), generated into a Go
//     package outside Google's (google.golang.org/, cloud.google.com/go/):
//     one note per Go package, since managed mode or M options have
//     replaced the go_package that would name Google's;
//   - well-known types (google/protobuf/) generated at all, even into their
//     own Go packages, as when a tree vendors them: one note for all.
//
// A program that links both copies of a file panics at start.
func writeRegisteredNotes(w io.Writer, p *protogen.Plugin) {
	var google []protogen.GoImportPath
	byPackage := map[protogen.GoImportPath][]*protogen.File{}
	var wkts []*protogen.File
	for _, f := range p.Files {
		if !f.Generate {
			continue
		}
		path := f.Desc.Path()
		r, ok := registeredFiles[path]
		switch {
		case ok && string(f.GoImportPath) != r.goPackage:
			writeRegisteredNote(w, f, r)
		case strings.HasPrefix(path, "google/protobuf/"):
			if ok || strings.HasPrefix(string(f.GoImportPath), "google.golang.org/protobuf/") {
				wkts = append(wkts, f)
			}
		case !ok && googleFile(f) && !googleGoPackage(f.GoImportPath):
			if byPackage[f.GoImportPath] == nil {
				google = append(google, f.GoImportPath)
			}
			byPackage[f.GoImportPath] = append(byPackage[f.GoImportPath], f)
		}
	}
	for _, pkg := range google {
		writeGoogleNote(w, pkg, byPackage[pkg])
	}
	if len(wkts) > 0 {
		var names []string
		for _, f := range wkts {
			names = append(names, strings.TrimSuffix(strings.TrimPrefix(f.Desc.Path(), "google/protobuf/"), ".proto"))
		}
		slices.Sort(names)
		files, are, them := "google/protobuf/"+names[0]+".proto", "is a well-known type", "it"
		if len(names) > 1 {
			files, are, them = "google/protobuf/{"+strings.Join(names, ",")+"}.proto", "are well-known types", "them"
		}
		fmt.Fprintf(w, "%s: note: %s %s: module google.golang.org/protobuf generates and registers %s (Go packages under "+
			"google.golang.org/protobuf/types/), and every import of %s resolves there. This run writes a second copy into the output tree "+
			"that nothing imports; with paths=source_relative its Go packages share one directory, google/protobuf, and go build ./... "+
			"and go vet ./... fail (found packages ...). Do not generate %s: leave google/protobuf out of the inputs "+
			"(buf exclude_paths; with protoc, do not name those files).\n",
			PluginName, files, are, them, them, them)
	}
}

// writeRegisteredNote writes the note for f, which registeredFiles names
// (r), generated into another Go package than r's.
func writeRegisteredNote(w io.Writer, f *protogen.File, r registeredFile) {
	path := f.Desc.Path()
	linked := "a program that links both"
	if r.goPackage == grpcLinkedStatus {
		linked = "grpc-go links that package, so every gRPC program that links this one"
	}
	var services string
	if len(f.Services) > 0 && r.goPackage != grpcLinkedStatus {
		services = fmt.Sprintf(" To serve or call its services with this plugin's receivers, keep generating it "+
			"and make sure that no program links %s as well (go list -deps ./... | grep -x %s prints nothing).", r.goPackage, r.goPackage)
	}
	if r.module == otlpModule {
		services += " If a program must link both (OpenTelemetry-Go's OTLP exporters link " + otlpModule + "), " +
			"run it with GOLANG_PROTOBUF_REGISTRATION_CONFLICT=warn, or build it with " +
			"-ldflags=-X=google.golang.org/protobuf/reflect/protoregistry.conflictPolicy=warn: it starts, and lookups by name " +
			"(reflection, Any) find one copy only (docs/third-party.md of github.com/grpcfast/grpcfast)."
	}
	fmt.Fprintf(w, "%s: note: %s is generated into Go package %s, but module %s registers it already "+
		"(package %s), and %s panics at start: proto: file %q is already registered. "+
		"Import %s instead: do not generate %s (leave it out of the inputs, with buf exclude_paths) and "+
		"keep its own go_package (with buf managed mode, disable go_package_prefix for it), "+
		"then run go mod tidy.%s\n",
		PluginName, path, string(f.GoImportPath), r.module, r.goPackage, linked, path,
		r.goPackage, path, services)
}

// writeGoogleNote writes the note for files of Google's that no list names,
// generated into Go package pkg, outside Google's own.
func writeGoogleNote(w io.Writer, pkg protogen.GoImportPath, files []*protogen.File) {
	var paths []string
	services := false
	for _, f := range files {
		paths = append(paths, f.Desc.Path())
		services = services || len(f.Services) > 0
	}
	slices.Sort(paths)
	verb, they, them, their := "is", "it is", "it", "its"
	if len(files) > 1 {
		verb, they, them, their = "are", "they are", "them", "their"
	}
	var serve string
	if services {
		serve = fmt.Sprintf(" To serve or call %s services with this plugin's receivers, keep generating %s and make sure that "+
			"no program links Google's package as well (go list -deps ./... lists what a program links).", their, them)
	}
	fmt.Fprintf(w, "%s: note: %s %s generated into Go package %s, but %s Google's: Google generates every file of googleapis "+
		"into a Go package of its own (the file's go_package option in googleapis names it, under google.golang.org/genproto/ or cloud.google.com/go/) "+
		"and registers it there, and a program that links both (a Google client library links Google's) panics at start: "+
		"proto: file %q is already registered. Import Google's package instead: do not generate %s (leave %s out of the inputs, "+
		"with buf exclude_paths) and keep %s own go_package (with buf managed mode, disable go_package_prefix for %s), then run go mod tidy.%s\n",
		PluginName, andList(paths), verb, string(pkg), they, paths[0], them, them, their, them, serve)
}

// googleFile reports whether f is Google's: a file under google/ in a
// google.* proto package, as every file of googleapis and protobuf's own.
// Google publishes a Go package for each such file.
func googleFile(f *protogen.File) bool {
	return strings.HasPrefix(f.Desc.Path(), "google/") && strings.HasPrefix(string(f.Desc.Package()), "google.")
}

// googleGoPackage reports whether pkg is under a Go import path that Google
// publishes generated code in.
func googleGoPackage(pkg protogen.GoImportPath) bool {
	for _, prefix := range []string{"google.golang.org/", "cloud.google.com/go/", "github.com/googleapis/"} {
		if strings.HasPrefix(string(pkg), prefix) {
			return true
		}
	}
	return false
}

// andList joins items as "a", "a and b", "a, b and c".
func andList(items []string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// grpcLinkedStatus is the Go package of google/rpc/status.proto that
// grpc-go itself imports.
const grpcLinkedStatus = "google.golang.org/genproto/googleapis/rpc/status"

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
		var covers string
		c := poolTree(p, []*protogen.Message{s.msg}, cfg, maxNoteTypes)
		if len(c.pool) == 0 {
			continue
		}
		if c.more || len(c.pool) > maxListed {
			// Too many to list: the globs that cover the whole tree.
			c = poolTree(p, []*protogen.Message{s.msg}, cfg, 0)
			opts, covers = poolOptions(c.pool)
			if len(c.others) > maxNoteTypes {
				c.others = c.others[:maxNoteTypes]
			}
		} else {
			for _, m := range c.pool {
				opts = append(opts, "pool="+poolName(m))
			}
		}
		methods := strings.Join(s.methods, ", ")
		if len(s.methods) > maxListed {
			methods = fmt.Sprintf("%d methods", len(s.methods))
		}
		fmt.Fprintf(w, "%s: note: %s, received by streams of %s, has nested messages or packed repeated fields, "+
			"which vtprotobuf's decoder allocates anew for every message unless it pools them. Add %s%s to "+
			"protoc-gen-go-vtproto's options, and the same to %s's to silence this note (or %s=false).%s\n",
			PluginName, name, methods, strings.Join(opts, " "), covers, PluginName, OptionPoolNotes, othersSentence(c.others))
	}
}

// othersSentence says, after a note's pool= options, why the reachable
// types that a well-known module generates into its own Go package get
// none; "" if there are none.
func othersSentence(others []*protogen.Message) string {
	if len(others) == 0 {
		return ""
	}
	var names []string
	for _, m := range others {
		names = append(names, fmt.Sprintf("%s (Go package %s)", m.Desc.FullName(), string(m.GoIdent.GoImportPath)))
	}
	verb, them := "is", "it"
	if len(names) > 1 {
		verb, them = "are", "them"
	}
	return fmt.Sprintf(" %s %s reachable too, but generated into that Go package by another module, without vtprotobuf, "+
		"so vtprotobuf decodes %s with protobuf-go (proto.Unmarshal) and cannot pool %s; a pool= option for %s would not compile.",
		strings.Join(names, ", "), verb, them, them, them)
}

// writePooledRequestNotes writes, for every Register<Service>ServerPooled
// that this run generates, one note if the request trees of the service's
// unary methods hold message types that are not known to be pooled by
// vtprotobuf (Config.isPooled). Register<Service>ServerPooled gives a
// request back whole, but vtprotobuf's decoder takes a nested message from
// its pool only when both the message's type and its parent's are pooled,
// and reuses the elements of a repeated field only when the parent's type
// is: otherwise it allocates them on every request, and a missing or
// misspelt pool= option costs that without a word. The note names the
// service and the pool= options to add, sorted, each as vtprotobuf spells
// it. The trees are walked as poolTree walks them; a method whose request
// has no nested message and no packed repeated field (allocatesUnpooled)
// adds nothing, since grpcfast pools the request itself. Editions files are
// skipped, as vtprotobuf cannot generate for them.
func writePooledRequestNotes(w io.Writer, p *protogen.Plugin, cfg *Config) {
	for _, f := range p.Files {
		if !f.Generate || f.Desc.Syntax() == protoreflect.Editions {
			continue
		}
		for _, s := range f.Services {
			var roots []*protogen.Message
			var methods []string
			for _, m := range s.Methods {
				if kindOf(m) != unary {
					continue
				}
				methods = append(methods, m.GoName)
				if allocatesUnpooled(m.Input) {
					roots = append(roots, m.Input)
				}
			}
			if len(roots) == 0 {
				continue
			}
			t := poolTree(p, roots, cfg, 0)
			if len(t.pool) == 0 {
				continue
			}
			opts, covers := poolOptions(t.pool)
			slices.SortFunc(t.others, func(a, b *protogen.Message) int { return strings.Compare(poolName(a), poolName(b)) })
			if len(t.others) > maxNoteTypes {
				t.others = t.others[:maxNoteTypes]
			}
			what := fmt.Sprintf("unary %s %s", plural(len(methods), "method", "methods"), strings.Join(methods, ", "))
			if len(methods) > maxListed {
				what = fmt.Sprintf("%d unary methods", len(methods))
			}
			types := fmt.Sprintf("%d message %s of their trees %s", len(t.pool), plural(len(t.pool), "type", "types"), plural(len(t.pool), "is", "are"))
			if covers != "" {
				n := len(packagesOf(t.pool))
				types = fmt.Sprintf("%d message types of their trees, in %d Go %s, are", len(t.pool), n, plural(n, "package", "packages"))
			}
			fmt.Fprintf(w, "%s: note: %s (service %s, %s) pools requests, but %s "+
				"in no pool= option, so vtprotobuf's decoder allocates, on every request, each nested message of such a type "+
				"and each repeated element of such a parent. Add %s%s to protoc-gen-go-vtproto's options, and the same to %s's "+
				"(as vtprotobuf spells them: <go import path>.<Go type name>, nested types with _; or %s=false to silence this note).%s\n",
				PluginName, newServiceNames(s).registerPooled, s.Desc.FullName(), what, types,
				strings.Join(opts, " "), covers, PluginName, OptionPoolNotes, othersSentence(t.others))
		}
	}
}

// maxListed bounds the methods and pool= options a note lists one by one:
// past it, a note counts the methods and names globs instead of types.
const maxListed = 8

// poolOptions returns the pool= options that cover types: each type, sorted,
// up to maxListed of them; past that, globs as vtprotobuf's pool= takes them
// (generator/pattern): <package>.* for one Go package, <path>/** for Go
// packages under one path (with <path>.* too if path is one of them), or
// else one <package>.* per package. covers says what a glob covers beyond
// types; "" when the options name types.
func poolOptions(types []*protogen.Message) (opts []string, covers string) {
	for _, m := range types {
		opts = append(opts, "pool="+poolName(m))
	}
	slices.Sort(opts)
	opts = slices.Compact(opts)
	if len(opts) <= maxListed {
		return opts, ""
	}
	pkgs := packagesOf(types)
	if len(pkgs) == 1 {
		return []string{"pool=" + pkgs[0] + ".*"}, " (a glob: it covers those types and every other type of that package)"
	}
	prefix := strings.Split(pkgs[0], "/")
	for _, p := range pkgs[1:] {
		segs := strings.Split(p, "/")
		n := 0
		for n < len(prefix) && n < len(segs) && prefix[n] == segs[n] {
			n++
		}
		prefix = prefix[:n]
	}
	if len(prefix) >= 2 {
		path := strings.Join(prefix, "/")
		opts = []string{"pool=" + path + "/**"}
		if slices.Contains(pkgs, path) {
			opts = append([]string{"pool=" + path + ".*"}, opts...)
		}
		return opts, " (a glob: it covers those types and every other type under that path)"
	}
	opts = opts[:0]
	for _, p := range pkgs {
		opts = append(opts, "pool="+p+".*")
	}
	return opts, " (globs: they cover those types and every other type of those packages)"
}

// packagesOf returns the Go import paths of types, sorted, each once.
func packagesOf(types []*protogen.Message) []string {
	var pkgs []string
	for _, m := range types {
		pkgs = append(pkgs, string(m.GoIdent.GoImportPath))
	}
	slices.Sort(pkgs)
	return slices.Compact(pkgs)
}

// moduleOwned reports whether m is generated, in the Go package it is
// imported from, by a well-known Go module (registeredFiles): that module
// generates it with protobuf-go alone, so vtprotobuf cannot pool it.
func moduleOwned(m *protogen.Message) bool {
	r, ok := registeredFiles[m.Desc.ParentFile().Path()]
	return ok && string(m.GoIdent.GoImportPath) == r.goPackage
}

func plural(n int, one, more string) string {
	if n == 1 {
		return one
	}
	return more
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

// closure is what poolTree found.
type closure struct {
	// pool holds the types to name in pool= options.
	pool []*protogen.Message
	// more reports whether more types than pool holds would be named.
	more bool
	// others holds the reachable types that a well-known Go module
	// generates into its own Go package (moduleOwned), without vtprotobuf:
	// vtprotobuf decodes them with proto.Unmarshal and cannot pool them.
	others []*protogen.Message
}

// poolTree returns the message types of the trees of roots (the roots and
// the types of their message fields, repeated fields and oneof cases
// included, across files and Go packages, each type once, cycles ended)
// that vtprotobuf can pool but is not known to pool. With max > 0 it stops
// at max such types, and reports whether there were more: the work per
// streamed type stays bounded on trees where every message reaches
// thousands of others. Map values are not followed: vtprotobuf allocates
// every map value anyway, and what hangs below it never goes back to a
// pool. Protobuf-go's well-known types
// are skipped (vtprotobuf decodes them with its own code and cannot pool
// them), as are the types of editions files (vtprotobuf cannot generate for
// them). Types of files that this run does not generate are followed too:
// buf runs a plugin once per directory of files to generate (its default
// strategy), so the other Go packages of one request tree come in other
// runs with the same options. The types that a well-known Go module
// generates into its own Go package (moduleOwned: googleapis' from genproto,
// OpenTelemetry's from go.opentelemetry.io/proto/otlp), which vtprotobuf has
// not generated for, are returned apart, in others (up to max), and not
// followed.
func poolTree(p *protogen.Plugin, roots []*protogen.Message, cfg *Config, max int) closure {
	var c closure
	seen := map[protoreflect.FullName]bool{}
	queue := slices.Clone(roots)
	for len(queue) > 0 {
		m := queue[0]
		queue = queue[1:]
		if seen[m.Desc.FullName()] || strings.HasPrefix(string(m.GoIdent.GoImportPath), "google.golang.org/protobuf/") {
			continue
		}
		seen[m.Desc.FullName()] = true
		if moduleOwned(m) {
			if max <= 0 || len(c.others) < max {
				c.others = append(c.others, m)
			}
			continue
		}
		if m.Desc.ParentFile().Syntax() == protoreflect.Editions {
			continue // vtprotobuf cannot generate for editions files
		}
		if !cfg.isPooled(m) {
			if max > 0 && len(c.pool) == max {
				c.more = true
				return c
			}
			c.pool = append(c.pool, m)
		}
		for _, f := range m.Fields {
			if f.Message != nil && !f.Desc.IsMap() {
				queue = append(queue, f.Message)
			}
		}
	}
	return c
}

// poolName is m as vtprotobuf's pool= option names it: its Go import path
// and Go type name.
func poolName(m *protogen.Message) string {
	return string(m.GoIdent.GoImportPath) + "." + m.GoIdent.GoName
}

// isPooled reports whether m is known to be pooled by vtprotobuf: a pool=
// option matches it, as protoc-gen-go-vtproto matches its own (exactly, or
// as a glob with vtprotobuf's generator/pattern), or it has the
// (vtproto.mempool) message option.
func (c *Config) isPooled(m *protogen.Message) bool {
	name := poolName(m)
	if c.Pool[name] {
		return true
	}
	for p := range c.Pool {
		if ok, _ := pattern.Match(p, name); ok {
			return true
		}
	}
	v, _ := proto.GetExtension(m.Desc.Options(), vtproto.E_Mempool).(bool)
	return v
}
