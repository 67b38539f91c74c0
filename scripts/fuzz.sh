#!/usr/bin/env bash
# Runs every fuzz target in the repository (every `func FuzzX` in a
# _test.go file) for a short time each, one after the other (issue 6).
#
#   scripts/fuzz.sh                      10s per target
#   scripts/fuzz.sh 5m                   five minutes per target
#   scripts/fuzz.sh 30s ./scenarios      only the targets under these folders
#
# FUZZ_PARALLEL sets the fuzzing processes per target (default: 2).
# A failing input is written to the package's testdata/fuzz/FuzzX/ folder:
# commit it with the fix, and plain `go test` replays it as a regression
# test from then on. Exit status: 1 if any target failed.
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime=${1:-10s}
[ $# -gt 0 ] && shift
roots=("$@")
[ ${#roots[@]} -eq 0 ] && roots=(.)

summary=()
failed=0
while IFS= read -r file; do
  dir=$(dirname "$file")
  for target in $(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$file"); do
    echo "fuzz.sh: ./$dir $target for $fuzztime" >&2
    log=$(mktemp)
    if go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -parallel "${FUZZ_PARALLEL:-2}" "./$dir" >"$log" 2>&1; then
      status=ok
    else
      status=FAILED
      failed=1
      cat "$log" >&2
    fi
    # The last progress line: "fuzz: elapsed: 10s, execs: 123456 (12345/sec), ..."
    last=$(grep -o 'elapsed: [^,]*, execs: [0-9]*' "$log" | tail -1 | sed 's/elapsed: \(.*\), execs: \(.*\)/\2 execs in \1/' || true)
    summary+=("$(printf '%-7s %-44s %s' "$status" "./$dir $target" "${last:-no progress line}")")
    rm -f "$log"
  done
done < <(grep -rl --include='*_test.go' '^func Fuzz' "${roots[@]}" | grep -v '/testdata/' | sed 's|^\./||' | sort)

printf '%s\n' "${summary[@]}"
exit $failed
