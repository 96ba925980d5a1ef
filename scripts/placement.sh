#!/usr/bin/env bash
# placement.sh COUNT FLAG...: how where the client and the server run
# changes a unary call's cost to the server, on two generated benchmarks,
# server in its own process: the OTLP export replayed from
# internal/testprotos/otlp's corpus, and CreateUser with 16 KiB of short
# strings; on gRPC's standard path, vtprotobuf's codec, grpcfast's default
# path, pooled with one copy, and the floor (-grpcfast.floor). COUNT
# interleaved rounds, each with three placements:
#   shared  both processes on every CPU, GOMAXPROCS as go test sets it (the
#           measure of BENCHMARKS.md and of make bench);
#   shared1 the same with GOMAXPROCS=1 (-test.cpu 1);
#   apart   GOMAXPROCS=1, the client pinned to the first CPU this shell may
#           use and the server to the last (-grpcfast.clientcpus,
#           -grpcfast.servercpus; Linux, two CPUs or more).
# The test binaries are built once (GOFLAGS applies). Each result's name
# carries the placement (Export/placement=apart/codec=proto), for
# benchstat -col /placement or -col /codec. FLAG... go to every run
# (-test.benchtime, -test.benchmem, ...).
set -euo pipefail
count=$1
shift
root=$(cd "$(dirname "$0")/.." && pwd)
cpus=$(awk '/^Cpus_allowed_list:/ {print $2}' /proc/self/status)
first=${cpus%%[-,]*}
last=${cpus##*[-,]}
if [[ -z $cpus || $first == "$last" ]]; then
	echo "placement.sh: needs two CPUs or more (this shell may use: ${cpus:-unknown})" >&2
	exit 1
fi
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
echo "==> placement.sh: building the OTLP and example test binaries" >&2
go test -c -o "$bin/otlp.test" ./internal/testprotos/otlp
go test -c -o "$bin/example.test" ./example/examplepb
codecs='codec=(proto|vtproto|grpcfast|grpcfast-pooled-copy|floor)$'
# go test names a result -N after GOMAXPROCS=N (none for 1): dropped, so
# that the placements' results compare under one name.
nosuffix='s#^(Benchmark[^[:space:]]*)-[0-9]+([[:space:]])#\1\2#'
for ((i = 1; i <= count; i++)); do
	echo "==> placement.sh: round $i of $count (shared, shared1, apart: client on CPU $first, server on CPU $last)" >&2
	for p in shared shared1 apart; do
		case $p in
		shared) place=() ;;
		shared1) place=(-test.cpu 1) ;;
		apart) place=(-test.cpu 1 -grpcfast.clientcpus="$first" -grpcfast.servercpus="$last") ;;
		esac
		(cd "$root/internal/testprotos/otlp" && "$bin/otlp.test" -test.run '^$' -test.count 1 \
			-test.bench "Grpcfast_TraceService/^Export$/$codecs" \
			-grpcfast.replay="$root/internal/testprotos/otlp/testdata/corpus" -grpcfast.server=process \
			-grpcfast.floor "${place[@]}" "$@") |
			sed -E "s#/Export/codec=#/Export/placement=$p/codec=#; $nosuffix"
		(cd "$root/example/examplepb" && "$bin/example.test" -test.run '^$' -test.count 1 \
			-test.bench "Grpcfast_UserService/^CreateUser$/$codecs" \
			-grpcfast.size=16384 -grpcfast.server=process -grpcfast.floor "${place[@]}" "$@") |
			sed -E "s#/CreateUser/codec=#/CreateUser/placement=$p/codec=#; $nosuffix"
	done
done
