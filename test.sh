#!/usr/bin/env bash
# poolsim's test command (README, .ci/run). It installs what the tests need
# when it is missing — a JDK, Tomcat's, Jetty's, HikariCP's and SLF4J's jars
# for the conformance tests against the real pools and resources, Chromium
# for the report page check — then checks formatting, vets, and runs every
# test.
#
#   ./test.sh            everything
#   ./test.sh -short     skip the long statistical replications
#   ./test.sh ./model/   one package (any go test arguments)
#
# Tests that need the JVM or a package skip with a reason when it is missing
# on a developer's machine, and fail when CI=true.
set -euo pipefail
cd "$(dirname "$0")"

need=()
command -v javac >/dev/null 2>&1 || need+=(openjdk-17-jdk-headless)
command -v jstack >/dev/null 2>&1 || need+=(openjdk-17-jdk-headless)
[ -f /usr/share/java/tomcat10-util.jar ] || need+=(libtomcat10-java)
[ -f /usr/share/java/jetty9-util.jar ] || need+=(libjetty9-java)
[ -f /usr/share/java/HikariCP.jar ] || need+=(libhikaricp-java)
[ -f /usr/share/java/slf4j-api.jar ] && [ -f /usr/share/java/slf4j-nop.jar ] || need+=(libslf4j-java)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
if [ ${#need[@]} -gt 0 ]; then
  echo "test.sh: installing ${need[*]}" >&2
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  if command -v apt-get >/dev/null 2>&1; then
    $sudo apt-get update -qq || true
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null \
      || echo "test.sh: could not install ${need[*]}; the tests that need them will skip (or fail under CI=true)" >&2
  else
    echo "test.sh: no apt-get; the tests that need ${need[*]} will skip (or fail under CI=true)" >&2
  fi
fi

# Temurin 25 is no Debian package (the machine image carries it): the
# virtual-thread conformance tests need it, and fail without it under CI=true.
jdk25="${POOLSIM_JAVA25_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
[ -x "$jdk25/bin/javac" ] || echo "test.sh: no JDK 25 at $jdk25 (set POOLSIM_JAVA25_HOME): the virtual-thread conformance tests will skip (fail under CI=true)" >&2

unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "test.sh: gofmt would change:" >&2
  echo "$unformatted" >&2
  exit 1
fi
go vet ./...

if [ $# -gt 0 ] && [[ "$*" == *./* ]]; then
  # Packages named: run just those, as asked.
  go test -timeout 15m "$@"
  exit
fi
# Everything. The tests that run the real JDK/Tomcat/Jetty pools in real
# time and compare them with the simulator (conformance, and explain's
# diagnosis of a real Tomcat dump) run first and alone, one package at a
# time, so that the rest of the suite does not steal their CPU: on a 2-core
# machine that would make them rerun or, under CI=true, fail.
timing=(./conformance/ ./explain/)
rest=$(go list ./... | grep -v -e '/conformance$' -e '/explain$')
# -count=1: they depend on the installed JDK, Tomcat and Jetty jars, which
# the test cache does not track, so a cached pass could hide a new jar.
go test -p 1 -count=1 -timeout 25m "$@" "${timing[@]}"
go test -timeout 15m "$@" $rest
# The packages that run work concurrently (sweep jobs, the CLI's signal
# handling and report, the arrivals drawn ahead on a goroutine) once more
# under the race detector.
go test -race -short -timeout 15m ./sweep/ ./cmd/poolsim/ ./report/ ./workloads/
# A gated sweep, as users run one in CI (README: Sweeps in CI).
go run ./cmd/poolsim sweep scenarios/examples/sweep-ci-tomcat.yaml --param pool.max=100,200 --param workload.arrivals.rate=50/s:300/s:3:log --replications 3 --assert 'rejected == 0 && wait_p99_s < 0.2' --out "$(mktemp -d)"
# Every fuzz target for 5 s each (issue 6; scripts/fuzz.sh 5m to fuzz for real).
scripts/fuzz.sh 5s
