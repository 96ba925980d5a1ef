#!/usr/bin/env bash
# streamworkers.sh COUNT FLAG...: what gRPC-Go's stream workers
# (grpc.NumStreamWorkers, -grpcfast.streamworkers) change in a unary call's
# cost to the server, on two generated benchmarks, server in its own
# process: the OTLP export replayed from internal/testprotos/otlp's corpus,
# and CreateUser with 16 KiB of short strings; on gRPC's standard path,
# vtprotobuf's codec, grpcfast's default path, pooled with one copy, and the
# floor (-grpcfast.floor). COUNT interleaved rounds, each with gRPC-Go's
# default (a new goroutine per stream, workers=0) and with as many workers
# as this machine has CPUs; the test binaries are built once (GOFLAGS
# applies). Each result's name carries the setting (Export/workers=N), for
# benchstat -col /codec. FLAG... go to every run (-test.benchtime,
# -test.benchmem, ...).
set -euo pipefail
count=$1
shift
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go test -c -o "$bin/otlp.test" ./internal/testprotos/otlp
go test -c -o "$bin/example.test" ./example/examplepb
workers=$(nproc)
codecs='codec=(proto|vtproto|grpcfast|grpcfast-pooled-copy|floor)$'
for ((i = 1; i <= count; i++)); do
	for w in 0 "$workers"; do
		(cd "$root/internal/testprotos/otlp" && "$bin/otlp.test" -test.run '^$' -test.count 1 \
			-test.bench "Grpcfast_TraceService/^Export$/$codecs" \
			-grpcfast.replay="$root/internal/testprotos/otlp/testdata/corpus" -grpcfast.server=process \
			-grpcfast.floor -grpcfast.streamworkers="$w" "$@") |
			sed "s|/Export/codec=|/Export/workers=$w/codec=|"
		(cd "$root/example/examplepb" && "$bin/example.test" -test.run '^$' -test.count 1 \
			-test.bench "Grpcfast_UserService/^CreateUser$/$codecs" \
			-grpcfast.size=16384 -grpcfast.server=process -grpcfast.floor -grpcfast.streamworkers="$w" "$@") |
			sed "s|/CreateUser/codec=|/CreateUser/workers=$w/codec=|"
	done
done
