package sim

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/poolsim/poolsim/model"
)

// TestDefaultLimits: a scenario without limits gets the defaults, and
// "unbounded" lifts them (README, limits).
func TestDefaultLimits(t *testing.T) {
	const base = "pool: {preset: cached}\nduration: 1s\nworkload: {arrivals: {process: poisson, rate: 1}, service: {dist: constant, value: 1ms}}\n"
	tests := []struct {
		limits string
		want   Limits
	}{
		// Nothing set: both defaults.
		{"", Limits{MaxThreads: DefaultMaxThreads, MaxQueued: DefaultMaxQueued, ThreadsDefault: true, QueuedDefault: true}},
		// One set, the other defaulted.
		{"limits: {maxThreads: 500}\n", Limits{MaxThreads: 500, MaxQueued: DefaultMaxQueued, QueuedDefault: true}},
		// "unbounded" is Integer.MAX_VALUE: no limit in practice.
		{"limits: {maxThreads: unbounded, maxQueued: unbounded}\n", Limits{MaxThreads: model.Unbounded, MaxQueued: model.Unbounded}},
	}
	for _, tt := range tests {
		if got := EffectiveLimits(parse(t, base+tt.limits)); got != tt.want {
			t.Errorf("%q: got %+v, want %+v", tt.limits, got, tt.want)
		}
	}
}

// TestThreadExplosionEstimate: a cached pool under overload hits
// limits.maxThreads (the OS refusing threads, R11); the run goes on in
// bounded memory and estimates the pool the JDK would have grown. A cached
// pool runs every task at once on a thread (R83), so without the limit its
// size at any instant is at least the tasks then running; the estimate
// counts each refused task as running for its service time. It is checked
// against the same run without the limit.
func TestThreadExplosionEstimate(t *testing.T) {
	// 20 000 tasks/s of 10 s each: about 200 000 run at once from t=10s,
	// twice the limit of 100 000 set here.
	const y = "pool: {preset: cached}\nduration: 30s\nsample: 1s\nlimits: {maxThreads: 100000}\n" +
		"workload: {arrivals: {process: poisson, rate: 20000}, service: {dist: constant, value: 10s}}\n"
	capped := runAll(t, parse(t, y), false).res
	free := runAll(t, parse(t, y, "limits.maxThreads=unbounded"), false).res

	s := capped.Summary
	if !s.Capped || s.LargestPoolSize != 100000 || s.ThreadStartFailures == 0 || !s.Complete {
		t.Fatalf("capped run: capped %v, largest %d, refused %d, complete %v", s.Capped, s.LargestPoolSize, s.ThreadStartFailures, s.Complete)
	}
	truth := float64(free.Summary.LargestPoolSize)
	est := float64(s.EstPeakThreads)
	// The estimate errs low only: it is taken at refusals, and a task counts
	// as ended from the start of its end's bucket (30s/2^18 = 114 µs, about
	// 2 tasks here). Between refusals the uncapped pool can grow by the
	// arrivals the capped pool admitted on freed workers: a few hundred at
	// 20 000/s. 0.5% of 200 000 bounds both.
	t.Logf("estimated peak %v threads at t=%vs; the uncapped run reached %v", est, float64(s.EstPeakThreadsAt), truth)
	if est > truth || est < truth*0.995 {
		t.Errorf("estimated peak %v threads, the uncapped run reached %v", est, truth)
	}
	if at := float64(s.EstPeakThreadsAt); at < 10 || at > 30 {
		t.Errorf("estimated peak at t=%vs, want after the first tasks end (10s)", at)
	}
	f := strings.Join(capped.Findings, "\n")
	for _, want := range []string{"the pool would reach about 2", "limits.maxThreads = 100000",
		"OutOfMemoryError: unable to create native thread", "estimate"} {
		if !strings.Contains(f, want) {
			t.Errorf("findings lack %q:\n%s", want, f)
		}
	}
	if free.Summary.Capped || len(free.Findings) != 0 {
		t.Errorf("uncapped run: capped %v, findings %q", free.Summary.Capped, free.Findings)
	}
}

