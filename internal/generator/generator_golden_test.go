package generator_test

import (
	"bytes"
	"context"
	"flag"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bufbuild/protocompile"
	"github.com/grpcfast/grpcfast/internal/generator"
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/pluginpb"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const (
	protoRoot       = "../../testdata/proto"
	repoRoot        = "../.."
	goldenDir       = "internal/testprotos" // relative to repoRoot
	moduleOpt       = "module=github.com/grpcfast/grpcfast"
	goldenGlob      = "_grpcfast.pb.go"
	benchGoldenGlob = "_grpcfast_bench_test.go"
)

// protoCases returns the directories under testdata/proto that hold .proto
// files, each one golden case, with the files of each.
func protoCases(t *testing.T) map[string][]string {
	t.Helper()
	cases := map[string][]string{}
	err := filepath.WalkDir(protoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".proto" {
			return err
		}
		rel, err := filepath.Rel(protoRoot, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		dir := filepath.ToSlash(filepath.Dir(rel))
		cases[dir] = append(cases[dir], rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("no .proto files under testdata/proto")
	}
	return cases
}

// compile compiles files (relative to testdata/proto, or to the sources in
// extra) with source info and returns a CodeGeneratorRequest that asks to
// generate them, as protoc or buf would.
func compile(t testing.TB, files []string, parameter string, extra map[string]string) *pluginpb.CodeGeneratorRequest {
	t.Helper()
	var resolver protocompile.Resolver = &protocompile.SourceResolver{ImportPaths: []string{protoRoot}}
	if extra != nil {
		resolver = &protocompile.SourceResolver{Accessor: protocompile.SourceAccessorFromMap(extra)}
	}
	c := protocompile.Compiler{
		Resolver:       protocompile.WithStandardImports(resolver),
		SourceInfoMode: protocompile.SourceInfoStandard,
	}
	linked, err := c.Compile(context.Background(), files...)
	if err != nil {
		t.Fatalf("compile %v: %v", files, err)
	}
	req := &pluginpb.CodeGeneratorRequest{FileToGenerate: files}
	if parameter != "" {
		req.Parameter = &parameter
	}
	seen := map[string]bool{}
	var add func(fd protoreflect.FileDescriptor)
	add = func(fd protoreflect.FileDescriptor) {
		if seen[fd.Path()] {
			return
		}
		seen[fd.Path()] = true
		imports := fd.Imports()
		for i := range imports.Len() {
			add(imports.Get(i).FileDescriptor)
		}
		req.ProtoFile = append(req.ProtoFile, protodesc.ToFileDescriptorProto(fd))
	}
	for _, f := range linked {
		add(f)
	}
	return req
}

// run runs the plugin in-process on req, as protogen.Options.Run would.
func run(t testing.TB, req *pluginpb.CodeGeneratorRequest) *pluginpb.CodeGeneratorResponse {
	t.Helper()
	return runNotes(t, req, io.Discard)
}

// runNotes is run with the plugin's notes written to notes.
func runNotes(t testing.TB, req *pluginpb.CodeGeneratorRequest, notes io.Writer) *pluginpb.CodeGeneratorResponse {
	t.Helper()
	var flags flag.FlagSet
	cfg := generator.NewConfig(&flags)
	cfg.Notes = notes
	p, err := protogen.Options{ParamFunc: cfg.Set}.New(req)
	if err != nil {
		return &pluginpb.CodeGeneratorResponse{Error: ptr(err.Error())}
	}
	if err := generator.Generate(p, cfg); err != nil {
		p.Error(err)
	}
	return p.Response()
}

func ptr[T any](v T) *T { return &v }

func TestGolden(t *testing.T) {
	produced := map[string]bool{}
	for dir, files := range protoCases(t) {
		t.Run(dir, func(t *testing.T) {
			req := compile(t, files, moduleOpt, nil)
			resp := run(t, req)
			if resp.Error != nil {
				t.Fatalf("plugin error: %s", resp.GetError())
			}
			again := run(t, compile(t, files, moduleOpt, nil))
			if len(again.File) != len(resp.File) {
				t.Fatalf("second run made %d files, first %d", len(again.File), len(resp.File))
			}
			for i, f := range resp.File {
				if again.File[i].GetName() != f.GetName() || again.File[i].GetContent() != f.GetContent() {
					t.Errorf("%s: second run differs from the first", f.GetName())
				}
			}
			if len(resp.File) == 0 && hasServicesOrMessages(req) {
				t.Fatalf("no output for %v, which declares services or messages", files)
			}
			if len(resp.File) != 0 && !hasServicesOrMessages(req) {
				t.Fatalf("output %s for %v, which declares neither services nor messages", resp.File[0].GetName(), files)
			}
			for _, f := range resp.File {
				name := f.GetName()
				produced[name] = true
				checkGolden(t, name, []byte(f.GetContent()))
			}
		})
	}
	// A golden file that no case produces is stale.
	err := filepath.WalkDir(filepath.Join(repoRoot, goldenDir), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(strings.HasSuffix(path, goldenGlob) || strings.HasSuffix(path, benchGoldenGlob)) {
			return err
		}
		rel, err := filepath.Rel(repoRoot, path)
		if err != nil {
			return err
		}
		if rel = filepath.ToSlash(rel); !produced[rel] {
			if *update {
				return os.Remove(path)
			}
			t.Errorf("%s is a golden file that no case produces; delete it or run go test ./internal/generator -update", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func hasServicesOrMessages(req *pluginpb.CodeGeneratorRequest) bool {
	for _, f := range req.ProtoFile {
		if slices.Contains(req.FileToGenerate, f.GetName()) && (len(f.Service) > 0 || len(f.MessageType) > 0) {
			return true
		}
	}
	return false
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join(repoRoot, filepath.FromSlash(name))
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/generator -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from its golden file (run go test ./internal/generator -update after checking the change):\n%s", name, diff(string(want), string(got)))
	}
}

// diff returns the first lines where want and got differ.
func diff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(w), len(g)) {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return "line " + strconv.Itoa(i+1) + ":\n- " + wl + "\n+ " + gl
		}
	}
	return "(equal lines, different bytes)"
}
