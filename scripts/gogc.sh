#!/usr/bin/env bash
# gogc.sh COUNT FLAG...: how the garbage collector's pace (GOGC, in the
# server process and the benchmark alike) changes a unary call's cost to the
# server, on the two benchmarks of serverpaths.bash (the OTLP replay and
# CreateUser of 16 KiB, five paths each, server in its own process). The
# benchmark's server holds little live heap (about 1 MB), so its heap goal
# is the collector's minimum, 4 MB at Go's default (GOGC=100): it collects
# each time it has allocated about 3 MB, and its collector's work per call
# follows the bytes each call allocates. COUNT interleaved rounds, each with
# GOGC=100 and GOGC=400 (a goal of 16 MB: a cycle every 15 MB). Each result's name carries the setting
# (Export/gogc=400), for
# benchstat -col /codec or -col /gogc. FLAG... go to every run
# (-test.benchtime, -test.benchmem, ...).
set -euo pipefail
count=$1
shift
source "$(dirname "$0")/serverpaths.bash"
serverpaths_build
for ((i = 1; i <= count; i++)); do
	echo "==> gogc.sh: round $i of $count (GOGC=100, GOGC=400)" >&2
	for g in 100 400; do
		GOGC=$g serverpaths_run gogc "$g" "$@"
	done
done
