package generator

import (
	"slices"
	"strconv"

	"google.golang.org/protobuf/compiler/protogen"
)

// benchstatVersion is the version of golang.org/x/perf whose benchstat the
// generated benchmarks' comment runs: the one tools/go.mod pins, which
// docs/benchmarks.md names too (TestBenchstatPinned).
const benchstatVersion = "v0.0.0-20260908200009-22c9c6c9d4da"

// benchSuffix ends the name of the generated benchmark file.
const benchSuffix = "_grpcfast_bench_test.go"

// genBenchmarks writes x_grpcfast_bench_test.go: for every service a
// benchmark that hands a table of its methods (kind, name, message types,
// generated receivers) to grpcfastbench.Run, which does the rest.
func genBenchmarks(p *protogen.Plugin, f *protogen.File) {
	g := p.NewGeneratedFile(f.GeneratedFilenamePrefix+benchSuffix, f.GoImportPath)
	genHeaderDoc(p, f, g, false)
	for _, s := range f.Services {
		n := newServiceNames(s)
		full := string(s.Desc.FullName())
		paths := "on gRPC's standard codec and the stream's own Recv (codec=proto), on vtprotobuf's " +
			"codec/grpc and the stream's own Recv (codec=vtproto, for the methods whose messages have " +
			"vtprotobuf methods) and on grpcfast's codec and " +
			"generated receivers (codec=grpcfast)"
		if slices.ContainsFunc(n.methods, func(m methodNames) bool { return m.kind == unary }) {
			paths = "on gRPC's standard codec and the stream's own Recv (codec=proto), on vtprotobuf's " +
				"codec/grpc and the stream's own Recv (codec=vtproto, for the methods whose messages have " +
				"vtprotobuf methods), on grpcfast's codec and " +
				"generated receivers (codec=grpcfast) and, for unary methods, on grpcfast's codec with " +
				"pooled requests and reused responses, without and with the strings in one copy " +
				"(codec=grpcfast-pooled, codec=grpcfast-pooled-copy)"
		}
		comment(g, n.benchmark+" benchmarks every method of "+full+" against a stub server, "+
			paths+", side by side, each checked at its first call:")
		g.P("//")
		g.P("//\tfor i in $(seq 6); do go test -run '^$' -bench ", n.benchmark, " -benchmem -count 1 .; done | tee bench.txt")
		g.P("//\tgo run golang.org/x/perf/cmd/benchstat@", benchstatVersion, " -col /codec bench.txt")
		g.P("//")
		comment(g, "Rounds of -count 1 interleave the paths, where -count 6 would run each six times in a row. "+
			"The -grpcfast.* flags (message sizes and the fields that grow, the shape=batch case, recorded messages "+
			"to replay, messages per stream, concurrent streams and connections, the transport and its settings, "+
			"a server process, the codec=floor path, profiles) are listed in the Flags section of the documentation "+
			"of package "+string(benchPackage)+".")
		g.P("func ", n.benchmark, "(b *", testingPackage.Ident("B"), ") {")
		g.P(benchPackage.Ident("Run"), "(b, ", strconv.Quote(full), ",")
		for _, m := range n.methods {
			genBenchMethod(g, m)
		}
		g.P(")")
		g.P("}")
		g.P()
	}
}

// genBenchMethod writes one entry of a benchmark's method table.
func genBenchMethod(g *protogen.GeneratedFile, n methodNames) {
	m := n.method
	types := "[" + g.QualifiedGoIdent(m.Input.GoIdent) + ", " + g.QualifiedGoIdent(m.Output.GoIdent) + "]"
	name := strconv.Quote(string(m.Desc.Name()))
	switch n.kind {
	case unary:
		g.P(benchPackage.Ident("Unary"), types, "(", name, "),")
	case clientStreaming:
		g.P(benchPackage.Ident("ClientStream"), types, "(", name, ", ", n.requestReceiver, "),")
	case serverStreaming:
		g.P(benchPackage.Ident("ServerStream"), types, "(", name, ", ", n.responseReceiver, "),")
	case bidiStreaming:
		g.P(benchPackage.Ident("Bidi"), types, "(", name, ", ", n.requestReceiver, ", ", n.responseReceiver, "),")
	}
}
