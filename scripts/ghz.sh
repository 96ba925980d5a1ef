#!/usr/bin/env bash
# make ghz: loads example/cmd/server with ghz (pinned in tools/ghz/go.mod)
# through reflection, CreateUser and the Put stream, the server's codec
# grpcfast then standard; prints ghz's summaries and one table side by side,
# and fails on any error but ghz's own cut-off at the end of -z. Results go
# to .cache/ghz.
#
#   GHZ_TIME         how long ghz loads each method (default 5s)
#   GHZ_CONCURRENCY  calls at once (default 16)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$PWD/.bin
out=$PWD/.cache/ghz
time=${GHZ_TIME:-5s}
conc=${GHZ_CONCURRENCY:-16}
# The two ways ghz's own cut-off at -z ends the calls it has in flight: it
# closes its connection under them.
cutoff='code = Unavailable desc = transport is closing|code = Canceled desc = grpc: the client connection is closing'
mkdir -p "$out"

echo "==> building ghz (pinned in tools/ghz/go.mod, about 30 s the first time) and example/cmd/server into .bin"
go build -modfile=tools/ghz/go.mod -o "$bin/" github.com/bojand/ghz/cmd/ghz
go build -o "$bin/example-server" ./example/cmd/server

echo "==> writing the Put stream's messages to $out/put.json: 16 chunks of 16 KiB (256 KiB per call)"
chunk=$(head -c 16384 /dev/zero | base64 -w0)
{
	printf '['
	for i in $(seq 16); do
		[ "$i" = 1 ] || printf ','
		printf '{"data":"%s"}' "$chunk"
	done
	printf ']'
} > "$out/put.json"

pid=
trap '[ -z "$pid" ] || kill "$pid" 2>/dev/null || true' EXIT
for codec in grpcfast standard; do
	log=$out/server-$codec.log
	rm -f "$log"
	"$bin/example-server" -addr 127.0.0.1:0 -codec "$codec" > "$log" 2>&1 &
	pid=$!
	# The server's first line says where it listens.
	for _ in $(seq 100); do
		[ -s "$log" ] && break
		sleep 0.1
	done
	addr=$(head -n 1 "$log" | awk '/ listening on /{print $NF}')
	[ -n "$addr" ] || { echo "the server did not start:"; cat "$log"; exit 1; }
	echo "==> server -codec $codec on $addr: ghz CreateUser for $time, $conc calls at once"
	"$bin/ghz" --insecure -z "$time" -c "$conc" --call grpcfast.example.v1.UserService.CreateUser \
		-d '{"name":"gopher","email":"gopher@example.com","age":16,"tags":["a","b"]}' "$addr" > "$out/$codec-CreateUser.txt"
	echo "==> server -codec $codec on $addr: ghz Put (16 x 16 KiB per call) for $time, $conc calls at once"
	"$bin/ghz" --insecure -z "$time" -c "$conc" --call grpcfast.example.v1.ChunkService.Put \
		--data-file "$out/put.json" "$addr" > "$out/$codec-Put.txt"
	kill -TERM "$pid"
	wait "$pid"
	pid=
	echo "    $(tail -n 1 "$log")"
done

runs=(grpcfast-CreateUser grpcfast-Put standard-CreateUser standard-Put)
for f in "${runs[@]}"; do
	echo "==> ghz summary: ${f/-/ server, } (from $out/$f.txt)"
	sed -n '/^Summary:/,$p' "$out/$f.txt" | grep -v '^\s*$' | grep -v -e '^Response time histogram' -e '^  [0-9.]* \['
done

echo "==> side by side"
printf '%-10s %-11s %12s %10s %10s %8s\n' codec method requests/s p50 p99 errors
for f in "${runs[@]}"; do
	awk -v name="$f" '/Requests\/sec:/{rps=$2} /^  50 % in/{p50=$4" "$5} /^  99 % in/{p99=$4" "$5}
		/^Error distribution:/{e=1; next} e && NF {gsub(/[][]/, "", $1); errs+=$1}
		END {split(name, n, "-"); printf "%-10s %-11s %12s %10s %10s %8d\n", n[1], n[2], rps, p50, p99, errs}' "$out/$f.txt"
done

echo "==> checking the errors: only ghz's cut-off at -z $time may fail calls. It closes its connection under"
echo "    the calls in flight (at most one per concurrent call, $conc): 'Unavailable: transport is closing'"
echo "    or 'Canceled: grpc: the client connection is closing'. Any other error, or more of those, fails."
for f in "${runs[@]}"; do
	errs=$(sed -n '/^Error distribution:/,$p' "$out/$f.txt" | sed 1d | grep -v '^\s*$' || true)
	other=$(grep -v -E "^\s*\[[0-9]+\]\s+rpc error: ($cutoff)\s*$" <<<"$errs" | grep . || true)
	n=$(awk '{gsub(/[][]/, "", $1); s+=$1} END {print s+0}' <<<"$errs")
	ok=$(awk '/^  \[OK\]/{print $2}' "$out/$f.txt")
	if [ -n "$other" ] || [ "$n" -gt "$conc" ] || [ -z "$ok" ]; then
		echo "FAIL $f: ${ok:-no} OK calls, $n errors, of which not the cut-off's:"
		echo "$other"
		exit 1
	fi
	echo "    $f: $ok OK, $n cut off at the end"
done
