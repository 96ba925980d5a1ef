#!/usr/bin/env bash
# gobench.sh COUNT PKG FLAG...: runs the benchmarks of Go package PKG COUNT
# times, one round after the other, so that the paths of one run interleave
# and a drift of the machine falls on all of them alike (go test -count N
# runs each sub-benchmark N times in a row instead). The test binary is built
# once (GOFLAGS applies) and run in the package's directory, as go test runs
# it, with FLAG... as its flags: the test binary's own (-test.bench,
# -test.benchtime, -test.benchmem, ...) and the benchmarks' (-grpcfast.*).
# The output of every round goes to standard output, for benchstat.
set -euo pipefail
count=$1 pkg=$2
shift 2
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go test -c -o "$bin/pkg.test" "$pkg"
dir=$(go list -f '{{.Dir}}' "$pkg")
for ((i = 1; i <= count; i++)); do
	(cd "$dir" && "$bin/pkg.test" -test.run '^$' -test.count 1 "$@")
done
