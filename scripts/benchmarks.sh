#!/usr/bin/env bash
# Rewrites BENCHMARKS.md from one run of every benchmark in the repository,
# so that its figures always come from the code that made them. Run it
# through `make benchmarks-md`, which builds the pinned benchstat first.
#
#   BENCH_COUNT  samples per sub-benchmark (default 6)
#   BENCH_TIME   -benchtime of the generated benchmarks (default 0.5s)
#   BENCH_ARGS   flags of the generated benchmarks
#   BENCH_MSGS   messages per stream of scripts/interop.sh (default 256)
#   BENCH_INNER  rounds within each go test run of the ratios step
#                (scripts/ratios.sh's RATIOS_INNER; default 8)
#   BENCH_WARMUP untimed calls before each timed run of the ratios step
#                (-grpcfast.warmup; default 1s)
#   BENCH_ONLY   run only these steps (names of .cache/bench/NAME.txt, separated
#                by spaces; interop for scripts/interop.sh) and take the others'
#                results from the last run, e.g. BENCH_ONLY="concurrent peers"
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/.bin:$PATH"
count=${BENCH_COUNT:-6}
btime=${BENCH_TIME:-0.5s}
args=${BENCH_ARGS:--grpcfast.size=16384 -grpcfast.msgs=256}
imsgs=${BENCH_MSGS:-256} # messages per stream of scripts/interop.sh
inner=${BENCH_INNER:-8}  # rounds within each run of the ratios step
warm=${BENCH_WARMUP:-1s} # warm-up before each timed run of the ratios step
out=.cache/bench
mkdir -p "$out"
source scripts/benchcmd.bash

# only NAME: whether the step NAME runs (BENCH_ONLY unset, or it names NAME).
only() { [[ -z ${BENCH_ONLY:-} || " $BENCH_ONLY " == *" $1 "* ]]; }

run() { # name, description, command...
	local name=$1 what=$2
	shift 2
	if ! only "$name"; then
		if [[ -s $out/$name.txt ]]; then
			echo "==> $what: the results of the last run ($out/$name.txt)" >&2
		else
			# A fresh clone, or a run on another worktree: keep what
			# BENCHMARKS.md shows for the step (section, below).
			echo "==> $what: no results in $out/$name.txt; BENCHMARKS.md keeps its section for it" >&2
		fi
		return
	fi
	echo "==> $what" >&2
	"$@" | tee "$out/$name.txt" >&2
	bench_record "$out" "$name" "$count" "$btime"
}

run gen "generated benchmarks of the example, server in-process" \
	./scripts/gobench.sh "$count" ./example/examplepb -test.bench Grpcfast -test.benchmem -test.benchtime "$btime" $args
run gen-process "generated benchmarks of the example, server in its own process" \
	./scripts/gobench.sh "$count" ./example/examplepb -test.bench Grpcfast -test.benchmem -test.benchtime "$btime" $args -grpcfast.server=process
run bytestream "ByteStream-shaped: Write and Read of 256 chunks of 16 KiB, server in its own process" \
	./scripts/gobench.sh "$count" ./internal/testprotos/bytestream -test.bench 'Grpcfast_ByteStream/(Write|Read)$' -test.benchmem -test.benchtime "$btime" \
	 -grpcfast.size=16384 -grpcfast.msgs=256 -grpcfast.server=process
otlp_grow=grpcfast.testdata.otlp.ScopeSpans.spans
run otlp-filled "OTLP-shaped: Export of about 64 KiB of filled spans, server in its own process" \
	./scripts/gobench.sh "$count" ./internal/testprotos/otlp -test.bench 'Grpcfast_TraceService' -test.benchmem -test.benchtime "$btime" \
	 -grpcfast.size=65536 -grpcfast.grow=$otlp_grow -grpcfast.server=process
corpus=$PWD/internal/testprotos/otlp/testdata/corpus # absolute: go test runs in the package's directory
run otlp-replay "OTLP-shaped: Export replaying 4 recorded exports of 100 spans, server in its own process" \
	./scripts/gobench.sh "$count" ./internal/testprotos/otlp -test.bench 'Grpcfast_TraceService' -test.benchmem -test.benchtime "$btime" \
	 -grpcfast.replay="$corpus" -grpcfast.server=process -grpcfast.floor
if [[ $(nproc) -ge 2 ]]; then
	run placement "where the client and the server run: sharing both CPUs, with GOMAXPROCS=1, and on a CPU each; the OTLP replay and CreateUser of 16 KiB (scripts/placement.sh)" \
		./scripts/placement.sh "$count" -test.benchmem -test.benchtime "$btime"
