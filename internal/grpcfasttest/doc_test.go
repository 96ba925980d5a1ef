package grpcfasttest_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"go/parser"
	"go/token"
)

// testOnly are the packages of this module that only tests may import.
var testOnly = []string{
	"github.com/grpcfast/grpcfast/internal/grpcfasttest",
	"github.com/grpcfast/grpcfast/internal/guardpage",
	"github.com/grpcfast/grpcfast/internal/prototest",
}

// TestImportedOnlyByTests keeps the promise of the package's documentation:
// no Go file of the repository but a _test.go file imports grpcfasttest
// (or prototest or guardpage, the other packages made for tests), so that
// none is ever built into a program or a library that uses this module.
func TestImportedOnlyByTests(t *testing.T) {
	problems, checked, err := nonTestImporters("../..")
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Fatalf("checked only %d Go files: is the repository's root ../..?", checked)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// TestImportedOnlyByTestsCatchesImporters: a non-test file that imports
// either package is reported, a _test.go file that does is not.
func TestImportedOnlyByTestsCatchesImporters(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a/a.go":      "package a\n\nimport _ \"github.com/grpcfast/grpcfast/internal/grpcfasttest\"\n",
		"a/a_test.go": "package a\n\nimport _ \"github.com/grpcfast/grpcfast/internal/grpcfasttest\"\n",
		"b/b.go":      "package b\n\nimport (\n\t\"fmt\"\n\n\tpt \"github.com/grpcfast/grpcfast/internal/prototest\"\n)\n",
		"c/c.go":      "package c\n\nimport \"fmt\"\n",
	}
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	problems, checked, err := nonTestImporters(dir)
	if err != nil {
		t.Fatal(err)
	}
	if checked != 3 || len(problems) != 2 ||
		!strings.HasPrefix(problems[0], filepath.Join("a", "a.go")+": ") || !strings.HasPrefix(problems[1], filepath.Join("b", "b.go")+": ") {
		t.Errorf("checked %d files, problems %q; want 3 files, a/a.go and b/b.go reported", checked, problems)
	}
}

// nonTestImporters returns, for each Go file under root that is not a
// _test.go file and imports a package of testOnly, a line that says so,
// and how many non-test Go files it read. It leaves out directories whose
// name starts with a dot (.git, .cache, .bin).
func nonTestImporters(root string) (problems []string, checked int, err error) {
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
		rel, _ := filepath.Rel(root, path)
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			for _, banned := range testOnly {
				if p == banned {
					problems = append(problems, rel+": imports "+p+", which only _test.go files may import")
				}
			}
		}
		return nil
	})
	return problems, checked, err
}
