// Command protoc-gen-go-grpcfast is a protoc and buf plugin that writes
// x_grpcfast.pb.go next to the x.pb.go, x_grpc.pb.go and x_vtproto.pb.go of
// every .proto file to generate that declares messages or services: a
// compile-time check that protoc-gen-go-vtproto ran, and the methods
// through which grpcfast's codec reuses a message's memory (for messages
// with fields to reuse), message-only files included; for files with
// services, also a gRPC codec registration that encodes through
// vtprotobuf's methods into pooled buffers, receive helpers for streaming
// methods that reuse messages, Register<Service>ServerPooled for services
// with unary methods, and x_grpcfast_bench_test.go with a benchmark of every
// method. A file that declares neither gets no output file.
//
// The module is not published yet: install it from a clone of the
// repository with
//
//	go install ./cmd/protoc-gen-go-grpcfast
//
// (once a release is tagged, go install
// github.com/grpcfast/grpcfast/cmd/protoc-gen-go-grpcfast@VERSION), and add
// it to buf.gen.yaml or run protoc with --go-grpcfast_out. The options it
// accepts are listed in the README ("Options") and by --help.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/grpcfast/grpcfast/internal/generator"
	"google.golang.org/protobuf/compiler/protogen"
)

func main() {
	if len(os.Args) == 2 {
		switch os.Args[1] {
		case "--version", "-version":
			fmt.Printf("%s %s\n", generator.PluginName, generator.Version)
			return
		case "--help", "-help", "-h":
			fmt.Print(generator.Usage())
			return
		}
	}
	var flags flag.FlagSet
	cfg := generator.NewConfig(&flags)
	protogen.Options{ParamFunc: cfg.Set}.Run(func(p *protogen.Plugin) error {
		return generator.Generate(p, cfg)
	})
}
