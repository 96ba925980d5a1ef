package prototest

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// CheckInlined fails t for each of funcs (regular expressions of the
// compiler's names, such as `\(\*Record\)\.TakeSpare`) that the compiler no
// longer can inline in the package of the current directory: the hot calls
// of generated decoders, whose cost a profile would otherwise be the first
// to show. It is skipped in short mode and without a go command.
func CheckInlined(t *testing.T, funcs ...string) {
	t.Helper()
	out := buildM(t, ".")
	for _, fn := range funcs {
		if !regexp.MustCompile(`can inline ` + fn + `\b`).Match(out) {
			t.Errorf("%s does not inline any more (go build -gcflags=-m=2 . says why)", fn)
		}
	}
}

// CheckNoCalls fails t for each call that a function of pkg whose name
// matches funcs (go tool objdump -s) makes to a function whose name matches
// one of callees: what must be inlined into generated code, where a call
// that can be inlined where it is declared may still not be (the compiler
// inlines no call into another package from the body of a generic
// function). It fails too if no function matches funcs.
func CheckNoCalls(t *testing.T, pkg, funcs string, callees ...string) {
	t.Helper()
	goTool := goCommand(t)
	archive := filepath.Join(t.TempDir(), "pkg.a")
	if out, err := exec.Command(goTool, "build", "-o", archive, pkg).CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	out, err := exec.Command(goTool, "tool", "objdump", "-s", funcs, archive).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool objdump -s %s: %v\n%s", funcs, err, out)
	}
	if !bytes.Contains(out, []byte("TEXT ")) {
		t.Fatalf("no function of %s matches %s", pkg, funcs)
	}
	res := make([]*regexp.Regexp, len(callees))
	for i, c := range callees {
		res[i] = regexp.MustCompile(`R_CALL:` + c + `(\s|$)`)
	}
	fn := ""
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "TEXT ") {
			fn = strings.Fields(line)[1]
			continue
		}
		for _, re := range res {
			if re.MatchString(line) {
				_, callee, _ := strings.Cut(line, "R_CALL:")
				t.Errorf("%s calls %s, which should be inlined there", fn, strings.TrimSpace(callee))
			}
		}
	}
}

// buildM returns what go build -gcflags=-m says of pkg, skipping t in short
// mode and without a go command.
func buildM(t *testing.T, pkg string) []byte {
	t.Helper()
	out, err := exec.Command(goCommand(t), "build", "-gcflags=-m", pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go build -gcflags=-m %s: %v\n%s", pkg, err, out)
	}
	return out
}

// goCommand returns the go command, skipping t in short mode (it builds)
// and without one.
func goCommand(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds with the go command")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	return goTool
}
