# serverpaths.bash, sourced by placement.sh, streamworkers.sh, floorwork.sh,
# gogc.sh, ratios.sh, gccpu.sh and srvcpu.sh: the two generated benchmarks they
# compare settings on, server in its own process:
# the OTLP export replayed from internal/testprotos/otlp's corpus, and
# CreateUser with 16 KiB of short strings; on gRPC's standard path,
# vtprotobuf's codec, grpcfast's default path, pooled with one copy, and the
# floor (-grpcfast.floor).

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT

# serverpaths_codecs are the paths, in the order each run takes them.
serverpaths_codecs=(proto vtproto grpcfast grpcfast-pooled-copy floor)

# serverpaths_build [FROM [TO]] builds both test binaries once (GOFLAGS
# applies), of the repository at FROM ($root) into the directory TO ($bin).
serverpaths_build() {
	local from=${1:-$root} to=${2:-$bin}
	echo "==> $(basename "$0"): building the OTLP and example test binaries of $from" >&2
	mkdir -p "$to"
	(cd "$from" && go test -c -o "$to/otlp.test" ./internal/testprotos/otlp &&
		go test -c -o "$to/example.test" ./example/examplepb)
}

# serverpaths_bench BENCH CODECS sets what a run of one of the two
# benchmarks needs, BENCH otlp or example, on the paths that the regular
# expression CODECS matches (proto, a|b, ...): sp_test, its test binary's
# name in a build of serverpaths_build; sp_dir, the directory it runs in;
# sp_name, the method (Export, CreateUser); sp_flags, the flags of its
# run: the pattern, the shape, the server in its own process, the floor.
serverpaths_bench() {
	local codecs="codec=($2)\$"
	# With SERVERPATHS_ROUNDS=K (K > 1), every path runs K times in the
	# run (-grpcfast.rounds), a level round=1 to round=K above codec=.
	local rounds=${SERVERPATHS_ROUNDS:-1}
	[ "$rounds" -le 1 ] || codecs="^round=/$codecs"
	case $1 in
	otlp)
		sp_test=otlp.test sp_dir=$root/internal/testprotos/otlp sp_name=Export
		sp_flags=(-test.bench "Grpcfast_TraceService/^Export\$/$codecs"
			-grpcfast.replay="$sp_dir/testdata/corpus")
		;;
	example)
		sp_test=example.test sp_dir=$root/example/examplepb sp_name=CreateUser
		sp_flags=(-test.bench "Grpcfast_UserService/^CreateUser\$/$codecs" -grpcfast.size=16384)
		;;
	*)
		echo "serverpaths_bench: BENCH is otlp or example, not $1" >&2
		return 2
		;;
	esac
	sp_flags+=(-test.run '^$' -test.count 1 -grpcfast.server=process -grpcfast.floor)
	# Only where asked: a build from before the flag (ratios.sh's
	# RATIOS_REV) runs without it.
	[ "$rounds" -le 1 ] || sp_flags+=(-grpcfast.rounds="$rounds")
}

# serverpaths_run KEY VALUE FLAG... runs both benchmarks once with FLAG...,
# and names each result after the setting (Export/KEY=VALUE/codec=proto),
# without go test's -N suffix for GOMAXPROCS=N, so that results of every
# setting compare under one name. It runs the binaries in $bin, or in
# $SERVERPATHS_BIN where that is set (a build of serverpaths_build's TO).
# Every path of a benchmark runs in one go test run, one after the other in
# the order of serverpaths_codecs, each served by a server process of its
# own (the generated benchmarks start one per path); with
# SERVERPATHS_APART=1, each path in a go test run of its own.
serverpaths_run() {
	local key=$1 value=$2 bin=${SERVERPATHS_BIN:-$bin} b codecs runs
	shift 2
	codecs=$(
		IFS='|'
		echo "${serverpaths_codecs[*]}"
	)
	runs=("$codecs")
	[ -z "${SERVERPATHS_APART:-}" ] || runs=("${serverpaths_codecs[@]}")
	local nosuffix='s#^(Benchmark[^[:space:]]*)-[0-9]+([[:space:]])#\1\2#'
	for b in otlp example; do
		for codecs in "${runs[@]}"; do
			serverpaths_bench "$b" "$codecs"
			(cd "$sp_dir" && "$bin/$sp_test" "${sp_flags[@]}" "$@") |
				sed -E "s#/$sp_name/(round=[0-9]+/)?codec=#/$sp_name/$key=$value/\1codec=#; $nosuffix"
		done
	done
}
