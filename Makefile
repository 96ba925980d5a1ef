# protoc-gen-go-grpcfast. Every tool comes from the Go module proxy, pinned in
# tools/go.mod and built into .bin; nothing needs to be installed by hand.
SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help
MAKEFLAGS += --no-print-directory

BIN := $(CURDIR)/.bin
export PATH := $(BIN):$(PATH)
BENCH_OUT := $(CURDIR)/.cache/bench
# -count and -benchtime for benchmarks: benchstat needs several samples of
# each side (6 at least for a confidence interval). For a longer, steadier run: make bench BENCH_COUNT=10 BENCH_TIME=2s
BENCH_COUNT ?= 6
BENCH_TIME ?= 0.5s
# Flags of the generated benchmarks (grpcfastbench): 16 KiB messages, 256 per
# stream (4 MiB per streaming call).
BENCH_ARGS ?= -grpcfast.size=16384 -grpcfast.msgs=256
# make test-fuzz: how long each fuzz target runs, as a count of inputs (Nx)
# rather than a duration: Go 1.26's fuzzing coordinator can fail a run whose
# -fuzztime deadline passes while a worker is busy, with "context deadline
# exceeded" and no failing input (go.dev/issue/75804, fixed in Go 1.27). A
# count has no deadline. 20000x is about 10 s a target on a 2-core machine;
# a duration (FUZZ_TIME=1m) works too, with that risk.
FUZZ_TIME ?= 20000x
# make ghz: how long ghz loads each method, and with how many calls at once.
GHZ_TIME ?= 5s
GHZ_CONCURRENCY ?= 16

# make test-compat: the oldest Go toolchain this module supports (its go.mod
# requires the oldest grpc-go and protobuf-go), and the newest grpc-go and
# protobuf-go it is tested with, which a copy of go.mod in .cache/compat gets.
# The benchmarks run on that copy too: what users measure on a current
# grpc-go, not on the oldest this module accepts.
COMPAT_OLDEST_GO ?= go1.23.12
COMPAT_NEWEST_GRPC ?= v1.85.0
COMPAT_NEWEST_PROTOBUF ?= v1.36.12
COMPAT_MOD := $(CURDIR)/.cache/compat/newest.mod
COMPAT_PKGS := . ./grpcfastimpl/... ./grpcfastbench/... ./example/...
COMPAT_MODULES := google.golang.org/grpc google.golang.org/protobuf github.com/planetscale/vtprotobuf

TOOL_PKGS := \
	github.com/bufbuild/buf/cmd/buf \
	google.golang.org/protobuf/cmd/protoc-gen-go \
	google.golang.org/grpc/cmd/protoc-gen-go-grpc \
	github.com/planetscale/vtprotobuf/cmd/protoc-gen-go-vtproto \
	golang.org/x/perf/cmd/benchstat
# drpc's and connect-go's code generators, pinned in peers/go.mod with the
# runtimes they generate for (make bench-peers).
PEERS_TOOL_PKGS := \
	storj.io/drpc/cmd/protoc-gen-go-drpc \
	connectrpc.com/connect/cmd/protoc-gen-connect-go

.PHONY: help
help: ## Show this help.
	@awk 'BEGIN {FS = ":.*## "} /^[a-z-]+:.*## / {printf "  %-16s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

.PHONY: tools
tools: ## Build the pinned tools (buf, protoc-gen-go, -go-grpc, -go-vtproto, benchstat) into .bin.
	@echo "==> building the pinned tools into .bin (buf takes about 2 minutes the first time)"
	go build -modfile=tools/go.mod -o $(BIN)/ $(TOOL_PKGS)

.PHONY: peers-tools
peers-tools: ## Build drpc's and connect-go's code generators (pinned in peers/go.mod) into .bin.
	go -C peers build -o $(BIN)/ $(PEERS_TOOL_PKGS)

.PHONY: build
build: ## Build protoc-gen-go-grpcfast into .bin.
	go build -o $(BIN)/ ./cmd/protoc-gen-go-grpcfast

