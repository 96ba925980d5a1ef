package grpcfastbench

import (
	"flag"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"strings"
	"testing"
)

// packageDoc returns the package documentation (doc.go's comment).
func packageDoc(t *testing.T) string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	if f.Doc == nil {
		t.Fatal("doc.go has no package documentation")
	}
	return f.Doc.Text()
}

// TestPackageDocPaths: the package documentation says how many paths a
// method runs on, and lists each, as newPaths makes them.
func TestPackageDocPaths(t *testing.T) {
	for _, problem := range docPathProblems(packageDoc(t)) {
		t.Error(problem)
	}
}

// TestPackageDocPathsCatchesStaleCounts: a count that is not newPaths', and
// a path left out of the list, are reported.
func TestPackageDocPathsCatchesStaleCounts(t *testing.T) {
	doc := packageDoc(t)
	for _, tc := range []struct{ from, to, want string }{
		{"on five\npaths", "on three\npaths", "says three paths"},
		{"  - codec=grpcfast-pooled-copy:", "  - pooled with the copy:", "codec=grpcfast-pooled-copy"},
		{"and a sixth with -grpcfast.floor", "", "codec=floor"},
	} {
		broken := strings.Replace(doc, tc.from, tc.to, 1)
		if broken == doc {
			t.Fatalf("the package documentation has no %q to break", tc.from)
		}
		problems := docPathProblems(broken)
		if !strings.Contains(strings.Join(problems, "\n"), tc.want) {
			t.Errorf("replacing %q with %q: %q, want a problem with %q", tc.from, tc.to, problems, tc.want)
		}
	}
}

var pathCount = regexp.MustCompile(`runs each method on (\w+)\s+paths in the same run(, and a sixth with -grpcfast\.floor)?`)

// docPathProblems checks what doc, the package documentation, says of the
// paths against newPaths.
func docPathProblems(doc string) []string {
	plain, all := newPaths(&config{}), newPaths(&config{floor: true})
	words := map[string]int{"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}
	var problems []string
	m := pathCount.FindStringSubmatch(doc)
	switch {
	case m == nil:
		problems = append(problems, "the package documentation does not say on how many paths it runs each method")
	case words[m[1]] != len(plain):
		problems = append(problems, "the package documentation says "+m[1]+" paths; newPaths makes "+
			strings.Join(pathNames(plain), ", "))
	case len(all) > len(plain) && m[2] == "":
		problems = append(problems, "the package documentation does not say that -grpcfast.floor adds codec=floor")
	}
	for _, p := range all {
		if !strings.Contains(doc, "  - codec="+p.name+":") && !strings.Contains(doc, "  - codec="+p.name+",") {
			problems = append(problems, "the package documentation's list of paths leaves out codec="+p.name)
		}
	}
	return problems
}

// TestPackageDocFlags: the Flags section of the package documentation,
// which the generated benchmarks' comment points to, lists every flag that
// the package registers.
func TestPackageDocFlags(t *testing.T) {
	doc := packageDoc(t)
	i := strings.Index(doc, "# Flags")
	if i < 0 {
		t.Fatal("the package documentation has no Flags section")
	}
	n := 0
	flag.CommandLine.VisitAll(func(f *flag.Flag) {
		if !strings.HasPrefix(f.Name, FlagPrefix) {
			return
		}
		n++
		if !regexp.MustCompile(`(?m)^\s+-` + regexp.QuoteMeta(f.Name) + `[= ]`).MatchString(doc[i:]) {
			t.Errorf("the Flags section of the package documentation leaves out -%s", f.Name)
		}
	})
	if n < 10 {
		t.Errorf("found %d -%s* flags: are they registered on flag.CommandLine?", n, FlagPrefix)
	}
}

// TestGeneratedCommentPointsToFlags: the comment of the generated
// benchmarks (here the example's) sends the reader to a section of this
// package's documentation that exists.
func TestGeneratedCommentPointsToFlags(t *testing.T) {
	src, err := os.ReadFile("../example/examplepb/user_grpcfast_bench_test.go")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(strings.ReplaceAll(string(src), "//", "")), " ")
	m := regexp.MustCompile(`are listed in the (\w+) section of the documentation of package (\S+)\.`).FindStringSubmatch(text)
	if m == nil {
		t.Fatal("the generated benchmark's comment does not say where the -grpcfast.* flags are listed")
	}
	if m[2] != "github.com/grpcfast/grpcfast/grpcfastbench" {
		t.Errorf("the generated benchmark's comment points to package %s, want this one", m[2])
	}
	if !regexp.MustCompile(`(?m)^# ` + m[1] + `$`).MatchString(packageDoc(t)) {
		t.Errorf("the generated benchmark's comment points to a section %q that the package documentation does not have", m[1])
	}
}
