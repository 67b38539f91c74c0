#!/usr/bin/env bash
# poolsim's speed as a ratio to the bare event loop (issue 19). The floor is
# ../shared/bench/floor: a standard-library-only M/M/c loop, two heap
# operations and two exponential draws per task, the practical limit of any
# simulator of this model on this machine. Absolute times drift on a shared
# machine; a ratio measured back to back does not (much), so every round runs
# the floor and then each case, interleaved, and each case's tasks per second
# — end to end, the whole `poolsim` process, as a user runs it — is divided
# by that round's floor.
#
#   scripts/bench.sh                    5 rounds of every case
#   scripts/bench.sh 10 mmc tomcat-121  10 rounds of the cases named
#
# Cases: mmc (scenarios/examples/fixed-pool-mmc.yaml: newFixedThreadPool(8)
# at 80% load, 2 h, 460,000 tasks), elastic (scripts/bench/elastic-tomcat.yaml:
# a Tomcat executor, core 4, max 16, keepAlive 1 s, 6.4/s of 1 s service,
# 24 h), tomcat-121 (the bundled incident, 2 h), day (scripts/bench/
# production-day.yaml: 17.8 million requests, 86,400 timeline rows), and
# sweep-point (one sweep point of scenarios/examples/sweep-ci-tomcat.yaml,
# 20 replications, one job: what a sweep or a search pays per simulation).
#
# poolsim draws a run's arrivals on a second processor when it has one
# (workloads.DrawAhead): its wall time counts that; its CPU time (below) is
# the work of both.
#
# FLOOR_DIR overrides where the floor's sources are. BENCH_CLOCK=cpu counts
# CPU time instead of wall time (`perf stat -e task-clock`, the whole process
# of the floor as of poolsim): less disturbed by other processes on a busy
# machine, but not the issue's measure, which is wall time end to end.
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=${1:-5}
[ $# -gt 0 ] && shift
cases=("$@")
[ ${#cases[@]} -eq 0 ] && cases=(mmc elastic tomcat-121 day sweep-point)

floor_dir=${FLOOR_DIR:-../shared/bench/floor}
if [ ! -f "$floor_dir/main.go" ]; then
  echo "bench.sh: no floor at $floor_dir (set FLOOR_DIR)" >&2
  exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$floor_dir" && go build -o "$tmp/floor" .)
go build -o "$tmp/poolsim" ./cmd/poolsim

clock=${BENCH_CLOCK:-wall}
case $clock in
wall) ;;
cpu) perf stat -e task-clock true >/dev/null 2>&1 || { echo "bench.sh: BENCH_CLOCK=cpu needs perf (linux-perf)" >&2; exit 2; } ;;
*) echo "bench.sh: BENCH_CLOCK is wall or cpu, not $clock" >&2; exit 2 ;;
esac

# timed CMD…: runs CMD (its output discarded) and prints the nanoseconds it
# took: wall time, or its CPU time with BENCH_CLOCK=cpu.
timed() {
  if [ "$clock" = cpu ]; then
    perf stat -x, -e task-clock -o "$tmp/perf.txt" -- "$@" >/dev/null 2>&1
    awk -F, '$3 == "task-clock" {printf "%.0f", $1 * 1e6}' "$tmp/perf.txt"
    return
  fi
  # bash's own clock (no date process forked around the command, whose
  # start-up the command's time would include: about a millisecond, a
  # percent or two of the shorter cases).
  local t0 t1
  t0=$EPOCHREALTIME
  "$@" >/dev/null 2>&1
  t1=$EPOCHREALTIME
  echo $(((${t1//[!0-9]/} - ${t0//[!0-9]/}) * 1000)) # microseconds, whatever the locale's decimal mark
}

# floor_tps: tasks per second of the floor on M/M/8 at rho 0.8 (its
# defaults): as it measures itself, or by its process's CPU time.
floor_tps() {
  if [ "$clock" = cpu ]; then
    awk -v ns="$(timed "$tmp/floor" -tasks 4000000)" 'BEGIN {printf "%.0f", 4000000 / (ns / 1e9)}'
    return
  fi
  "$tmp/floor" -tasks 4000000 | awk '/^tasks per second/ {print $4}'
}

# submitted DIR: the tasks a run submitted, from its summary.json.
submitted() { sed -n 's/^  "submitted": \([0-9]*\),$/\1/p' "$1/summary.json"; }

# case_tps CASE: tasks per second of the whole poolsim process for CASE.
case_tps() {
  local out="$tmp/out-$1" ns n
  rm -rf "$out"
  case $1 in
  mmc | elastic | tomcat-121 | day)
    local file
    case $1 in
    mmc) file=scenarios/examples/fixed-pool-mmc.yaml ;;
    elastic) file=scripts/bench/elastic-tomcat.yaml ;;
    tomcat-121) file=scenarios/examples/tomcat-121.yaml ;;
    day) file=scripts/bench/production-day.yaml ;;
    esac
    ns=$(timed "$tmp/poolsim" run "$file" --out "$out")
    n=$(submitted "$out")
    ;;
  sweep-point)
    # Tasks per simulation, once; then the sweep's whole process.
    if [ ! -f "$tmp/sweep-tasks" ]; then
      "$tmp/poolsim" run scenarios/examples/sweep-ci-tomcat.yaml --set pool.max=100 --out "$tmp/one" >/dev/null
      echo $(($(submitted "$tmp/one") * 20)) >"$tmp/sweep-tasks"
    fi
    ns=$(timed "$tmp/poolsim" sweep scenarios/examples/sweep-ci-tomcat.yaml --param pool.max=100 --replications 20 --jobs 1 --out "$out")
    n=$(cat "$tmp/sweep-tasks")
    ;;
  *)
    echo "bench.sh: unknown case $1 (mmc, elastic, tomcat-121, day, sweep-point)" >&2
    exit 2
    ;;
  esac
  awk -v n="$n" -v ns="$ns" 'BEGIN {printf "%.0f", n / (ns / 1e9)}'
}

median() { sort -g | awk '{v[NR]=$1} END {printf "%.6f\n", (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

echo "poolsim vs the floor ($clock time), $rounds interleaved rounds on $(nproc) CPUs ($(uname -m)), load average $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq 1 "$rounds"); do
  for c in "${cases[@]}"; do
    f=$(floor_tps)
    p=$(case_tps "$c")
    echo "$c $f $p" >>"$tmp/results"
    awk -v c="$c" -v f="$f" -v p="$p" -v r="$r" 'BEGIN {printf "  round %d %-12s floor %5.2f M tasks/s  poolsim %5.2f M tasks/s  ratio %.3f\n", r, c, f/1e6, p/1e6, p/f}'
  done
done
echo "case          ratio to the floor: median (min–max)    poolsim tasks/s (median)"
for c in "${cases[@]}"; do
  ratios=$(awk -v c="$c" '$1 == c {printf "%.4f\n", $3/$2}' "$tmp/results" | sort -g)
  tps=$(awk -v c="$c" '$1 == c {print $3}' "$tmp/results" | median)
  printf "%-12s  %.3f (%.3f–%.3f)                  %.2f M\n" "$c" "$(echo "$ratios" | median)" "$(echo "$ratios" | head -1)" "$(echo "$ratios" | tail -1)" "$(echo "$tps / 1000000" | bc -l)"
done
