package explain

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/poolsim/poolsim/scenarios"
)

// TestPlateauPeriodic: the largest FIFO pool periodic arrivals keep alive,
// N = ⌈λ(K+S)⌉ − 1 (R78), including the spec's measured case.
func TestPlateauPeriodic(t *testing.T) {
	tests := []struct {
		lambda float64
		k, s   time.Duration
		want   int
	}{
		{4, 3 * time.Second, 5 * time.Millisecond, 12},   // spec §11 experiment 1: measured 12 on JDK LBQ, fair SQ, Tomcat
		{2, 60 * time.Second, 5 * time.Millisecond, 120}, // the seed incident's 2/s, 60 s
		{2, 60 * time.Second, 0, 119},                    // exactly λK = 120: N/λ must be < K, so 119
		{0.5, 10 * time.Second, time.Second, 5},          // ⌈5.5⌉ − 1
		{0, time.Minute, time.Millisecond, 0},            // no traffic: nothing survives
	}
	for _, tt := range tests {
		if got := PlateauPeriodic(tt.lambda, tt.k, tt.s); got != tt.want {
			t.Errorf("PlateauPeriodic(%v, %v, %v) = %d, want %d", tt.lambda, tt.k, tt.s, got, tt.want)
		}
	}
}

// TestPoissonDeathRate checks λ·P(Poisson(λK) ≤ n−1) against the series.
func TestPoissonDeathRate(t *testing.T) {
	lambda, k, n := 2.0, 60*time.Second, 100
	mu := lambda * k.Seconds()
	var p, term float64 = 0, math.Exp(-mu)
	for i := 0; i < n; i++ {
		p += term
		term *= mu / float64(i+1)
	}
	if got := PoissonDeathRate(lambda, k, n); math.Abs(got-lambda*p) > 1e-12 {
		t.Errorf("got %v, want %v", got, lambda*p)
	}
	if PoissonDeathRate(lambda, k, 0) != 0 {
		t.Error("an empty pool cannot lose workers")
	}
}

func explainYAML(t *testing.T, y string) *Explanation {
	t.Helper()
	sc, err := scenarios.Parse([]byte(y), "e.yaml", nil)
	return explainLoaded(t, sc, err)
}

