package generator_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// badArticle matches "a" before a name that starts with A, E, I or O (a
// type, or a service and its method): "a Execution.Execute stream", "A
// AlphaReusingClient".
var badArticle = regexp.MustCompile(`(^|[^A-Za-z])([Aa]) \*?[AEIO][A-Za-z]*([A-Z]|\.)`)

// checkArticles reports the comment lines of a generated file that say "a"
// before a name read with a vowel.
func checkArticles(t *testing.T, name, content string) {
	t.Helper()
	for i, line := range strings.Split(content, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "//") && badArticle.MatchString(line) {
			t.Errorf("%s:%d: %s", name, i+1, line)
		}
	}
}

// TestArticlesOfEveryKind generates a service whose name starts with a
// vowel, with a method of every kind, and reads every comment of the
// output: receivers, the reusing client and its methods (CloseAndRecv
// included), pooled handlers, benchmarks.
func TestArticlesOfEveryKind(t *testing.T) {
	src := map[string]string{"echo.proto": `syntax = "proto3";
package acme.echo.v1;
option go_package = "example.com/echo/v1;echov1";
message EchoRequest { string text = 1; }
message EchoResponse { string text = 1; }
service EchoService {
  rpc Unary(EchoRequest) returns (EchoResponse);
  rpc Upload(stream EchoRequest) returns (EchoResponse);
  rpc Watch(EchoRequest) returns (stream EchoResponse);
  rpc Chat(stream EchoRequest) returns (stream EchoResponse);
}
`}
	resp := run(t, compile(t, []string{"echo.proto"}, "", src))
	if resp.GetError() != "" {
		t.Fatal(resp.GetError())
	}
	for _, want := range []string{"an EchoService.Upload call", "an EchoService.Watch stream", "An EchoServiceReusingClient is", "returns an EchoServiceReusingClient"} {
		found := false
		for _, f := range resp.File {
			found = found || strings.Contains(strings.Join(strings.Fields(strings.ReplaceAll(f.GetContent(), "//", "")), " "), want)
		}
		if !found {
			t.Errorf("no generated comment says %q", want)
		}
	}
	for _, f := range resp.File {
		checkArticles(t, f.GetName(), f.GetContent())
	}
}

// TestGeneratedArticles reads the comments of every generated file in the
// repository (golden cases, the example, the third-party trees) for "a"
// before a name that starts with a vowel: "a Execution.Execute stream", "A
// AlphaReusingClient".
func TestGeneratedArticles(t *testing.T) {
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
		checkArticles(t, path, string(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no generated file found")
	}
}
