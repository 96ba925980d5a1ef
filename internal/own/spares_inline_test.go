package own

import (
	"os/exec"
	"regexp"
	"testing"
)

// TestHotPathsInline: what a generated decoder calls once per nested
// message (TakeSpare, through grpcfastimpl.Spare) and once per array it
// records (LogArray, through grpcfastimpl.LogCleared and the others) inline
// into the caller. A change that makes one of them too costly for the
// compiler's budget fails here, not only in a profile.
func TestHotPathsInline(t *testing.T) {
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
	for _, fn := range []string{`\(\*Record\)\.TakeSpare`, `\(\*Record\)\.LogArray`} {
		if !regexp.MustCompile(`can inline ` + fn + `\b`).Match(out) {
			t.Errorf("%s does not inline any more (go build -gcflags=-m=2 ./internal/own says why)", fn)
		}
	}
}