// explainLoaded explains a scenario just loaded (err: the loading's).
func explainLoaded(t *testing.T, sc *scenarios.Scenario, err error) *Explanation {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	e, err := Explain(context.Background(), sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func whatIf(e *Explanation, prefix string) *WhatIf {
	for i := range e.WhatIfs {
		if strings.HasPrefix(e.WhatIfs[i].Name, prefix) {
			return &e.WhatIfs[i]
		}
	}
	return nil
}

// TestExplainTomcatPlateau: the seed incident scaled down (keepAlive 6 s,
// 2/s periodic after a burst). The explanation must give the simulated
// plateau and the formula's value, say why the workers are TIMED_WAITING,
// and its what-ifs must move the pool the way R79 says.
func TestExplainTomcatPlateau(t *testing.T) {
	e := explainYAML(t, `
name: mini-121
duration: 10m
warmup: 5m
sample: 1s
pool: {preset: tomcat, core: 2, max: 100, keepAlive: 6s}
workload:
  phases:
    - {duration: 1m, arrivals: {process: poisson, rate: 400}, service: {dist: constant, value: 100ms}}
    - {arrivals: {process: constant, rate: 2}, service: {dist: constant, value: 5ms}}
`)
	text := e.Text()
	// ⌈2 × 6.005⌉ − 1 = 12 workers; the simulation must hold exactly that.
	if got := e.Steady.Mean; math.Abs(got-12) > 0.05 {
		t.Errorf("steady pool %v, want the periodic plateau 12", got)
	}
	for _, want := range []string{"= 12 workers", "Why TIMED_WAITING", "FIFO", "R78", "TaskQueue refuses"} {
		if !strings.Contains(text, want) {
			t.Errorf("explanation lacks %q:\n%s", want, text)
		}
	}
	base := e.Base.PoolMean
	for _, c := range []struct {
		name string
		less bool
	}{
		{"keepAlive", true}, // a sixth of the keepAlive: about a sixth of the plateau
		{"LIFO", true},      // falls to what is needed (core)
		{"half the", true},  // half the rate: half the plateau
	} {
		w := whatIf(e, c.name)
		if w == nil {
			t.Fatalf("no %q what-if in\n%s", c.name, text)
		}
		if w.Error != "" || !(w.Alt.PoolMean < base*0.75) {
			t.Errorf("%s: pool %v (base %v), want clearly smaller; err %q", w.Name, w.Alt.PoolMean, base, w.Error)
		}
	}
	if w := whatIf(e, "LIFO"); w != nil && w.Alt.PoolMean > 2.5 {
		t.Errorf("LIFO hand-off keeps %v workers, want about core (2)", w.Alt.PoolMean)
	}
}

// TestExplainNeverGrows: an unbounded queue never lets the pool pass core
// (R7); the explanation says so and proposes a bounded queue, which grows it.
func TestExplainNeverGrows(t *testing.T) {
	e := explainYAML(t, `
duration: 30m
warmup: 2m
pool: {core: 4, max: 32, keepAlive: 30s}
workload: {arrivals: {process: poisson, rate: 45}, service: {dist: exponential, mean: 80ms}}
`)
	if !strings.Contains(e.Text(), "never grows past core") {
		t.Errorf("no R7 finding:\n%s", e.Text())
	}
	w := whatIf(e, "bounded queue")
	if w == nil || !(w.Alt.PoolMean > e.Base.PoolMean) {
		t.Errorf("a bounded queue should grow the pool past core: %+v", w)
	}
}

// TestExplainRejections: rejections are explained with the policy.
func TestExplainRejections(t *testing.T) {
	e := explainYAML(t, `
duration: 10m
pool: {core: 2, max: 4, keepAlive: 10s, queue: {type: array, capacity: 4}, rejection: discard}
workload: {arrivals: {process: poisson, rate: 60}, service: {dist: exponential, mean: 100ms}}
`)
	text := e.Text()
	if !strings.Contains(text, "Why tasks were rejected") || !strings.Contains(text, "dropped silently") {
		t.Errorf("no rejection finding:\n%s", text)
	}
	if w := whatIf(e, "max 4 → 8"); w == nil || !(w.Alt.Rejected < e.Base.Rejected) {
		t.Errorf("doubling max should reject less: %+v", w)
	}
}

// TestExplainRuntimeChanges: with runtime events the steady state is the
// part after the last change, analysed with the configuration then in
// force, and each change is explained by its rule: raising max on an
// unbounded queue adds nothing (R7, R22), raising core with tasks queued
// starts workers at once (R21). What-ifs on a key an event overrides are
// left out; a shutdown ends the steady state.
func TestExplainRuntimeChanges(t *testing.T) {
	e := explainYAML(t, `
duration: 30m
sample: 5s
pool: {core: 10, max: 10, keepAlive: 60s}
workload: {arrivals: {process: poisson, rate: 110}, service: {dist: exponential, mean: 100ms}}
events:
  - {at: 10m, set: {max: 50}}
  - {at: 20m, set: {core: 30}}
`)
	text := findingsText(e)
	if e.Steady.SteadyFrom != 20*time.Minute || e.Config.Core != 30 || e.Config.Max != 50 {
		t.Errorf("steady state from %v with core %d max %d, want from 20m with core 30 max 50", e.Steady.SteadyFrom, e.Config.Core, e.Config.Max)
	}
	if e.Steady.Min != 30 || e.Steady.Max != 30 {
		t.Errorf("after setCorePoolSize(30) with 12,000 queued the pool holds 30 throughout, got %v–%v", e.Steady.Min, e.Steady.Max)
	}
	for _, want := range []string{"Runtime changes", "set max=50", "adds no thread", "R22", "set core=30", "starts min(20, queued) workers at once", "R21", "The queue emptied at 21m"} {
		if !strings.Contains(text, want) {
			t.Errorf("explanation lacks %q:\n%s", want, text)
		}
	}
	// The configuration as first written (core = max = 10, overloaded)
	// does not describe the end of the run.
	for _, wrong := range []string{"How it grew", "Overload"} {
		if strings.Contains(text, wrong) {
			t.Errorf("explanation has %q, which the runtime changes make wrong:\n%s", wrong, text)
		}
	}
	if !strings.Contains(strings.Join(strings.Fields(e.Text()), " "), "means over the whole run after the warmup, runtime events included") {
		t.Errorf("the what-if table must say its figures are whole-run means:\n%s", e.Text())
	}
	for _, w := range e.WhatIfs {
		for _, s := range w.Sets {
			if strings.HasPrefix(s, "pool.core=") || strings.HasPrefix(s, "pool.max=") {
				t.Errorf("what-if %q sets a key an event overrides before the steady state", w.Name)
			}
		}
	}

	e = explainYAML(t, `
duration: 10m
pool: {core: 4, max: 8, keepAlive: 30s, queue: {type: array, capacity: 10}}
workload: {arrivals: {process: poisson, rate: 20}, service: {dist: exponential, mean: 100ms}}
events:
  - {at: 6m, shutdown: graceful}
`)
	if e.Steady.SteadyTo >= 6*time.Minute || e.Steady.Mean < 3.9 {
		t.Errorf("steady state to %v with mean pool %v; want it to end before the shutdown at 6m with the core workers", e.Steady.SteadyTo, e.Steady.Mean)
	}
	text = findingsText(e)
	for _, want := range []string{"shutdown() rejects every later task", "before the shutdown", "Rejected after shutdown"} {
		if !strings.Contains(text, want) {
			t.Errorf("explanation lacks %q:\n%s", want, text)
		}
	}
	// 20/s for the 4 minutes after the shutdown, every one rejected; the
	// pool itself, at λ·S = 2 of 8 workers with room for 10 queued, rejects
	// next to nothing, and the explanation must not blame it for those.
	s := e.Result.Summary
	if after := float64(s.RejectedAfterShutdown); math.Abs(after-4800) > 4*math.Sqrt(4800) {
		t.Errorf("%d rejected after shutdown, want about 20/s × 240 s = 4800", s.RejectedAfterShutdown)
	}
	if strings.Contains(text, "Why tasks were rejected") != (s.Rejected > s.RejectedAfterShutdown) || e.Base.Rejected != s.Rejected-s.RejectedAfterShutdown {
		t.Errorf("rejections of a full pool: %d of %d; findings:\n%s", s.Rejected-s.RejectedAfterShutdown, s.Rejected, text)
	}
}

// findingsText is the findings unwrapped, for substring checks.
func findingsText(e *Explanation) string {
	var b strings.Builder
	for _, f := range e.Findings {
		b.WriteString(f.Title + ": " + f.Text + "\n")
	}
	return b.String()
}

// TestExplainPlateauAboveMax: when λK exceeds max, a FIFO hand-off cannot
// shrink the pool at all (R78 caps nothing below max); the explanation must
// say so rather than promise a fall towards λK.
func TestExplainPlateauAboveMax(t *testing.T) {
	e := explainYAML(t, `
duration: 10m
warmup: 1m
pool: {core: 2, max: 4, keepAlive: 30s, queue: {type: array, capacity: 8}}
workload: {arrivals: {process: poisson, rate: 25}, service: {dist: exponential, mean: 100ms}}
`)
	text := findingsText(e)
	if !strings.Contains(text, "is far above max (4): even a pool of max idle workers") || strings.Contains(text, "falls quickly") {
		t.Errorf("want the capped case, λK far above max 4:\n%s", text)
	}
}

// TestExplainTomcatQueuesOnlyAtMax: Tomcat's TaskQueue is unbounded but
// refuses a task whenever no worker is idle (R67), so a Tomcat pool that
// queues has grown to maxThreads first; the JDK's "never grows past core"
// finding (R7) must not be given for it. A thread-per-task executor gets
// its own finding (R86), not the SynchronousQueue growth story.
func TestExplainTomcatQueuesOnlyAtMax(t *testing.T) {
	e := explainYAML(t, `
duration: 5m
pool: {preset: tomcat, core: 2, max: 6, keepAlive: 10s}
workload: {arrivals: {process: poisson, rate: 55}, service: {dist: exponential, mean: 100ms}}
`)
	text := findingsText(e)
	if e.Result.Summary.QueueLenMax == 0 || e.Result.Summary.LargestPoolSize != 6 {
		t.Fatalf("the case needs a Tomcat pool at max with a queue: largest %d, queue max %d", e.Result.Summary.LargestPoolSize, e.Result.Summary.QueueLenMax)
	}
	if strings.Contains(text, "never grows past core") || !strings.Contains(text, "TaskQueue refuses") {
		t.Errorf("Tomcat explained as a JDK pool on an unbounded queue:\n%s", text)
	}

	e = explainYAML(t, `
duration: 10s
pool: {preset: thread-per-task}
workload: {arrivals: {process: poisson, rate: 100}, service: {dist: constant, value: 50ms}}
`)
	text = findingsText(e)
	s := e.Result.Summary
	if !strings.Contains(text, "A thread per task") || strings.Contains(text, "SynchronousQueue accepts") || s.ThreadsCreated != s.Submitted {
		t.Errorf("thread per task: %d threads for %d tasks:\n%s", s.ThreadsCreated, s.Submitted, text)
	}
}

// TestExplainRuntimeEdgeCases: the cases a review found explained wrongly.
func TestExplainRuntimeEdgeCases(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want, not  []string
	}{
		// A shutdown before the warmup ended: say so, and still explain the rejections.
		{"shutdown before warmup", `
duration: 10m
warmup: 2m
pool: {core: 4, max: 8, keepAlive: 30s}
workload: {arrivals: {process: poisson, rate: 20}, service: {dist: exponential, mean: 100ms}}
events: [{at: 1m, shutdown: graceful}]
`, []string{"shut down at 1m0s, before the warmup (2m0s) ended", "Rejected after shutdown"}, []string{"lengthen the duration"}},
		// A change in the last seconds leaves the steady state before it.
		{"late change", `
duration: 10m
warmup: 2m
sample: 7s
pool: {core: 4, max: 8, keepAlive: 60s}
workload: {arrivals: {process: poisson, rate: 20}, service: {dist: exponential, mean: 100ms}}
events: [{at: 10m, set: {keepAlive: 61s}}]
`, []string{"runs from 2m6s to", "comes too close to the end of the run"}, []string{"No steady state"}},
		// A core raise at t=0 with a burst queued at that instant (R21).
		{"core at zero", `
duration: 1m
pool: {core: 1, max: 10, keepAlive: 60s}
workload: {arrivals: {process: burst, count: 100}, service: {dist: constant, value: 1s}}
events: [{at: 0s, set: {core: 10}}]
`, []string{"starts min(9, queued) workers at once for the tasks queued at that moment"}, []string{"while nothing is queued;"}},
		// Settings and a shutdown in one event: both are explained, in that order.
		{"set and shutdown", `
duration: 10m
pool: {core: 4, max: 8, keepAlive: 60s}
workload: {arrivals: {process: poisson, rate: 30}, service: {dist: exponential, mean: 100ms}}
events: [{at: 5m, set: {core: 1, max: 2}, shutdown: graceful}]
`, []string{"a lower max (8 → 2)", "; then shutdown() rejects", "too close to the shutdown"}, nil},
		// Jetty's setters stop no thread and setMinThreads starts them at once (R100, R107).
		{"jetty setters", `
duration: 30m
sample: 10s
pool: {preset: jetty, core: 8, max: 200, keepAlive: 60s}
workload:
  phases:
    - {duration: 10s, arrivals: {process: burst, count: 100}, service: {dist: constant, value: 2s}}
    - {arrivals: {process: poisson, rate: 2}, service: {dist: constant, value: 10ms}}
events: [{at: 1m, set: {max: 20}}, {at: 10m, set: {core: 30, max: 40}}]
`, []string{"setMaxThreads (200 → 20) stops no thread", "setMinThreads (8 → 30) starts threads at once"}, []string{"exit at once"}},
		// Jetty's setMaxThreads drags minThreads down to it (R100).
		{"jetty drag", `
duration: 30m
sample: 10s
pool: {preset: jetty, core: 8, max: 200, keepAlive: 60s}
workload: {arrivals: {process: poisson, rate: 2}, service: {dist: constant, value: 10ms}}
events: [{at: 5m, set: {core: 100}}, {at: 10m, set: {max: 50}}]
`, []string{"with core 50, max 50"}, nil},
		// λK equal to max: a FIFO pool still shrinks (P(Poisson(20) ≤ 19) ≈ 0.47).
		{"λK at max", `
duration: 1h
sample: 10s
pool: {core: 0, max: 20, keepAlive: 10s, queue: {type: synchronous, fair: true}}
workload:
  phases:
    - {duration: 10s, arrivals: {process: burst, count: 20}, service: {dist: constant, value: 5s}}
    - {arrivals: {process: poisson, rate: 2}, service: {dist: constant, value: 10ms}}
`, []string{"falls quickly to somewhat below λK"}, []string{"does not shrink it"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := findingsText(explainYAML(t, tc.yaml))
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("lacks %q:\n%s", w, text)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(text, n) {
					t.Errorf("says %q:\n%s", n, text)
				}
			}
		})
	}
}