else
	echo "==> where the client and the server run: skipped, since this process may use one CPU only; BENCHMARKS.md keeps its section" >&2
fi
# ratios_step runs the ratios step, and keeps its warm-up for the section's command.
ratios_step() {
	echo "$warm" >"$out/ratios.warmup"
	RATIOS_INNER="$inner" ./scripts/ratios.sh "$count" -test.benchtime "$btime" -grpcfast.warmup="$warm"
}
run ratios "the server's CPU per call, ratios within interleaved rounds: the OTLP replay and CreateUser of 16 KiB on every path, $warm of warm-up before each timed run (scripts/ratios.sh)" \
	ratios_step
run responses-cas "reused unary responses, client side: BatchReadBlobs replaying 16 blobs of 64 KiB per response, server in its own process" \
	./scripts/gobench.sh "$count" ./internal/testprotos/bytestream -test.bench 'Grpcfast_ContentAddressableStorage' -test.benchmem -test.benchtime "$btime" \
	 -grpcfast.replay="$PWD/internal/testprotos/bytestream/testdata/corpus" -grpcfast.server=process -grpcfast.floor
run responses-traces "reused unary responses, client side: GetTraces replaying pages of 100 spans, server in its own process" \
	./scripts/gobench.sh "$count" ./internal/testprotos/otlp -test.bench 'Grpcfast_TraceQueryService' -test.benchmem -test.benchtime "$btime" \
	 -grpcfast.replay="$corpus" -grpcfast.server=process -grpcfast.floor
short="-grpcfast.size=16384 -grpcfast.msgs=4 -grpcfast.server=process"
run short "1000 short streams (4 messages of 16 KiB), server in its own process" \
	./scripts/gobench.sh "$count" ./example/examplepb -test.bench 'Grpcfast_ChunkService/(Put|Get)' -test.benchmem -test.benchtime 1000x $short
run short-floor "the same with 16-byte messages: what gRPC-Go allocates per stream" \
	./scripts/gobench.sh "$count" ./example/examplepb -test.bench 'Grpcfast_ChunkService/(Put|Get)' -test.benchmem -test.benchtime 1000x \
	 ${short/16384/16}
run receiver "short streams through the codec and a receiver alone: stream Recv, receiver, receiver with Release" \
	./scripts/gobench.sh "$count" . -test.bench '^BenchmarkShortStream$' -test.benchmem -test.benchtime 2000x
load="-grpcfast.streams=1,8,64 -grpcfast.conns=1,4"
run concurrent "1, 8 and 64 streams at once, on one and four connections, server in-process" \
	./scripts/gobench.sh "$count" ./example/examplepb -test.bench 'Grpcfast_(ChunkService|UserService)/(Put|Get|CreateUser)$' -test.benchmem -test.benchtime "$btime" $args $load
prof=$PWD/$out/profile # absolute: go test runs in the package's directory
only concurrent-profile && rm -rf "$prof"
run concurrent-profile "64 streams at once with grpcfast, profiled" \
	go test -run '^$' -bench 'Grpcfast_ChunkService/(Put|Get)/codec=grpcfast' -count 1 -benchtime 2s \
	./example/examplepb -args $args -grpcfast.streams=64 -grpcfast.profile="$prof"
run codec "codec benchmarks, without the transport" \
	./scripts/gobench.sh "$count" . -test.bench '^BenchmarkCodec' -test.benchmem
run decode-paths "decoding alone, on every receive path: the replayed OTLP exports, 1 KiB to 1 MiB of short strings, well-known types" \
	./scripts/gobench.sh "$count" . -test.bench '^BenchmarkDecode(OTLP|Strings|Known)$' -test.benchmem
run hostile "the worst malformed 4 MiB inputs: grpcfast against gRPC's standard codec" \
	./scripts/gobench.sh "$count" . -test.bench '^BenchmarkHostile$' -test.benchmem -test.benchtime 5x
run transport "hand-written 16 MiB streams, transport floor and raw TCP" \
	./scripts/gobench.sh "$count" ./example/ -test.bench . -test.benchmem
run threshold "the pooling threshold: plain allocation against pooled buffers" \
	go test -run '^$' -bench '^BenchmarkThreshold$' -benchmem -count 3 -benchtime 0.2s .
if only interop; then
	echo "==> gRPC's interop messages, vtprotobuf's pool off and on (scripts/interop.sh)" >&2
	BENCH_COUNT="$count" BENCH_TIME="$btime" BENCH_MSGS="$imsgs" ./scripts/interop.sh >&2
