# benchcmd.bash, sourced by benchmarks.sh: the command that a section of
# BENCHMARKS.md names, as the results it shows were made. A step kept from
# an earlier run (BENCH_ONLY) may have run with another BENCH_COUNT and
# BENCH_TIME than this run's.

# bench_record DIR NAME COUNT BENCHTIME records, once step NAME has
# written its results to DIR/NAME.txt, the count and -benchtime it ran
# with (DIR/NAME.run).
bench_record() {
	printf '%s %s\n' "$3" "$4" >"$1/$2.run"
}

# bench_ran DIR NAME COUNT BENCHTIME prints the count and -benchtime of the
# results in DIR/NAME.txt: those bench_record recorded, or, for results of
# a run from before it recorded them, the rounds they hold if they are a
# gobench.sh step's (a goos: line per round), and otherwise COUNT, with
# BENCHTIME.
bench_ran() {
	if [[ -s $1/$2.run ]]; then
		cat "$1/$2.run"
		return
	fi
	local rounds
	rounds=$(grep -c '^goos:' "$1/$2.txt" 2>/dev/null || true)
	printf '%s %s\n' "$((${rounds:-0} > 0 ? rounds : $3))" "$4"
}

# bench_command TEXT COUNT BENCHTIME RUNCOUNT RUNTIME prints TEXT, written
# with this run's COUNT (after a script's name: gobench.sh COUNT,
# sizesweep.sh COUNT, ...) and BENCHTIME (-test.benchtime BENCHTIME), with
# RUNCOUNT and RUNTIME, those of the results, in their place.
bench_command() {
	local text=$1
	text=${text/.sh $2 /.sh $4 }
	text=${text//-test.benchtime $3/-test.benchtime $5}
	printf '%s\n' "$text"
}