// TestExplainResourceBottleneck: behind a saturated connection pool the
// explanation names the pool as the bottleneck with its figures (issue 14),
// says that the busy threads are waiting, and offers more connections —
// which clear the queue — and more threads, which only add waiters.
func TestExplainResourceBottleneck(t *testing.T) {
	sc, err := scenarios.Load("../scenarios/examples/tomcat-hikari.yaml", []string{"duration=2m", "warmup=30s", "snapshots=[]"})
	if err != nil {
		t.Fatal(err)
	}
	e, err := Explain(context.Background(), sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var all []string // the findings unwrapped, and the what-ifs' names
	for _, f := range e.Findings {
		all = append(all, f.Title+": "+f.Text)
	}
	for _, w := range e.WhatIfs {
		all = append(all, w.Name)
	}
	text := strings.Join(all, "\n")
	for _, want := range []string{
		"Bottleneck: The HikariCP pool db is the bottleneck: its 10 connections are in use 100% of the time",
		"need λ·h = 12 connections at once, and 10 connections serve at most 250 requests/s",
		"waiting for a connection (TIMED_WAITING in ConcurrentBag.borrow)",
		"db connections 10 → 16", "threads (max) 200 → 400",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("explanation lacks %q:\n%s", want, text)
		}
	}
	for _, w := range e.WhatIfs {
		switch {
		case strings.HasPrefix(w.Name, "db connections") && w.Alt.WaitP99 > 0.01:
			t.Errorf("with more connections the wait p99 is still %v s", w.Alt.WaitP99)
		case strings.HasPrefix(w.Name, "threads (max)") && w.Alt.WaitP99 < 10:
			t.Errorf("with more threads the wait p99 fell to %v s; the connections still bind", w.Alt.WaitP99)
		}
	}
	if strings.Contains(text, "Overload:") || strings.Contains(text, "Mechanism:") {
		t.Errorf("the explanation blames the thread pool's size or its idle workers' turns:\n%s", text)
	}
}
