# protoc-gen-go-grpcfast. Every tool comes from the Go module proxy, pinned in
# tools/go.mod and built into .bin; nothing needs to be installed by hand.
SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help
MAKEFLAGS += --no-print-directory

BIN := $(CURDIR)/.bin
export PATH := $(BIN):$(PATH)
BENCH_OUT := $(CURDIR)/.cache/bench
# -count for benchmarks: benchstat needs several samples of each side.
BENCH_COUNT ?= 6
FUZZ_TIME ?= 10s

TOOL_PKGS := \
	github.com/bufbuild/buf/cmd/buf \
	google.golang.org/protobuf/cmd/protoc-gen-go \
	google.golang.org/grpc/cmd/protoc-gen-go-grpc \
	github.com/planetscale/vtprotobuf/cmd/protoc-gen-go-vtproto \
	golang.org/x/perf/cmd/benchstat

.PHONY: help
help: ## Show this help.
	@awk 'BEGIN {FS = ":.*## "} /^[a-z-]+:.*## / {printf "  %-14s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

.PHONY: tools
tools: ## Build the pinned tools (buf, protoc-gen-go, -go-grpc, -go-vtproto, benchstat) into .bin.
	go build -modfile=tools/go.mod -o $(BIN)/ $(TOOL_PKGS)

.PHONY: build
build: ## Build protoc-gen-go-grpcfast into .bin.
	go build -o $(BIN)/ ./cmd/protoc-gen-go-grpcfast

.PHONY: generate
generate: tools build ## Regenerate the example and testdata code, then the golden files.
	buf generate --template testdata/buf.gen.yaml
	buf generate --template testdata/buf.gen.editions.yaml
	buf generate
	go test ./internal/generator -run '^TestGolden$$' -count=1 -update

.PHONY: checkgenerate
checkgenerate: generate ## Fail if regenerating changes the tree.
	@changes=$$(git status --porcelain --untracked-files=all -- example internal testdata); \
	if [ -n "$$changes" ]; then \
		echo "generated code is stale; run make generate and commit:"; echo "$$changes"; \
		git --no-pager diff --stat -- example internal testdata; exit 1; \
	fi

.PHONY: test
test: lint checkgenerate ## Run every test: lint, generation check, unit, golden, end-to-end and race tests, each benchmark once, a short fuzz.
	go test -race -count=1 ./...
	go test -run '^$$' -bench . -benchtime 1x ./...
	go test -run '^$$' -fuzz '^FuzzUnmarshal$$' -fuzztime $(FUZZ_TIME) .

.PHONY: bench
bench: generate ## Generate the example and run its benchmarks, standard path and grpcfast side by side.
	@mkdir -p $(BENCH_OUT)
	go test -run '^$$' -bench . -benchmem -count $(BENCH_COUNT) ./example/ | tee $(BENCH_OUT)/example.txt
	benchstat -col /path $(BENCH_OUT)/example.txt

.PHONY: bench-codec
bench-codec: tools ## Run the codec benchmarks: gRPC's standard codec, vtprotobuf's codec and grpcfast.
	@mkdir -p $(BENCH_OUT)
	go test -run '^$$' -bench '^BenchmarkCodec' -benchmem -count $(BENCH_COUNT) . | tee $(BENCH_OUT)/codec.txt
	benchstat -col /codec $(BENCH_OUT)/codec.txt

.PHONY: lint
lint: ## gofmt, go vet and go mod tidy checks.
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi
	go vet ./...
	go mod tidy -diff
	cd tools && go mod tidy -diff
