package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// results is benchstat -format csv -col '/codec@(grpcfast proto vtproto)'
// over 6 samples: Put with all three paths, Note (an editions method) with
// no codec=vtproto, and the server's figures for Put only.
const results = `goos: linux
pkg: example
,grpcfast,,proto,,,,vtproto,,,
,sec/op,CI,sec/op,CI,vs base,P,sec/op,CI,vs base,P
Grpcfast_ChunkService/Put-2,0.0015,1%,0.003,2%,+100.00%,p=0.002 n=6,0.0031,3%,~,p=0.310 n=6
Grpcfast_NoteService/Note-2,0.0001,1%,0.00011,2%,~,p=0.240 n=6,,,,
geomean,0.001,,0.002,,+50%,,0.003,,+60%,

,grpcfast,,proto,,,,vtproto,,,
,B/op,CI,B/op,CI,vs base,P,B/op,CI,vs base,P
Grpcfast_ChunkService/Put-2,50000,1%,1e+06,2%,+1900.00%,p=0.002 n=6,3.2e+06,1%,+6300.00%,p=0.002 n=6
Grpcfast_NoteService/Note-2,100,0%,200,0%,+100.00%,p=0.002 n=6,,,,
geomean,1,,2,,+1%,,3,,+1%,

,grpcfast,,proto,,,,vtproto,,,
,srv-B/op,CI,srv-B/op,CI,vs base,P,srv-B/op,CI,vs base,P
Grpcfast_ChunkService/Put-2,1000,1%,4000,2%,+300.00%,p=0.002 n=6,8000,1%,+700.00%,p=0.002 n=6
`

func TestSummary(t *testing.T) {
	s, err := parse(strings.NewReader(results))
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	s.write(&out, "raw.txt")
	want := `grpcfast / other path, per call (below 1x: grpcfast takes less); * significant, ~ not (benchstat, p < 0.05)
raw results: raw.txt

method              against        time        bytes       srv bytes
ChunkService/Put-2  codec=proto    0.5x *      0.05x *     0.25x *
                    codec=vtproto  0.48x ~     0.016x *    0.12x *
NoteService/Note-2  codec=proto    0.91x ~     0.5x *      -
`
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}

func TestSummaryNoBase(t *testing.T) {
	_, err := parse(strings.NewReader(",proto,,vtproto,,,\n,sec/op,CI,sec/op,CI,vs base,P\nX-2,1,1%,2,1%,~,p=1 n=6\n"))
	if err == nil || err.Error() != `benchstat's table has no grpcfast column: ["" "proto" "" "vtproto" "" "" ""]` {
		t.Errorf("got %v", err)
	}
}

// TestRatioDigits: a significant change never prints as 1x; it gets the
// digits that tell it from 1 (it printed "1x *" for 0.996).
func TestRatioDigits(t *testing.T) {
	for _, tc := range []struct {
		c    cell
		want string
	}{
		{cell{0.996, true}, "0.996x *"},
		{cell{1.004, true}, "1.004x *"},
		{cell{0.99996, true}, "0.99996x *"},
		{cell{1.004, false}, "1x ~"},
		{cell{0.5, true}, "0.5x *"},
		{cell{0.123456, true}, "0.12x *"},
	} {
		if got := ratio(tc.c); got != tc.want {
			t.Errorf("ratio(%v) = %q, want %q", tc.c, got, tc.want)
		}
	}
}

// TestRunPoolsRounds: the rounds of a -grpcfast.rounds run (/round=N in
// each name) make one row per method, as -test.count's do. It runs the
// benchstat that make puts first on PATH (make tools).
func TestRunPoolsRounds(t *testing.T) {
	bench, err := exec.LookPath("benchstat")
	if err != nil {
		t.Skip("no benchstat on PATH (make test puts make tools' first)")
	}
	var raw strings.Builder
	raw.WriteString("goos: linux\ngoarch: amd64\npkg: example.com/x\n")
	for round := 1; round <= 3; round++ {
		for i, codec := range []string{"grpcfast", "proto", "vtproto"} {
			fmt.Fprintf(&raw, "BenchmarkGrpcfast_S/M/codec=%s/round=%d-2\t100\t%d ns/op\n", codec, round, 1000*(i+1)+round)
		}
	}
	file := filepath.Join(t.TempDir(), "raw.txt")
	if err := os.WriteFile(file, []byte(raw.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := run(&out, bench, file); err != nil {
		t.Fatal(err)
	}
	rows := 0
	for _, l := range strings.Split(out.String(), "\n") {
		if f := strings.Fields(l); len(f) > 0 && strings.HasPrefix(f[0], "S/M") {
			rows++
			if strings.Join(f, " ") != "S/M-2 codec=proto 0.5x ~" {
				t.Errorf("row %q, want S/M-2 against codec=proto at 0.5x", l)
			}
		}
	}
	if got := out.String(); rows != 1 || strings.Contains(got, "round") {
		t.Errorf("want one row for S/M, the rounds pooled; got\n%s", got)
	}
}

// TestRunNoBenchstat: without benchstat, the error says where to get it.
func TestRunNoBenchstat(t *testing.T) {
	err := run(io.Discard, "benchstat-not-installed-here", "raw.txt")
	if err == nil || !strings.Contains(err.Error(), "make tools") {
		t.Errorf("got %v, want an error that names make tools", err)
	}
}
