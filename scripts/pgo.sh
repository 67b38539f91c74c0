#!/usr/bin/env bash
# Regenerates cmd/poolsim/default.pgo, the CPU profile `go build` uses for
# profile-guided optimisation of the poolsim command (Go picks up a
# default.pgo in the main package's directory by itself, -pgo=auto): the hot
# path's interface calls are devirtualised and its small functions inlined as
# the profile says. The profile is of the common work — the bench cases of
# scripts/bench.sh: a fixed pool, an elastic Tomcat pool, the tomcat-121
# incident, a sweep point — so that no single scenario's shape is favoured.
# Run it after a change to the hot path, and commit the result with the
# figures of scripts/bench.sh or scripts/benchcmp.sh before and after.
#
# The profiles sample at 1000 per second (POOLSIM_CPUPROFILE_HZ; this
# machine's kernel timer delivers about 250) rather than pprof's 100, 16
# seeds of each case: a profile of a few hundred samples decided the
# compiler's inlining differently at each regeneration, by ±2 % of the
# instructions of a run.
#
#   scripts/pgo.sh
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -pgo=off -o "$tmp/poolsim" ./cmd/poolsim
n=0
prof() {
  n=$((n + 1))
  POOLSIM_CPUPROFILE="$tmp/$n.prof" POOLSIM_CPUPROFILE_HZ=1000 "$tmp/poolsim" "$@" >/dev/null 2>&1
}
for i in $(seq 1 16); do
  prof run scenarios/examples/fixed-pool-mmc.yaml --seed $i --out "$tmp/out"
  prof run scripts/bench/elastic-tomcat.yaml --seed $i --out "$tmp/out"
  prof run scenarios/examples/tomcat-121.yaml --seed $i --out "$tmp/out"
done
prof sweep scenarios/examples/sweep-ci-tomcat.yaml --param pool.max=100 --replications 20 --jobs 1 --out "$tmp/sweep"
go tool pprof -proto "$tmp"/*.prof >cmd/poolsim/default.pgo 2>/dev/null
echo "wrote cmd/poolsim/default.pgo ($(wc -c <cmd/poolsim/default.pgo) bytes, $n profiles)"