// TestThreadEstimateShortTasks: with tasks much shorter than the run, most
// refused tasks end within a bucket or two of their refusal; those whose
// bucket had already begun used to be counted as running forever, so the
// estimate crept up with every refusal. 20 000 tasks/s of 10 ms on average
// keep about 200 running; the cap is 100.
func TestThreadEstimateShortTasks(t *testing.T) {
	const y = "pool: {preset: cached}\nduration: 20s\nsample: 1s\nlimits: {maxThreads: 100}\n" +
		"workload: {arrivals: {process: poisson, rate: 20000}, service: {dist: exponential, mean: 10ms}}\n"
	capped := runAll(t, parse(t, y), false).res.Summary
	free := runAll(t, parse(t, y, "limits.maxThreads=unbounded"), false).res.Summary
	est, truth := float64(capped.EstPeakThreads), float64(free.LargestPoolSize)
	t.Logf("estimated peak %v threads; the uncapped run reached %v", est, truth)
	// The estimate errs low (see TestThreadExplosionEstimate). Here the
	// peak is a fluctuation of a Poisson count of mean 200 (sd 14): the
	// instant it happens need not be a refusal in the capped run, so the
	// estimate may miss it by a few standard deviations: 15% of 270.
	if est > truth || est < truth*0.85 {
		t.Errorf("estimated peak %v threads, the uncapped run reached %v", est, truth)
	}
}

// TestQueueExplosionEstimate: an unbounded queue under overload stops the
// run at limits.maxQueued, with its growth rate and an estimate of what it
// would hold at the end. Constant arrivals (1000/s) and service (10 ms on
// one thread: 100/s) make the growth exactly 900 tasks/s.
func TestQueueExplosionEstimate(t *testing.T) {
	const y = "pool: {preset: fixed, core: 1}\nduration: 1h\nsample: 1s\nlimits: {maxQueued: 10000}\n" +
		"workload: {arrivals: {process: constant, rate: 1000}, service: {dist: constant, value: 10ms}}\n"
	o := runAll(t, parse(t, y), true)
	s := o.res.Summary
	if !s.Capped || s.Complete || s.Interrupted || s.QueuedEnd != 10000 || !strings.Contains(s.StopReason, "limits.maxQueued") {
		t.Fatalf("capped %v complete %v interrupted %v queued %d stop %q", s.Capped, s.Complete, s.Interrupted, s.QueuedEnd, s.StopReason)
	}
	// The queue reaches 10 000 after 10000/900 = 11.1 s; one task of slack
	// in 5 000 for where in a service the half-way mark falls.
	if g := float64(s.QueueGrowthPerS); math.Abs(g-900) > 900.0/5000 {
		t.Errorf("growth %v tasks/s, want 900", g)
	}
	stop := s.SimTime
	want := 10000 + 900*(3600-stop)
	// The measured growth carries the same one-task slack, extrapolated over
	// the remaining hour: 900/5000 tasks/s × 3589 s = 646 tasks.
	if e := float64(s.EstQueueEnd); math.Abs(e-want) > 900.0/5000*(3600-stop) {
		t.Errorf("estimated queue at the end %v, want %v", e, want)
	}
	f := strings.Join(o.res.Findings, "\n")
	for _, w := range []string{"the queue grows by ~900 tasks/s", "it would hold about 3.24 million tasks at the end (t=1h0m0s; estimate", "limits.maxQueued = 10000"} {
		if !strings.Contains(f, w) {
			t.Errorf("findings lack %q:\n%s", w, f)
		}
	}
	// The timeline stops where the run stopped: a header, then samples at
	// 0, 1, … 11 s.
	if n := strings.Count(o.timeline, "\n"); n != 2+int(stop) {
		t.Errorf("timeline has %d lines for a run stopped at %vs", n, stop)
	}
}

// TestPrestartRefused: Tomcat prestarts its core threads (R65); a core
// above limits.maxThreads is cut there, and said so.
func TestPrestartRefused(t *testing.T) {
	sc := parse(t, "pool: {preset: tomcat, core: 5000, max: 5000}\nduration: 1s\nlimits: {maxThreads: 300}\n"+
		"workload: {arrivals: {process: constant, rate: 0}, service: {dist: constant, value: 1ms}}\n")
	o := runAll(t, sc, true)
	if s := o.res.Summary; !s.Capped || s.FinalPoolSize != 300 {
		t.Fatalf("capped %v, pool %d", s.Capped, s.FinalPoolSize)
	}
	if f := strings.Join(o.res.Findings, "\n"); !strings.Contains(f, "prestartAllCoreThreads() started 300 of the 5000 core threads: the OS refused the other 4700 (limits.maxThreads = 300)") {
		t.Errorf("findings: %s", f)
	}
}

// TestInterruptedMarked: a cancelled run says so in summary.json.
func TestInterruptedMarked(t *testing.T) {
	sc := parse(t, "pool: {preset: fixed, core: 4}\nduration: 1000h\nworkload: {arrivals: {process: poisson, rate: 100}, service: {dist: exponential, mean: 10ms}}\n")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Run(ctx, sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary
	if s.Complete || !s.Interrupted || s.Capped || s.StopReason != "interrupted" || s.SimTime >= (1000*time.Hour).Seconds() {
		t.Errorf("complete %v interrupted %v capped %v stop %q at %vs", s.Complete, s.Interrupted, s.Capped, s.StopReason, s.SimTime)
	}
}
