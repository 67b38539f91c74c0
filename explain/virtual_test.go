package explain

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/poolsim/poolsim/scenarios"
)

func explainFile(t *testing.T, path string, sets ...string) *Explanation {
	t.Helper()
	sc, err := scenarios.Load(path, sets)
	return explainLoaded(t, sc, err)
}

// TestExplainVirtualHikari: on virtual threads (R130, R142) the wait of
// tomcat-hikari moves into HikariCP (R145); explain says so and none of
// ThreadPoolExecutor's reasoning (idle workers, keepAlive, queues) appears.
func TestExplainVirtualHikari(t *testing.T) {
	e := explainFile(t, "../scenarios/examples/tomcat-virtual-hikari.yaml")
	text := e.Text()
	if f := finding(e, "Where the wait went"); !strings.Contains(f, "parks there (R145)") {
		t.Errorf("Where the wait went = %q, want the parked virtual threads (R145)\n%s", f, text)
	}
	if f := finding(e, "Bottleneck"); !strings.Contains(f, "HikariCP pool db") {
		t.Errorf("Bottleneck = %q, want the HikariCP pool named", f)
	}
	if !strings.Contains(finding(e, "A virtual thread per task"), "R142") {
		t.Errorf("no virtual-thread finding citing R142:\n%s", text)
	}
	for _, wrong := range []string{"How it grew", "Why TIMED_WAITING", "Why WAITING", "SynchronousQueue", "keepAlive 0s", "hand-off timing"} {
		if strings.Contains(text, wrong) {
			t.Errorf("a virtual-thread explanation says %q:\n%s", wrong, text)
		}
	}
	w := whatIf(e, "db connections")
	if w == nil || w.Error != "" || w.Alt.Errors != 0 || e.Base.Errors == 0 {
		t.Fatalf("the db connections what-if should end the connection timeouts (base %d errors): %+v", e.Base.Errors, w)
	}
}

// TestExplainVirtualPinning: on JDK 21 a JDBC call inside synchronized pins
// the carriers (R134): explain names the carriers as the bottleneck, and
// the JDK 25 what-if (R135) serves the offered 100 requests/s again.
func TestExplainVirtualPinning(t *testing.T) {
	e := explainFile(t, "../scenarios/examples/virtual-pinning.yaml")
	text := e.Text()
	if f := finding(e, "Pinned carriers"); !strings.Contains(f, "in synchronized (pinned on JDK 21)") {
		t.Errorf("Pinned carriers = %q\n%s", f, text)
	}
	if f := finding(e, "Where the wait went"); !strings.HasPrefix(f, "to the carriers") {
		t.Errorf("Where the wait went = %q, want the carriers\n%s", f, text)
	}
	w := whatIf(e, "JDK 21 → 25")
	if w == nil || w.Error != "" {
		t.Fatalf("no JDK 25 what-if:\n%s", text)
	}
	// 100/s offered: about 11,000 tasks in the 90 s steady window, so the
	// rate's relative standard error is about 1 %; 5 % is 5 of them.
	if w.Alt.Throughput < 95 || w.Alt.Virtual == nil || w.Alt.Virtual.Pinned != 0 || e.Base.Throughput > 60 {
		t.Errorf("JDK 25 what-if: %.1f/s completed (pinned %+v), base %.1f/s; want ≈ 100/s unpinned and a starved base", w.Alt.Throughput, w.Alt.Virtual, e.Base.Throughput)
	}
}

