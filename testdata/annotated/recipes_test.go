package annotated_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	rpcstatus "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	imagesv1 "example.com/annotated/containerd/gen/services/images/v1"
	"example.com/annotated/containerd/gen/types"
	checkv1 "example.com/annotated/gen/acme/check/v1"
)

// check.proto's results hold genproto's google.rpc.Status: this compiles
// only if managed mode left every googleapis go_package alone.
var _ *rpcstatus.Status = (&checkv1.CheckBulkResponseItem{}).GetError()

// The containerd-shaped tree's Descriptor is the one generated here, with
// vtprotobuf's methods: these compile only if the M options gave every
// file a package of this module.
var (
	_ *types.Descriptor                                        = (&imagesv1.Image{}).GetTarget()
	_ interface{ MarshalToSizedBufferVT([]byte) (int, error) } = (*types.Descriptor)(nil)
)

// upstreamAnnotations are the Go packages that register the annotations
// check.proto imports; its generated code must import these.
var upstreamAnnotations = []string{
	"github.com/envoyproxy/protoc-gen-validate/validate",
	"github.com/grpc-ecosystem/grpc-gateway/v2/protoc-gen-openapiv2/options",
	"google.golang.org/genproto/googleapis/api/annotations",
}

// checkFiles are the files buf generates for check.proto, and nothing else.
var checkFiles = []string{
	"gen/acme/check/v1/check.pb.go", "gen/acme/check/v1/check_grpc.pb.go", "gen/acme/check/v1/check_grpcfast.pb.go",
	"gen/acme/check/v1/check_grpcfast_bench_test.go", "gen/acme/check/v1/check_vtproto.pb.go",
}

// TestDocsShowTheseTrees checks that docs/third-party.md shows this tree's
// buf.yaml and buf.gen.yaml, and the containerd-shaped tree's
// buf.gen.yaml, exactly.
func TestDocsShowTheseTrees(t *testing.T) {
	page := docsPage(t)
	for _, file := range []string{"buf.yaml", "buf.gen.yaml", "containerd/buf.gen.yaml"} {
		want, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		block := "```yaml\n# " + filepath.Base(file) + "\n" + string(want) + "```\n"
		if !strings.Contains(page, block) {
			t.Errorf("docs/third-party.md does not show %s as this tree has it; want a block\n%s", file, block)
		}
	}
}

// TestAnnotationsRecipe runs buf generate with this tree's buf.yaml and
// buf.gen.yaml (the page's) on a copy of it: only check.proto's files are
// generated, they import the annotations' own Go packages (protovalidate's
// as its validate.proto declares it), and the plugin prints no note. It
// needs buf and the four plugins on PATH or in the repository's .bin
// (make tools build), as testdata/thirdparty's recipe tests do.
func TestAnnotationsRecipe(t *testing.T) {
	buf, path := tools(t)
	dir := t.TempDir()
	copyTree(t, dir, "buf.yaml", "buf.gen.yaml", "proto", "third_party")
	out := runBuf(t, buf, path, dir, "generate")
	if strings.Contains(out, "note:") {
		t.Errorf("buf generate printed notes:\n%s", out)
	}
	if got := generated(t, dir); !slices.Equal(got, checkFiles) {
		t.Errorf("generated\n%q\nwant\n%q", got, checkFiles)
	}
	checkImports(t, filepath.Join(dir, "gen/acme/check/v1/check.pb.go"), protovalidatePackage(t, "third_party/protovalidate/buf/validate/validate.proto"))
}

// TestExcludeModuleDirectory runs the same recipe with the gateway's module
// directory itself in exclude_paths, a first guess: buf refuses it, with
// the error the page names.
func TestExcludeModuleDirectory(t *testing.T) {
	buf, path, dir := recipeEdited(t, func(genYAML string) string {
		return strings.Replace(genYAML, "third_party/grpc-gateway/protoc-gen-openapiv2\n", "third_party/grpc-gateway\n", 1)
	})
	cmd := exec.Command(buf, "generate")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+path)
	out, err := cmd.CombinedOutput()
	const want = `Failure: module "third_party/grpc-gateway" was specified with --exclude-path, this flag cannot be used to specify module directories`
	if err == nil || !strings.Contains(string(out), want) {
		t.Fatalf("buf generate: %v\n%s\nwant it to fail with\n%s", err, out, want)
	}
	if !strings.Contains(docsPage(t), want) {
		t.Errorf("docs/third-party.md does not name buf's error %q", want)
	}
}