.PHONY: generate
generate: tools build peers-tools ## Regenerate the example and testdata code, drpc's and connect-go's code for the peers, then the golden files.
	@echo "==> generating the example, the test protos and the peers' drpc and connect-go code with buf"
	buf generate --template testdata/buf.gen.yaml
	buf generate --template testdata/buf.gen.editions.yaml
	buf generate
	buf generate --template peers/buf.gen.yaml
	@echo "==> generating testdata/thirdparty, a tree shaped like Bazel's remote-apis, as docs/third-party.md shows"
	cd testdata/thirdparty && buf generate
	@echo "==> generating testdata/annotated: validation and gateway annotations (managed mode) and containerd's shape (M options), as docs/third-party.md shows"
	cd testdata/annotated && buf generate
	cd testdata/annotated/containerd && buf generate
	@echo "==> generating compose/: the generated packages that the scenarios with other libraries' codecs use"
	cd compose && buf generate
	go test ./internal/generator -run '^TestGolden$$' -count=1 -update

.PHONY: checkgenerate
checkgenerate: generate ## Fail if regenerating changes the tree.
	@echo "==> checkgenerate: is the tree as make generate left it?"
	@changes=$$(git status --porcelain --untracked-files=all -- example internal testdata peers compose); \
	if [ -n "$$changes" ]; then \
		echo "generated code is stale; run make generate and commit:"; echo "$$changes"; \
		git --no-pager diff --stat -- example internal testdata peers compose; exit 1; \
	fi

.PHONY: test
test: lint checkgenerate test-fast test-newest test-checked test-benchmarks test-peers test-thirdparty test-fuzz ## Run every test (what CI runs): lint, checkgenerate, then each test-* stage below but test-compat's oldest Go.

.PHONY: test-fast
test-fast: ## Unit, golden, end-to-end and stream tests of the root module with the race detector, then the allocation counts of every package without it.
	@echo "==> test-fast: unit, golden, end-to-end and stream tests, with the race detector"
	go test -race -count=1 ./...
	@echo "==> test-fast: the allocation counts (testing.AllocsPerRun, tests named *Allocs*) of every package, without the race detector, which makes sync.Pool drop items"
	go test -count=1 -run 'Allocs' ./...

.PHONY: test-newest
test-newest: newest-mod ## The runtime's and the example's tests with -race on the newest grpc-go and protobuf-go tested (go.mod requires the oldest).
	@echo "==> test-newest: $$(go env GOVERSION) with grpc-go $(COMPAT_NEWEST_GRPC) and protobuf-go $(COMPAT_NEWEST_PROTOBUF), in a copy of go.mod ($(COMPAT_MOD)): $(COMPAT_PKGS) with the race detector"
	@go list -modfile=$(COMPAT_MOD) -m $(COMPAT_MODULES)
	GOFLAGS="$$(go env GOFLAGS) -modfile=$(COMPAT_MOD)" go test -race -count=1 $(COMPAT_PKGS)

.PHONY: test-checked
test-checked: ## Every test of the root module in a grpcfast_checked build (memory taken back is poisoned, never reused); a test that cannot hold there says why it skips.
	@echo "==> test-checked: every test of the root module in a grpcfast_checked build (memory taken back is poisoned and never reused); those that cannot hold there skip and say why"
	go test -tags grpcfast_checked -count=1 ./...

.PHONY: test-benchmarks
test-benchmarks: ## Every benchmark of the root module once, the generated ones included (-benchtime 1x: their figures mean nothing).
	@echo "==> test-benchmarks: every benchmark of the root module once, generated ones included (their figures mean nothing at one iteration)"
	go test -run '^$$' -bench . -benchtime 1x ./...

.PHONY: test-peers
test-peers: ## The peers module (drpc, connect-go): its tests with -race, then every peers benchmark once.
	@echo "==> test-peers: the peers module (drpc, connect-go): its tests with the race detector, then every peers benchmark once"
	go -C peers test -race -count=1 ./...
	go -C peers test -run '^$$' -bench . -benchtime 1x ./...

