package grpcfast_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestLayoutTable keeps docs/development.md's layout table true: every
// path it names exists, and it names every source file of the root
// package and of the generator, every package directory of this module,
// every script, and the modules of their own.
func TestLayoutTable(t *testing.T) {
	page, err := os.ReadFile("docs/development.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range layoutProblems(string(page), ".") {
		t.Error(p)
	}
}

// TestLayoutTableCatchesOmissions: a table that leaves out a root file, a
// generator file or a package, or names a path that is not there, is
// reported.
func TestLayoutTableCatchesOmissions(t *testing.T) {
	page, err := os.ReadFile("docs/development.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ from, to, want string }{
		{"`responses.go`, ", "", "responses.go"},
		{"`clients.go` (`<Service>ReusingClient`), ", "", "internal/generator/clients.go"},
		{"| `internal/fieldrule` |", "| `internal/fieldrules` |", "internal/fieldrules"},
		{"| `internal/fieldrule` |", "| `internal/elsewhere` |", "internal/fieldrule"},
	} {
		broken := strings.Replace(string(page), tc.from, tc.to, 1)
		if broken == string(page) {
			t.Fatalf("the table has no %q to break", tc.from)
		}
		problems := layoutProblems(broken, ".")
		found := false
		for _, p := range problems {
			found = found || strings.Contains(p, tc.want)
		}
		if !found {
			t.Errorf("replacing %q with %q: %v, want a problem naming %s", tc.from, tc.to, problems, tc.want)
		}
	}
}

var layoutCode = regexp.MustCompile("`([^`]+)`")

// layoutProblems checks the layout table of page against the tree at root.
func layoutProblems(page, root string) []string {
	var problems []string
	named := map[string]bool{}     // paths of the first column, without a trailing slash
	generator := map[string]bool{} // files that the generator's row names
	for _, line := range strings.Split(page, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 4 || strings.HasPrefix(strings.TrimSpace(cells[1]), "---") || strings.TrimSpace(cells[1]) == "path" {
			continue
		}
		for _, m := range layoutCode.FindAllStringSubmatch(cells[1], -1) {
			p := strings.TrimSuffix(m[1], "/")
			named[p] = true
			if _, err := os.Stat(filepath.Join(root, p)); err != nil {
				problems = append(problems, "docs/development.md's layout names "+p+", which does not exist")
			}
		}
		if strings.TrimSpace(cells[1]) == "`internal/generator`" {
			for _, m := range layoutCode.FindAllStringSubmatch(cells[2], -1) {
				generator[m[1]] = true
			}
		}
	}
	if len(named) == 0 {
		return []string{"docs/development.md has no layout table"}
	}
	// covered reports whether p or a directory above it is named.
	covered := func(p string) bool {
		for ; p != "." && p != ""; p = filepath.ToSlash(filepath.Dir(p)) {
			if named[p] {
				return true
			}
		}
		return false
	}
	files, _ := filepath.Glob(filepath.Join(root, "*.go"))
	for _, f := range files {
		if name := filepath.Base(f); !strings.HasSuffix(name, "_test.go") && !named[name] {
			problems = append(problems, "docs/development.md's layout leaves out "+name)
		}
	}
	files, _ = filepath.Glob(filepath.Join(root, "internal/generator/*.go"))
	for _, f := range files {
		if name := filepath.Base(f); !strings.HasSuffix(name, "_test.go") && !generator[name] {
			problems = append(problems, "docs/development.md's layout leaves out internal/generator/"+name)
		}
	}
	scripts, _ := filepath.Glob(filepath.Join(root, "scripts/*"))
	for _, f := range scripts {
		if p := "scripts/" + filepath.Base(f); !covered(p) {
			problems = append(problems, "docs/development.md's layout leaves out "+p)
		}
	}
	// Every directory with Go files, but the generated test protos and
	// what testdata holds, is named, or lies in a named directory.
	filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if strings.HasPrefix(d.Name(), ".") && rel != "." || d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if rel == "." || covered(rel) {
			return nil
		}
		if gos, _ := filepath.Glob(filepath.Join(path, "*.go")); len(gos) > 0 {
			problems = append(problems, "docs/development.md's layout leaves out "+rel)
		} else if mods, _ := filepath.Glob(filepath.Join(path, "go.mod")); len(mods) > 0 {
			problems = append(problems, "docs/development.md's layout leaves out the module "+rel)
		}
		return nil
	})
	return problems
}
