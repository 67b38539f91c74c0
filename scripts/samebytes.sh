#!/usr/bin/env bash
# Checks that a change leaves every output byte-identical: builds poolsim at
# REV (default main) and from the working tree, runs each bundled example
# (scenarios/examples/*.yaml, scripts/bench/*.yaml) and each scenario of
# scripts/samebytes/ (the paths no example takes: the host's wake-up timing,
# stop-the-world pauses) with both — same scenario, same seed — and compares
# every file they write. A speed-up must pass it.
#
#   scripts/samebytes.sh [REV]
#
# Exit 1 if any output differs (the differing files are listed); examples
# that fail with both binaries alike (e.g. a sweep file `run` refuses) are
# reported and skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${1:-main}
tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/old" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
git worktree add --detach -q "$tmp/old" "$rev"
(cd "$tmp/old" && go build -o "$tmp/old.bin" ./cmd/poolsim)
go build -o "$tmp/new.bin" ./cmd/poolsim
bad=0
for f in scenarios/examples/*.yaml scripts/bench/*.yaml scripts/samebytes/*.yaml; do
  name=$(basename "$f" .yaml)
  set +e
  "$tmp/old.bin" run "$f" --out "$tmp/a/$name" >"$tmp/a.$name.out" 2>&1
  ra=$?
  "$tmp/new.bin" run "$f" --out "$tmp/b/$name" >"$tmp/b.$name.out" 2>&1
  rb=$?
  set -e
  if [ $ra -ne $rb ]; then
    echo "DIFF  $f: exit $ra before, $rb after"
    bad=1
    continue
  fi
  if [ $ra -ne 0 ]; then
    echo "skip  $f: exit $ra with both"
    continue
  fi
  # perf.json holds wall-clock figures; everything else must match.
  if d=$(diff -rq -x perf.json "$tmp/a/$name" "$tmp/b/$name"); then
    echo "same  $f ($(ls "$tmp/a/$name" | grep -vc perf.json) files)"
  else
    echo "DIFF  $f:"
    echo "$d" | sed 's/^/      /'
    bad=1
  fi
done
exit $bad
