package prototest

import (
	"os/exec"
	"regexp"
	"testing"
)

// CheckInlined fails t for each of funcs (regular expressions of the
// compiler's names, such as `\(\*Record\)\.TakeSpare`) that the compiler no
// longer can inline in the package of the current directory: the hot calls
// of generated decoders, whose cost a profile would otherwise be the first
// to show. It is skipped in short mode and without a go command.
func CheckInlined(t *testing.T, funcs ...string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the package with -gcflags=-m")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	out, err := exec.Command(goTool, "build", "-gcflags=-m", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build -gcflags=-m: %v\n%s", err, out)
	}
	for _, fn := range funcs {
		if !regexp.MustCompile(`can inline ` + fn + `\b`).Match(out) {
			t.Errorf("%s does not inline any more (go build -gcflags=-m=2 . says why)", fn)
		}
	}
}
