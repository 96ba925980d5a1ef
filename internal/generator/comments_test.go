package generator

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestArticle(t *testing.T) {
	for word, want := range map[string]string{
		"Alpha":       "an",
		"Execution":   "an",
		"Images":      "an",
		"Operations":  "an",
		"Update":      "an",
		"Undo":        "an",
		"actionCache": "an",
		"User":        "a",
		"Unary":       "a",
		"Unit":        "a",
		"UUID":        "a",
		"Chunk":       "a",
		"Receiver":    "a",
		"":            "a",
	} {
		if got := article(word); got != want {
			t.Errorf("article(%q) = %q, want %q", word, got, want)
		}
		if got, want := sentenceArticle(word), strings.ToUpper(want[:1])+want[1:]; got != want {
			t.Errorf("sentenceArticle(%q) = %q, want %q", word, got, want)
		}
	}
}

// TestGeneratedArticles reads the comments of every generated file in the
// repository (golden cases, the example, the third-party trees) for "a"
// before a name that starts with a vowel: "a Execution.Execute stream", "A
// AlphaReusingClient".
func TestGeneratedArticles(t *testing.T) {
	bad := regexp.MustCompile(`(^|[^A-Za-z])([Aa]) \*?[AEIO][A-Za-z]*([A-Z]|\.)`)
	n := 0
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !(strings.HasSuffix(path, "_grpcfast.pb.go") || strings.HasSuffix(path, "_grpcfast_bench_test.go")) {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		for i, line := range strings.Split(string(b), "\n") {
			line = strings.TrimSpace(line)
			if strings.HasPrefix(line, "//") && bad.MatchString(line) {
				t.Errorf("%s:%d: %s", path, i+1, line)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no generated file found")
	}
}
