package generator_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grpcfast/grpcfast/internal/generator"
)

// TestBufEndToEnd builds the real plugin and runs it through buf on every
// test proto. Its output must equal the in-process goldens but for the
// compiler version line, which depends on the compiler.
func TestBufEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the plugin and runs buf")
	}
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	buf := toolPath(t, root, "buf", "github.com/bufbuild/buf/cmd/buf")
	tmp := t.TempDir()
	plugin := filepath.Join(tmp, "protoc-gen-go-grpcfast")
	goRun(t, root, "build", "-o", plugin, "./cmd/protoc-gen-go-grpcfast")

	version, err := exec.Command(plugin, "--version").Output()
	if want := generator.PluginName + " " + generator.Version + "\n"; err != nil || string(version) != want {
		t.Errorf("--version printed %q (error %v), want %q", version, err, want)
	}
	help, err := exec.Command(plugin, "--help").Output()
	if err != nil || !strings.Contains(string(help), generator.OptionRegisterCodec+"=true|false") {
		t.Errorf("--help printed %q (error %v), want the options listed", help, err)
	}

	out := filepath.Join(tmp, "out")
	notes, err := bufGenerate(root, buf, plugin, out, "module=github.com/grpcfast/grpcfast")
	if err != nil {
		t.Fatal(err)
	}
	// Generated decoders reuse nested messages whatever vtprotobuf pools:
	// no note asks for pool= options (v0.4 printed one for kinds.Rich).
	if strings.Contains(notes, "pool=") {
		t.Errorf("buf's output asks for pool= options:\n%s", notes)
	}
	n := 0
	err = filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		rel, err := filepath.Rel(out, path)
		if err != nil {
			return err
		}
		got, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		want, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Errorf("buf made %s, which has no golden: %v", rel, err)
			return nil
		}
		if g, w := dropCompilerVersion(got), dropCompilerVersion(want); !bytes.Equal(g, w) {
			t.Errorf("%s: buf's output differs from the golden:\n%s", rel, diff(string(w), string(g)))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("buf generated nothing")
	}

	// A bad option fails the buf run with the plugin's message.
	_, err = bufGenerate(root, buf, plugin, filepath.Join(tmp, "bad"), "register_codec=maybe")
	want := `option register_codec: invalid value "maybe": want true or false`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("buf with a bad option: error %v, want one containing %q", err, want)
	}
}

// bufGenerate runs buf generate with the plugin alone, and returns what buf
// printed on stderr.
func bufGenerate(root, buf, plugin, out, opt string) (string, error) {
	tmpl := "version: v2\n" +
		"inputs:\n  - directory: testdata/proto\n" +
		"plugins:\n  - local: " + plugin + "\n    out: " + out + "\n    opt: " + opt + "\n"
	cmd := exec.Command(buf, "generate", "--template", tmpl)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return stderr.String(), fmt.Errorf("buf generate: %w: %s", err, stderr.Bytes())
	}
	return stderr.String(), nil
}

func dropCompilerVersion(b []byte) []byte {
	var out [][]byte
	for _, line := range bytes.Split(b, []byte("\n")) {
		if !bytes.HasPrefix(line, []byte("// - protoc ")) {
			out = append(out, line)
		}
	}
	return bytes.Join(out, []byte("\n"))
}

// toolPath returns the pinned tool from the tools module, built into .bin
// as the Makefile does (a no-op when it is there already and up to date).
func toolPath(t *testing.T, root, name, pkg string) string {
	t.Helper()
	bin := filepath.Join(root, ".bin")
	goRun(t, root, "build", "-modfile=tools/go.mod", "-o", bin+string(filepath.Separator), pkg)
	return filepath.Join(bin, name)
}

func goRun(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// TestVTProtoCheck builds a generated package whose vtprotobuf file is
// missing, through a go build overlay that hides it: with the default
// options the build fails and names the fix, with vtproto_check=false it
// succeeds (and the codec would fall back to the standard path).
func TestVTProtoCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go build")
	}
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	pkg := filepath.Join(root, "internal", "testprotos", "kinds")
	for _, tc := range []struct {
		param   string
		wantErr string
	}{
		{moduleOpt, "does not implement grpcfastimpl.RunProtocGenGoVTProtoWithFeaturesMarshalUnmarshalSize (missing method MarshalToSizedBufferVT)"},
		{moduleOpt + ",vtproto_check=false", ""},
	} {
		t.Run(tc.param, func(t *testing.T) {
			resp := run(t, compile(t, []string{"kinds/kinds.proto"}, tc.param, nil))
			if resp.Error != nil {
				t.Fatal(resp.GetError())
			}
			tmp := t.TempDir()
			replace := map[string]string{filepath.Join(pkg, "kinds_vtproto.pb.go"): ""}
			for _, f := range resp.File {
				if strings.HasSuffix(f.GetName(), "_test.go") {
					continue
				}
				p := filepath.Join(tmp, filepath.Base(f.GetName()))
				if err := os.WriteFile(p, []byte(f.GetContent()), 0o644); err != nil {
					t.Fatal(err)
				}
				replace[filepath.Join(root, filepath.FromSlash(f.GetName()))] = p
			}
			overlay, err := json.Marshal(map[string]any{"Replace": replace})
			if err != nil {
				t.Fatal(err)
			}
			overlayFile := filepath.Join(tmp, "overlay.json")
			if err := os.WriteFile(overlayFile, overlay, 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("go", "build", "-overlay", overlayFile, "./internal/testprotos/kinds")
			cmd.Dir = root
			out, err := cmd.CombinedOutput()
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("build failed: %v\n%s", err, out)
			case tc.wantErr != "" && (err == nil || !strings.Contains(string(out), tc.wantErr)):
				t.Errorf("build: %v\n%s\nwant a failure saying %q", err, out, tc.wantErr)
			}
		})
	}
}
