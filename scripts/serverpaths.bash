# serverpaths.bash, sourced by placement.sh, streamworkers.sh, gogc.sh and
# ratios.sh: the two generated benchmarks they compare settings on, server in
# its own process:
# the OTLP export replayed from internal/testprotos/otlp's corpus, and
# CreateUser with 16 KiB of short strings; on gRPC's standard path,
# vtprotobuf's codec, grpcfast's default path, pooled with one copy, and the
# floor (-grpcfast.floor).

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT

# serverpaths_build [FROM [TO]] builds both test binaries once (GOFLAGS
# applies), of the repository at FROM ($root) into the directory TO ($bin).
serverpaths_build() {
	local from=${1:-$root} to=${2:-$bin}
	echo "==> $(basename "$0"): building the OTLP and example test binaries of $from" >&2
	mkdir -p "$to"
	(cd "$from" && go test -c -o "$to/otlp.test" ./internal/testprotos/otlp &&
		go test -c -o "$to/example.test" ./example/examplepb)
}

# serverpaths_run KEY VALUE FLAG... runs both benchmarks once with FLAG...,
# and names each result after the setting (Export/KEY=VALUE/codec=proto),
# without go test's -N suffix for GOMAXPROCS=N, so that results of every
# setting compare under one name. It runs the binaries in $bin, or in
# $SERVERPATHS_BIN where that is set (a build of serverpaths_build's TO).
serverpaths_run() {
	local key=$1 value=$2 bin=${SERVERPATHS_BIN:-$bin}
	shift 2
	local codecs='codec=(proto|vtproto|grpcfast|grpcfast-pooled-copy|floor)$'
	local nosuffix='s#^(Benchmark[^[:space:]]*)-[0-9]+([[:space:]])#\1\2#'
	(cd "$root/internal/testprotos/otlp" && "$bin/otlp.test" -test.run '^$' -test.count 1 \
		-test.bench "Grpcfast_TraceService/^Export$/$codecs" \
		-grpcfast.replay="$root/internal/testprotos/otlp/testdata/corpus" -grpcfast.server=process \
		-grpcfast.floor "$@") |
		sed -E "s#/Export/codec=#/Export/$key=$value/codec=#; $nosuffix"
	(cd "$root/example/examplepb" && "$bin/example.test" -test.run '^$' -test.count 1 \
		-test.bench "Grpcfast_UserService/^CreateUser$/$codecs" \
		-grpcfast.size=16384 -grpcfast.server=process -grpcfast.floor "$@") |
		sed -E "s#/CreateUser/codec=#/CreateUser/$key=$value/codec=#; $nosuffix"
}
