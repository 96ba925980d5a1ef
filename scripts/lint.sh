#!/usr/bin/env bash
# make lint: gofmt over every Go file, then go vet, staticcheck and go mod
# tidy over the root module and every nested module (peers, compose,
# testdata/thirdparty, testdata/annotated), and go mod tidy over the tools
# modules. staticcheck is the one pinned in tools/go.mod, which make lint
# builds into .bin first; it runs with its default checks, and the root
# module once more in a grpcfast_checked build, whose files differ
# (internal/own's poisoning).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/.bin:$PATH"
modules=(. peers compose testdata/thirdparty testdata/annotated)

echo "==> gofmt: every Go file in the repository"
# shellcheck disable=SC2046 # one argument per file
unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then
	echo "gofmt would change:"
	echo "$unformatted"
	exit 1
fi

for m in "${modules[@]}"; do
	echo "==> module $m: go vet, staticcheck ($(staticcheck -version)), go mod tidy"
	(
		cd "$m"
		go vet ./...
		staticcheck ./...
		go mod tidy -diff
	)
done
echo "==> module .: staticcheck in a grpcfast_checked build"
staticcheck -tags grpcfast_checked ./...

for m in tools tools/ghz; do
	echo "==> module $m: go mod tidy"
	(cd "$m" && go mod tidy -diff)
done
