// Package scripts holds the tests of what the repository's scripts compute
// from benchmark results, run by go test like every other test.
package scripts

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// writeRounds writes, for each ratio r[i], a round i+1 of the OTLP replay
// in which vtprotobuf's codec costs the server 1000 ns per call and the
// default path 1000*r[i], as the generated benchmarks print them.
func writeRounds(t *testing.T, ratios []float64) string {
	t.Helper()
	var b strings.Builder
	for i, r := range ratios {
		fmt.Fprintf(&b, "BenchmarkGrpcfast_TraceService/Export/round=%d/codec=vtproto \t 100\t 5000 ns/op\t 1000 srv-cpu-ns/op\n", i+1)
		fmt.Fprintf(&b, "BenchmarkGrpcfast_TraceService/Export/round=%d/codec=grpcfast \t 100\t 5000 ns/op\t %.0f srv-cpu-ns/op\n", i+1, 1000*r)
	}
	f := filepath.Join(t.TempDir(), "results.txt")
	if err := os.WriteFile(f, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// summary runs ratios.sh --summary on files and returns the line of the
// default path against vtprotobuf's codec.
func summary(t *testing.T, files ...string) string {
	t.Helper()
	out, err := exec.Command("bash", append([]string{"ratios.sh", "--summary"}, files...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("ratios.sh --summary: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "grpcfast / vtproto") {
			return line
		}
	}
	t.Fatalf("ratios.sh --summary printed no line for grpcfast / vtproto:\n%s", out)
	return ""
}

// ciRank is the rank, from either end, of the bounds of a 95% confidence
// interval for the median of n values (a sign test), computed apart from
// the script: the largest k with 2 P(B <= k-1) <= 0.05, B binomial of n
// trials of one half; 0 where none is.
func ciRank(n int) int {
	k := 0
	for j := 0; 2*j < n; j++ {
		p := 0.0
		for i := 0; i <= j; i++ {
			lc, _ := math.Lgamma(float64(n + 1))
			li, _ := math.Lgamma(float64(i + 1))
			lr, _ := math.Lgamma(float64(n - i + 1))
			p += math.Exp(lc - li - lr - float64(n)*math.Ln2)
		}
		if 2*p > 0.05 {
			break
		}
		k = j + 1
	}
	return k
}

func TestRatiosSummary(t *testing.T) {
	// Ratios 0.70, 0.71, ... 0.79, in rounds of a shuffled order.
	ratios := []float64{0.74, 0.71, 0.79, 0.70, 0.76, 0.73, 0.78, 0.72, 0.75, 0.77}
	got := summary(t, writeRounds(t, ratios))
	want := "median 0.745  95% CI 0.710 to 0.780  quartiles 0.720 to 0.770  all 0.700 to 0.790  (10 rounds)"
	if !strings.HasSuffix(got, want) {
		t.Errorf("10 rounds:\n got %s\nwant ...%s", got, want)
	}
}

func TestRatiosSummaryInterval(t *testing.T) {
	// For each number of rounds, distinct ratios: the interval's bounds
	// are the values of rank k from either end, k from the binomial
	// distribution; none below 6 rounds.
	re := regexp.MustCompile(`95% CI (\d\.\d{3}) to (\d\.\d{3})`)
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{3, 5, 6, 7, 9, 10, 16, 17, 24, 25, 40} {
		sorted := make([]float64, n)
		for i := range sorted {
			sorted[i] = 0.5 + float64(i)/100
		}
		ratios := append([]float64(nil), sorted...)
		r.Shuffle(n, func(i, j int) { ratios[i], ratios[j] = ratios[j], ratios[i] })
		got := summary(t, writeRounds(t, ratios))
		k := ciRank(n)
		if k == 0 {
			if !strings.Contains(got, "95% CI: too few rounds") {
				t.Errorf("%d rounds: %s\nwant no interval", n, got)
			}
			continue
		}
		m := re.FindStringSubmatch(got)
		if want := []string{fmt.Sprintf("%.3f", sorted[k-1]), fmt.Sprintf("%.3f", sorted[n-k])}; m == nil || m[1] != want[0] || m[2] != want[1] {
			t.Errorf("%d rounds: %s\nwant 95%% CI %s to %s (ranks %d and %d)", n, got, want[0], want[1], k, n+1-k)
		}
	}
	if k := ciRank(6); k != 1 {
		t.Errorf("ciRank(6) = %d, want 1: 2/64 is below 5%%", k)
	}
	if k := ciRank(10); k != 2 {
		t.Errorf("ciRank(10) = %d, want 2: 2*11/1024 is below 5%%, 2*56/1024 above", k)
	}
}

func TestRatiosSummaryPoolsRuns(t *testing.T) {
	// Two runs of rounds 1 to 3 each: 6 rounds, not 3 whose second run
	// overwrote the first.
	a := writeRounds(t, []float64{0.70, 0.72, 0.74})
	b := writeRounds(t, []float64{0.80, 0.82, 0.84})
	got := summary(t, a, b)
	want := "median 0.770  95% CI 0.700 to 0.840  quartiles 0.720 to 0.820  all 0.700 to 0.840  (6 rounds)"
	if !strings.HasSuffix(got, want) {
		t.Errorf("two runs of 3 rounds:\n got %s\nwant ...%s", got, want)
	}
}

func TestRatiosSummaryNoFiles(t *testing.T) {
	out, err := exec.Command("bash", "ratios.sh", "--summary").CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
		t.Fatalf("ratios.sh --summary without files: %v, want exit status 2\n%s", err, out)
	}
	if !strings.Contains(string(out), "name the files of results") {
		t.Errorf("ratios.sh --summary without files said %q", out)
	}
}

// writeInnerRounds writes, for each ratio r[i][j], round j+1 within round
// i+1 (RATIOS_INNER), named as ratios.sh names them with RATIOS_REV too
// (round=I/build=tree/round=J), in which vtprotobuf's codec costs the server
// 1000 ns per call and the default path 1000*r[i][j].
func writeInnerRounds(t *testing.T, ratios [][]float64) string {
	t.Helper()
	var b strings.Builder
	for i, inner := range ratios {
		for j, r := range inner {
			for _, c := range []struct {
				codec string
				ns    float64
			}{{"vtproto", 1000}, {"grpcfast", 1000 * r}} {
				fmt.Fprintf(&b, "BenchmarkGrpcfast_TraceService/Export/round=%d/build=tree/round=%d/codec=%s \t 100\t 5000 ns/op\t %.0f srv-cpu-ns/op\n", i+1, j+1, c.codec, c.ns)
			}
		}
	}
	f := filepath.Join(t.TempDir(), "results.txt")
	if err := os.WriteFile(f, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

func TestRatiosSummaryInnerRounds(t *testing.T) {
	// Two rounds of three within each: six rounds, none of which
	// overwrote another of the same outer round.
	got := summary(t, writeInnerRounds(t, [][]float64{{0.70, 0.72, 0.74}, {0.80, 0.82, 0.84}}))
	want := "median 0.770  95% CI 0.700 to 0.840  quartiles 0.720 to 0.820  all 0.700 to 0.840  (6 rounds)"
	if !strings.HasSuffix(got, want) {
		t.Errorf("two rounds of 3 inner rounds:\n got %s\nwant ...%s", got, want)
	}
	if !strings.Contains(got, "build=tree") {
		t.Errorf("the setting is lost: %s", got)
	}
}

func TestRatiosInnerNeedsSharedServer(t *testing.T) {
	for _, env := range [][]string{
		{"RATIOS_INNER=4", "RATIOS_SERVERS=apart"},
		{"RATIOS_INNER=4", "RATIOS_SERVERS=shared apart"},
		{"RATIOS_INNER=x"},
		{"RATIOS_INNER=0"},
	} {
		cmd := exec.Command("bash", "ratios.sh", "6")
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
			t.Errorf("%v: %v, want exit status 2 before anything is built\n%s", env, err, out)
			continue
		}
		if !strings.Contains(string(out), "RATIOS_INNER") || strings.Contains(string(out), "building") {
			t.Errorf("%v said %q", env, out)
		}
	}
}

func TestRatiosSummaryByRun(t *testing.T) {
	// Six runs of three rounds each, whose medians are 0.70 to 0.75: the
	// line by run takes those six as its values.
	var ratios [][]float64
	for i := range 6 {
		d := float64(i) / 100
		ratios = append(ratios, []float64{0.90 + d, 0.70 + d, 0.50 + d})
	}
	out, err := exec.Command("bash", "ratios.sh", "--summary", writeInnerRounds(t, ratios)).CombinedOutput()
	if err != nil {
		t.Fatalf("ratios.sh --summary: %v\n%s", err, out)
	}
	var lines []string
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "grpcfast / vtproto") {
			lines = append(lines, line)
		}
	}
	want := []string{
		// 0.50 to 0.55, 0.70 to 0.75 and 0.90 to 0.95: ranks 9 and 10 for
		// the median, 5 from either end for the interval (ciRank(18)).
		"median 0.725  95% CI 0.540 to 0.910  quartiles 0.540 to 0.910  all 0.500 to 0.950  (18 rounds)",
		"median 0.725  95% CI 0.700 to 0.750  by run, each the median of its rounds  (6 runs)",
	}
	if len(lines) != 2 || !strings.HasSuffix(lines[0], want[0]) || !strings.HasSuffix(lines[1], want[1]) {
		t.Errorf("six runs of three rounds:\n got %q\nwant lines ending in %q", lines, want)
	}
	// Rounds of separate runs (no RATIOS_INNER) have no line by run.
	out, _ = exec.Command("bash", "ratios.sh", "--summary", writeRounds(t, []float64{0.7, 0.8, 0.9, 0.7, 0.8, 0.9})).CombinedOutput()
	if strings.Contains(string(out), "by run") {
		t.Errorf("rounds without inner rounds printed a line by run:\n%s", out)
	}
}

// runs runs ratios.sh --runs on files and returns what it prints.
func runs(t *testing.T, files ...string) string {
	t.Helper()
	out, err := exec.Command("bash", append([]string{"ratios.sh", "--runs"}, files...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("ratios.sh --runs: %v\n%s", err, out)
	}
	return strings.TrimSpace(string(out))
}

// ratios.sh --runs counts the go test runs of a results file and the rounds
// within each, for BENCHMARKS.md's command line: 6 runs of 8 rounds are 6
// and 8, not 8 (the rounds within a run number 1 to 8 too, and were once
// counted as runs).
func TestRatiosRuns(t *testing.T) {
	inner := func(runs, rounds int) [][]float64 {
		r := make([][]float64, runs)
		for i := range r {
			r[i] = make([]float64, rounds)
			for j := range r[i] {
				r[i][j] = 0.75
			}
		}
		return r
	}
	for _, c := range []struct {
		name  string
		files []string
		want  string
	}{
		{"6 runs of 8 rounds", []string{writeInnerRounds(t, inner(6, 8))}, "6 8"},
		{"10 runs of 8 rounds", []string{writeInnerRounds(t, inner(10, 8))}, "10 8"},
		{"2 runs of 3 rounds", []string{writeInnerRounds(t, inner(2, 3))}, "2 3"},
		{"rounds alone", []string{writeRounds(t, []float64{0.7, 0.8, 0.75, 0.71})}, "4 0"},
		{"two files of 2 runs of 3", []string{writeInnerRounds(t, inner(2, 3)), writeInnerRounds(t, inner(2, 3))}, "4 3"},
	} {
		if got := runs(t, c.files...); got != c.want {
			t.Errorf("%s: ratios.sh --runs printed %q, want %q", c.name, got, c.want)
		}
	}
	out, err := exec.Command("bash", "ratios.sh", "--runs").CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "--runs") {
		t.Errorf("ratios.sh --runs without files: %v, %q; want exit status 2 and a message naming --runs", err, out)
	}
}
