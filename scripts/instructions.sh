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
# The benchmark runs twice, N1 and N2 ops, and the difference over N2-N1 is
# what one op costs, setup aside. N2 is as many ops as about 2 billion
# instructions take (BENCH_BUDGET), from 1,200 up to 120,000, and N1 a sixth
# of it, so that a first count of 200 and 1,200 ops sizes them, and the same
# N1 and N2 then count the other build too; BENCH_N1 and BENCH_N2 set both
# instead. Few ops would count what a long-running process no longer runs:
# the runtime fills a call site's cache of type assertions (v.(Iface) in the
# codec's Unmarshal, for one) on about one miss in 1,024, so each assertion
# takes the slow path through the itab table (about 150 instructions) for
# the first thousand or so ops of a process. 200 and 1,200 ops of a small
# message's decode counted 3,317 instructions per op where 20,000 and
# 120,000 count 3,110 (docs/measurements.md#counting-instructions).
#
# It runs with GOMAXPROCS=1 and GOGC=off, so that the garbage collector's
# background work and its spinning threads, which valgrind serializes, do
# not blur the count: what a collection costs is not in it; and with
# GODEBUG=cpu.rdtscp=off, since valgrind 3.19 passes on a processor's
# RDTSCP, which the runtime then reads the clock with while it spins on a
# lock, and stops the program at it as an illegal instruction (seen on an
# AMD EPYC, in one run of three). Needs valgrind (Debian: apt-get install
# valgrind).
set -euo pipefail
pkg=$1 bench=$2 rev=${3:-}
n1=${BENCH_N1:-} n2=${BENCH_N2:-} budget=${BENCH_BUDGET:-2000000000}
if [[ -n $n1 || -n $n2 ]]; then
	[[ $n1 =~ ^[0-9]+$ && $n2 =~ ^[0-9]+$ ]] && ((n1 < n2)) || {
		echo "instructions.sh: BENCH_N1 and BENCH_N2 must both be set, numbers of ops with BENCH_N1 < BENCH_N2 (got '$n1' and '$n2')" >&2
		exit 2
	}
fi
[[ $budget =~ ^[0-9]+$ ]] || {
	echo "instructions.sh: BENCH_BUDGET must be a number of instructions (got '$budget')" >&2
	exit 2
}
command -v valgrind >/dev/null || {
	echo "instructions.sh: needs valgrind (apt-get install valgrind)" >&2
	exit 2
}
tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/rev" 2>/dev/null || true; rm -rf "$tmp"' EXIT

# count BINARY DIR N: the instructions of N ops. A run that fails, that
# runs no benchmark, or that valgrind does not count, stops the script with
# its output (stop).
count() {
	local out
	if ! out=$(cd "$2" && GOMAXPROCS=1 GOGC=off GODEBUG="${GODEBUG:+$GODEBUG,}cpu.rdtscp=off" valgrind --tool=cachegrind --cache-sim=no \
		--cachegrind-out-file=/dev/null "$1" -test.run '^$' -test.bench "$bench" \
		-test.benchtime "$3x" 2>&1); then
		stop "$bench failed at $3 ops under valgrind"
	fi
	grep -q '^Benchmark' <<<"$out" || stop "$bench matches no benchmark of $pkg at $3 ops"
	local n
	n=$(printf '%s\n' "$out" | awk '/I *refs:/ { gsub(",", "", $NF); print $NF }')
	[[ -n $n ]] || stop "valgrind gave no count for $bench at $3 ops" valgrind
	echo "$n"
}

# stop MESSAGE [valgrind]: prints the last 20 lines of count's output (out),
# valgrind's own lines (==PID==, --PID--) left out unless the second
# argument asks for them, then MESSAGE, and ends the script.
stop() {
	if [[ ${2:-} == valgrind ]]; then
		printf '%s\n' "$out" | tail -20 >&2
	else
		printf '%s\n' "$out" | grep -v '^[-=][-=]' | tail -20 >&2
	fi
	echo "instructions.sh: $1 (its output above)" >&2
	exit 1
}

# perop NAME ROOT: builds PKG in the module at ROOT and prints its count,
# sizing N1 and N2 first where they are not set yet (the header).
perop() {
	local name=$1 root=$2
	echo "==> building $pkg at $name" >&2
	(cd "$root" && go test -c -o "$tmp/$name.test" "$pkg")
	local dir
	dir=$(cd "$root" && go list -f '{{.Dir}}' "$pkg")
	local a b
	if [[ -z $n1 ]]; then
		echo "==> sizing the count of $bench at $name under valgrind (200 and 1200 ops)" >&2
		a=$(count "$tmp/$name.test" "$dir" 200)
		b=$(count "$tmp/$name.test" "$dir" 1200)
		local per=$(((b - a) / 1000))
		((per > 0)) || per=1
		n2=$((budget / per))
		((n2 > 120000)) && n2=120000
		((n2 < 1200)) && n2=1200
		n1=$((n2 / 6))
		if ((n2 == 1200)); then
			n1=200
			echo "$name $bench $per instructions/op (200 and 1200 ops)"
			return
		fi
	fi
	echo "==> counting $bench at $name under valgrind ($n1 and $n2 ops)" >&2
	a=$(count "$tmp/$name.test" "$dir" "$n1")
	b=$(count "$tmp/$name.test" "$dir" "$n2")
	echo "$name $bench $(((b - a) / (n2 - n1))) instructions/op ($n1 and $n2 ops)"
}

if [ -n "$rev" ]; then
	rel=$(git rev-parse --show-prefix)
	git worktree add --detach "$tmp/rev" "$rev" >/dev/null
	perop "$rev" "$tmp/rev/$rel"
fi
perop tree "$(pwd)"
