#!/usr/bin/env bash
# ratios.sh COUNT FLAG...: the server's CPU per call on the two benchmarks of
# serverpaths.bash (the OTLP replay and CreateUser of 16 KiB, server in its
# own process), as ratios measured side by side: in each of COUNT rounds,
# every path runs once, and each ratio is taken within the round. It prints
# the results (for benchstat -col /codec) on standard output, then, on
# standard error, the median of each ratio over the rounds, with its
# smallest and largest: grpcfast's default path against vtprotobuf's codec,
# pooled with one copy and gRPC-Go's floor (-grpcfast.floor) against the
# standard path. FLAG... go to every run (-test.benchtime, ...).
#
# With RATIOS_REV=REV in the environment, it compares two builds in one
# run: each round runs every path of both benchmarks built at git revision
# REV (in a temporary worktree), then built from the working tree, and the
# ratios are printed for each build (results named build=rev and
# build=tree; benchstat -col /build -ignore /round compares them). The
# machine's noise in a round then moves both builds alike, where medians
# of runs made at different times move apart (docs/measurements.md).
#
# With RATIOS_SERVERS="shared apart" in the environment, each round runs
# every path twice: in one go test run for all paths (shared, the default
# and every other script's way), then in a go test run of each path's own
# (apart: serverpaths.bash's SERVERPATHS_APART), results named
# server=shared and server=apart, and the ratios are printed for each.
# Before the generated benchmarks started a server process per path, a
# shared run served every path from one, and a path measured after others
# ran on the heap they left (docs/measurements.md, "A server process of
# each path's own").
#
# With RATIOS_INNER=K in the environment (shared runs only), each round
# runs every path K times in one go test run (-grpcfast.rounds=K, each
# path's server process and connections the same throughout), so that a path
# runs seconds from the next rather than a run's length: rounds of a few
# seconds each, on a machine whose load moves from one second to the next
# (docs/measurements.md, "Rounds within a run"). Its results are named
# round=I/round=J, and each is one round of the summary; since the rounds
# of one run share its processes and may not vary independently, the
# summary then also prints each ratio with every run taken as one value,
# the median of its rounds ("by run").
#
# ratios.sh --runs FILE... prints how many go test runs made those results
# and the most rounds within one (RATIOS_INNER, or 0): make benchmarks-md
# names its command with them.
#
# ratios.sh --summary FILE... prints the same ratios, for the results of
# earlier runs in FILE... (what each printed on standard output), on
# standard output: make benchmarks-md writes them into BENCHMARKS.md. The
# rounds of several files are pooled, each file's kept apart from the
# others' (round 1 of one run is not round 1 of the next).
#
# Each ratio's median comes with a 95% confidence interval that assumes
# nothing of how the rounds' ratios are distributed, only that the rounds
# are independent: the k-th smallest and the k-th largest ratio, for the
# largest k at which both fall on the same side of the true median with a
# probability of at most 5% (a sign test, the binomial distribution of n
# rounds). A target that lies inside it is neither met nor missed by the
# run. It needs 6 rounds at least.
set -euo pipefail

