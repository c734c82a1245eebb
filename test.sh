#!/usr/bin/env bash
# Runs vet and every test, with the race detector, in every module of the
# repository (the library and the examples module).
set -euo pipefail
cd "$(dirname "$0")"
status=0
for mod in $(git ls-files '*go.mod' 2>/dev/null || find . -name go.mod -not -path '*/testdata/*'); do
	dir=$(dirname "$mod")
	echo "== $dir"
	(cd "$dir" && go vet ./... && go test -race -count=1 -timeout 30m ./...) || status=1
done
exit $status
