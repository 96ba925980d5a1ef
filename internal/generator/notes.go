package generator

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"google.golang.org/protobuf/compiler/protogen"
)

// writeRegisteredNotes writes a note for every file to generate whose
// generated Go code clashes with a copy that another Go package registers
// already. Four shapes, each recognised from the request itself:
//   - a file generated into another Go package than the one its own
//     go_package option names (protoc's M options, buf's opt M...): that
//     package registers it too, whoever publishes it, so no list is needed;
//     one note per declared package (writeMovedNote);
//
// and, where buf's managed mode has rewritten go_package so that the file's
// own is no longer in the request:
//   - a file that registeredFiles names, generated into another Go package:
//     the note names the module and its Go package;
//   - any other file of Google's (under google/, in a google.* proto
//     package: googleapis' Pub/Sub, Cloud APIs...), generated into a Go
//     package outside Google's (google.golang.org/, cloud.google.com/go/):
//     one note per Go package, since managed mode or M options have
//     replaced the go_package that would name Google's;
//   - well-known types (google/protobuf/) generated at all, even into their
//     own Go packages, as when a tree vendors them: one note for all;
//
// and, whatever the mode:
//   - files written where their own Go package is not (writeUnplacedNote):
//     with paths=source_relative, a dependency's files that a run was not
//     meant to generate (an exclude_paths that matched nothing) keep the
//     publisher's go_package but land in the output tree.
//
// A program that links both copies of a file panics at start.
func writeRegisteredNotes(w io.Writer, p *protogen.Plugin) {
	var google []protogen.GoImportPath
	byPackage := map[protogen.GoImportPath][]*protogen.File{}
	var wkts []*protogen.File
	var moved []movedKey
	byDeclared := map[movedKey][]*protogen.File{}
	var modules []string // in the order of their first file
	byModule := map[string][]*protogen.File{}
	var others []*protogen.File // the files that none of the shapes above notes
	for _, f := range p.Files {
		if !f.Generate {
			continue
		}
		path := f.Desc.Path()
		r, ok := registeredFiles[path]
		declared := declaredImportPath(f)
		switch {
		case declared != "" && declared != string(f.GoImportPath):
			k := movedKey{declared, f.GoImportPath}
			if byDeclared[k] == nil {
				moved = append(moved, k)
			}
			byDeclared[k] = append(byDeclared[k], f)
		case ok && string(f.GoImportPath) != r.goPackage:
			if byModule[r.module] == nil {
				modules = append(modules, r.module)
			}
			byModule[r.module] = append(byModule[r.module], f)
		case strings.HasPrefix(path, "google/protobuf/"):
			if ok || strings.HasPrefix(string(f.GoImportPath), "google.golang.org/protobuf/") {
				wkts = append(wkts, f)
			} else {
				others = append(others, f)
			}
		case !ok && googleFile(f) && !googleGoPackage(f.GoImportPath):
			if byPackage[f.GoImportPath] == nil {
				google = append(google, f.GoImportPath)
			}
			byPackage[f.GoImportPath] = append(byPackage[f.GoImportPath], f)
		default:
			others = append(others, f)
		}
	}
	for _, k := range moved {
		writeMovedNote(w, k, byDeclared[k])
	}
	for _, m := range modules {
		files := byModule[m]
		if len(files) == 1 || m == "" || registeredFiles[files[0].Desc.Path()].goPackage == grpcLinkedStatus {
			for _, f := range files {
				writeRegisteredNote(w, f, registeredFiles[f.Desc.Path()])
			}
			continue
		}
		writeModuleNote(w, m, files)
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
	writeUnplacedNote(w, p, others)
}

// outputPrefix returns the Go import path of the output directory that f's
// Go file is written into, as f's own Go package implies it: its import
// path less the directory of its generated file (paths=import writes it
// under its whole import path, "" then; paths=source_relative under its
// .proto file's directory; module=M under the import path less M). It
// reports false where the import path does not end with that directory:
// the file's Go package is then not where the file is written.
func outputPrefix(f *protogen.File) (string, bool) {
	pkg, dir := string(f.GoImportPath), pathDir(f.GeneratedFilenamePrefix)
	switch {
	case dir == "":
		return pkg, true
	case pkg == dir:
		return "", true
	case strings.HasSuffix(pkg, "/"+dir):
		return pkg[:len(pkg)-len(dir)-1], true
	}
	return "", false
}

// maxUnplaced is how many files writeUnplacedNote names, at most.
const maxUnplaced = 6

// writeUnplacedNote writes one note for the files to generate (of others:
// those that no other note names) that are written where their own Go
// package is not, so that an import of that package does not find them: with
// paths=source_relative, a dependency's files generated by mistake keep
// the publisher's go_package but land in the output tree (buf's
// exclude_paths must name paths of the module a file lies in: a parent
// directory of several modules excludes nothing), and a program that links
// one of them and its publisher's package panics at start. Two cases:
//   - a file whose Go package does not end with the directory its Go file
//     is written into (outputPrefix) is where no output directory's import
//     path could put it;
//   - where the files of one run imply several import paths for the output
//     directory, the one most of them imply is taken for it, and the files
//     of the others are not where their packages are. buf runs a local
//     plugin once per directory by default, so this needs protoc or buf's
//     strategy: all; the first case holds either way.
func writeUnplacedNote(w io.Writer, p *protogen.Plugin, others []*protogen.File) {
	count := map[string]int{}
	var prefixes []string // in the order of their first file
	for _, f := range p.Files {
		if !f.Generate {
			continue
		}
		if pre, ok := outputPrefix(f); ok {
			if count[pre] == 0 {
				prefixes = append(prefixes, pre)
			}
			count[pre]++
		}
	}
	// main is the prefix that most files imply; where two or more imply it
	// alike, none is taken (known is false), and only the first case is
	// noted.
	main, most, alike := "", 0, 0
	for _, pre := range prefixes {
		switch c := count[pre]; {
		case c > most:
			main, most, alike = pre, c, 1
		case c == most:
			alike++
		}
	}
	known := alike == 1
	var unplaced, paths []string
	for _, f := range others {
		if pre, ok := outputPrefix(f); ok && (!known || pre == main) {
			continue
		}
		unplaced = append(unplaced, fmt.Sprintf("%s (Go package %s)", f.Desc.Path(), string(f.GoImportPath)))
		paths = append(paths, f.Desc.Path())
	}
	if len(unplaced) == 0 {
		return
	}
	slices.Sort(unplaced)
	slices.Sort(paths)
	listed := unplaced
	if len(listed) > maxUnplaced {
		listed = append(slices.Clip(listed[:maxUnplaced]), fmt.Sprintf("%d more", len(unplaced)-maxUnplaced))
	}
	files, are, it, them := "1 of the files to generate is", "its own Go package is", "it", "it"
	if len(unplaced) > 1 {
		files, are, it, them = fmt.Sprintf("%d of the files to generate are", len(unplaced)), "their own Go packages are", "each", "them"
	}
	shown := ""
	if known {
		under := main
		if under == "" {
			under = "the import path of its directory"
		}
		shown = fmt.Sprintf(", and the other %d files of this run are written where their Go packages, under %s, are", most, under)
		if most == 1 {
			shown = fmt.Sprintf(", and the run's other file is written where its Go package, under %s, is", under)
		}
	}
	exclude := excludeRoots(paths)
	fmt.Fprintf(w, "%s: note: %s written where %s not, so that an import of the package %s declares does not find %s: %s. "+
		"With paths=source_relative each file's Go code goes into the directory of its .proto file%s. "+
		"A program that links such a copy and the package it declares panics at start (proto: file ... is already registered). "+
		"A dependency's file: do not generate it (buf: exclude_paths, an entry for %s within the directory of each "+
		"module that holds them: an entry for a directory above the modules excludes none of their files; protoc: do not name it); "+
		"a file of yours: give it a go_package that ends with its directory, under the output directory's import path "+
		"(buf managed mode: go_package_prefix).\n",
		PluginName, files, are, it, them, andList(listed), shown, exclude)
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
	lead := "Import " + r.goPackage + " instead"
	switch {
	case r.goPackage == grpcLinkedStatus || r.module == "google.golang.org/protobuf":
	case len(f.Services) > 0:
		lead = "Unless you serve or call its services through this plugin (below), import " + r.goPackage + " instead"
		services = fmt.Sprintf(" To serve or call its services with this plugin's receivers, pooled handlers or reusing clients, "+
			"keep generating it, with the files its messages come from, "+
			"and make sure that no program links %s as well (go list -deps -test ./... | grep -x %s prints nothing).", r.goPackage, r.goPackage)
	default:
		services = fmt.Sprintf(" If a service you generate uses its messages and you serve or call that service with this plugin's "+
			"receivers, pooled handlers or reusing clients, keep generating it too (its messages' decoders are generated with it) "+
			"and make sure that no program links %s as well (go list -deps -test ./... | grep -x %s prints nothing).", r.goPackage, r.goPackage)
	}
	if r.module == otlpModule {
		services += otlpBoth
	}
	registers := "module " + r.module + " registers it already (package " + r.goPackage + ")"
	if r.module == "" {
		registers = "Go package " + r.goPackage + " registers it already (its go_package)"
	}
	fmt.Fprintf(w, "%s: note: %s is generated into Go package %s, but %s, and %s panics at start: proto: file %q is already registered. "+
		"%s: do not generate %s (leave it out of the inputs, with buf exclude_paths) and "+
		"keep its own go_package (with buf managed mode, disable go_package_prefix for it), "+
		"then run go mod tidy.%s\n",
		PluginName, path, string(f.GoImportPath), registers, linked, path,
		lead, path, services)
}

// otlpBoth ends the notes for OTLP's files: how a program that must link
// both copies starts.
const otlpBoth = " If a program must link both (OpenTelemetry-Go's OTLP exporters link " + otlpModule + "), " +
	"run it with GOLANG_PROTOBUF_REGISTRATION_CONFLICT=warn, or build it with " +
	"-ldflags=-X=google.golang.org/protobuf/reflect/protoregistry.conflictPolicy=warn: it starts, and lookups by name " +
	"(reflection, Any) find one copy only (docs/third-party.md of github.com/grpcfast/grpcfast)."

// writeModuleNote writes one note for files (two or more) that module
// registers already (registeredFiles), each generated into another Go
// package than the module's: a tree that generates a copy of a module's
// files (OTLP's, as docs/third-party.md's recipe does, to serve them with
// generated decoders) gets one note, not one per file.
func writeModuleNote(w io.Writer, module string, files []*protogen.File) {
	var paths, moved []string
	services := false
	for _, f := range files {
		r := registeredFiles[f.Desc.Path()]
		paths = append(paths, f.Desc.Path())
		moved = append(moved, fmt.Sprintf("%s into %s (its package: %s)", f.Desc.Path(), string(f.GoImportPath), r.goPackage))
		services = services || len(f.Services) > 0
	}
	grep := fmt.Sprintf("go list -deps -test ./... | grep -E '^%s(/|$)' prints nothing", regexpQuote(module))
	use := fmt.Sprintf(" To serve or call their services with this plugin's receivers, pooled handlers or reusing clients, "+
		"keep generating them, with the files their messages come from, and make sure that no program links module %s as well (%s).", module, grep)
	if !services {
		use = fmt.Sprintf(" If a service you generate uses their messages and you serve or call that service with this plugin's "+
			"receivers, pooled handlers or reusing clients, keep generating them too (their messages' decoders are generated with them) "+
			"and make sure that no program links module %s as well (%s).", module, grep)
	}
	if module == otlpModule {
		use += otlpBoth
	}
	fmt.Fprintf(w, "%s: note: module %s registers %d of the files generated here already, and a program that links both copies "+
		"panics at start: proto: file %q is already registered. Generated: %s. To use the module's packages instead, do not generate "+
		"these files (leave them out of the inputs, with buf exclude_paths) and keep their own go_package (with buf managed mode, "+
		"disable go_package_prefix for them), then run go mod tidy.%s\n",
		PluginName, module, len(files), paths[0], strings.Join(moved, "; "), use)
}

// regexpQuote quotes the dots of a module path for grep -E.
func regexpQuote(s string) string { return strings.ReplaceAll(s, ".", `\.`) }

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
	lead := "Import Google's package instead"
	if services {
		lead = fmt.Sprintf("Unless you serve or call %s services through this plugin (below), import Google's package instead", their)
		serve = fmt.Sprintf(" To serve or call %s services with this plugin's receivers, pooled handlers or reusing clients, keep generating %s and make sure that "+
			"no program links Google's package as well (go list -deps -test ./... lists what a program links).", their, them)
	}
	fmt.Fprintf(w, "%s: note: %s %s generated into Go package %s, but %s Google's: Google generates every file of googleapis "+
		"into a Go package of its own (the file's go_package option in googleapis names it, under google.golang.org/genproto/ or cloud.google.com/go/) "+
		"and registers it there, and a program that links both (a Google client library links Google's) panics at start: "+
		"proto: file %q is already registered. %s: do not generate %s (leave %s out of the inputs, "+
		"with buf exclude_paths) and keep %s own go_package (with buf managed mode, disable go_package_prefix for %s), then run go mod tidy.%s\n",
		PluginName, andList(paths), verb, string(pkg), they, paths[0], lead, them, them, their, them, serve)
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

// movedKey is a Go package a file declares (its go_package option) and the
// one it is generated into instead.
type movedKey struct {
	declared  string
	generated protogen.GoImportPath
}

// declaredImportPath returns the Go import path that f's own go_package
// option names, or "" when it names none that could be someone else's
// package: no option, or a path whose first element is not a domain name
// (such a package cannot be imported from a module elsewhere).
func declaredImportPath(f *protogen.File) string {
	pkg := f.Proto.GetOptions().GetGoPackage()
	if i := strings.IndexByte(pkg, ';'); i >= 0 {
		pkg = pkg[:i]
	}
	first, _, _ := strings.Cut(pkg, "/")
	if !strings.Contains(first, ".") {
		return ""
	}
	return pkg
}

// writeMovedNote writes one line for the files of Go package k.declared
// (their go_package) generated into k.generated: the declared package
// registers them too. A file with services is usually generated on purpose
// (to serve it through this plugin), so that note puts keeping the copy
// first; otherwise importing the declared package comes first.
func writeMovedNote(w io.Writer, k movedKey, files []*protogen.File) {
	var paths []string
	services := false
	for _, f := range files {
		paths = append(paths, f.Desc.Path())
		services = services || len(f.Services) > 0
	}
	slices.Sort(paths)
	conflict := "<name>" // a name of paths[0]'s proto package
	for _, f := range files {
		if f.Desc.Path() == paths[0] && f.Desc.Package() != "" {
			conflict = string(f.Desc.Package()) + ".<name>"
		}
	}
	names, exclude := pathsAndRoot(paths)
	are, its, it := "is", "its", "it"
	if len(paths) > 1 {
		are, its, it = "are", "their", "them"
	}
	keep := fmt.Sprintf("make sure that no program links %s (go list -deps -test ./... | grep -x %s prints nothing)", k.declared, k.declared)
	drop := fmt.Sprintf("give %s no M option and do not generate %s (buf: exclude_paths .../%s), then go mod tidy", it, it, exclude)
	var todo string
	if services {
		todo = fmt.Sprintf("To serve or call %s services through this plugin, keep this copy and %s; to import %s instead, %s.", its, keep, k.declared, drop)
	} else {
		todo = fmt.Sprintf("To import %s instead, %s; to keep this copy (messages of yours hold %s messages), %s.", k.declared, drop, its, keep)
	}
	// The declared package may register the file under another path (its
	// publisher ran protoc from another root: grpc-go's examples register
	// examples/helloworld/helloworld/helloworld.proto), and then the panic
	// names a type, not the file.
	fmt.Fprintf(w, "%s: note: %s %s generated into Go package %s, but %s go_package is %s, which registers %s too: "+
		"a program that links both panics at start (proto: file %q is already registered; or, where its publisher generated %s "+
		"under another path, proto: file ... has a name conflict over %s). %s\n",
		PluginName, names, are, string(k.generated), its, k.declared, it, paths[0], it, conflict, todo)
}

// excludeRoots names what to exclude to leave sorted paths out of a run:
// the file or directory that pathsAndRoot names for the paths of each top
// directory (their first element), at most maxUnplaced of them.
func excludeRoots(paths []string) string {
	var tops []string
	byTop := map[string][]string{}
	for _, p := range paths {
		top, _, _ := strings.Cut(p, "/")
		if byTop[top] == nil {
			tops = append(tops, top)
		}
		byTop[top] = append(byTop[top], p)
	}
	var roots []string
	for _, top := range tops {
		_, root := pathsAndRoot(byTop[top])
		roots = append(roots, root)
	}
	if len(roots) > maxUnplaced {
		roots = append(slices.Clip(roots[:maxUnplaced]), fmt.Sprintf("%d more", len(roots)-maxUnplaced))
	}
	return andList(roots)
}

// pathsAndRoot names sorted paths for a note, and the path to exclude them
// by: one file by itself; several files of one directory as
// dir/{a,b}.proto and dir; otherwise a list and their deepest common
// directory (or the list again, if they share none).
func pathsAndRoot(paths []string) (names, root string) {
	if len(paths) == 1 {
		return paths[0], paths[0]
	}
	dir := pathDir(paths[0])
	same := true
	for _, p := range paths[1:] {
		same = same && pathDir(p) == dir
		for dir != "" && !strings.HasPrefix(p, dir+"/") {
			dir = pathDir(dir)
		}
	}
	if same && dir != "" {
		var bases []string
		for _, p := range paths {
			bases = append(bases, strings.TrimSuffix(p[len(dir)+1:], ".proto"))
		}
		return dir + "/{" + strings.Join(bases, ",") + "}.proto", dir
	}
	if dir == "" {
		return andList(paths), strings.Join(paths, ", ")
	}
	return andList(paths), dir
}

// pathDir is path.Dir, but "" for a file at the root.
func pathDir(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return ""
	}
	return p[:i]
}