.PHONY: test-thirdparty
test-thirdparty: ## The third-party modules (testdata/thirdparty, testdata/annotated, compose): -race, a grpcfast_checked build where they have one, benchmarks once.
	@echo "==> test-thirdparty: testdata/thirdparty (remote-apis' shape, docs/third-party.md): built, a ByteStream Write served, its benchmarks once"
	go -C testdata/thirdparty test -race -count=1 ./...
	go -C testdata/thirdparty test -run '^$$' -bench . -benchtime 1x ./...
	@echo "==> test-thirdparty: testdata/annotated (docs/third-party.md's annotation and containerd recipes through buf; protovalidate-go in front of pooled handlers): -race, then a grpcfast_checked build, then its benchmarks once"
	go -C testdata/annotated test -race -count=1 ./...
	go -C testdata/annotated test -tags grpcfast_checked -count=1 ./...
	go -C testdata/annotated test -run '^$$' -bench . -benchtime 1x ./...
	@echo "==> test-thirdparty: compose/ (grpcfast beside the OpenTelemetry Collector's pdata, a Cortex-style codec and vtprotobuf's, registered before and after it): -race, then a grpcfast_checked build"
	go -C compose test -race -count=1 ./...
	go -C compose test -tags grpcfast_checked -count=1 ./...

.PHONY: test-fuzz
test-fuzz: ## FuzzUnmarshal, FuzzGeneratedDecode, then FuzzMarshal, for FUZZ_TIME (20,000 inputs) each.
	@echo "==> test-fuzz: FuzzUnmarshal for $(FUZZ_TIME) (compiling the fuzz binary first)"
	go test -run '^$$' -fuzz '^FuzzUnmarshal$$' -fuzztime $(FUZZ_TIME) .
	@echo "==> test-fuzz: FuzzGeneratedDecode (the generated decoders, into reused slots) for $(FUZZ_TIME)"
	@# Minimizing each new interesting input for up to a minute (the default) left this target at
	@# a few executions per second; 10 runs each keeps it at thousands.
	go test -run '^$$' -fuzz '^FuzzGeneratedDecode$$' -fuzztime $(FUZZ_TIME) -fuzzminimizetime 10x .
	@echo "==> test-fuzz: FuzzMarshal (what the codec sends against the standard codec) for $(FUZZ_TIME)"
	go test -run '^$$' -fuzz '^FuzzMarshal$$' -fuzztime $(FUZZ_TIME) -fuzzminimizetime 10x .

.PHONY: newest-mod
newest-mod: ## Write .cache/compat/newest.mod: go.mod with the newest grpc-go and protobuf-go tested, which the benchmarks use.
	@mkdir -p $(dir $(COMPAT_MOD))
	@cp go.mod $(COMPAT_MOD) && cp go.sum $(COMPAT_MOD:.mod=.sum)
	@go get -modfile=$(COMPAT_MOD) google.golang.org/grpc@$(COMPAT_NEWEST_GRPC) google.golang.org/protobuf@$(COMPAT_NEWEST_PROTOBUF) 2>&1 | { grep -v -e '^go: downloading' -e '^go: upgraded' || true; }
	@echo "==> $(COMPAT_MOD): go.mod with grpc-go $(COMPAT_NEWEST_GRPC) and protobuf-go $(COMPAT_NEWEST_PROTOBUF), which the benchmarks build with"

.PHONY: test-compat
test-compat: ## The runtime's and the example's tests with -race on the oldest Go, grpc-go and protobuf-go go.mod allows, then test-newest.
	@echo "==> test-compat: oldest: $(COMPAT_OLDEST_GO) (GOTOOLCHAIN, from the module proxy the first time) with go.mod's requirements"
	@GOTOOLCHAIN=$(COMPAT_OLDEST_GO) go version
	@GOTOOLCHAIN=$(COMPAT_OLDEST_GO) go list -m $(COMPAT_MODULES)
	GOTOOLCHAIN=$(COMPAT_OLDEST_GO) go test -race -count=1 $(COMPAT_PKGS)
	@$(MAKE) test-newest