# summary FILE... prints, for the results in FILE..., the median of each
# ratio over the rounds, with its 95% confidence interval, its quartiles,
# smallest and largest.
summary() {
	awk '
FNR == 1 { run++ }
/srv-cpu-ns\/op/ {
	name = $1
	# Its round in this file: round=I, and with RATIOS_INNER round=J
	# further on (round=I/build=rev/round=J/...).
	round = run; rest = name; levels = 0
	while (match(rest, /round=[0-9]+/)) {
		outer = round
		round = round "." substr(rest, RSTART + 6, RLENGTH - 6)
		rest = substr(rest, RSTART + RLENGTH)
		levels++
	}
	if (levels == 0) next
	# The rounds of one go test run (RATIOS_INNER) share its processes:
	# the summary also takes the median of each run as one value (ratio).
	if (levels > 1) inrun[round] = outer
	# The setting a result was measured in: its build, its server mode.
	setting = ""
	if (match(name, /build=[a-z]+/)) setting = " " substr(name, RSTART, RLENGTH)
	if (match(name, /server=[a-z]+/)) setting = setting " " substr(name, RSTART, RLENGTH)
	bench = name; sub(/\/round=.*/, "", bench); sub(/^Benchmark[^\/]*\//, "", bench); bench = bench setting
	codec = name; sub(/.*codec=/, "", codec)
	for (i = 2; i < NF; i++) if ($(i + 1) == "srv-cpu-ns/op") cpu[bench, codec, round] = $i
	rounds[round] = 1; benches[bench] = 1
}
function median(a, n,    i, j, t) {
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
# ciRank returns the rank, from either end, of the bounds of a 95%
# confidence interval for the median of n independent values: the largest
# k with 2 P(B <= k-1) <= 0.05, B binomial of n trials of one half; 0 where
# none is (n < 6).
function ciRank(n,    j, c, p, k) {
	c = 1 # n choose j
	p = 0 # P(B <= j)
	k = 0
	for (j = 0; 2 * j < n; j++) {
		p += c / 2 ^ n
		if (2 * p > 0.05) break
		k = j + 1
		c = c * (n - j) / (j + 1)
	}
	return k
}
function ratio(bench, num, den, label,    r, n, v, a, q, k, ci, x, runs, inr, m, g, per, b, i, j) {
	n = 0
	for (r in rounds) if ((bench, num, r) in cpu && (bench, den, r) in cpu && cpu[bench, den, r] > 0) {
		x = cpu[bench, num, r] / cpu[bench, den, r]
		a[++n] = x
		if (r in inrun) {
			g = inrun[r]
			if (!(g in inr)) runs[++m] = g
			per[g, ++inr[g]] = x
		}
	}
	if (n == 0) return
	v = median(a, n) # sorts a
	q = int((n + 3) / 4) # the rank of each quartile, from either end
	k = ciRank(n)
	ci = k > 0 ? sprintf("95%% CI %.3f to %.3f", a[k], a[n + 1 - k]) : "95% CI: too few rounds"
	printf "%-10s %-34s median %.3f  %s  quartiles %.3f to %.3f  all %.3f to %.3f  (%d rounds)\n", bench, label, v, ci, a[q], a[n + 1 - q], a[1], a[n], n
	if (m == 0) return
	# The same, the rounds of each go test run taken as one value, their median:
	# an interval that holds even where the rounds of a run do not vary
	# independently of each other.
	for (i = 1; i <= m; i++) {
		g = runs[i]
		delete b
		for (j = 1; j <= inr[g]; j++) b[j] = per[g, j]
		a[i] = median(b, inr[g])
	}
	v = median(a, m)
	k = ciRank(m)
	ci = k > 0 ? sprintf("95%% CI %.3f to %.3f", a[k], a[m + 1 - k]) : "95% CI: too few runs"
	printf "%-10s %-34s median %.3f  %s  by run, each the median of its rounds  (%d runs)\n", bench, label, v, ci, m
}
END {
	# The benchmarks in order of name (Export, then CreateUser; each setting).
	n = 0
	for (b in benches) names[++n] = b
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (names[j] > names[i]) { t = names[i]; names[i] = names[j]; names[j] = t }
	for (i = 1; i <= n; i++) {
		b = names[i]
		ratio(b, "grpcfast", "vtproto", "grpcfast / vtproto")
		ratio(b, "grpcfast", "proto", "grpcfast / proto")
		ratio(b, "grpcfast-pooled-copy", "proto", "grpcfast-pooled-copy / proto")
		ratio(b, "floor", "proto", "floor / proto")
	}
}' "$@"
}

# runs FILE... prints how many go test runs made the results in FILE...
# (round=I; each file's apart), and the most rounds within one of them
# (round=I/round=J, of RATIOS_INNER; 0 for results without): the COUNT and
# RATIOS_INNER of the command that makes such results, for make
# benchmarks-md's heading.
runs() {
	awk '
FNR == 1 { file++ }
/^Benchmark/ {
	name = $1; outer = ""; levels = 0
	while (match(name, /round=[0-9]+/)) {
		r = substr(name, RSTART + 6, RLENGTH - 6)
		if (levels == 0) outer = file "." r
		else inner[outer, r] = 1
		name = substr(name, RSTART + RLENGTH)
		levels++
	}
	if (levels > 0) seen[outer] = 1
}
END {
	n = 0
	for (o in seen) n++
	for (k in inner) {
		split(k, p, SUBSEP)
		within[p[1]]++
	}
	w = 0
	for (o in within) if (within[o] > w) w = within[o]
	print n, w
}' "$@"
}

# --runs and --summary read the files of results named after them.
case ${1:-} in
--runs | --summary)
	mode=${1#--}
	shift
	[ $# -gt 0 ] || {
		echo "ratios.sh --$mode: name the files of results to read" >&2
		exit 2
	}
	"$mode" "$@"
	exit
	;;
esac

count=$1
shift
source "$(dirname "$0")/serverpaths.bash"
builds=tree
servers=${RATIOS_SERVERS:-shared}
inner=${RATIOS_INNER:-1}
[[ $inner =~ ^[1-9][0-9]*$ ]] || {
	echo "ratios.sh: RATIOS_INNER is a whole number >= 1, not $inner" >&2
	exit 2
}
if [ "$inner" -gt 1 ] && [ "$servers" != shared ]; then
	echo "ratios.sh: RATIOS_INNER needs shared runs (a go test run of each path's own runs one path)" >&2
	exit 2
fi
for s in $servers; do
	case $s in
	shared | apart) ;;
	*)
		echo "ratios.sh: RATIOS_SERVERS holds shared, apart or both, not $s" >&2
		exit 2
		;;
	esac
done
if [ -n "${RATIOS_REV:-}" ]; then
	builds="rev tree"
	git -C "$root" worktree add --detach "$bin/worktree" "$RATIOS_REV" >/dev/null
	trap 'git -C "$root" worktree remove --force "$bin/worktree" 2>/dev/null || true; rm -rf "$bin"' EXIT
	serverpaths_build "$bin/worktree" "$bin/rev"
fi
serverpaths_build "$root" "$bin/tree"
out="$bin/results.txt"
for ((i = 1; i <= count; i++)); do
	echo "==> ratios.sh: round $i of $count" >&2
	for b in $builds; do
		order=$servers
		# Both server modes: each first in every other round.
		((i % 2)) || order=$(printf '%s\n' $servers | tac | tr '\n' ' ')
		for s in $order; do
			name=$i
			[ -z "${RATIOS_REV:-}" ] || name="$name/build=$b"
			[ "$servers" = shared ] || name="$name/server=$s"
			apart=
			[ "$s" = shared ] || apart=1
			SERVERPATHS_ROUNDS=$inner SERVERPATHS_APART=$apart SERVERPATHS_BIN="$bin/$b" serverpaths_run round "$name" "$@" | tee -a "$out"
		done
	done
done
echo "==> ratios.sh: server CPU per call, ratios within each round" >&2
summary "$out" >&2
