#!/usr/bin/env bash
# gccpu.sh COUNT [FLAG...]: what the garbage collector costs each path per
# call, on the two benchmarks of serverpaths.bash (the OTLP replay and
# CreateUser of 16 KiB, server in its own process). Each path runs alone,
# COUNT calls (-test.benchtime COUNTx; go test runs one call first), with
# GODEBUG=gctrace=1 in both processes, and the script prints for each: the
# collections that both processes made, the CPU that gctrace counts for
# them (stops of the world, assists, background and idle mark workers; not
# sweeping, nor allocating) per call, and the server's CPU per call
# (srv-cpu-ns/op). The client's work is the same on every path, so its
# share is about what the floor's line shows. FLAG... go to every run.
#
# One run is one sample: compare paths within it, and run it more than once
# on this shared machine (docs/measurements.md, "The collector's pace").
set -euo pipefail
count=$1
shift
source "$(dirname "$0")/serverpaths.bash"
serverpaths_build
for b in otlp example; do
	for codec in "${serverpaths_codecs[@]}"; do
		serverpaths_bench "$b" "$codec"
		(cd "$sp_dir" && GODEBUG=gctrace=1 "$bin/$sp_test" "${sp_flags[@]}" -test.benchtime "${count}x" "$@" 2>&1) |
			awk -v name="$sp_name" -v codec="$codec" -v n="$count" '
			# gctrace: "gc N @Ts P%: a+b+c ms clock, d+e/f/g+h ms cpu, ..."
			/^gc [0-9]+ @/ {
				for (i = 1; i <= NF; i++) if ($i == "cpu,") {
					s = $(i - 2)
					gsub(/[+\/]/, " ", s)
					k = split(s, a, " ")
					for (j = 1; j <= k; j++) ms += a[j]
					cycles++
				}
			}
			{ for (i = 2; i <= NF; i++) if ($i == "srv-cpu-ns/op") srv = $(i - 1) }
			END {
				if (srv == "") { print "gccpu.sh: " name "/codec=" codec ": no srv-cpu-ns/op in the output" > "/dev/stderr"; exit 1 }
				printf "%-10s codec=%-21s %5d collections  %7.1f µs of the collector per call  %7.1f µs server CPU per call\n", name, codec, cycles, ms * 1000 / n, srv / 1000
			}'
	done
done
