#!/usr/bin/env bash
# Measures gRPC-Go's transport settings on bulk streams with the example's
# generated benchmarks (grpcfastbench's transport flags): Put (client stream)
# and Get (server stream) of 256 chunks of 16 KiB, gRPC's standard path and
# grpcfast's, at 1 and 64 streams at once on one connection, the server in its
# own process. Every setting runs once per round, the rounds interleaved, so
# that the machine's load falls on all alike; the results go to standard
# output, each run after a "grpcfast-transport: NAME" line, for
#
#   benchstat -col grpcfast-transport knobs.txt
#
# Run it through `make bench-knobs` (which builds benchstat and compares), or
# as a step of scripts/benchmarks.sh.
#
#   BENCH_COUNT  rounds (default 6)
#   BENCH_TIME   -benchtime of each sub-benchmark (default 0.5s)
set -euo pipefail
cd "$(dirname "$0")/.."
count=${BENCH_COUNT:-6}
btime=${BENCH_TIME:-0.5s}
bin=$(mktemp -d)/examplepb.test
trap 'rm -rf "$(dirname "$bin")"' EXIT
go test -c -o "$bin" ./example/examplepb

# NAME|FLAGS: gRPC-Go's defaults, each setting alone (the windows alone and
# as a pair: either alone turns gRPC-Go's dynamic windows off for both), then
# the larger buffers and windows together.
settings=(
	"default|"
	"writebuf=256KiB|-grpcfast.writebuf=262144"
	"writebuf=0|-grpcfast.writebuf=0"
	"readbuf=256KiB|-grpcfast.readbuf=262144"
	"window=1MiB|-grpcfast.window=1048576"
	"connwindow=16MiB|-grpcfast.connwindow=16777216"
	"windows=1MiB/16MiB|-grpcfast.window=1048576 -grpcfast.connwindow=16777216"
	"sharedwrite=false|-grpcfast.sharedwrite=false"
	"combined|-grpcfast.writebuf=262144 -grpcfast.readbuf=262144 -grpcfast.window=1048576 -grpcfast.connwindow=16777216"
)
cd example/examplepb # where go test would run it
for round in $(seq "$count"); do
	for s in "${settings[@]}"; do
		name=${s%%|*}
		echo "grpcfast-transport: $name"
		# shellcheck disable=SC2086 # the flags are words
		"$bin" -test.run '^$' -test.bench 'Grpcfast_ChunkService/^(Put|Get)$//codec=(proto|grpcfast)$' \
			-test.benchmem -test.count 1 -test.benchtime "$btime" \
			-grpcfast.size=16384 -grpcfast.msgs=256 -grpcfast.server=process -grpcfast.streams=1,64 ${s#*|} |
			grep -v '^PASS$' || { echo "knobs: $name failed in round $round" >&2; exit 1; }
	done
done
