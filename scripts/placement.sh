#!/usr/bin/env bash
# placement.sh COUNT FLAG...: how where the client and the server run
# changes a unary call's cost to the server, on the two benchmarks of
# serverpaths.bash (the OTLP replay and CreateUser of 16 KiB, five paths
# each, server in its own process). COUNT interleaved rounds, each with
# three placements:
#   shared  both processes on every CPU, GOMAXPROCS as go test sets it (the
#           measure of BENCHMARKS.md and of make bench);
#   shared1 the same with GOMAXPROCS=1 (-test.cpu 1);
#   apart   GOMAXPROCS=1, the client pinned to the first CPU this shell may
#           use and the server to the last (-grpcfast.clientcpus,
#           -grpcfast.servercpus; Linux, two CPUs or more).
# Each result's name carries the placement
# (Export/placement=apart/codec=proto), for benchstat -col /placement or
# -col /codec. FLAG... go to every run (-test.benchtime, -test.benchmem,
# ...).
set -euo pipefail
count=$1
shift
cpus=$(awk '/^Cpus_allowed_list:/ {print $2}' /proc/self/status)
first=${cpus%%[-,]*}
last=${cpus##*[-,]}
if [[ -z $cpus || $first == "$last" ]]; then
	echo "placement.sh: needs two CPUs or more (this shell may use: ${cpus:-unknown})" >&2
	exit 1
fi
source "$(dirname "$0")/serverpaths.bash"
serverpaths_build
for ((i = 1; i <= count; i++)); do
	echo "==> placement.sh: round $i of $count (shared, shared1, apart: client on CPU $first, server on CPU $last)" >&2
	for p in shared shared1 apart; do
		case $p in
		shared) place=() ;;
		shared1) place=(-test.cpu 1) ;;
		apart) place=(-test.cpu 1 -grpcfast.clientcpus="$first" -grpcfast.servercpus="$last") ;;
		esac
		serverpaths_run placement "$p" "${place[@]}" "$@"
	done
done