.PHONY: bench
bench: generate newest-mod ## Run the example's generated benchmarks (gRPC's standard path, vtprotobuf's codec and grpcfast; server in-process and in its own process) and end with one screen: grpcfast against each.
	@mkdir -p $(BENCH_OUT)
	@echo "==> the example's generated benchmarks, server in this process, then in its own process ($(BENCH_COUNT) interleaved rounds of $(BENCH_TIME) per sub-benchmark; $(BENCH_ARGS))"
	@echo "    raw results: $(BENCH_OUT)/example.txt and $(BENCH_OUT)/example-process.txt"
	@GOFLAGS=-modfile=$(COMPAT_MOD) ./scripts/gobench.sh $(BENCH_COUNT) ./example/examplepb -test.bench Grpcfast -test.benchmem -test.benchtime $(BENCH_TIME) $(BENCH_ARGS) \
		> $(BENCH_OUT)/example.txt || { tail -30 $(BENCH_OUT)/example.txt; exit 1; }
	@GOFLAGS=-modfile=$(COMPAT_MOD) ./scripts/gobench.sh $(BENCH_COUNT) ./example/examplepb -test.bench Grpcfast -test.benchmem -test.benchtime $(BENCH_TIME) $(BENCH_ARGS) -grpcfast.server=process \
		> $(BENCH_OUT)/example-process.txt || { tail -30 $(BENCH_OUT)/example-process.txt; exit 1; }
	@benchstat -col /codec $(BENCH_OUT)/example.txt > $(BENCH_OUT)/example-benchstat.txt 2>&1
	@benchstat -col /codec $(BENCH_OUT)/example-process.txt > $(BENCH_OUT)/example-process-benchstat.txt 2>&1
	@echo "    benchstat's full tables: $(BENCH_OUT)/example-benchstat.txt and $(BENCH_OUT)/example-process-benchstat.txt"
	@echo
	@echo "==> server in this process (time, CPU, bytes and allocations of client and server together)"
	@go run ./internal/benchsummary $(BENCH_OUT)/example.txt
	@echo
	@echo "==> server in its own process (time, and the client's CPU, bytes and allocations; srv: the server's)"
	@go run ./internal/benchsummary $(BENCH_OUT)/example-process.txt

.PHONY: bench-transport
bench-transport: tools newest-mod ## Run the hand-written transport benchmarks: 16 MiB streams, the transport floor (a codec that does no work) and raw TCP.
	@mkdir -p $(BENCH_OUT)
	@echo "==> hand-written stream, transport-floor and raw TCP benchmarks in ./example"
	GOFLAGS=-modfile=$(COMPAT_MOD) go test -run '^$$' -bench . -benchmem -count $(BENCH_COUNT) ./example/ | tee $(BENCH_OUT)/transport.txt
	benchstat -col /path $(BENCH_OUT)/transport.txt

.PHONY: bench-knobs
bench-knobs: tools newest-mod ## Measure gRPC-Go's transport settings (buffers, windows, shared write buffer) on bulk streams, interleaved rounds (about 10 minutes).
	@mkdir -p $(BENCH_OUT)
	@echo "==> gRPC-Go's transport settings: Put and Get of 4 MiB in 16 KiB chunks, standard path and grpcfast, 1 and 64 streams, server in its own process"
	GOFLAGS=-modfile=$(COMPAT_MOD) BENCH_COUNT=$(BENCH_COUNT) BENCH_TIME=$(BENCH_TIME) ./scripts/knobs.sh | tee $(BENCH_OUT)/knobs.txt
	@echo "==> CPU per op, client (cpu-sec/op) and server (srv-cpu-sec/op), every setting against gRPC-Go's defaults"
	benchstat -col grpcfast-transport -filter '.unit:(cpu-ns/op OR srv-cpu-ns/op)' $(BENCH_OUT)/knobs.txt

.PHONY: bench-peers
bench-peers: tools ## Run Put, Get and CreateUser on grpcfast, gRPC's standard path and its sending floor, drpc and connect-go side by side; then OTLP collectors on pdata and grpcfast.
	@mkdir -p $(BENCH_OUT)
	@echo "==> the peers benchmarks (peers/): Put and Get of 4 MiB in 16 KiB chunks and CreateUser on 7 peers, server"
	@echo "    in-process and in its own process: 42 sub-benchmarks, $(BENCH_COUNT) x $(BENCH_TIME) each (about 4 minutes at the defaults)"
	go -C peers test -run '^$$' -bench '^BenchmarkPeers$$' -benchmem -count $(BENCH_COUNT) -benchtime $(BENCH_TIME) . | tee $(BENCH_OUT)/peers.txt
	@echo "==> every peer against grpcfast (the first column)"
	benchstat -col /peer $(BENCH_OUT)/peers.txt
	@echo "==> OTLP exports to the OpenTelemetry Collector's pdata (pooling gate off and on), gRPC-Go's standard codec and grpcfast, each collector in its own process; then decoding alone ($(BENCH_COUNT) interleaved rounds)"
	cd peers && GOFLAGS= ../scripts/gobench.sh $(BENCH_COUNT) . -test.bench '^Benchmark(OTLPCollectors|DecodeOTLP)$$' -test.benchmem -test.benchtime $(BENCH_TIME) | tee $(BENCH_OUT)/peers-otlp.txt
	benchstat -filter '.name:/OTLPCollectors/' -col /collector $(BENCH_OUT)/peers-otlp.txt
	benchstat -filter '.name:/DecodeOTLP/' -col /path $(BENCH_OUT)/peers-otlp.txt

