#!/usr/bin/env bash
# srvcpu.sh COUNT [FLAG...]: where the server's CPU goes per call, path by
# path, on the two benchmarks of serverpaths.bash (the OTLP replay and
# CreateUser of 16 KiB, server in its own process). Each path runs alone,
# COUNT calls (-test.benchtime COUNTx; go test runs one call first) under
# perf record (a cpu-clock sample every 250 µs of CPU, in both processes,
# with call stacks, the kernel's included where perf may see it). The
# server's samples (the process whose stacks run grpc.Server's streams) are
# sorted by what their stack holds, the first of:
#
#	marking     the collector's mark workers and assists (gcBgMarkWorker,
#	            gcAssistAlloc)
#	sweeping    sweeping spans (bgsweep, sweepone)
#	unmarshal   the codec's Unmarshal, what it allocates included (a frame
#	            named ...).Unmarshal), on a line of its own split into:
#	            allocating (mallocgc, growslice, ...), by count (its own
#	            work per allocation, the heap bits) and by bytes (taking a
#	            span, clearing, page faults, starting a collection, the
#	            sweep credit); copying strings (grpcfast's string copies
#	            and chunks, not what they allocate); checking UTF-8; the
#	            rest (the generated decoders, protobuf-go's tables)
#	sysmon      the runtime's monitor thread (sysmon)
#	scheduling  switching goroutines and parking threads (mcall, schedule,
#	            findRunnable)
#	other       the rest: gRPC-Go's transport, the stub, the handler
#
# and each is printed in µs per call (the samples × 250 µs / (COUNT+1)),
# with "kernel", the part of the total whose sample was taken in the
# kernel, and the run's srv-cpu-ns/op in µs (getrusage, the timed calls
# only) to compare the total with. The setup of each run (starting the
# server, decoding the corpus) counts in the samples too, a few
# milliseconds in all: with COUNT 500 the total came out 14 to 26% above
# srv-cpu-ns/op, with COUNT 6000 3 to 5% below it (what perf does not
# sample).
#
# Unlike the CPU profiles of -grpcfast.profile (scripts/perop.sh), which
# sample 100 times a second and show kernel time at the call that entered
# it, these show what a collection, the monitor thread and the scheduler
# cost beside the codec's own work, in figures fine enough for a path's
# difference from another's. One run is one sample: compare paths within
# it, and run it more than once on this shared machine. FLAG... go to every
# run. Needs perf (Debian: apt-get install linux-perf) and
# kernel.perf_event_paranoid of 2 or less.
set -euo pipefail
count=$1
shift
command -v perf >/dev/null || {
	echo "srvcpu.sh: needs perf (apt-get install linux-perf)" >&2
	exit 2
}
source "$(dirname "$0")/serverpaths.bash"
serverpaths_build
data=$bin/perf.data
for b in otlp example; do
	for codec in "${serverpaths_codecs[@]}"; do
		serverpaths_bench "$b" "$codec"
		if ! (cd "$sp_dir" && perf record -q -e cpu-clock -F 4000 -g -o "$data" \
			"$bin/$sp_test" "${sp_flags[@]}" -test.benchtime "${count}x" "$@" >"$bin/out" 2>&1); then
			cat "$bin/out" >&2
			echo "srvcpu.sh: perf record failed on $sp_name/codec=$codec" >&2
			exit 1
		fi
		srv=$(awk '{ for (i = 2; i <= NF; i++) if ($i == "srv-cpu-ns/op") print $(i - 1) / 1000 }' "$bin/out")
		perf script -i "$data" -F pid,ip,sym 2>/dev/null |
			awk -v name="$sp_name" -v codec="$codec" -v n=$((count + 1)) -v srv="$srv" '
			BEGIN { RS = "" }
			# A sample: its pid, then a line per frame, leaf first:
			# the address and the function.
			{
				k = split($0, line, "\n")
				split(line[1], head, " ")
				pid = head[1]
				cat = ""
				server = 0
				alloc = bybytes = str = utf = 0
				for (i = 2; i <= k; i++) {
					split(line[i], f, " ")
					fn = f[2]
					if (fn ~ /^google\.golang\.org\/grpc\.\(\*Server\)\./) server = 1
					if (cat != "") continue
					# Below the Unmarshal, if that is where the
					# sample is: what the decode was doing.
					if (fn ~ /^runtime\.(mallocgc|growslice|makeslice|newobject|makeslicecopy|rawbyteslice|rawstring)$/) alloc = 1
					else if (fn ~ /^runtime\.(\(\*mcache\)\.(refill|nextFree)|gcStart|deductSweepCredit|memclrNoHeapPointers)$/ || fn == "asm_exc_page_fault") bybytes = 1
					else if (fn ~ /decode\.\(\*(Decoding|Chunks)\)\.(copied|copyString|copySeen|hit|copy|copyRun|StringRun|copiedInto|copiedPresent|newChunk)$/) str = 1
					else if (fn ~ /decode\.(ValidUTF8|ASCIIPrefix|shortASCII|\(\*Decoding\)\.Sweep)$/ || fn ~ /^unicode\/utf8\.Valid/) utf = 1
					if (fn ~ /^runtime\.(gcBgMarkWorker|gcAssistAlloc)$/) cat = "marking"
					else if (fn ~ /^runtime\.(bgsweep|sweepone)$/) cat = "sweeping"
					else if (fn ~ /\)\.Unmarshal$/) cat = "unmarshal"
					else if (fn == "runtime.sysmon") cat = "sysmon"
					else if (fn ~ /^runtime\.(mcall|schedule|findRunnable)$/) cat = "scheduling"
				}
				if (cat == "") cat = "other"
				split(line[2], leaf, " ")
				samples[pid]++
				if (server) serving[pid]++
				by[pid, cat]++
				if (cat == "unmarshal") {
					if (alloc) part = bybytes ? "bybytes" : "bycount"
					else if (str) part = "strings"
					else if (utf) part = "utf8"
					else part = "rest"
					by[pid, part]++
				}
				if (leaf[1] ~ /^ffffffff/) kernel[pid]++
			}
			END {
				for (p in serving) if (serving[p] > best) { best = serving[p]; pid = p }
				if (pid == "") { print "srvcpu.sh: " name "/codec=" codec ": no sample of a gRPC server" > "/dev/stderr"; exit 1 }
				us = 250 / n
				printf "%-10s codec=%-21s total %6.1f", name, codec, samples[pid] * us
				split("unmarshal marking sweeping sysmon scheduling other", cats, " ")
				for (i = 1; i <= 6; i++) printf "  %s %5.1f", cats[i], by[pid, cats[i]] * us
				printf "  (kernel %5.1f; srv-cpu-ns/op %s) µs per call\n", kernel[pid] * us, srv
				printf "%-10s %-27s unmarshal: allocating %5.1f (by count %5.1f, by bytes %5.1f)  strings %5.1f  UTF-8 %5.1f  the rest %5.1f\n", "", "",
					(by[pid, "bycount"] + by[pid, "bybytes"]) * us, by[pid, "bycount"] * us, by[pid, "bybytes"] * us,
					by[pid, "strings"] * us, by[pid, "utf8"] * us, by[pid, "rest"] * us
			}'
	done
done
