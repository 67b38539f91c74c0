package sim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/poolsim/poolsim/model"
	"github.com/poolsim/poolsim/scenarios"
)

// runExample runs a bundled scenario with --set overrides and the invariant checks on, and
// returns its result and every task start, by periodic job (0: ordinary traffic).
func runExample(t *testing.T, name string, sets ...string) (*Result, map[int32][]time.Duration) {
	t.Helper()
	sc, err := scenarios.Load("../scenarios/examples/"+name, sets)
	if err != nil {
		t.Fatal(err)
	}
	starts := map[int32][]time.Duration{}
	res, err := Run(context.Background(), sc, Options{CheckInvariants: true, OnTask: func(e TaskEvent) {
		if !e.End {
			starts[e.Job] = append(starts[e.Job], e.T)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary
	if s.Submitted != s.Completed+s.CallerRan+s.Discarded+s.QueuedEnd+s.RunningEnd {
		t.Fatalf("conservation broken: %+v", s)
	}
	return res, starts
}

// TestScheduledBunching: the bundled fixed-rate example bunches exactly as R94 says, and the
// fixed-delay variant shifts instead (R95).
func TestScheduledBunching(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	tests := []struct {
		name  string
		sets  []string
		runs  int64 // cleanup runs in 3 s
		late  int64
		maxMs float64
		// starts of the cleanup runs around the report.
		around []time.Duration
		// the report's lateness, in seconds.
		reportLate float64
	}{
		// Fixed rate: the runs due at 1.1, 1.2, 1.3 and 1.4 s start at 1.37, 1.39, 1.41 and
		// 1.43 s, back to back, 270, 190, 110, 30 ms late; 1.5 s is on time.
		// The report, due at 1 s like a cleanup run scheduled earlier, runs after it: 20 ms
		// late (equal due times go in sequence order, R88).
		{"fixed rate", nil, 31, 4, 0.27, ms(1000, 1370, 1390, 1410, 1430, 1500), 0.02},
		// Fixed delay: runs every 120 ms (20 ms + 100 ms); the one due at 1.08 s waits for the
		// report (1–1.35 s), 270 ms late; each next is due 100 ms after the previous ends.
		{"fixed delay", []string{"workload.periodic[0].mode=fixed-delay"}, 23, 1, 0.27, ms(960, 1350, 1470, 1590), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, starts := runExample(t, "scheduled-bunching.yaml", tt.sets...)
			p := res.Summary.Periodic[0]
			if p.Runs != tt.runs || p.LateRuns != tt.late || p.MaxLateness != tt.maxMs {
				t.Errorf("cleanup: %d runs, %d late, max %gs late; want %d, %d, %gs", p.Runs, p.LateRuns, p.MaxLateness, tt.runs, tt.late, tt.maxMs)
			}
			var window []time.Duration
			for _, s := range starts[1] {
				if s >= tt.around[0] && s <= tt.around[len(tt.around)-1] {
					window = append(window, s)
				}
			}
			if !slices.Equal(window, tt.around) {
				t.Errorf("cleanup runs start at %v, want %v", window, tt.around)
			}
			if r := res.Summary.Periodic[1]; r.Runs != 1 || r.MaxLateness != tt.reportLate {
				t.Errorf("report: %+v, want one run %gs late", r, tt.reportLate)
			}
		})
	}
}

// TestScheduledThrows: the heartbeat's run 4 throws; the series stops (R96), the pool goes on.
func TestScheduledThrows(t *testing.T) {
	res, starts := runExample(t, "scheduled-throws.yaml")
	s := res.Summary
	p := s.Periodic[0]
	if !p.StoppedByException || p.LastRun != 4 || float64(p.StoppedAt) != 3.01 || p.Runs != 4 || s.PeriodicStoppedByException != 1 {
		t.Errorf("heartbeat: %+v, want stopped by an exception in run 4 at 3.01 s", p)
	}
	if want := []time.Duration{0, time.Second, 2 * time.Second, 3 * time.Second}; !slices.Equal(starts[1], want) {
		t.Errorf("heartbeat runs at %v, want %v", starts[1], want)
	}
	if s.ThreadsCreated != 2 || s.ThreadsExited != 0 {
		t.Errorf("threads created %d exited %d: a scheduled task's exception never kills its worker (R96)", s.ThreadsCreated, s.ThreadsExited)
	}
	if last := starts[0][len(starts[0])-1]; last < 9*time.Second {
		t.Errorf("the ordinary traffic stopped at %v", last)
	}
}

// TestScheduledCancel runs the bundled cancel example with both removeOnCancelPolicy values and
// checks, from the scenario's own parameters, what R97 says: with the default policy each
// cancelled task stays queued — and is waited for TIMED_WAITING — until it is due, then is
// skipped (a completed task, no run); with the policy it leaves the queue at once, but the
// thread waiting for a removed head sleeps on until that head's due time.
func TestScheduledCancel(t *testing.T) {
	sc, err := scenarios.Load("../scenarios/examples/scheduled-cancel.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	// The run each job has queued at its cancel, due at dueAt: the first due time after the
	// cancel (the example's runs are short and never running at a cancel).
	dueAt := make([]time.Duration, len(sc.Periodic))
	for i, j := range sc.Periodic {
		if !j.Cancel {
			t.Fatalf("job %s has no cancelAt", j.Name)
		}
		due := j.At + j.InitialDelay
		for j.Mode != scenarios.Once && due <= j.CancelAt {
			due += j.Every
		}
		dueAt[i] = due
	}
	// queued returns the jobs holding a queued task at t (between two runs of a periodic job too).
	queued := func(t time.Duration, until func(i int) time.Duration) int {
		n := 0
		for i, j := range sc.Periodic {
			if j.At <= t && t < until(i) {
				n++
			}
		}
		return n
	}
	for _, remove := range []bool{false, true} {
		t.Run(fmt.Sprintf("removeOnCancelPolicy=%v", remove), func(t *testing.T) {
			res, starts := runExample(t, "scheduled-cancel.yaml", fmt.Sprintf("pool.removeOnCancelPolicy=%v", remove))
			s := res.Summary
			for i, j := range sc.Periodic {
				p := s.Periodic[i]
				if !p.Cancelled || float64(p.CancelledAt) != j.CancelAt.Seconds() || p.CancelledRunning {
					t.Errorf("%s: cancelled %v at %vs (running %v), want at %v in the queue", j.Name, p.Cancelled, p.CancelledAt, p.CancelledRunning, j.CancelAt)
				}
				for _, st := range starts[int32(i+1)] {
					if st > j.CancelAt {
						t.Errorf("%s: a run started at %v, after the cancel at %v", j.Name, st, j.CancelAt)
					}
				}
				switch {
				case !remove && (p.SkippedRuns != 1 || float64(p.SkippedAt) != dueAt[i].Seconds() || p.RemovedAfterCancel):
					t.Errorf("%s: skipped %d at %vs, removed %v; want skipped once when due at %v", j.Name, p.SkippedRuns, p.SkippedAt, p.RemovedAfterCancel, dueAt[i])
				case remove && (p.SkippedRuns != 0 || !p.RemovedAfterCancel || float64(p.RemovedAt) != j.CancelAt.Seconds()):
					t.Errorf("%s: skipped %d, removed %v at %vs; want removed at the cancel", j.Name, p.SkippedRuns, p.RemovedAfterCancel, p.RemovedAt)
				}
			}
			n := int64(len(sc.Periodic))
			if remove && (s.SkippedCancelled != 0 || s.RemovedAfterCancel != n || s.Completed != s.PeriodicRuns) ||
				!remove && (s.SkippedCancelled != n || s.RemovedAfterCancel != 0 || s.Completed != s.PeriodicRuns+n) || s.PeriodicCancelled != n {
				t.Errorf("skipped %d, removed %d, completed %d, runs %d, cancelled %d", s.SkippedCancelled, s.RemovedAfterCancel, s.Completed, s.PeriodicRuns, s.PeriodicCancelled)
			}
		})
	}
	// The timeline: queue length and TIMED_WAITING threads, sampled a quarter second off the
	// whole seconds at which the example's calls, cancels and runs happen.
	for _, remove := range []bool{false, true} {
		sc, err := scenarios.Load("../scenarios/examples/scheduled-cancel.yaml", []string{fmt.Sprintf("pool.removeOnCancelPolicy=%v", remove)})
		if err != nil {
			t.Fatal(err)
		}
		at := map[time.Duration]Sample{}
		if _, err := Run(context.Background(), sc, Options{CheckInvariants: true, OnSample: func(x Sample) { at[x.T] = x }}); err != nil {
			t.Fatal(err)
		}
		until := func(i int) time.Duration { return dueAt[i] } // stays until due (R97)
		if remove {
			until = func(i int) time.Duration { return sc.Periodic[i].CancelAt } // removed at once
		}
		// The longest a thread waits for a cancelled head: until the last such head is due —
		// with removal too, since a removed head's leader sleeps on until its due time.
		var poller time.Duration
		for i, j := range sc.Periodic {
			if j.Mode != scenarios.Once {
				poller = dueAt[i]
			}
		}
		for tt := 250 * time.Millisecond; tt < sc.Duration; tt += time.Second {
			x := at[tt]
			if want := queued(tt, until); x.Queue != want {
				t.Errorf("removeOnCancelPolicy=%v at %v: queue %d, want %d", remove, tt, x.Queue, want)
			}
			wantTimed := 0
			if x.Queue > 0 || remove && tt > sc.Periodic[0].At && tt < poller {
				wantTimed = 1 // a leader waits for the head, cancelled or removed
			}
			if x.IdleTimed != wantTimed || x.Busy != 0 {
				t.Errorf("removeOnCancelPolicy=%v at %v: %d TIMED_WAITING, %d busy; want %d, 0", remove, tt, x.IdleTimed, x.Busy, wantTimed)
			}
		}
	}
}

// TestJettyShrinkVsJDK: after the burst, Jetty loses exactly one thread per idleTimeout
// (R104, R105); a ThreadPoolExecutor with a fair SynchronousQueue keeps ⌈λ(K+S)⌉ − 1 = 120
// (R78), and with a non-fair one falls to core at once (R55) — the comparison of R110.
func TestJettyShrinkVsJDK(t *testing.T) {
	sizeAt := func(sets ...string) (map[time.Duration]int, Summary) {
		sc, err := scenarios.Load("../scenarios/examples/jetty-shrink.yaml", sets)
		if err != nil {
			t.Fatal(err)
		}
		at := map[time.Duration]int{}
		res, err := Run(context.Background(), sc, Options{CheckInvariants: true, OnSample: func(x Sample) { at[x.T] = x.PoolSize }})
		if err != nil {
			t.Fatal(err)
		}
		return at, res.Summary
	}
	jetty, js := sizeAt()
	// Idle from 2 s, lastShrink 0 (the last start): one exit at 62 s, then one every 60 s;
	// the 142nd, to minThreads 8, at 62 + 141·60 = 8522 s.
	for _, c := range []struct {
		at   time.Duration
		want int
	}{{60 * time.Second, 150}, {70 * time.Second, 149}, {10 * time.Minute, 141}, {time.Hour, 91}, {8520 * time.Second, 9}, {8530 * time.Second, 8}, {3 * time.Hour, 8}} {
		if got := jetty[c.at]; got != c.want {
			t.Errorf("jetty at %v: %d threads, want %d (one exit per idleTimeout)", c.at, got, c.want)
		}
	}
	if js.ThreadsExited != 142 || js.LargestPoolSize != 150 {
		t.Errorf("jetty: %d exited, largest %d; want 142 and 150", js.ThreadsExited, js.LargestPoolSize)
	}
	fifo, _ := sizeAt("pool.preset=jdk", "pool.queue.type=synchronous", "pool.queue.fair=true")
	lifo, _ := sizeAt("pool.preset=jdk", "pool.queue.type=synchronous")
	if fifo[time.Hour] != 120 || lifo[70*time.Second] != 8 {
		t.Errorf("JDK: FIFO keeps %d at 1h (want 120, R78), LIFO %d at 70s (want core 8, R55)", fifo[time.Hour], lifo[70*time.Second])
	}
}

// TestPropertyFamilies runs random ScheduledThreadPoolExecutor and Jetty scenarios — ordinary
// traffic, periodic jobs, setters and shutdowns — with the model's invariants checked after
// every event, and the conservation identity at the end.
func TestPropertyFamilies(t *testing.T) {
	randomScenarios(t, 80, 20, 7, randomFamilyScenario, func(c propertyCase) {
		prev := 0
		lastStart := map[int32]time.Duration{} // by job
		res, err := Run(context.Background(), c.sc, Options{CheckInvariants: true, OnTask: func(e TaskEvent) {
			if !e.End && e.Job != 0 {
				lastStart[e.Job] = e.T
			}
		}, Observe: func(now time.Duration, p model.Executor) {
			// A ScheduledThreadPoolExecutor adds a worker only below core, or when it has
			// none (R88, R91); setCorePoolSize may leave more until they time out.
			cfg := p.Config()
			if cfg.Flavor == model.Scheduled && p.PoolSize() > prev && p.PoolSize() > max(cfg.Core, 1) {
				panic(fmt.Sprintf("a ScheduledThreadPoolExecutor with core %d grew to %d workers (R88)", cfg.Core, p.PoolSize()))
			}
			prev = p.PoolSize()
		}})
		if err != nil {
			c.fail("%v", err)
		}
		s := res.Summary
		if s.Submitted != s.Completed+s.CallerRan+s.Discarded+s.QueuedEnd+s.RunningEnd {
			c.fail("conservation broken: %+v", s)
		}
		checkCancelFates(c, s, lastStart)

	})
}

func randomFamilyScenario(rng *rand.Rand) string {
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	ms := func(lo, hi int) string { return fmt.Sprintf("%dms", lo+rng.IntN(hi-lo+1)) }
	y := "duration: 20s\nsample: 100ms\n"
	if rng.IntN(2) == 0 {
		core := rng.IntN(4)
		y += fmt.Sprintf("pool: {preset: scheduled, core: %d, continueExistingPeriodicTasksAfterShutdown: %v, executeExistingDelayedTasksAfterShutdown: %v, removeOnCancelPolicy: %v}\n",
			core, rng.IntN(2) == 0, rng.IntN(2) == 0, rng.IntN(2) == 0)
		y += "workload:\n"
		if rng.IntN(3) > 0 {
			y += fmt.Sprintf("  arrivals: {process: %s, rate: %d}\n  service: {dist: exponential, mean: %s}\n", pick("poisson", "constant"), 1+rng.IntN(20), ms(5, 400))
		}
		y += "  periodic:\n"
		for j := 0; j <= rng.IntN(3); j++ {
			mode := pick("fixed-rate", "fixed-delay", "once")
			at := rng.IntN(3001)
			y += fmt.Sprintf("    - {mode: %s, at: %dms, initialDelay: %s, service: {dist: exponential, mean: %s}", mode, at, ms(0, 500), ms(1, 300))
			if mode != "once" {
				y += fmt.Sprintf(", every: %s, failure: %.2f", ms(10, 500), rng.Float64()*0.05)
			}
			if rng.IntN(3) == 0 { // future.cancel(false), queued or running, before or after a shutdown (R97)
				y += fmt.Sprintf(", cancelAt: %dms", at+rng.IntN(12001))
			}
			y += "}\n"
		}
		y += "events:\n"
		if rng.IntN(2) == 0 {
			k := rng.IntN(201) // keepAlive 0 too: the last worker's spin (model/scheduled.go)
			y += fmt.Sprintf("  - {at: 5s, set: {core: %d, keepAlive: %dms, allowCoreThreadTimeOut: %v}}\n", rng.IntN(4), k, k > 0 && rng.IntN(2) == 0)
		}
		y += fmt.Sprintf("  - {at: %s, shutdown: %s}\n", ms(8000, 15000), pick("graceful", "now"))
		return y
	}
	core := rng.IntN(4)
	y += fmt.Sprintf("pool: {preset: jetty, core: %d, max: %d, keepAlive: %s}\n", core, core+1+rng.IntN(8), ms(0, 2000))
	y += fmt.Sprintf("workload:\n  phases:\n    - {duration: 3s, arrivals: {process: poisson, rate: %d}, service: {dist: lognormal, mean: %s, cv: 1.5}}\n",
		5+rng.IntN(40), ms(50, 800))
	y += fmt.Sprintf("    - {arrivals: {process: %s, rate: %d}, service: {dist: exponential, mean: %s}}\n", pick("poisson", "constant"), 1+rng.IntN(5), ms(1, 100))
	y += fmt.Sprintf("  failure: %.2f\n", rng.Float64()*0.1)
	y += fmt.Sprintf("events:\n  - {at: 8s, set: {core: %d, max: %d, keepAlive: %s}}\n", rng.IntN(5), 1+rng.IntN(8), ms(1, 1500))
	return y
}

// TestCancelledThenDrained: a cancelled one-shot still queued when
// shutdownNow drains the queue is reported as returned by shutdownNow
// (R97, R28), not as still queued at the end.
func TestCancelledThenDrained(t *testing.T) {
	sc := parse(t, `
duration: 20s
sample: 250ms
pool: {preset: scheduled, core: 1}
workload:
  periodic:
    - {name: t1, mode: once, at: 1s, initialDelay: 15s, service: {dist: constant, value: 5ms}, cancelAt: 2s}
    - {name: p, mode: fixed-rate, every: 1s, initialDelay: 1s, service: {dist: constant, value: 5ms}}
events: [{at: 5s, shutdown: now}]
`)
	res, err := Run(context.Background(), sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(res.Findings, "\n")
	if !strings.Contains(all, `"t1" (cancelled at 2s, then returned, unrun, by shutdownNow)`) || strings.Contains(all, "still queued at the end") {
		t.Errorf("findings:\n%s", all)
	}
	if p := res.Summary.Periodic[0]; !p.Cancelled || !p.Drained || p.SkippedRuns != 0 || p.RemovedAfterCancel || res.Summary.QueuedEnd != 0 {
		t.Errorf("t1: %+v, queued at the end %d", p, res.Summary.QueuedEnd)
	}
}

// TestPropertyScheduledGrid runs random ScheduledThreadPoolExecutor
// scenarios whose times all fall on a 100 ms grid, with constant service
// times, so runs end exactly when other runs come due, cancels coincide with
// due times, and shutdowns with both: the ties that continuous random times
// never produce. After every event the model's invariants hold; at the end,
// conservation, no run started after its job's cancel, and at most one fate
// for a cancelled run (R97, R98, R28).
func TestPropertyScheduledGrid(t *testing.T) {
	randomScenarios(t, 300, 60, 11, func(rng *rand.Rand) string {
		grid := func(lo, hi int) string { return fmt.Sprintf("%dms", 100*(lo+rng.IntN(hi-lo+1))) }
		y := "duration: 5s\nsample: 100ms\n"
		y += fmt.Sprintf("pool: {preset: scheduled, core: %d, removeOnCancelPolicy: %v, continueExistingPeriodicTasksAfterShutdown: %v, executeExistingDelayedTasksAfterShutdown: %v}\n",
			rng.IntN(3), rng.IntN(2) == 0, rng.IntN(2) == 0, rng.IntN(2) == 0)
		y += "workload:\n  periodic:\n"
		for j := 0; j <= rng.IntN(4); j++ {
			mode := []string{"fixed-rate", "fixed-delay", "once"}[rng.IntN(3)]
			at := rng.IntN(10)
			y += fmt.Sprintf("    - {name: j%d, mode: %s, at: %dms, initialDelay: %s, service: {dist: constant, value: %s}", j, mode, 100*at, grid(0, 5), grid(0, 4))
			if mode != "once" {
				y += ", every: " + grid(1, 5)
			}
			if rng.IntN(4) > 0 {
				y += fmt.Sprintf(", cancelAt: %dms", 100*(at+rng.IntN(30)))
			}
			y += "}\n"
		}
		if rng.IntN(2) == 0 {
			y += fmt.Sprintf("events: [{at: %s, shutdown: %s}]\n", grid(0, 40), []string{"graceful", "now"}[rng.IntN(2)])
		}
		return y
	}, func(c propertyCase) {
		started := map[int32]time.Duration{}
		res, err := Run(context.Background(), c.sc, Options{CheckInvariants: true, OnTask: func(e TaskEvent) {
			if !e.End && e.Job != 0 {
				started[e.Job] = e.T
			}
		}})
		if err != nil {
			c.fail("%v", err)
		}
		s := res.Summary
		if s.Submitted != s.Completed+s.CallerRan+s.Discarded+s.QueuedEnd+s.RunningEnd {
			c.fail("conservation broken: %+v", s)
		}
		checkCancelFates(c, s, started)
	})
}

// checkCancelFates: a cancelled job never starts a run after its cancel,
// and its cancelled run has one fate at most — skipped when due, removed
// unrun, or returned by shutdownNow — none if it was running (R97, R98,
// R28); a job nobody cancelled has none of them.
func checkCancelFates(c propertyCase, s Summary, lastStart map[int32]time.Duration) {
	for i, p := range s.Periodic {
		fates := p.SkippedRuns
		if p.RemovedAfterCancel {
			fates++
		}
		if p.Cancelled && p.Drained && !p.CancelledRunning {
			fates++
		}
		switch {
		case !p.Cancelled && (p.SkippedRuns > 0 || p.RemovedAfterCancel):
			c.fail("job %s: skipped or removed without a cancel: %+v", p.Name, p)
		case p.Cancelled && (fates > 1 || p.CancelledRunning && fates > 0):
			c.fail("job %s: its cancelled run skipped %d times, removed %v, drained %v, running %v", p.Name, p.SkippedRuns, p.RemovedAfterCancel, p.Drained, p.CancelledRunning)
		case p.Cancelled && lastStart[int32(i+1)] > c.sc.Periodic[i].CancelAt:
			c.fail("job %s: a run started at %v, after the cancel at %v", p.Name, lastStart[int32(i+1)], c.sc.Periodic[i].CancelAt)
		}
	}
}
