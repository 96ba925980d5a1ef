#!/usr/bin/env bash
# streamworkers.sh COUNT FLAG...: what gRPC-Go's stream workers
# (grpc.NumStreamWorkers, -grpcfast.streamworkers) change in a unary call's
# cost to the server, on the two benchmarks of serverpaths.bash (the OTLP
# replay and CreateUser of 16 KiB, five paths each, server in its own
# process). COUNT interleaved rounds, each with gRPC-Go's default (a new
# goroutine per stream, workers=0) and with as many workers as this machine
# has CPUs. Each result's name carries the setting (Export/workers=N), for
# benchstat -col /codec or -col /workers. FLAG... go to every run
# (-test.benchtime, -test.benchmem, ...).
set -euo pipefail
count=$1
shift
source "$(dirname "$0")/serverpaths.bash"
serverpaths_build
workers=$(nproc)
for ((i = 1; i <= count; i++)); do
	for w in 0 "$workers"; do
		serverpaths_run workers "$w" -grpcfast.streamworkers="$w" "$@"
	done
done
