package generator

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestBenchstatPinned: the benchstat that the generated benchmarks' comment
// runs, and every one the documentation runs, is the one tools/go.mod pins
// (golang.org/x/perf), not @latest: a user who follows either compares with
// the same benchstat as make bench.
func TestBenchstatPinned(t *testing.T) {
	mod, err := os.ReadFile("../../tools/go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*golang\.org/x/perf (\S+)`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("tools/go.mod requires no golang.org/x/perf")
	}
	if pinned := string(m[1]); benchstatVersion != pinned {
		t.Errorf("benchstatVersion is %s, tools/go.mod pins golang.org/x/perf %s", benchstatVersion, pinned)
	}
	docs, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	runs := regexp.MustCompile(`cmd/benchstat@(\S+)`)
	found := 0
	for _, f := range append(docs, "../../README.md") {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range runs.FindAllSubmatch(b, -1) {
			found++
			if v := strings.TrimRight(string(r[1]), "`"); v != benchstatVersion {
				t.Errorf("%s runs benchstat@%s, want @%s (tools/go.mod)", filepath.Base(f), v, benchstatVersion)
			}
		}
	}
	if found == 0 {
		t.Error("no document runs benchstat by its version: docs/benchmarks.md did")
	}
}
