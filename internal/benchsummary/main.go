// Command benchsummary prints one screen from the results of the generated
// benchmarks: per method, grpcfast against each other path (codec=proto,
// codec=vtproto) for time, CPU, bytes and allocations, and with the server
// in its own process the server's CPU, bytes and allocations, as the ratio
// grpcfast/other, marked where benchstat finds the difference significant.
// make bench runs it after the raw results have gone to their files.
//
//	benchsummary [-benchstat PATH] RESULTS.txt
//
// It runs benchstat -format csv with grpcfast as the base column and reads
// its tables, the rounds of a -grpcfast.rounds run pooled.
package main

import (
	"bytes"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// base is the path the others are compared with; others are listed in this
// order after it.
const base = "grpcfast"

var others = []string{"proto", "vtproto"}

// metrics are the units shown, in order, with their headings. Units absent
// from the results (the server's, with the server in this process) are not
// shown.
var metrics = []struct{ unit, heading string }{
	{"sec/op", "time"},
	{"cpu-sec/op", "CPU"},
	{"B/op", "bytes"},
	{"allocs/op", "allocs"},
	{"srv-cpu-sec/op", "srv CPU"},
	{"srv-B/op", "srv bytes"},
	{"srv-allocs/op", "srv allocs"},
}

// cell is one comparison: grpcfast's center value over the other path's,
// and whether benchstat finds the difference significant.
type cell struct {
	ratio       float64
	significant bool
}

// summary holds the comparisons by row (benchmark name), other path and
// unit, with the rows and units in the order they came.
type summary struct {
	rows  []string
	units map[string]bool
	cells map[string]map[string]map[string]cell // row, path, unit
}

// parse reads benchstat's CSV output (several tables, one per unit, each
// with a row of column names, a row of units and a row per benchmark).
func parse(r io.Reader) (*summary, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	var recs [][]string
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		recs = append(recs, rec)
	}
	s := &summary{units: map[string]bool{}, cells: map[string]map[string]map[string]cell{}}
	for i := 0; i+1 < len(recs); i++ {
		names, units := recs[i], recs[i+1]
		if names[0] != "" || units[0] != "" || len(names) < 2 || len(units) < 2 {
			continue
		}
		// Each column group starts where a name is given: its value, then
		// CI, then for the non-base ones "vs base" and P.
		start := map[string]int{}
		for j, n := range names {
			if n != "" {
				start[n] = j
			}
		}
		b, ok := start[base]
		if !ok {
			return nil, fmt.Errorf("benchstat's table has no %s column: %q", base, names)
		}
		unit := units[b]
		s.units[unit] = true
		i += 2
		for ; i < len(recs) && recs[i][0] != "" && recs[i][0] != "geomean"; i++ {
			row := recs[i]
			name := row[0]
			mine, err := strconv.ParseFloat(field(row, b), 64)
			if err != nil {
				continue
			}
			for _, o := range others {
				j, ok := start[o]
				if !ok {
					continue
				}
				theirs, err := strconv.ParseFloat(field(row, j), 64)
				if err != nil || theirs == 0 {
					continue
				}
				if s.cells[name] == nil {
					s.rows = append(s.rows, name)
					s.cells[name] = map[string]map[string]cell{}
				}
				if s.cells[name][o] == nil {
					s.cells[name][o] = map[string]cell{}
				}
				vs := field(row, j+2)
				s.cells[name][o][unit] = cell{mine / theirs, strings.HasSuffix(vs, "%")}
			}
		}
		i--
	}
	if len(s.rows) == 0 {
		return nil, fmt.Errorf("no benchmark compares codec=%s with another path", base)
	}
	return s, nil
}

func field(row []string, i int) string {
	if i < len(row) {
		return row[i]
	}
	return ""
}

// ratio formats r with two significant digits, or, for a significant
// change that would then read 1x, as many more as tell it from 1 (up to 8).
func ratio(c cell) string {
	if !c.significant {
		return strconv.FormatFloat(c.ratio, 'g', 2, 64) + "x ~"
	}
	s := strconv.FormatFloat(c.ratio, 'g', 2, 64)
	for prec := 3; s == "1" && prec <= 8; prec++ {
		s = strconv.FormatFloat(c.ratio, 'g', prec, 64)
	}
	return s + "x *"
}

// write prints the summary as a table.
func (s *summary) write(w io.Writer, raw string) {
	fmt.Fprintf(w, "grpcfast / other path, per call (below 1x: grpcfast takes less); * significant, ~ not (benchstat, p < 0.05)\n")
	if raw != "" {
		fmt.Fprintf(w, "raw results: %s\n", raw)
	}
	var shown []int
	for k, m := range metrics {
		if s.units[m.unit] {
			shown = append(shown, k)
		}
	}
	width := len("method")
	for _, r := range s.rows {
		width = max(width, len(strings.TrimPrefix(r, "Grpcfast_")))
	}
	line := func(cols ...string) {
		var b strings.Builder
		fmt.Fprintf(&b, "%-*s  %-13s", width, cols[0], cols[1])
		for _, c := range cols[2:] {
			fmt.Fprintf(&b, "  %-10s", c)
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	head := []string{"method", "against"}
	for _, k := range shown {
		head = append(head, metrics[k].heading)
	}
	fmt.Fprintln(w)
	line(head...)
	for _, r := range s.rows {
		name := strings.TrimPrefix(r, "Grpcfast_")
		for _, o := range others {
			cs, ok := s.cells[r][o]
			if !ok {
				continue
			}
			cols := []string{name, "codec=" + o}
			name = ""
			for _, k := range shown {
				v := "-"
				if c, ok := cs[metrics[k].unit]; ok {
					v = ratio(c)
				}
				cols = append(cols, v)
			}
			line(cols...)
		}
	}
}

func main() {
	bench := flag.String("benchstat", "benchstat", "the benchstat `command`")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: benchsummary [-benchstat PATH] RESULTS.txt\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(os.Stdout, *bench, flag.Arg(0)); err != nil {
		fmt.Fprintf(os.Stderr, "benchsummary: %v\n", err)
		os.Exit(1)
	}
}

// run writes the summary of the results in raw to w, through the benchstat
// command bench. Rounds of one run (-grpcfast.rounds: /round=N in the
// names) are pooled, as benchstat -ignore /round does, so that each method
// has one row.
func run(w io.Writer, bench, raw string) error {
	cmd := exec.Command(bench, "-format", "csv", "-ignore", "/round", "-col", "/codec@("+base+" "+strings.Join(others, " ")+")", raw)
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Run(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return fmt.Errorf("%s: %v (make tools builds benchstat into the clone's .bin: put it first on PATH, or name it with -benchstat)", bench, err)
		}
		return fmt.Errorf("%s: %v\n%s", bench, err, errs.Bytes())
	}
	s, err := parse(&out)
	if err != nil {
		return fmt.Errorf("%s: %v", raw, err)
	}
	s.write(w, raw)
	return nil
}
