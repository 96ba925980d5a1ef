package grpcfast_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// strayTestFiles are the test files that name no source file of their
// package, each with the reason. Keep it short: a test goes beside the
// source file whose behaviour it asserts (docs/development.md, "Where the
// tests are").
var strayTestFiles = map[string]string{
	// Go's convention for the hooks that the package's own tests need into
	// its unexported names: compiled into those tests alone.
	"export_test.go":         "hooks into the root package for its tests",
	"example/export_test.go": "hooks into the example package for its tests",
	// A package of tests alone, beside the generated packages plain and
	// pooled whose message sizes it checks: it has no source file to match.
	"internal/testprotos/interop/interop_test.go": "a package without source files",
}

// TestTestFilesBesideSources keeps each test beside the code it tests: every
// test file of the root module's packages (all but testdata and the nested
// modules, compose/ and peers/) is named for a source file of its directory, x_test.go or x_aspect_test.go
// for x.go (x.pb.go and x_grpc.pb.go count as x and x_grpc), or for x.sh
// or x.bash, a script or a file of bash functions that a Go test checks
// (scripts/ratios_test.go, scripts/benchcmd_test.go), unless
// strayTestFiles says why not. Tests of the repository itself (its docs,
// its layout, make test) are doc_*_test.go, beside doc.go.
func TestTestFilesBesideSources(t *testing.T) {
	problems, checked, err := strayTests(".", strayTestFiles)
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Fatalf("checked only %d test files", checked)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// TestTestFilesBesideSourcesCatchesStrays: a test file that names no
// source file is reported, one that names it whole or with an aspect is
// not, testdata and nested modules are not looked at, and an entry of the
// allow-list that is not there any more is reported.
func TestTestFilesBesideSourcesCatchesStrays(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{
		"codec.go", "codec_test.go", "codec_hostile_test.go", "helpers_test.go", "codecs_test.go",
		"internal/a/kinds.pb.go", "internal/a/kinds_grpcfast_bench_test.go", "internal/a/b/setup_test.go",
		"example/e.go", "example/other_test.go",
		"scripts/run.sh", "scripts/run_test.go", "scripts/sum_test.go", "scripts/lib.bash", "scripts/lib_test.go",
		"nested/go.mod", "nested/n.go", "nested/stray_test.go", "internal/a/testdata/stray_test.go",
	} {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("package x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	problems, checked, err := strayTests(dir, map[string]string{"export_test.go": "gone"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"codecs_test.go: names no source file of its directory (x_test.go or x_aspect_test.go for x.go)",
		"example/other_test.go: names no source file of its directory (x_test.go or x_aspect_test.go for x.go)",
		"export_test.go: in strayTestFiles, but not there",
		"helpers_test.go: names no source file of its directory (x_test.go or x_aspect_test.go for x.go)",
		"internal/a/b/setup_test.go: names no source file of its directory (x_test.go or x_aspect_test.go for x.go)",
		"scripts/sum_test.go: names no source file of its directory (x_test.go or x_aspect_test.go for x.go)",
	}
	if checked != 10 || !slices.Equal(problems, want) {
		t.Errorf("checked %d test files, problems:\n%s\nwant 10 files and:\n%s", checked, strings.Join(problems, "\n"), strings.Join(want, "\n"))
	}
}

// strayTests returns the test files of the root package under root and of
// the packages under root/internal that name no source file of their
// directory and are not in allowed, sorted, with the entries of allowed
// that name no file; and how many test files it looked at.
func strayTests(root string, allowed map[string]string) (problems []string, checked int, err error) {
	seen := map[string]bool{}
	check := func(dir string) error {
		entries, err := os.ReadDir(filepath.Join(root, dir))
		if err != nil {
			return err
		}
		var stems []string
		for _, e := range entries {
			if n := e.Name(); !e.IsDir() && (strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") || strings.HasSuffix(n, ".sh") || strings.HasSuffix(n, ".bash")) {
				stems = append(stems, n[:strings.Index(n, ".")])
			}
		}
		for _, e := range entries {
			n := e.Name()
			if e.IsDir() || !strings.HasSuffix(n, "_test.go") {
				continue
			}
			checked++
			rel := filepath.ToSlash(filepath.Join(dir, n))
			if _, ok := allowed[rel]; ok {
				seen[rel] = true
				continue
			}
			name := strings.TrimSuffix(n, "_test.go")
			if !slices.ContainsFunc(stems, func(s string) bool { return name == s || strings.HasPrefix(name, s+"_") }) {
				problems = append(problems, rel+": names no source file of its directory (x_test.go or x_aspect_test.go for x.go)")
			}
		}
		return nil
	}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		if rel != "." {
			// testdata, hidden directories (.cache, .bin) and nested
			// modules (compose/, peers/) are not the root module's packages.
			if d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir
			}
		}
		return check(rel)
	})
	if err != nil && !os.IsNotExist(err) {
		return nil, 0, err
	}
	for name := range allowed {
		if !seen[name] {
			problems = append(problems, name+": in strayTestFiles, but not there")
		}
	}
	slices.Sort(problems)
	return problems, checked, nil
}
