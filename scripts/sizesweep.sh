#!/usr/bin/env bash
# sizesweep.sh COUNT FLAG...: how the cost of a unary call grows with its
# request, on the example's generated benchmarks, server in its own process:
# CreateUser with 16 KiB to 2 MiB of short strings (-grpcfast.size), and
# CreateUsers with 100,000 users (-grpcfast.batch=6600000, a repeated message
# field of 66-byte elements), on gRPC's standard path, vtprotobuf's codec and
# grpcfast's default path. COUNT interleaved rounds, each of every size; the
# test binary is built once (GOFLAGS applies). Each result's name carries its
# size (CreateUser/size=N, CreateUsers/users=100000), for benchstat -col /codec.
# FLAG... go to every run (-test.benchtime, -test.benchmem, ...).
set -euo pipefail
count=$1
shift
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go test -c -o "$bin/pkg.test" ./example/examplepb
cd "$(go list -f '{{.Dir}}' ./example/examplepb)"
codecs='codec=(proto|vtproto|grpcfast)$'
for ((i = 1; i <= count; i++)); do
	for size in 16384 65536 262144 1048576 2097152; do
		"$bin/pkg.test" -test.run '^$' -test.count 1 -test.bench "Grpcfast_UserService/^CreateUser$/$codecs" \
			-grpcfast.size="$size" -grpcfast.server=process "$@" |
			sed "s|/CreateUser/codec=|/CreateUser/size=$size/codec=|"
	done
	"$bin/pkg.test" -test.run '^$' -test.count 1 -test.bench "Grpcfast_UserService/CreateUsers/shape=batch/$codecs" \
		-grpcfast.batch=6600000 -grpcfast.server=process "$@" |
		sed "s|/CreateUsers/shape=batch/codec=|/CreateUsers/users=100000/codec=|"
done