// TestWithoutDisableRules runs the same recipe without its disable rules, a
// first guess: managed mode then rewrites the annotations' go_package too,
// so check.pb.go imports packages of this module that nothing generates
// (the inputs exclude the annotation files), the failure the page names.
func TestWithoutDisableRules(t *testing.T) {
	buf, path, dir := recipeEdited(t, func(genYAML string) string {
		start, end := strings.Index(genYAML, "  disable:\n"), strings.Index(genYAML, "  override:\n")
		if start < 0 || end < start {
			t.Fatalf("buf.gen.yaml has no disable block before its override block:\n%s", genYAML)
		}
		return genYAML[:start] + genYAML[end:]
	})
	runBuf(t, buf, path, dir, "generate")
	// Only check.proto's files: nothing provides the packages it imports.
	if got := generated(t, dir); !slices.Equal(got, checkFiles) {
		t.Errorf("generated\n%q\nwant\n%q", got, checkFiles)
	}
	data, err := os.ReadFile(filepath.Join(dir, "gen/acme/check/v1/check.pb.go"))
	if err != nil {
		t.Fatal(err)
	}
	page := docsPage(t)
	for _, pkg := range []string{
		"example.com/annotated/gen/validate",
		"example.com/annotated/gen/buf/validate",
		"example.com/annotated/gen/protoc-gen-openapiv2/options",
		"example.com/annotated/gen/google/api",
	} {
		if !strings.Contains(string(data), "_ \""+pkg+"\"\n") {
			t.Errorf("check.pb.go without the disable rules does not import %s", pkg)
		}
	}
	for _, pkg := range []string{"example.com/annotated/gen/validate", "example.com/annotated/gen/buf/validate"} {
		if !strings.Contains(page, "`"+pkg+"`") {
			t.Errorf("docs/third-party.md does not name %s among the imports without the disable rules", pkg)
		}
	}
}

// TestAnnotationsFromDependencies runs buf generate with the buf.gen.yaml
// that the page shows for annotations taken as buf module dependencies, on
// a workspace that stands in for the registry: the annotations are local
// modules with the names the page's deps: give them (REGISTRY replaced by
// example.com), and the input is the module of check.proto alone, so that
// they are not generated, as dependencies are not. The disable rules by
// module must keep their go_package.
func TestAnnotationsFromDependencies(t *testing.T) {
	buf, path := tools(t)
	page := docsPage(t)
	section := page[strings.Index(page, "### Recipe: annotations from buf dependencies"):]
	bufYAML := yamlBlock(t, section, "# buf.yaml\n")
	genYAML := yamlBlock(t, section, "# buf.gen.yaml\n")
	var deps []string
	for _, line := range strings.Split(bufYAML[strings.Index(bufYAML, "deps:\n"):], "\n")[1:] {
		if name, ok := strings.CutPrefix(line, "  - REGISTRY/"); ok {
			deps = append(deps, name)
		}
	}
	modules := map[string]string{
		"googleapis/googleapis":          "third_party/googleapis",
		"grpc-ecosystem/grpc-gateway":    "third_party/grpc-gateway",
		"envoyproxy/protoc-gen-validate": "third_party/protoc-gen-validate",
		"bufbuild/protovalidate":         "third_party/protovalidate",
	}
	if len(deps) != len(modules) {
		t.Fatalf("the page's buf.yaml has deps %q, want the four of %v", deps, modules)
	}
	standIn := "version: v2\nmodules:\n  - path: proto\n"
	for _, name := range deps {
		if modules[name] == "" {
			t.Fatalf("the page's buf.yaml has a dependency REGISTRY/%s that this test has no stand-in for", name)
		}
		standIn += fmt.Sprintf("  - path: %s\n    name: example.com/%s\n", modules[name], name)
	}
	dir := t.TempDir()
	copyTree(t, dir, "proto", "third_party")
	writeFile(t, dir, "buf.yaml", standIn)
	writeFile(t, dir, "buf.gen.yaml", strings.ReplaceAll(genYAML, "REGISTRY/", "example.com/"))
	out := runBuf(t, buf, path, dir, "generate", "proto")
	if strings.Contains(out, "note:") {
		t.Errorf("buf generate printed notes:\n%s", out)
	}
	if got := generated(t, dir); !slices.Equal(got, checkFiles) {
		t.Errorf("generated\n%q\nwant\n%q", got, checkFiles)
	}
	checkImports(t, filepath.Join(dir, "gen/acme/check/v1/check.pb.go"), protovalidatePackage(t, "third_party/protovalidate/buf/validate/validate.proto"))
}

