#!/usr/bin/env bash
# perop.sh RESULTS DIR [N] [SIDE]: what each path of a profiled run of the
# generated benchmarks spends per call, function by function. DIR holds the
# profiles that -grpcfast.profile=DIR wrote, RESULTS the same run's go test
# output. For each sub-benchmark profiled, every function's cumulative CPU
# time is divided by the calls its run made (the iteration count on its
# line of RESULTS) and printed in µs per call: a column per path (codec=...),
# a row per function, the N functions (default 30) that spend most in any
# path, in order of the first column. SIDE is server (the default: the
# server process's profiles, -grpcfast.server=process) or client (this
# process's). Profiles of two paths then compare as costs per call, where
# their totals differ by how many calls each run made. For instance
#
#	cd internal/testprotos/otlp && go test -c -o /tmp/otlp.test . &&
#	/tmp/otlp.test -test.run '^$' -test.benchtime 20s \
#		-test.bench 'Grpcfast_TraceService/^Export$/codec=(grpcfast-pooled-copy|floor)$' \
#		-grpcfast.replay="$PWD/testdata/corpus" -grpcfast.server=process -grpcfast.floor \
#		-grpcfast.profile=/tmp/prof | tee /tmp/prof.txt &&
#	../../../scripts/perop.sh /tmp/prof.txt /tmp/prof 40
#
# A CPU profile samples 100 times a second: a figure below about 1/(100 x
# the run's seconds x calls per second) µs per call is a sample or two.
set -euo pipefail
results=$1 dir=$2 n=${3:-30} side=${4:-server}
case $side in
server) suffix=.server.cpu.pprof ;;
client) suffix=.cpu.pprof ;;
*)
	echo "perop.sh: SIDE is server or client, not $side" >&2
	exit 2
	;;
esac
shopt -s nullglob
tables=$(mktemp)
trap 'rm -f "$tables"' EXIT
found=0
for f in "$dir"/*"$suffix"; do
	base=$(basename "$f" "$suffix")
	if [ "$side" = client ] && [[ $base == *.server ]]; then
		continue
	fi
	codec=${base##*codec=}
	# The run's line, numbered: its name ends with /codec=NAME, then
	# -GOMAXPROCS or a blank, and its iteration count follows. Its number
	# orders the columns as the paths ran.
	lines=$(grep -n -E "^Benchmark[^[:space:]]*/codec=${codec}(-[0-9]+)?[[:space:]]" "$results" || true)
	if [ "$(printf '%s\n' "$lines" | grep -c .)" != 1 ]; then
		echo "perop.sh: want one line of codec=$codec in $results (one benchmark, one -test.cpu, one -count per run), found:" >&2
		printf '%s\n' "$lines" >&2
		exit 2
	fi
	order=${lines%%:*}
	calls=$(printf '%s\n' "${lines#*:}" | awk '{ print $2 }')
	found=$((found + 1))
	go tool pprof -top -cum -nodecount=100000 "$f" 2>/dev/null |
		awk -v codec="$order $codec" -v calls="$calls" '
		# After the header, each line: flat flat% sum% cum cum% name.
		/^ *flat +flat%/ { body = 1; next }
		!body { next }
		{
			cum = $4
			if (cum ~ /ms$/) { sub(/ms$/, "", cum); s = cum / 1000 }
			else if (cum ~ /us$/ || cum ~ /µs$/) { sub(/(us|µs)$/, "", cum); s = cum / 1e6 }
			else if (cum ~ /s$/) { sub(/s$/, "", cum); s = cum + 0 }
			else s = cum + 0
			name = $0
			sub(/^ *[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +/, "", name)
			gsub(/go\.shape\.struct \{[^}]*\}/, "go.shape.struct{...}", name)
			gsub(/go\.shape\.[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]*/, "go.shape...", name)
			if (length(name) > 110) name = substr(name, 1, 107) "..."
			printf "%s\t%s\t%.3f\n", codec, name, s * 1e6 / calls
		}' >>"$tables"
done
if [ "$found" = 0 ]; then
	echo "perop.sh: no $side profile (*$suffix) in $dir" >&2
	exit 2
fi
echo "$side CPU per call, µs (cumulative, as pprof -cum), by function and path, the $n that spend most in any path"
sort -t "$(printf '\t')" -k1,1n "$tables" | awk -F '\t' -v n="$n" '
{
	codec = $1
	sub(/^[0-9]+ /, "", codec)
	if (!(codec in seen)) { seen[codec] = 1; codecs[++nc] = codec }
	us[codec, $2] = $3
	if (!($2 in fns)) { fns[$2] = 1; names[++nf] = $2 }
	if ($3 > top[$2]) top[$2] = $3
}
END {
	for (i = 1; i <= nf; i++) order[i] = names[i]
	for (i = 1; i <= nf; i++) for (j = i + 1; j <= nf; j++) if (top[order[j]] > top[order[i]]) { t = order[i]; order[i] = order[j]; order[j] = t }
	m = nf < n ? nf : n
	for (c = 1; c <= nc; c++) { w[c] = length(codecs[c]) < 8 ? 8 : length(codecs[c]); printf "%*s  ", w[c], codecs[c] }
	print "function"
	for (i = 1; i <= m; i++) {
		for (c = 1; c <= nc; c++) printf "%*.1f  ", w[c], us[codecs[c], order[i]]
		print order[i]
	}
}'