fi
run knobs "gRPC-Go's transport settings on bulk streams, interleaved rounds (scripts/knobs.sh)" \
	env BENCH_COUNT="$count" BENCH_TIME="$btime" ./scripts/knobs.sh
run size-sweep "how cost grows with the request: CreateUser of 16 KiB to 2 MiB of short strings, CreateUsers of 100,000 users, server in its own process" \
	./scripts/sizesweep.sh "$count" -test.benchmem -test.benchtime "$btime"
run peers-otlp "OTLP collectors: pdata (pooling gate off and on) against gRPC-Go and grpcfast, collector in its own process; decoding alone" \
	env GOFLAGS= bash -c 'cd peers && ../scripts/gobench.sh "$0" . -test.bench "^Benchmark(OTLPCollectors|DecodeOTLP)\$" -test.benchmem -test.benchtime "$1"' "$count" "$btime"
run peers "the peers: grpcfast, gRPC's standard path, drpc and connect-go, server in-process and in its own process" \
	env GOFLAGS= bash -c 'cd peers && ../scripts/gobench.sh "$0" . -test.bench "^BenchmarkPeers\$" -test.benchmem -test.benchtime "$1"' "$count" "$btime"

# kept_section HEADING prints the section of BENCHMARKS.md under HEADING (a
# line of its own), up to the next heading of its level.
kept_section() {
	H=$1 awk '$0 == ENVIRON["H"] { p = 1; print; next } p && /^## / { exit } p { print }' BENCHMARKS.md
}

section() { # title, text, file, benchstat args...
	local title=$1 text=$2 file=$3
	shift 3
	if [[ ! -s $out/$file.txt ]]; then
		# Not run now, and no results of an earlier run (BENCH_ONLY): the
		# section as BENCHMARKS.md has it.
		local kept
		kept=$(kept_section "## $title")
		[[ -n $kept ]] || { echo "BENCH_ONLY: no results in $out/$file.txt, and BENCHMARKS.md has no section \"$title\"" >&2; exit 1; }
		printf '%s\n\n' "$kept"
		return
	fi
	# The command as the results were made: a step kept from an earlier
	# run (BENCH_ONLY) may have had another BENCH_COUNT and BENCH_TIME.
	local rcount rtime
	read -r rcount rtime < <(bench_ran "$out" "$file" "$count" "$btime")
	text=$(bench_command "$text" "$count" "$btime" "$rcount" "$rtime")
	printf '## %s\n\n%s\n\n```\n' "$title" "$text"
	benchstat "$@" "$out/$file.txt"
	printf '```\n\n'
}