// TestCompareVirtualMovesTheWait: the side-by-side of issue 15 — the
// same traffic on Tomcat's 200 platform threads and on virtual threads:
// the wait leaves the pool's queue for the connection pool.
func TestCompareVirtualMovesTheWait(t *testing.T) {
	a, err := scenarios.Load("../scenarios/examples/tomcat-hikari.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := scenarios.Load("../scenarios/examples/tomcat-virtual-hikari.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compare(context.Background(), a, b)
	if err != nil {
		t.Fatal(err)
	}
	if !c.SameTraffic {
		t.Error("the two examples should have the same traffic")
	}
	if !strings.HasPrefix(c.Moved, "The wait moved from the pool's queue") || !strings.Contains(c.Moved, "to db") {
		t.Errorf("Moved = %q, want from the pool's queue to db", c.Moved)
	}
	if text := c.Text(); !strings.Contains(text, "virtual threads, most") || !strings.Contains(text, "carrier wait p99") {
		t.Errorf("no virtual-thread rows:\n%s", text)
	}
}

// simpleAsyncLimit4 is a SimpleAsyncTaskExecutor with concurrencyLimit 4
// (R143) on virtual threads, fed Poisson arrivals at rate of 100 ms blocks.
func simpleAsyncLimit4(rate string) string {
	return `name: simple-async-limit
seed: 1
duration: 1m
warmup: 10s
sample: 5s
pool: {preset: simple-async, concurrencyLimit: 4}
jvm: {version: 25, parallelism: 2}
workload:
  arrivals: {process: poisson, rate: ` + rate + `}
  service:
    steps:
      - block: {dist: exponential, mean: 100ms}
`
}

// writeScenario writes text to a scenario file in a temporary directory.
func writeScenario(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestExplainVirtualCompensatedIsNotPinned: on JDK 21 Object.wait holds
// the carrier but Blocker.begin compensates (R134, R136): the JDK adds
// carriers, nothing waits for one. explain must not call the carriers
// pinned, the bottleneck, or propose more of them; it proposes JDK 25,
// where Object.wait unmounts (R135). Before the fix it said "4.02 of the
// 2 carriers … the JDK adds no carrier for it", "busy (211.06%)", "Where
// the wait went: to the carriers … 0 virtual threads wait", and offered
// parallelism 2 → 4, which changed nothing.
func TestExplainVirtualCompensatedIsNotPinned(t *testing.T) {
	e := explainFile(t, writeScenario(t, `name: object-wait
seed: 1
duration: 1m
warmup: 10s
sample: 5s
pool: {preset: virtual}
jvm: {version: 21, parallelism: 2}
workload:
  arrivals: {process: poisson, rate: 100/s}
  service:
    steps:
      - compute: {dist: exponential, mean: 2ms}
      - block: {dist: exponential, mean: 40ms}
        in: object-wait
`))
	text := e.Text()
	v := e.Result.Summary.Virtual
	if v == nil || v.Compensations == 0 || float64(v.MountedMean) <= float64(v.Parallelism) || float64(v.RunnableMean) >= 0.5 {
		t.Fatalf("the scenario should compensate, run more carriers than the parallelism and leave nothing waiting for one: %+v", v)
	}
	if finding(e, "Pinned carriers") != "" {
		t.Errorf("compensated calls reported as pinned:\n%s", text)
	}
	held := finding(e, "Carriers held by blocking calls")
	if !strings.Contains(held, "compensated on JDK 21") || !strings.Contains(held, "tryCompensate") || strings.Contains(held, "adds no carrier") {
		t.Errorf("Carriers held by blocking calls = %q, want compensation (R136), not pinning\n%s", held, text)
	}
	if f := finding(e, "Carriers"); !strings.Contains(f, "more than the parallelism") {
		t.Errorf("Carriers = %q, want the busy carriers said to exceed the parallelism (no share above 100%%)", f)
	}
	if f := finding(e, "Where the wait went"); strings.HasPrefix(f, "to the carriers") {
		t.Errorf("Where the wait went = %q, but no virtual thread waits for a carrier\n%s", f, text)
	}
	if w := whatIf(e, "parallelism 2 → 4"); w != nil {
		t.Errorf("more carriers proposed though none is waited for:\n%s", text)
	}
	if w := whatIf(e, "JDK 21 → 25"); w == nil || w.Error != "" || !strings.Contains(w.Why, "Object.wait") {
		t.Errorf("want the JDK 25 what-if (Object.wait unmounts, R135): %+v\n%s", w, text)
	}
}

// TestExplainVirtualPinnedNotStarved: pinned carriers that do not starve
// anything (1000 carriers, 4 pinned on average) are reported without the
// claim that runnable threads wait, and without a what-if doubling the
// carriers (it changed nothing: R131).
func TestExplainVirtualPinnedNotStarved(t *testing.T) {
	e := explainFile(t, "../scenarios/examples/virtual-pinning.yaml", "jvm.parallelism=1000")
	text := e.Text()
	f := finding(e, "Pinned carriers")
	if f == "" || strings.Contains(f, "with every carrier held") || !strings.Contains(f, "kept up") {
		t.Errorf("Pinned carriers = %q, want pinning stated without starvation\n%s", f, text)
	}
	if w := whatIf(e, "parallelism 1000 → 2000"); w != nil {
		t.Errorf("more carriers proposed though none is waited for:\n%s", text)
	}
	if w := whatIf(e, "JDK 21 → 25"); w == nil {
		t.Errorf("the JDK 25 what-if (synchronized unmounts, R135) is missing:\n%s", text)
	}
}

// TestExplainSimpleAsyncLimitIsALimit: SimpleAsyncTaskExecutor with
// concurrencyLimit 4 runs at most 4 tasks at once (R143); explain said
// "no limit" in its header and its first finding.
func TestExplainSimpleAsyncLimitIsALimit(t *testing.T) {
	e := explainFile(t, writeScenario(t, simpleAsyncLimit4("28/s")))
	text := e.Text()
	if strings.Contains(text, "no limit") {
		t.Errorf("concurrencyLimit 4 explained as no limit:\n%s", text)
	}
	if f := finding(e, "A virtual thread per task"); !strings.Contains(f, "at most 4 tasks at once") {
		t.Errorf("A virtual thread per task = %q, want the limit of 4 (R143)", f)
	}
	if e.Result.Summary.Virtual.VTPeak > 4 {
		t.Errorf("more than 4 virtual threads alive at once: %d", e.Result.Summary.Virtual.VTPeak)
	}
}

// TestExplainVirtualResourcesWording: on virtual threads the resource
// findings count live virtual threads, not "busy threads": on
// virtual-pinning 3957 of the 3959 wait for a carrier, which the finding
// said "are working" (R132, R145); and no request-thread count is a knob
// (R130), so "More threads would only lengthen the queue" does not apply.
func TestExplainVirtualResourcesWording(t *testing.T) {
	e := explainFile(t, "../scenarios/examples/virtual-pinning.yaml")
	if f := finding(e, "Resources"); f == "" || strings.Contains(f, "are working") || !strings.Contains(f, "for a carrier") {
		t.Errorf("Resources = %q, want the live virtual threads split into resource and carrier waits", f)
	}
	e = explainFile(t, "../scenarios/examples/tomcat-virtual-hikari.yaml")
	f := finding(e, "Bottleneck")
	for _, wrong := range []string{"busy threads", "More threads"} {
		if strings.Contains(f, wrong) {
			t.Errorf("Bottleneck on virtual threads says %q: %s", wrong, f)
		}
	}
	if !strings.Contains(f, "live virtual threads") {
		t.Errorf("Bottleneck = %q, want the live virtual threads counted", f)
	}
}

// TestCompareSimpleAsyncLimits: two concurrencyLimits side by side
// (R143). Before the fix both pool cells read "simple-async, max
// unbounded", the caller's wait for a permit was called "the pool's
// queue" (there is none), and each "Why" was the Steady state finding.
func TestCompareSimpleAsyncLimits(t *testing.T) {
	text := simpleAsyncLimit4("38/s")
	p := writeScenario(t, text)
	a, err := scenarios.Load(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := scenarios.Load(p, []string{"pool.concurrencyLimit=8"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compare(context.Background(), a, b)
	if err != nil {
		t.Fatal(err)
	}
	out := c.Text()
	if r := c.Rows[0]; r.A == r.B || !strings.Contains(r.A, "limit 4") || !strings.Contains(r.B, "limit 8") {
		t.Errorf("pool row %+v, want the two limits\n%s", r, out)
	}
	// λ·S = 3.8 against 4 permits: callers wait about a second; against
	// 8, milliseconds.
	if !strings.HasPrefix(c.Moved, "Requests wait less at the callers waiting for a concurrencyLimit permit") {
		t.Errorf("Moved = %q, want the callers' permit wait\n%s", c.Moved, out)
	}
	if strings.Contains(out, "Why A: Steady state") || !strings.Contains(out, "Why A: Concurrency limit") {
		t.Errorf("Why A is not the concurrency limit:\n%s", out)
	}
}
