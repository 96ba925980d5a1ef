#!/usr/bin/env bash
# instructions.sh PKG BENCH [REV]: the instructions one op of benchmark BENCH
# (a -test.bench pattern matching one benchmark) of Go package PKG executes,
# counted by valgrind's cachegrind: of the working tree, and of git revision
# REV (built in a temporary worktree, from the same directory) if given, one
# line each. Run it from the module that holds PKG, for instance
#
#	cd peers && ../scripts/instructions.sh . 'BenchmarkDecodeOTLP/path=slot-copy$' HEAD~3
#
# On this shared machine, time per op varies by 20 to 40% from one run to the
# next; an instruction count does not, so it shows a change of a few percent
# in CPU work that interleaved rounds cannot. It is not time: it counts no
# cache miss, and a memclr or memmove of any size as a few instructions. Use
# it beside benchstat's figures, never instead of them.
#
# The benchmark runs twice, N1 and N2 ops (BENCH_N1, BENCH_N2: 200 and 1200),
# and the difference over N2-N1 is what one op costs, setup aside. It runs
# with GOMAXPROCS=1 and GOGC=off, so that the garbage collector's background
# work and its spinning threads, which valgrind serializes, do not blur the
# count: what a collection costs is not in it. Needs valgrind (Debian:
# apt-get install valgrind).
set -euo pipefail
pkg=$1 bench=$2 rev=${3:-}
n1=${BENCH_N1:-200} n2=${BENCH_N2:-1200}
command -v valgrind >/dev/null || {
	echo "instructions.sh: needs valgrind (apt-get install valgrind)" >&2
	exit 2
}
tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/rev" 2>/dev/null || true; rm -rf "$tmp"' EXIT

# count BINARY DIR N: the instructions of N ops.
count() {
	(cd "$2" && GOMAXPROCS=1 GOGC=off valgrind --tool=cachegrind --cache-sim=no \
		--cachegrind-out-file=/dev/null "$1" -test.run '^$' -test.bench "$bench" \
		-test.benchtime "$3x" 2>&1) | awk '/I *refs:/ { gsub(",", "", $NF); print $NF }'
}

# perop NAME ROOT: builds PKG in the module at ROOT and prints its count.
perop() {
	local name=$1 root=$2
	echo "==> building $pkg at $name" >&2
	(cd "$root" && go test -c -o "$tmp/$name.test" "$pkg")
	local dir
	dir=$(cd "$root" && go list -f '{{.Dir}}' "$pkg")
	echo "==> counting $bench at $name under valgrind ($n1 and $n2 ops)" >&2
	local a b
	a=$(count "$tmp/$name.test" "$dir" "$n1")
	b=$(count "$tmp/$name.test" "$dir" "$n2")
	echo "$name $bench $(((b - a) / (n2 - n1))) instructions/op"
}

if [ -n "$rev" ]; then
	rel=$(git rev-parse --show-prefix)
	git worktree add --detach "$tmp/rev" "$rev" >/dev/null
	perop "$rev" "$tmp/rev/$rel"
fi
perop tree "$(pwd)"