.PHONY: benchmarks-md
benchmarks-md: tools newest-mod ## Rewrite BENCHMARKS.md from one run of every benchmark (takes about 75 minutes on 2 cores: its ratios step alone about 40).
	GOFLAGS=-modfile=$(COMPAT_MOD) ./scripts/benchmarks.sh

.PHONY: bench-interop
bench-interop: tools newest-mod ## Measure what vtprotobuf's pool saves on gRPC's interop messages (16 KiB payloads), plain against pooled (about 2 minutes).
	BENCH_COUNT=$(BENCH_COUNT) BENCH_TIME=$(BENCH_TIME) GOFLAGS=-modfile=$(COMPAT_MOD) ./scripts/interop.sh

.PHONY: bench-receiver
bench-receiver: tools newest-mod ## Short streams of 16 KiB chunks through the codec and a Receiver, without the transport: stream Recv, Receiver, Receiver with Release.
	@mkdir -p $(BENCH_OUT)
	@echo "==> BenchmarkShortStream: 1, 4 and 64 chunks per stream, three ways, $(BENCH_COUNT) samples"
	GOFLAGS=-modfile=$(COMPAT_MOD) go test -run '^$$' -bench '^BenchmarkShortStream$$' -benchmem -count $(BENCH_COUNT) -benchtime 2000x . | tee $(BENCH_OUT)/receiver.txt
	benchstat -col /how $(BENCH_OUT)/receiver.txt

.PHONY: bench-hostile
bench-hostile: tools newest-mod ## The worst malformed 4 MiB inputs, decoded by gRPC's standard codec and by grpcfast (about a minute).
	@mkdir -p $(BENCH_OUT)
	@echo "==> BenchmarkHostile: malformed and deep 4 MiB inputs, one buffer and 16 KiB frames, $(BENCH_COUNT) samples"
	GOFLAGS=-modfile=$(COMPAT_MOD) go test -run '^$$' -bench '^BenchmarkHostile$$' -benchmem -count $(BENCH_COUNT) -benchtime 5x . | tee $(BENCH_OUT)/hostile.txt
	benchstat -col /codec $(BENCH_OUT)/hostile.txt

.PHONY: bench-codec
bench-codec: tools newest-mod ## Run the codec benchmarks: gRPC's standard codec, vtprotobuf's codec and grpcfast.
	@mkdir -p $(BENCH_OUT)
	@echo "==> codec benchmarks, without the transport"
	GOFLAGS=-modfile=$(COMPAT_MOD) go test -run '^$$' -bench '^BenchmarkCodec' -benchmem -count $(BENCH_COUNT) . | tee $(BENCH_OUT)/codec.txt
	benchstat -col /codec $(BENCH_OUT)/codec.txt

.PHONY: ghz
ghz: ## Load example/cmd/server with ghz through reflection: CreateUser and the Put stream, server codec grpcfast then standard (scripts/ghz.sh).
	GHZ_TIME=$(GHZ_TIME) GHZ_CONCURRENCY=$(GHZ_CONCURRENCY) ./scripts/ghz.sh

.PHONY: lint
lint: ## gofmt, then go vet, staticcheck and go mod tidy over the root module and every nested one (scripts/lint.sh).
	@echo "==> lint: building staticcheck (pinned in tools/go.mod) into .bin"
	go build -modfile=tools/go.mod -o $(BIN)/ honnef.co/go/tools/cmd/staticcheck
	./scripts/lint.sh
