#!/usr/bin/env bash
# floorwork.sh COUNT WORKS FLAG...: what a request's handling costs the
# server above gRPC-Go's floor, as a function of the CPU it takes. On the two
# benchmarks of serverpaths.bash (the OTLP replay and CreateUser of 16 KiB,
# server in its own process), the standard path, pooled with one copy and the
# floor run in COUNT rounds, each round once with each work of WORKS (a list
# of durations separated by commas, such as 0,5us,10us): the floor's server
# then spends that long on the CPU for each request (-grpcfast.floorwork)
# and decodes nothing still. A work of copy, or copy+D, has the floor's
# server first make the owned copy of each request that pooled with one copy
# decodes from (-grpcfast.floorcopy), then spend D: the least that path can
# cost. Each go test run interleaves its paths in
# FLOORWORK_INNER rounds (-grpcfast.rounds, default 6). The results, named
# after the work (CreateUser/floorwork=5us/round=J/codec=floor), go to
# standard output; then, on standard error, ratios.sh's summary of them:
# floor / proto and pooled with one copy / proto, for each work. A target
# for a path's server CPU against the standard path's lies out of reach of
# any codec whose decode takes more than the work at which floor / proto
# reaches it. FLAG... go to every run (-test.benchtime, -grpcfast.warmup).
set -euo pipefail
count=$1 works=$2
shift 2
source "$(dirname "$0")/serverpaths.bash"
inner=${FLOORWORK_INNER:-6}
[[ $inner =~ ^[1-9][0-9]*$ ]] || {
	echo "floorwork.sh: FLOORWORK_INNER is a whole number >= 1, not $inner" >&2
	exit 2
}
IFS=, read -ra ws <<<"$works"
[ ${#ws[@]} -gt 0 ] || {
	echo "floorwork.sh: WORKS is a list of durations separated by commas, such as 0,5us,10us,copy,copy+5us" >&2
	exit 2
}
# workflags W: the flags of work W (a duration, copy or copy+DURATION).
workflags() {
	case $1 in
	copy) echo -grpcfast.floorcopy ;;
	copy+*) echo -grpcfast.floorcopy -grpcfast.floorwork="${1#copy+}" ;;
	*) echo -grpcfast.floorwork="$1" ;;
	esac
}
serverpaths_codecs=(proto grpcfast-pooled-copy floor)
serverpaths_build
for ((i = 1; i <= count; i++)); do
	echo "==> floorwork.sh: round $i of $count" >&2
	for w in "${ws[@]}"; do
		# A file per go test run: the summary counts the rounds of each
		# file apart from the others'.
		# shellcheck disable=SC2046 # workflags prints whole flags, no spaces within
		SERVERPATHS_ROUNDS=$inner serverpaths_run floorwork "$w" $(workflags "$w") "$@" |
			tee "$bin/results.$i.$w.txt"
	done
done
echo "==> floorwork.sh: server CPU per call, ratios within each round" >&2
"$(dirname "$0")/ratios.sh" --summary "$bin"/results.*.txt >&2
