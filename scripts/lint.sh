#!/usr/bin/env bash
# make lint: gofmt over every Go file, then go vet, staticcheck and go mod
# tidy over the root module and every nested module (peers, compose,
# testdata/thirdparty, testdata/annotated), and go mod tidy over the tools
# modules. staticcheck is the one pinned in tools/go.mod, which make lint
# builds into .bin first; it runs with its default checks, and once more
# in a grpcfast_checked build over the root module's packages whose files
# differ there (go list, with and without the tag: internal/own's
# poisoning). The other packages' files are the same in both builds (only
# own's constants, Checked and Quarantine, differ under them), and checking
# them again took a cold run more than a minute.
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
# The root module's packages whose files (tests' included) are not the same
# in a grpcfast_checked build.
files='{{.ImportPath}} {{.GoFiles}} {{.TestGoFiles}} {{.XTestGoFiles}}'
# diff exits with 1 where they differ, and with 2 on trouble.
checked=$({ diff <(go list -f "$files" ./...) <(go list -tags grpcfast_checked -f "$files" ./...) || [ $? -eq 1 ]; } |
	awk '$1 == ">" { print $2 }')
if [ -z "$checked" ]; then
	echo "lint.sh: no package of the root module has other files in a grpcfast_checked build; internal/own had" >&2
	exit 1
fi
echo "==> module .: staticcheck in a grpcfast_checked build, over the packages whose files differ there:" $checked
# shellcheck disable=SC2086 # one argument per package
staticcheck -tags grpcfast_checked $checked

for m in tools tools/ghz; do
	echo "==> module $m: go mod tidy"
	(cd "$m" && go mod tidy -diff)
done
