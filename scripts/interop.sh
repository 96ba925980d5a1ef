#!/usr/bin/env bash
# Measures what vtprotobuf's pool saves on the shapes of gRPC's interop
# messages: a 16 KiB Payload inside every StreamingOutputCallResponse and
# StreamingInputCallRequest. internal/testprotos/interop/pooled and .../plain
# declare the same messages; only pooled has vtprotobuf's pool on
# (testdata/buf.gen.yaml). Their generated benchmarks run in interleaved
# rounds, the stub server in its own process, so that the client's figures
# (B/op, allocs/op, allocs/msg) are the receiving side of StreamingOutputCall
# and the server's (srv-*) the receiving side of StreamingInputCall. Then
# benchstat compares, in one run, plain against pooled and gRPC's standard
# path (codec=proto) against grpcfast (codec=grpcfast). Run it through `make
# bench-interop`, which builds the pinned benchstat first; results go to
# .cache/bench/interop.txt.
#
#   BENCH_COUNT  rounds, so samples per sub-benchmark (default 6)
#   BENCH_TIME   -benchtime of each sub-benchmark (default 0.5s)
#   BENCH_MSGS   messages per stream (default 256: 4 MiB of payload)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/.bin:$PATH"
count=${BENCH_COUNT:-6}
btime=${BENCH_TIME:-0.5s}
msgs=${BENCH_MSGS:-256}
out=.cache/bench
mkdir -p "$out"

# -grpcfast.size is the encoded size of a whole message. These two make the
# body of every Payload exactly 16384 bytes (TestPayloadSizes in
# internal/testprotos/interop reads them from this file and checks):
# StreamingOutputCallResponse is the body and two fields' tags and 3-byte
# lengths; StreamingInputCallRequest adds expect_compressed, 4 bytes.
out_size=16392
in_size=16396

bench() { # vtpool setting (off or on), package, method regexp, size
	printf 'vtpool: %s\n' "$1"
	go test -run '^$' -bench "^BenchmarkGrpcfast_TestService\$/^($3)\$" -benchmem -count 1 -benchtime "$btime" \
		"./internal/testprotos/interop/$2" \
		-args -grpcfast.size="$4" -grpcfast.msgs="$msgs" -grpcfast.server=process
}

echo "==> gRPC's interop shapes, 16 KiB payloads, $msgs per stream, server in its own process: $count rounds of plain then pooled, $btime each" >&2
go test -run '^TestPayloadSizes$' -count 1 ./internal/testprotos/interop >&2
for round in $(seq "$count"); do
	echo "==> round $round of $count" >&2
	for p in off:plain on:pooled; do
		bench "${p%%:*}" "${p#*:}" 'StreamingOutputCall|FullDuplexCall' "$out_size"
		bench "${p%%:*}" "${p#*:}" 'StreamingInputCall' "$in_size"
	done
done | tee "$out/interop.txt" >&2

echo "==> what vtprotobuf's pool saves: vtpool=off (package plain) against vtpool=on (package pooled)."
echo "    codec=proto rows are a control: gRPC's standard codec does not use vtprotobuf's pool."
echo "    StreamingOutputCall: the client receives (B/op, allocs/op, allocs/msg);"
echo "    StreamingInputCall: the server receives (srv-B/op, srv-allocs/op, srv-cpu-sec/op)."
benchstat -ignore pkg -col vtpool "$out/interop.txt"
echo "==> gRPC's standard path (codec=proto) against grpcfast (codec=grpcfast), plain and pooled"
benchstat -ignore pkg -col /codec "$out/interop.txt"