trap 'rm -f BENCHMARKS.md.tmp' EXIT # nothing half written is left when a step fails
{
	printf '# Benchmarks\n\n'
	printf 'Written by `make benchmarks-md` (scripts/benchmarks.sh) from one run; do not edit by hand.\n'
	printf 'Each table compares the columns of one run with benchstat: compare ratios, not absolute\n'
	printf 'figures, which move with the machine and its load.\n\n'
	printf -- '- %s, %s cores, %s\n' "$(go version | cut -d' ' -f3-)" "$(nproc)" \
		"$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ //' || echo 'cpu unknown')"
	printf -- '- %s, %s, %s\n' "$(go list -m -f '{{.Path}} {{.Version}}' google.golang.org/grpc)" \
		"$(go list -m -f '{{.Path}} {{.Version}}' google.golang.org/protobuf)" \
		"$(go list -m -f '{{.Path}} {{.Version}}' github.com/planetscale/vtprotobuf)"
	printf -- '- every command below, but those in peers/ (a module of its own), built with these: `make benchmarks-md`\n'
	printf -- '  runs them with `GOFLAGS=-modfile=.cache/compat/newest.mod` (`make newest-mod` writes it: go.mod with\n'
	printf -- '  the newest grpc-go and protobuf-go tested); a script run alone builds with go.mod'"'"'s oldest ones\n'
	printf -- '- peers: %s, %s, %s\n' "$(GOFLAGS= go -C peers list -m -f '{{.Path}} {{.Version}}' storj.io/drpc)" \
		"$(GOFLAGS= go -C peers list -m -f '{{.Path}} {{.Version}}' connectrpc.com/connect)" \
		"$(GOFLAGS= go -C peers list -m -f '{{.Path}} {{.Version}}' go.opentelemetry.io/collector/pdata)"
	printf -- '- one sample per sub-benchmark from each interleaved round (scripts/gobench.sh): the number after gobench.sh in each command\n\n' 
	if [[ -s $out/gen.txt && -s $out/gen-process.txt ]]; then
		printf '## Summary\n\n'
		printf 'grpcfast against gRPC'"'"'s standard path (codec=proto) and vtprotobuf'"'"'s codec (codec=vtproto) on the\n'
		printf 'example'"'"'s generated benchmarks (the two sections below, whose commands say how they ran), as\n'
		printf '`make bench` prints it (internal/benchsummary): the ratio grpcfast / other per call, * where\n'
		printf 'benchstat finds the difference significant, ~ where it does not. Server in this process, then\n'
		printf 'in its own (CPU, bytes and allocations are then the client'"'"'s, srv the server'"'"'s).\n\n```\n'
		go run ./internal/benchsummary "$out/gen.txt" | sed '/^raw results:/d'
		printf '\n'
		go run ./internal/benchsummary "$out/gen-process.txt" | sed '/^raw results:/d'
		printf '```\n\n'
	else
		kept=$(kept_section '## Summary')
		[[ -n $kept ]] || { echo "BENCH_ONLY: no results in $out/gen.txt and gen-process.txt, and BENCHMARKS.md has no Summary" >&2; exit 1; }
		printf '%s\n\n' "$kept"
	fi

	section "The example's generated benchmarks, server in-process" \
"\`scripts/gobench.sh $count ./example/examplepb -test.bench Grpcfast -test.benchmem -test.benchtime $btime $args\`,
then \`benchstat -col /codec\`. codec=proto is gRPC's standard codec with the stream's own
Recv, codec=vtproto vtprotobuf's own codec/grpc with the stream's own Recv (as vtprotobuf's
users run it), codec=grpcfast the grpcfast codec with the generated receivers; each forces its
codec on both ends, and the first call of each is checked (what each side received equals what
was sent). Client and server share the process, so every figure counts both." \
		gen -col /codec
	section "The example's generated benchmarks, server in its own process" \
"The same with \`-grpcfast.server=process\`: sec/op, B/op, allocs/op and cpu-sec/op are the
client's; srv-cpu-sec/op, srv-B/op and srv-allocs/op the server's." \
		gen-process -col /codec
	section "ByteStream-shaped: Write and Read" \
"\`scripts/gobench.sh $count ./internal/testprotos/bytestream -test.bench 'Grpcfast_ByteStream/(Write|Read)\$' -test.benchmem -test.benchtime $btime -grpcfast.size=16384 -grpcfast.msgs=256 -grpcfast.server=process\`:
a service in the shape of Bazel's remote-cache ByteStream. What grows is each chunk's \`data\`
(bytes fields first), to 16 KiB, not its \`resource_name\`; Write's single response
(\`committed_size\`) stays small. Write: the server receives 256 chunks (srv-* figures);
Read: the client does." \
		bytestream -col /codec
	section "OTLP-shaped: Export, filled" \
"\`scripts/gobench.sh $count ./internal/testprotos/otlp -test.bench Grpcfast_TraceService -test.benchmem -test.benchtime $btime -grpcfast.size=65536 -grpcfast.grow=$otlp_grow -grpcfast.server=process\`:
a service with OpenTelemetry's trace-export messages. By default the first span's \`trace_id\`
(the shallowest bytes field) would grow; \`-grpcfast.grow\` names the field that grows in real
exports, the spans, so the request is about 64 KiB of spans. The response (an acknowledgement)
stays small." \
		otlp-filled -col /codec
	section "OTLP-shaped: Export, replayed" \
"The same service with \`-grpcfast.replay=internal/testprotos/otlp/testdata/corpus\` instead of filled
messages: 4 trace exports of 100 spans each (HTTP server spans with 7 attributes, an exception
event on every tenth, one resource with 8 attributes), about 45 KB each, sent in turn, and an
empty acknowledgement. The corpus is in grpcfastrecord's format (written by
internal/testprotos/otlp's TestCorpus). With \`-grpcfast.floor\`: codec=floor decodes nothing on
either receiving side, so its srv- figures are what gRPC-Go's transport and the stub cost the
server per export, under what any codec can reach." \
		otlp-replay -col /codec
	section "Where the client and the server run" \
"\`scripts/placement.sh $count -test.benchmem -test.benchtime $btime\`, then \`benchstat -col /codec -filter '.unit:srv-cpu-ns/op'\`:
the replayed OTLP export (above) and CreateUser with 16 KiB of short strings, server in its own
process, in three placements each round. shared: both processes on every CPU, GOMAXPROCS as
\`go test\` sets it (one per CPU), as in every other table here; shared1: the same with GOMAXPROCS=1
(\`-test.cpu 1\`); apart: GOMAXPROCS=1, the client pinned to one CPU and the server to the other
(\`-grpcfast.clientcpus\`, \`-grpcfast.servercpus\`). Each row is one placement: the columns
compare each path's server CPU per call with the standard codec's in the same placement. Where
the processes share the CPUs, the scheduler moves each one's threads between them, and the
server's CPU counts the caches it refills after each move and the client's work between its
own; apart, it counts the server's work alone." \
		placement -col /codec -filter '.unit:srv-cpu-ns/op'
	if [[ -s $out/ratios.txt ]]; then
		# Runs (round=I) and rounds within each (round=I/round=J, of
		# RATIOS_INNER), or runs alone (the results of an older run).
		counts=$(./scripts/ratios.sh --runs "$out/ratios.txt")
		read -r runs within <<<"$counts"
		# The warm-up of the run that made them, if it had one.
		warmflag=
		[[ ! -s $out/ratios.warmup ]] || warmflag=" -grpcfast.warmup=$(cat "$out/ratios.warmup")"
		read -r _ rtime < <(bench_ran "$out" ratios "$count" "$btime")
		printf '## Server CPU ratios within a round\n\n'
		if ((within > 0)); then
			printf '`RATIOS_INNER=%s scripts/ratios.sh %s -test.benchtime %s%s`: the replayed OTLP export and CreateUser with\n' "$within" "$runs" "$rtime" "$warmflag"
			printf '16 KiB of short strings, server in its own process, in %s go test runs of %s rounds each\n' "$runs" "$within"
			printf '(`-grpcfast.rounds`): every path once in each round, a few seconds apart, as in the sections\n'
		else
			printf '`scripts/ratios.sh %s -test.benchtime %s%s`: the replayed OTLP export and CreateUser with 16 KiB of\n' "$runs" "$rtime" "$warmflag"
			printf 'short strings, server in its own process, every path once in each round, as in the sections\n'
		fi
		printf 'above. Here each ratio of the server'"'"'s CPU per call is taken within its round, so that a round\n'
		printf 'on a loud machine moves both its sides, then summarized over the rounds (`scripts/ratios.sh\n'
		printf -- '--summary`): grpcfast'"'"'s default path against vtprotobuf'"'"'s codec and the standard path, pooled\n'
		printf 'with one copy (`WithStringsInOneCopy`) and gRPC-Go'"'"'s floor (`-grpcfast.floor`) against the\n'
		printf 'standard path, each median with a 95%% confidence interval that assumes nothing of how the\n'
		printf 'rounds'"'"' ratios spread (a sign test): a target inside it is neither met nor missed by the run.\n'
		if ((within > 0)); then
			printf 'The line "by run" below each takes every go test run as one value, the median of its rounds,\n'
			printf 'for an interval that holds even if the rounds of one run (its processes, its connections) do\n'
			printf 'not vary independently of each other.\n'
		fi
		printf 'Then benchstat'"'"'s medians of the same results (`benchstat -col /codec -filter\n'
		printf '\'"'"'.unit:srv-cpu-ns/op\'"'"' -ignore /round`). A run'"'"'s median moves by up to 0.05 from the next\n'
		printf 'run'"'"'s on the same code ([measurements](docs/measurements.md#ratios-within-a-round)).\n\n```\n'
		./scripts/ratios.sh --summary "$out/ratios.txt"
		printf '\n'
		benchstat -col /codec -filter '.unit:srv-cpu-ns/op' -ignore /round "$out/ratios.txt"
		printf '```\n\n'
	else
		kept=$(kept_section '## Server CPU ratios within a round')
		[[ -n $kept ]] || { echo "BENCH_ONLY: no results in $out/ratios.txt, and BENCHMARKS.md has no section on them" >&2; exit 1; }
		printf '%s\n\n' "$kept"
	fi
	section "Reused unary responses: BatchReadBlobs" \
"\`scripts/gobench.sh $count ./internal/testprotos/bytestream -test.bench Grpcfast_ContentAddressableStorage -test.benchmem -test.benchtime $btime -grpcfast.replay=internal/testprotos/bytestream/testdata/corpus -grpcfast.server=process -grpcfast.floor\`:
a remote-cache client reading blobs in batches, in the shape of the Remote Execution API's
\`BatchReadBlobs\`: each response holds 16 blobs of 64 KiB (replayed from
internal/testprotos/bytestream's corpus). The server runs in its own process, so sec/op, B/op,
allocs/op and cpu-sec/op are the client's. codec=grpcfast-pooled receives each response into
messages that it reuses, as a generated \`<Service>ReusingClient\` does (grpcfast.Responses);
codec=grpcfast-pooled-copy does so into one copy of each response (\`WithStringsInOneCopy\`),
which is for responses of strings, not of large blobs. codec=floor decodes nothing on either
receiving side (\`-grpcfast.floor\`): its client figures are what gRPC-Go's transport costs the
client per call, under what any codec can reach." \
		responses-cas -col /codec
	section "Reused unary responses: GetTraces" \
"\`scripts/gobench.sh $count ./internal/testprotos/otlp -test.bench Grpcfast_TraceQueryService -test.benchmem -test.benchtime $btime -grpcfast.replay=internal/testprotos/otlp/testdata/corpus -grpcfast.server=process -grpcfast.floor\`:
a client reading pages of traces from a tracing backend's query API, in OTLP: each response
holds the 100 spans of one of the replayed exports above (many small nested messages and
strings). The figures without srv- are the client's, as above." \
		responses-traces -col /codec
	section "Short streams" \
"\`scripts/gobench.sh $count ./example/examplepb -test.bench 'Grpcfast_ChunkService/(Put|Get)' -test.benchmem -test.benchtime 1000x $short\`:
1000 streams of four 16 KiB messages. Put's server receives with a generated receiver, Get's
client does; when a stream ends, the generated benchmarks release its receiver
(\`Receiver.Release\`), which gives its messages (and their 16 KiB of bytes) to the next
stream's. srv-B/op is what the server allocates per Put stream, B/op what the client
allocates per Get stream; the payload is 65,536 bytes either way." \
		short -col /codec
	section "Short streams: gRPC-Go's own cost per stream" \
"The same with 16-byte messages (\`-grpcfast.size=16\`): what a stream costs whatever the codec.
grpcfast's bytes per 16 KiB stream above, less these, is what its messages cost." \
		short-floor -col /codec
	section "Short streams: what Release saves" \
"\`scripts/gobench.sh $count . -test.bench '^BenchmarkShortStream\$' -test.benchmem -test.benchtime 2000x\` (\`make bench-receiver\`):
streams of 1, 4 and 64 chunks of 16 KiB through the grpcfast codec without the transport,
received three ways: the stream's own Recv (recv), a Receiver left to the garbage collector at
the end of the stream (receiver, the default), and a Receiver released at the end of the
stream (release). B/op and allocs/op are per stream." \
		receiver -col /how
	section "Concurrent streams" \
"\`scripts/gobench.sh $count ./example/examplepb -test.bench 'Grpcfast_(ChunkService|UserService)/(Put|Get|CreateUser)\$' -test.benchmem -test.benchtime $btime $args $load\`:
1, 8 and 64 calls in flight at once on one connection and spread over four; client and server
in this process. B/s is the throughput (both directions), cpu-sec/MiB the CPU (user+system, both
ends) per MiB moved. Compare B/s with RawTCP's in the 16 MiB streams table: that is the ceiling
of a stream on this machine." \
		concurrent -col /codec
	if [[ -s $prof/ChunkService_Put_codec=grpcfast.cpu.pprof && -s $prof/ChunkService_Get_codec=grpcfast.cpu.pprof ]]; then
		printf '## What limits 64 streams at once\n\n'
		printf 'The CPU profile of grpcfast at `-grpcfast.streams=64` (Put, then Get), by the functions that\n'
		printf 'spend it (flat), from `go tool pprof -top`: on this machine both ends share the cores.\n\n'
		for m in Put Get; do
			printf '%s:\n\n```\n' "$m"
			go tool pprof -top -nodecount 12 "$prof/ChunkService_${m}_codec=grpcfast.cpu.pprof" 2>/dev/null |
				sed -n '/flat%/,$p' | sed -E 's/go\.shape\.[^]]*\]/…]/g'
			printf '```\n\n'
		done
	else
		# No profiles of this run or an earlier one (BENCH_ONLY): as
		# BENCHMARKS.md has it.
		kept=$(kept_section '## What limits 64 streams at once')
		[[ -n $kept ]] || { echo "BENCH_ONLY: no profiles in $prof, and BENCHMARKS.md has no section on them" >&2; exit 1; }
		printf '%s\n\n' "$kept"
	fi
	section "Codec alone" \
"\`scripts/gobench.sh $count . -test.bench '^BenchmarkCodec' -test.benchmem\`: gRPC's standard codec
(std), grpcfast, and vtprotobuf's own codec/grpc (vtgrpc, a V1 codec, wrapped as gRPC wraps V1
codecs). small is a CreateUser-like message, strings16k 16 KiB of short strings, strings1m 1 MiB of them
(100,000 in one repeated field), messages100k a repeated message field of 100,000 small messages,
chunk16k a 16384-byte bytes field, 1mib 1 MiB; unmarshal decodes into a reused message from one
buffer, two, or 16 KiB frames. messages100k's marshal is the one row where grpcfast takes longer than
vtgrpc: it checks the UTF-8 of every string, as gRPC's standard codec does and vtgrpc does not, and
where each element holds a byte above 0x7f (here a varint of 128 or more) it reads every element's
fields, about 15 ns an element; of 7-bit elements, one sweep does (BenchmarkUTF8/msg=labels10k)." \
		codec -col /codec
	section "Decoding alone, by receive path" \
