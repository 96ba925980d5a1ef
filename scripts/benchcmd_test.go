package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// benchcmd runs a bash snippet after sourcing benchcmd.bash, with args as
// $1..., and returns what it prints.
func benchcmd(t *testing.T, snippet string, args ...string) string {
	t.Helper()
	cmd := exec.Command("bash", append([]string{"-c", "source benchcmd.bash && " + snippet, "benchcmd"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", snippet, err, out)
	}
	return strings.TrimSuffix(string(out), "\n")
}

// A section of BENCHMARKS.md whose step a later run kept (BENCH_ONLY) names
// the command that made its results, not one with the later run's count
// and -benchtime: a size sweep of 6 rounds of 0.5s, kept by a run of
// BENCH_COUNT=18 BENCH_TIME=1s, was named `scripts/sizesweep.sh 18`
// (BENCHMARKS.md at 71e6bb5's next rewrite, before benchcmd.bash).
func TestBenchCommandKeptStep(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "size-sweep.txt"), []byte("goos: linux\ngoos: linux\nBenchmarkX 1 1 ns/op\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	benchcmd(t, `bench_record "$1" size-sweep 6 0.5s`, dir)
	ran := benchcmd(t, `bench_ran "$1" size-sweep 18 1s`, dir)
	if ran != "6 0.5s" {
		t.Fatalf("bench_ran: %q, want the recorded %q", ran, "6 0.5s")
	}
	text := "`scripts/sizesweep.sh 18 -test.benchmem -test.benchtime 1s`: the example's CreateUser, -test.benchtime 1s again"
	got := benchcmd(t, `read -r c b < <(bench_ran "$1" size-sweep 18 1s) && bench_command "$2" 18 1s "$c" "$b"`, dir, text)
	want := "`scripts/sizesweep.sh 6 -test.benchmem -test.benchtime 0.5s`: the example's CreateUser, -test.benchtime 0.5s again"
	if got != want {
		t.Fatalf("bench_command:\n got %s\nwant %s", got, want)
	}
}

// Results of a run from before steps recorded their settings: a gobench.sh
// step's rounds are its goos: lines; any other step keeps this run's count.
func TestBenchRanUnrecorded(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"gen":   strings.Repeat("goos: linux\nBenchmarkX 1 1 ns/op\n", 4),
		"other": "BenchmarkX 1 1 ns/op\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name+".txt"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, want := range map[string]string{"gen": "4 0.5s", "other": "18 0.5s", "missing": "18 0.5s"} {
		if got := benchcmd(t, `bench_ran "$1" "$2" 18 0.5s`, dir, name); got != want {
			t.Errorf("bench_ran %s: %q, want %q", name, got, want)
		}
	}
}

// Only the count after a script's name and the -benchtime flag change: a
// figure that happens to equal the count elsewhere in the text stays.
func TestBenchCommandOnlyTheFlags(t *testing.T) {
	text := "`scripts/gobench.sh 6 . -test.bench X -test.benchtime 5x`: 6 rounds of 16 KiB"
	got := benchcmd(t, `bench_command "$1" 6 0.5s 12 1s`, text)
	want := "`scripts/gobench.sh 12 . -test.bench X -test.benchtime 5x`: 6 rounds of 16 KiB"
	if got != want {
		t.Fatalf("bench_command:\n got %s\nwant %s", got, want)
	}
}
