package grpcfast_test

import (
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// foreignNames are names that docs/internals.md takes from other projects'
// code, where one jumps to them in that project: not identifiers of this
// module.
var foreignNames = map[string]string{
	"consumeMap": "protobuf-go's internal/impl/codec_map.go",
}

// TestInternalsNames keeps docs/internals.md's promise that every name in it
// is a Go identifier to jump to: each code span that is a Go name, a dotted
// one (`Slot.Settle`, `grpcfastimpl.PooledRegistrar`) or one called or
// instantiated (`PooledUnary[Req]("Method", call)`) names identifiers that
// the module's Go code (comments left out) has, or that foreignNames says
// come from elsewhere.
func TestInternalsNames(t *testing.T) {
	page, err := os.ReadFile("docs/internals.md")
	if err != nil {
		t.Fatal(err)
	}
	idents, err := moduleIdents(".")
	if err != nil {
		t.Fatal(err)
	}
	checked, problems := unknownNames(string(page), idents)
	for _, p := range problems {
		t.Error(p)
	}
	if checked < 100 {
		t.Errorf("checked %d names of docs/internals.md: the span parser is broken", checked)
	}
}

// TestInternalsNamesCatchesStaleNames: a name that no code has, in a
// dotted name or a call, is reported; file names, placeholders and quoted
// strings are not names.
func TestInternalsNamesCatchesStaleNames(t *testing.T) {
	idents := map[string]bool{"own": true, "SetDecoded": true, "Slot": true, "Settle": true, "New": true}
	page := "`own.SetDecoded` `Slot.Settle` `own.Decoded` `Nowhere(x)` `New[T](x)` `Gone[T]` " +
		"`x_grpc.pb.go` `Register<Service>Server` `\"proto\"` `-grpcfast.size`"
	checked, problems := unknownNames(page, idents)
	want := []string{"own.Decoded", "Nowhere(x)", "Gone[T]"}
	if checked != 6 || len(problems) != len(want) {
		t.Fatalf("checked %d names, problems %q; want 6 names and problems for %q", checked, problems, want)
	}
	for i, w := range want {
		if !strings.Contains(problems[i], "`"+w+"`") {
			t.Errorf("problem %d: %q, want one about `%s`", i, problems[i], w)
		}
	}
}

var (
	codeSpan = regexp.MustCompile("`([^`\n]+)`")
	// goName is a Go name, dotted or not, and what may follow it: type
	// arguments or a call.
	goName = regexp.MustCompile(`^([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(?:[\[(].*)?$`)
)

// unknownNames returns how many code spans of page name Go identifiers, and
// a problem for each that names one idents does not have.
func unknownNames(page string, idents map[string]bool) (checked int, problems []string) {
	for _, line := range proseLines(page) {
		for _, m := range codeSpan.FindAllStringSubmatch(line, -1) {
			n := goName.FindStringSubmatch(m[1])
			if n == nil {
				continue
			}
			parts := strings.Split(n[1], ".")
			switch parts[len(parts)-1] {
			case "go", "md", "proto", "mod", "sum", "yaml", "json", "txt":
				continue // a file name
			}
			checked++
			for _, p := range parts {
				if !idents[p] && foreignNames[p] == "" && !token.IsKeyword(p) {
					problems = append(problems, "docs/internals.md names `"+m[1]+"`, but no Go code of the module has "+p)
					break
				}
			}
		}
	}
	return checked, problems
}

// moduleIdents returns every identifier in the Go files of the module at
// root, nested modules and comments left out.
func moduleIdents(root string) (map[string]bool, error) {
	idents := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root {
				if strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir // a module of its own
				}
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var s scanner.Scanner
		fset := token.NewFileSet()
		s.Init(fset.AddFile(path, -1, len(src)), src, nil, 0)
		for {
			_, tok, lit := s.Scan()
			if tok == token.EOF {
				return nil
			}
			if tok == token.IDENT {
				idents[lit] = true
			}
		}
	})
	return idents, err
}