"\`scripts/gobench.sh $count . -test.bench '^BenchmarkDecode(OTLP|Strings|Known)\$' -test.benchmem\`: the
replayed OTLP exports of the OTLP sections above, 1 KiB, 16 KiB and 1 MiB of short strings (the
example's CreateUser), and messages of well-known types (a Struct, Timestamps and Anys, wrappers,
a FieldMask), decoded from one buffer: by gRPC's standard codec (std), vtprotobuf's UnmarshalVT
alone (vt) and vtprotobuf's codec as gRPC runs it (vtcodec, behind gRPC's bridge for V1 codecs,
which copies the input) into a new message, by grpcfast into a new message (fresh, the default path),
into a reused slot as a pooled handler or a receiver prepares it (slot), and into a slot with
strings and bytes as views of one owned copy (slot-copy, \`WithStringsInOneCopy\`). slot and
slot-copy include the reset that readies the slot for the next request." \
		decode-paths -col /path
	section "How cost grows with the request" \
"\`scripts/sizesweep.sh $count -test.benchmem -test.benchtime $btime\`: the example's CreateUser with
16 KiB to 2 MiB of short strings (\`-grpcfast.size\`; size=N), and CreateUsers with 100,000 users
(\`-grpcfast.batch=6600000\`, a repeated message field of 66-byte elements), on gRPC's standard path,
vtprotobuf's codec and grpcfast's default path, server in its own process, every size in each
interleaved round. srv-cpu-ns/op is what the server spends per call." \
		size-sweep -col /codec
	section "Hostile input" \
"\`scripts/gobench.sh $count . -test.bench '^BenchmarkHostile\$' -test.benchmem -test.benchtime 5x\` (\`make bench-hostile\`):
the worst malformed (and one valid) 4 MiB inputs that docs/differences.md lists, in one buffer and
in 16 KiB frames, decoded by gRPC's standard codec (std) and by grpcfast, whose walk rejects
what protobuf-go rejects before vtprotobuf decodes anything. Goal: at most 1.5x the standard
codec's time." \
		hostile -col /codec
	section "16 MiB streams, the transport floor and raw TCP" \
"\`scripts/gobench.sh $count ./example/ -test.bench . -test.benchmem\`: hand-written 16 MiB streams of
16 KiB chunks (std: standard codec and Recv; grpcfast), on gRPC's default transport and a
bulk one (128 KiB write and 64 KiB read buffers). BenchmarkTransfer's floor path is gRPC-Go with
a codec that does no work: what its transport costs by itself. RawTCP copies the same bytes
over a bare loopback connection." \
		transport -col /path
	section "Pooling threshold" \
"\`go test -run '^\$' -bench '^BenchmarkThreshold\$' -benchmem -count 3 -benchtime 0.2s .\`: Marshal
then Free of a message of the given size into a plain allocation or a pooled buffer. Messages
of at most 64 bytes are allocated: below that, a pooled buffer (about 70 ns whatever its size)
costs more than an allocation." \
		threshold -col /mode
	section "gRPC's interop messages: vtprotobuf's pool off and on" \
"\`make bench-interop\` (scripts/interop.sh, \`BENCH_COUNT=$count BENCH_TIME=$btime BENCH_MSGS=$imsgs\`):
the generated benchmarks of two packages that declare the shapes of gRPC's interop messages, a
16 KiB Payload in every StreamingOutputCallResponse and StreamingInputCallRequest, $imsgs per
stream, the server in its own process, in interleaved rounds. vtprotobuf's pool is off for every
message of one package (vtpool=off) and on for every message of the other (vtpool=on).
StreamingOutputCall's client figures (B/op, allocs/op, allocs/msg, cpu-sec/op) are what its
client, which receives the stream, costs; StreamingInputCall's srv-* figures what its server,
which receives, costs. The codec=proto rows are a control: gRPC's standard codec does not use
vtprotobuf's pool." \
		interop -ignore pkg -col vtpool
	section "gRPC's interop messages: gRPC's standard path against grpcfast" \
"The same run, \`benchstat -ignore pkg -col /codec\`: a table per vtpool setting." \
		interop -ignore pkg -col /codec
	section "gRPC-Go's transport settings on bulk streams" \
"\`scripts/knobs.sh\` (\`make bench-knobs\`), then \`benchstat -col grpcfast-transport -filter '.unit:(cpu-ns/op OR srv-cpu-ns/op)'\`:
the example's generated benchmarks, Put and Get of 256 chunks of 16 KiB, codec=proto and codec=grpcfast, at 1
and 64 streams at once on one connection, the server in its own process, once per setting in each of $count
interleaved rounds. Each setting is a set of grpcfastbench's transport flags, on both ends: writebuf and
readbuf are gRPC-Go's transport buffers (0: none), window and connwindow its initial stream and connection
windows (either turns its dynamic windows off), sharedwrite=false keeps each connection's write buffer;
combined is writebuf, readbuf, window and connwindow together. cpu-sec/op is the client's CPU per call,
srv-cpu-sec/op the server's; a call moves 4 MiB." \
		knobs -col grpcfast-transport -filter '.unit:(cpu-ns/op OR srv-cpu-ns/op)'
	section "Against drpc and connect-go" \
"\`cd peers && ../scripts/gobench.sh $count . -test.bench '^BenchmarkPeers\$' -test.benchmem -test.benchtime $btime\`
(\`make bench-peers\`), then \`benchstat -col /peer\`: every column against grpcfast's, the first. Put and
Get move 4 MiB in 16 KiB chunks per op, Unary is one small CreateUser. grpcfast: gRPC-Go, grpcfast's
codec and the generated receivers; grpc-std: gRPC-Go, its standard codec and the streams' Recv;
grpc-floor: grpcfast's, with a codec that sends each chunk without copying it (what gRPC-Go's sending
side costs with a codec that costs nothing); drpc-vtproto: drpc's generated code with vtprotobuf's codec/drpc; drpc-reuse: the same, tuned by
hand (one reused message per stream, and an encoding with MarshalAppend); connect: connect-go, Connect
protocol over h2c, gzip off; connect-vtproto: the same with a vtprotobuf codec. server=inprocess:
every figure counts client and server; server=process: the figures are the client's, srv-* the
server's." \
		peers -col /peer
	section "OTLP collectors: pdata against grpcfast" \
"\`cd peers && ../scripts/gobench.sh $count . -test.bench '^Benchmark(OTLPCollectors|DecodeOTLP)\$' -test.benchmem
-test.benchtime $btime\`, then \`benchstat -filter '.name:/OTLPCollectors/' -col /collector\`: one client replays
the recorded OTLP exports of internal/testprotos/otlp (4 exports of 100 spans, about 45 KB each) to a
trace collector in a process of its own. pdata: the OpenTelemetry Collector's
\`ptraceotlp.RegisterGRPCServer\`, its own codec, each export released as the Collector's pipeline does
(\`pref.UnrefTraces\`); pdata-pooled: the same with its \`pdata.useProtoPooling\` gate on; grpc-std: gRPC-Go
with its standard codec; grpcfast: grpcfast's codec; grpcfast-pooled-copy:
\`RegisterTraceServiceServerPooled\` with \`WithStringsInOneCopy\`. srv-* are the collector's figures
per export; every answer is checked." \
		peers-otlp -filter '.name:/OTLPCollectors/' -col /collector
	section "OTLP decoding alone: pdata against grpcfast" \
"The same run, \`benchstat -filter '.name:/DecodeOTLP/' -col /path\`: the same exports decoded alone, in
peers/, on the receive paths of \`BenchmarkDecodeOTLP\` (std, vt, fresh, slot, slot-copy) and by pdata's
\`UnmarshalProto\` into a new request (pdata) and into one from its pool, released after (pdata-pooled)." \
		peers-otlp -filter '.name:/DecodeOTLP/' -col /path
} > BENCHMARKS.md.tmp
mv BENCHMARKS.md.tmp BENCHMARKS.md
echo "==> wrote BENCHMARKS.md" >&2
