package decode

import (
	"os/exec"
	"regexp"
	"testing"
)

// TestHotPathsInline: the calls that generated decoders make once a field
// inline into them, so that a view, a 7-bit input or a check turned off
// costs no call; copies go through the functions marked go:noinline beside
// them. A change that makes one of them too costly for the compiler's
// budget fails here, not only in a profile.
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
	for _, fn := range []string{
		`\(\*Decoding\)\.String`, `\(\*Decoding\)\.Bytes`, `\(\*Decoding\)\.BytesPresent`,
		`\(\*Decoding\)\.CheckUTF8`, `\(\*Decoding\)\.Sweep`, `\(\*Slabs\)\.copy`,
	} {
		if !regexp.MustCompile(`can inline ` + fn + `\b`).Match(out) {
			t.Errorf("%s does not inline any more (go build -gcflags=-m=2 ./internal/decode says why)", fn)
		}
	}
}
