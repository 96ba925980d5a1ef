package grpcfast_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// notInMakeTest are the test-* targets that make test leaves out, and why.
var notInMakeTest = map[string]string{
	"test-compat": "the oldest Go toolchain, downloaded the first time; make test runs test-newest",
}

// TestMakeTestStages keeps make test and docs/development.md true to each
// other: every stage of make test has a help line (make help) and prints
// what it does (an echo "==> line), docs/development.md names each one as
// `make <stage>`, every test-* target is a stage of make test or says in
// notInMakeTest why it is not, and test-checked picks no tests by name.
func TestMakeTestStages(t *testing.T) {
	makefile, err := os.ReadFile("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile("docs/development.md")
	if err != nil {
		t.Fatal(err)
	}
	stages, problems := makeTestProblems(string(makefile), string(page))
	for _, p := range problems {
		t.Error(p)
	}
	if len(stages) < 8 {
		t.Errorf("make test has %d stages, %v: the Makefile's parser is broken", len(stages), stages)
	}
}

// TestMakeTestStagesCatchesOmissions: a stage that docs/development.md
// leaves out, one that prints nothing, one without a help line, and a test-*
// target that make test does not run, are each reported.
func TestMakeTestStagesCatchesOmissions(t *testing.T) {
	makefile, err := os.ReadFile("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile("docs/development.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		file, from, to, want string
	}{
		{"docs", "- `make test-fuzz`:", "- fuzzing:", "docs/development.md does not name `make test-fuzz`"},
		{"Makefile", `@echo "==> test-peers: `, `@echo "peers: `, "test-peers prints no"},
		{"Makefile", "test-checked: ## ", "test-checked: # ", "test-checked has no help line"},
		{"Makefile", " test-thirdparty test-fuzz ##", " test-fuzz ##", "test-thirdparty is not a stage of make test"},
		{"Makefile", "go test -tags grpcfast_checked -count=1 ./...", "go test -tags grpcfast_checked -count=1 -run 'Checked' ./...", "test-checked selects tests with -run"},
	} {
		m, p := string(makefile), string(page)
		target := &m
		if tc.file == "docs" {
			target = &p
		}
		broken := strings.Replace(*target, tc.from, tc.to, 1)
		if broken == *target {
			t.Fatalf("%s has no %q to break", tc.file, tc.from)
		}
		*target = broken
		_, problems := makeTestProblems(m, p)
		if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, tc.want) }) {
			t.Errorf("replacing %q with %q in %s: %q, want a problem with %q", tc.from, tc.to, tc.file, problems, tc.want)
		}
	}
}

var (
	makeTestLine = regexp.MustCompile(`(?m)^test:([^#\n]*)##`)
	makeTarget   = regexp.MustCompile(`(?m)^([a-z][a-z0-9-]*):`)
)

// makeTestProblems returns the stages of make test (its prerequisites) in
// makefile, and what is wrong with them and with their description in page
// (docs/development.md).
func makeTestProblems(makefile, page string) (stages []string, problems []string) {
	m := makeTestLine.FindStringSubmatch(makefile)
	if m == nil {
		return nil, []string{"the Makefile has no test target with a help line"}
	}
	stages = strings.Fields(m[1])
	// recipe returns the lines of target's recipe, and its rule's line.
	recipe := func(target string) (rule string, lines []string) {
		i := strings.Index(makefile, "\n"+target+":")
		if i < 0 {
			return "", nil
		}
		rest := strings.Split(makefile[i+1:], "\n")
		for _, l := range rest[1:] {
			if !strings.HasPrefix(l, "\t") {
				break
			}
			lines = append(lines, l)
		}
		return rest[0], lines
	}
	for _, s := range stages {
		rule, lines := recipe(s)
		switch {
		case rule == "":
			problems = append(problems, "make test's stage "+s+" is no target of the Makefile")
			continue
		case !strings.Contains(rule, "## "):
			problems = append(problems, s+" has no help line (## after its prerequisites), so make help leaves it out")
		}
		if !slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, `@echo "==> `+s+`: `) }) {
			problems = append(problems, s+` prints no line saying what it does (@echo "==> `+s+`: ...")`)
		}
		if !strings.Contains(page, "`make "+s+"`") {
			problems = append(problems, "docs/development.md does not name `make "+s+"`, a stage of make test")
		}
	}
	// The checked build runs every test, so that none is left out by its
	// name (grpcfasttest.SkipInCheckedBuild says why one cannot hold there).
	if _, lines := recipe("test-checked"); slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, " -run ") }) {
		problems = append(problems, "test-checked selects tests with -run: a test whose name does not fit is left out of the checked build")
	}
	for _, t := range makeTarget.FindAllStringSubmatch(makefile, -1) {
		name := t[1]
		if strings.HasPrefix(name, "test-") && !slices.Contains(stages, name) && notInMakeTest[name] == "" {
			problems = append(problems, name+" is not a stage of make test, and notInMakeTest does not say why")
		}
	}
	return stages, problems
}
