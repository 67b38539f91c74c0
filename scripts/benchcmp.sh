#!/usr/bin/env bash
# Compares a Go benchmark between an older revision and the working tree, on
# this machine, interleaved: the two test binaries run in turn, A B A B …, so
# that a drift of the machine's speed hits both alike, and each pair gives a
# ratio. Shared machines are noisy: quote the median ratio and its spread,
# never one run.
#
#   scripts/benchcmp.sh REV                       FixedPoolMMc in ./sim, 10 rounds
#   scripts/benchcmp.sh REV ./sim FixedPoolMMc 20 300000
#
# Arguments: REV (a commit, e.g. the one before a refactor), the package, the
# benchmark, the rounds, and b.N per run (the -benchtime Nx). With valgrind on
# the PATH it also counts the instructions per op of each binary (callgrind;
# the difference of two runs of N and 3N ops over 2N), which, unlike time,
# does not depend on what else the machine is doing.
set -euo pipefail
cd "$(dirname "$0")/.."

rev=${1:?usage: scripts/benchcmp.sh REV [PACKAGE] [BENCHMARK] [ROUNDS] [N]}
pkg=${2:-./sim}
bench=${3:-FixedPoolMMc}
rounds=${4:-10}
n=${5:-300000}

tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/old" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
git worktree add --detach -q "$tmp/old" "$rev"
(cd "$tmp/old" && go test -c -o "$tmp/old.test" "$pkg")
go test -c -o "$tmp/new.test" "$pkg"

run() { "$1" -test.run '^$' -test.bench "^Benchmark$bench\$" -test.benchtime "${n}x" -test.count 1 -test.cpu 1 | awk '/^Benchmark/ {print $3}'; }
echo "$bench ($pkg), $rounds interleaved rounds of $n ops, ns/op: old $rev, new working tree"
for i in $(seq 1 "$rounds"); do
  o=$(run "$tmp/old.test"); w=$(run "$tmp/new.test")
  echo "$o $w" | awk '{printf "  round: old %s new %s  new/old %.3f\n", $1, $2, $2/$1}'
  echo "$o $w" >>"$tmp/pairs"
done
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
ratios=$(awk '{printf "%.4f\n", $2/$1}' "$tmp/pairs" | sort -g)
echo "median ns/op: old $(cut -d' ' -f1 "$tmp/pairs" | median) new $(cut -d' ' -f2 "$tmp/pairs" | median);" \
  "new/old pairwise: median $(echo "$ratios" | median) (min $(echo "$ratios" | head -1), max $(echo "$ratios" | tail -1))"

if command -v valgrind >/dev/null 2>&1; then
  count() { # instructions per op: (I(3N) - I(N)) / 2N
    local a b
    a=$(GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null "$1" -test.run '^$' -test.bench "^Benchmark$bench\$" -test.benchtime "${n}x" -test.count 1 -test.cpu 1 2>&1 | awk '/Collected/ {gsub(",", "", $4); print $4}')
    b=$(GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null "$1" -test.run '^$' -test.bench "^Benchmark$bench\$" -test.benchtime "$((3 * n))x" -test.count 1 -test.cpu 1 2>&1 | awk '/Collected/ {gsub(",", "", $4); print $4}')
    echo $(((b - a) / (2 * n)))
  }
  io=$(count "$tmp/old.test"); iw=$(count "$tmp/new.test")
  echo "$io $iw" | awk '{printf "instructions per op (callgrind): old %d new %d, new/old %.3f\n", $1, $2, $2/$1}'
fi
