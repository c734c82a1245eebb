#!/usr/bin/env bash
# Runs vet and every test, with the race detector, in every module of the
# repository (the library and the examples module), and fails if the run
# changed the work tree (a go.work.sum or golden file left to commit).
set -euo pipefail
cd "$(dirname "$0")"
tree_state() { { git status --porcelain --untracked-files=all; git diff; } 2>/dev/null | cksum; }
before=$(tree_state)
status=0
for mod in $(git ls-files '*go.mod' 2>/dev/null || find . -name go.mod -not -path '*/testdata/*'); do
	dir=$(dirname "$mod")
	echo "== $dir"
	(cd "$dir" && go vet ./... && go test -race -count=1 -timeout 30m ./...) || status=1
done
if [ "$(tree_state)" != "$before" ]; then
	echo "== the tests changed the work tree:"
	git status --short
	status=1
fi
exit $status
