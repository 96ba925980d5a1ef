// Package generator emits x_grpcfast.pb.go files. It is the whole of
// protoc-gen-go-grpcfast but for the command's flag handling.
//
// One file per concern, named for what it writes: header.go the file
// header and the build guards; codec.go the codec registration and the
// vtprotobuf check; messages.go the per-message methods, in order;
// record.go what a slot's reset keeps of each field (keepActionOf),
// GrpcfastUnknownFields and GrpcfastBytesField; decode.go the generated
// decoders (GrpcfastDecode), which record the arrays and maps they leave;
// streams.go the receive helpers; clients.go the reusing
// clients; pooled.go the registrations with pooled unary requests;
// benchmarks.go the benchmark file. Besides: names.go every generated
// name, kind.go the method kinds, comments.go the wrapping of generated
// comments, config.go the options, notes.go the notes printed at
// generation time (files generated outside the Go package their own
// go_package names, and files that Google or a well-known Go module
// registers already, registered.go listing those that buf's managed mode
// hides).
package generator

import (
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/types/pluginpb"
)

// PluginName is the plugin's command name.
const PluginName = "protoc-gen-go-grpcfast"

// Version is the plugin version written into every generated header. It is
// bumped on purpose, with the goldens regenerated, when the output changes.
const Version = "v0.5.0"

// Import paths used by generated code. Identifiers are always qualified
// through these, never typed as a "pkg." prefix.
const (
	contextPackage   = protogen.GoImportPath("context")
	grpcPackage      = protogen.GoImportPath("google.golang.org/grpc")
	encodingPackage  = protogen.GoImportPath("google.golang.org/grpc/encoding")
	protowirePackage = protogen.GoImportPath("google.golang.org/protobuf/encoding/protowire")
	runtimePackage   = protogen.GoImportPath("github.com/grpcfast/grpcfast")
	implPackage      = protogen.GoImportPath("github.com/grpcfast/grpcfast/grpcfastimpl")
	benchPackage     = protogen.GoImportPath("github.com/grpcfast/grpcfast/grpcfastbench")
	testingPackage   = protogen.GoImportPath("testing")
)

// Generate writes x_grpcfast.pb.go for every file to generate that declares
// messages or services: the per-message methods the codec uses for every
// file with messages, the codec registration and receive helpers for files
// with services, and x_grpcfast_bench_test.go for files with services. A file
// with neither gets no output file.
func Generate(p *protogen.Plugin, cfg *Config) error {
	p.SupportedFeatures = uint64(pluginpb.CodeGeneratorResponse_FEATURE_PROTO3_OPTIONAL |
		pluginpb.CodeGeneratorResponse_FEATURE_SUPPORTS_EDITIONS)
	p.SupportedEditionsMinimum = minimumEdition
	p.SupportedEditionsMaximum = maximumEdition
	for _, f := range p.Files {
		if !f.Generate || (len(f.Services) == 0 && len(f.Messages) == 0) {
			continue
		}
		if err := generateFile(p, f, cfg); err != nil {
			return err
		}
	}
	if cfg.Notes != nil {
		writeRegisteredNotes(cfg.Notes, p)
	}
	return nil
}

func generateFile(p *protogen.Plugin, f *protogen.File, cfg *Config) error {
	g := p.NewGeneratedFile(f.GeneratedFilenamePrefix+"_grpcfast.pb.go", f.GoImportPath)
	genHeader(p, f, g)
	genGuards(g)
	services := len(f.Services) > 0
	if services && cfg.RegisterCodec {
		genRegistration(g)
	}
	if cfg.VTProtoCheck {
		genVTProtoCheck(g, f)
	}
	if err := genMessages(g, f); err != nil {
		return err
	}
	for _, s := range f.Services {
		n := newServiceNames(s)
		genStreamHelpers(g, n)
		genReusingClient(g, n)
		if cfg.PooledRequests {
			genPooledRegistration(g, n)
		}
	}
	if services && cfg.Benchmarks {
		genBenchmarks(p, f)
	}
	return nil
}