// TestContainerdRecipe runs buf generate with the containerd-shaped tree's
// buf.gen.yaml (the page's: the same M options for all four plugins) on a
// copy of it: the generated images code uses the Descriptor generated with
// it, with its vtprotobuf methods, imports nothing of containerd's module,
// and the plugin notes the three files with the package each declares.
// Then the same without the M options, in one plugin run as protoc's
// (the README's commands on containerd's protos): the generated code
// imports containerd's own types package and calls vtprotobuf methods that
// its Descriptor does not have, the failure the page describes.
func TestContainerdRecipe(t *testing.T) {
	buf, path := tools(t)
	dir := t.TempDir()
	copyTree(t, dir, "containerd/buf.yaml", "containerd/buf.gen.yaml", "containerd/api")
	dir = filepath.Join(dir, "containerd")
	out := runBuf(t, buf, path, dir, "generate")
	for _, file := range []string{"types/descriptor.proto", "services/content/v1/content.proto", "services/images/v1/images.proto"} {
		pkg := strings.TrimSuffix(filepath.Dir(file), "/")
		note := fmt.Sprintf("note: %s is generated into Go package example.com/annotated/containerd/gen/%s, but its go_package is github.com/containerd/containerd/api/%s, which registers it too", file, pkg, pkg)
		if !strings.Contains(out, note) {
			t.Errorf("buf generate printed no note %q:\n%s", note, out)
		}
	}
	vt, err := os.ReadFile(filepath.Join(dir, "gen/services/images/v1/images_vtproto.pb.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(vt), `"example.com/annotated/containerd/gen/types"`) {
		t.Errorf("images_vtproto.pb.go does not use the Descriptor generated with it:\n%s", vt)
	}
	if err := filepath.WalkDir(filepath.Join(dir, "gen"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(data), `"github.com/containerd/`) {
			t.Errorf("%s imports containerd's module", p)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}

	// The README's plain recipe, no M options, run as protoc runs it: all
	// files in one plugin run (buf's strategy: all), so that vtprotobuf
	// takes the Descriptor for one it generates.
	genYAML, err := os.ReadFile(filepath.Join(dir, "buf.gen.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var plain []string
	for _, line := range strings.Split(string(genYAML), "\n") {
		if !strings.HasPrefix(line, "      - M") {
			plain = append(plain, line)
		}
		if line == "    out: gen" {
			plain = append(plain, "    strategy: all")
		}
	}
	writeFile(t, dir, "buf.gen.yaml", strings.Join(plain, "\n"))
	if err := os.RemoveAll(filepath.Join(dir, "gen")); err != nil {
		t.Fatal(err)
	}
	out = runBuf(t, buf, path, dir, "generate")
	if strings.Contains(out, "note:") {
		t.Errorf("without M options, every file is generated where it declares, and no note is due:\n%s", out)
	}
	vt, err = os.ReadFile(filepath.Join(dir, "gen/services/images/v1/images_vtproto.pb.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(vt), `"github.com/containerd/containerd/api/types"`) || !strings.Contains(string(vt), "m.Target.MarshalToSizedBufferVT(") {
		t.Errorf("without M options, images_vtproto.pb.go no longer shows the failure the page describes:\n%s", vt)
	}
}

// TestContainerdImagesPooled serves the containerd-shaped Images.Get with
// pooled requests and the strings in one copy, and reads a Descriptor back
// through a reusing client: the tree generated with M options works as any
// tree of one's own.
func TestContainerdImagesPooled(t *testing.T) {
	srv := grpc.NewServer()
	imagesv1.RegisterImagesServerPooled(srv, images{}, grpcfastWithCopy()...)
	c := imagesv1.NewImagesReusingClient(dial(t, srv))
	defer c.Release()
	for i := range 20 {
		name := fmt.Sprintf("registry.example/app:%d", i)
		resp, err := c.Get(context.Background(), &imagesv1.GetImageRequest{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		want := image(name)
		if !proto.Equal(resp.GetImage(), want) {
			t.Fatalf("Get(%q) = %v, want %v", name, resp.GetImage(), want)
		}
	}
}

type images struct {
	imagesv1.UnimplementedImagesServer
}

func (images) Get(_ context.Context, req *imagesv1.GetImageRequest) (*imagesv1.GetImageResponse, error) {
	return &imagesv1.GetImageResponse{Image: image(strings.Clone(req.GetName()))}, nil
}

func image(name string) *imagesv1.Image {
	return &imagesv1.Image{Name: name, Target: &types.Descriptor{
		MediaType: "application/vnd.oci.image.index.v1+json", Digest: "sha256:" + strings.Repeat("ab", 32), Size: int64(len(name)) * 100,
		Annotations: map[string]string{"org.opencontainers.image.ref.name": name},
	}}
}

// tools returns buf and a PATH with the repository's .bin first, or skips
// the test when buf or a plugin is on neither, as testdata/thirdparty's
// recipe tests do.
func tools(t *testing.T) (buf, path string) {
	t.Helper()
	bin, err := filepath.Abs("../../.bin")
	if err != nil {
		t.Fatal(err)
	}
	path = bin + string(os.PathListSeparator) + os.Getenv("PATH")
	for _, tool := range []string{"buf", "protoc-gen-go", "protoc-gen-go-grpc", "protoc-gen-go-vtproto", "protoc-gen-go-grpcfast"} {
		p, err := lookPath(tool, path)
		if err != nil {
			t.Skipf("%s is not on PATH nor in .bin (make tools build): %v", tool, err)
		}
		if tool == "buf" {
			buf = p
		}
	}
	return buf, path
}

// lookPath finds file in the directories of path.
// recipeEdited copies this tree into a new directory, with its buf.gen.yaml
// changed by edit (a first guess the page describes), and returns buf, the
// PATH of the plugins (tools) and the directory.
func recipeEdited(t *testing.T, edit func(genYAML string) string) (buf, path, dir string) {
	t.Helper()
	buf, path = tools(t)
	dir = t.TempDir()
	copyTree(t, dir, "buf.yaml", "buf.gen.yaml", "proto", "third_party")
	genYAML, err := os.ReadFile(filepath.Join(dir, "buf.gen.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "buf.gen.yaml", edit(string(genYAML)))
	return buf, path, dir
}

func lookPath(file, path string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, file)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found", file)
}

// runBuf runs buf with args in dir and returns what it printed; it fails
// the test if buf fails.
func runBuf(t *testing.T, buf, path, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(buf, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+path)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("buf %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// copyTree copies the files and directories named, relative to this
// directory, into dir.
func copyTree(t *testing.T, dir string, names ...string) {
	t.Helper()
	for _, name := range names {
		err := filepath.WalkDir(name, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(p)
			if err == nil {
				writeFile(t, dir, p, string(data))
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func writeFile(t *testing.T, dir, name, data string) {
	t.Helper()
	name = filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// generated lists the files under dir/gen, relative to dir.
func generated(t *testing.T, dir string) []string {
	t.Helper()
	var got []string
	err := filepath.WalkDir(filepath.Join(dir, "gen"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			got = append(got, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// checkImports checks that the generated file imports the annotations' own
// Go packages, and protovalidate's.
func checkImports(t *testing.T, file, protovalidate string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range append(slices.Clone(upstreamAnnotations), protovalidate) {
		if !strings.Contains(string(data), "_ \""+pkg+"\"\n") {
			t.Errorf("%s does not import %s", file, pkg)
		}
	}
}

// protovalidatePackage returns the Go import path that the validate.proto
// at path declares.
func protovalidatePackage(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "option go_package = \"")
	if !ok {
		t.Fatalf("%s declares no go_package", path)
	}
	return rest[:strings.IndexAny(rest, "\";")]
}

func docsPage(t *testing.T) string {
	t.Helper()
	page, err := os.ReadFile("../../docs/third-party.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(page)
}

// yamlBlock returns the body of the first yaml block in text that starts
// with the line first, without that line.
func yamlBlock(t *testing.T, text, first string) string {
	t.Helper()
	start := strings.Index(text, "```yaml\n"+first)
	if start < 0 {
		t.Fatalf("no yaml block starting %q", first)
	}
	body := text[start+len("```yaml\n"+first):]
	return body[:strings.Index(body, "```")]
}
