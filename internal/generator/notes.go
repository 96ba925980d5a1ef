package generator

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"google.golang.org/protobuf/compiler/protogen"
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
	switch {
	case r.goPackage == grpcLinkedStatus || r.module == "google.golang.org/protobuf":
	case len(f.Services) > 0:
		services = fmt.Sprintf(" To serve or call its services with this plugin's receivers, pooled handlers or reusing clients, "+
			"keep generating it, with the files its messages come from, "+
			"and make sure that no program links %s as well (go list -deps -test ./... | grep -x %s prints nothing).", r.goPackage, r.goPackage)
	default:
		services = fmt.Sprintf(" If a service you generate uses its messages and you serve or call that service with this plugin's "+
			"receivers, pooled handlers or reusing clients, keep generating it too (its messages' decoders are generated with it) "+
			"and make sure that no program links %s as well (go list -deps -test ./... | grep -x %s prints nothing).", r.goPackage, r.goPackage)
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
		serve = fmt.Sprintf(" To serve or call %s services with this plugin's receivers, pooled handlers or reusing clients, keep generating %s and make sure that "+
			"no program links Google's package as well (go list -deps -test ./... lists what a program links).", their, them)
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
