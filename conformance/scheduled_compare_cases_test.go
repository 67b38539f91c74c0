package conformance

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// Differential tests of the simulator's ScheduledThreadPoolExecutor against the real one
// (Java 17, and Temurin 25 when installed), on scripts with schedule directives.
//
// They compare what compare (compare_test.go) compares — samples inside the real envelope at
// quiet sample times, task outcomes, threads created and alive, drains, and every real time in
// [simulated − clockSlackMs, simulated + maxLatenessMs] — and, per schedule directive, the state
// of its future just before the end, whether shutdownNow returned it, how many runs started, and
// each run's start and end time.
//
// One thing they do not compare when a pool has more than one thread: WHICH worker runs a
// task or a periodic run. When a run ends, reExecutePeriodic queues the next one and signals
// the longest-waiting worker, while the worker that ran it goes straight back to take(): the
// two race for the lock, and both win on this machine (measured: of the runs 2–8 of a
// fixed-rate task on a 2-thread pool, four went to the finishing worker, three to the
// signalled one). The simulator, with zero wake-up latency, always lets the signalled worker
// go first (model/scheduled.go). Counts — pool size, busy, leader (TIMED_WAITING) and followers
// (WAITING), queue — do not depend on the winner, and are compared. With core 1 there is no
// race, and worker ids are compared too.

// scheduledCase is one script compared between the simulator and the real STPE.
type scheduledCase struct {
	name   string
	script Script
	expect func(t *testing.T, m *Simulation)
}

// fixedRate is a scheduleAtFixedRate directive.
func fixedRate(id int, atMs, delayMs, periodMs int64, serviceMs ...int64) Schedule {
	return Schedule{AtMs: atMs, ID: id, Mode: ScheduleFixedRate, DelayMs: delayMs, PeriodMs: periodMs, ServiceMs: serviceMs}
}

// fixedDelay is a scheduleWithFixedDelay directive.
func fixedDelay(id int, atMs, delayMs, periodMs int64, serviceMs ...int64) Schedule {
	return Schedule{AtMs: atMs, ID: id, Mode: ScheduleFixedDelay, DelayMs: delayMs, PeriodMs: periodMs, ServiceMs: serviceMs}
}

// once is a schedule(task, delay) directive.
func once(id int, atMs, delayMs, serviceMs int64) Schedule {
	return Schedule{AtMs: atMs, ID: id, Mode: ScheduleOnce, DelayMs: delayMs, ServiceMs: []int64{serviceMs}}
}

// wantCompleted checks the simulated completed count (getCompletedTaskCount) at tMs.
func wantCompleted(t *testing.T, m *Simulation, tMs int64, want int64, why string) {
	t.Helper()
	if x := simSampleAt(t, m, tMs); x.Completed != want {
		t.Errorf("at %d ms: completed %d, want %d: %s", tMs, x.Completed, want, why)
	}
}

// runStarts returns the simulated start times of a schedule's runs.
func runStarts(m *Simulation, id int) []float64 {
	var out []float64
	for _, r := range m.Result.RunsOf(id) {
		out = append(out, r.StartMs)
	}
	return out
}

// wantRunStarts checks the simulated start times of a schedule's runs.
func wantRunStarts(t *testing.T, m *Simulation, id int, want []float64, why string) {
	t.Helper()
	if got := runStarts(m, id); !slices.Equal(got, want) {
		t.Errorf("schedule %d: runs start at %v ms, want %v: %s", id, got, want, why)
	}
}

// wantCounts checks the simulated sample at tMs: pool size, busy, idle timed (TIMED_WAITING:
// the leader, R61) and untimed (WAITING), queue length.
func wantCounts(t *testing.T, m *Simulation, tMs int64, pool, busy, timed, untimed, queue int, why string) {
	t.Helper()
	x := simSampleAt(t, m, tMs)
	if x.PoolSize != pool || x.Busy != busy || x.IdleTimed != timed || x.IdleUntimed != untimed || x.QueueLen != queue {
		t.Errorf("at %d ms: pool %d busy %d timed %d untimed %d queue %d, want %d %d %d %d %d: %s",
			tMs, x.PoolSize, x.Busy, x.IdleTimed, x.IdleUntimed, x.QueueLen, pool, busy, timed, untimed, queue, why)
	}
}

func scheduledCases() []scheduledCase {
	return []scheduledCase{
		{
			// scheduleAtFixedRate(period 200 ms) on one thread; run 1 takes 700 ms, the others
			// 20 ms. A run is queued again when it ends, due a period after the previous DUE
			// time (R94): runs 2–4 (due 200, 400, 600 ms) are late and run back to back from
			// 700 ms; run 5 (due 800) is on time again. Between runs the worker is the leader,
			// TIMED_WAITING until the next run is due (R61, R93).
			name: "fixed rate: missed runs bunch up after a late run, never overlapping (R94 R61)",
			script: Script{
				Pool:      Pool{Kind: KindScheduled, Core: 1},
				Schedules: []Schedule{fixedRate(1, 0, 0, 200, 700, 20)},
				EndMs:     1520,
			},
			expect: func(t *testing.T, m *Simulation) {
				wantRunStarts(t, m, 1, []float64{0, 700, 720, 740, 800, 1000, 1200, 1400}, "R94: previous due + period; late runs back to back")
				wantCounts(t, m, 910, 1, 0, 1, 0, 1, "the worker is the leader until 1000 ms")
			},
		},
		{
			// The same task with scheduleWithFixedDelay(delay 200 ms): each run is due 200 ms
			// after the previous one ENDED (R95), so the long run shifts the schedule and no
			// run is late.
			name: "fixed delay: the next run is due a delay after the previous one ended (R95)",
			script: Script{
				Pool:      Pool{Kind: KindScheduled, Core: 1},
				Schedules: []Schedule{fixedDelay(1, 0, 0, 200, 700, 20)},
				EndMs:     1500,
			},
			expect: func(t *testing.T, m *Simulation) {
				wantRunStarts(t, m, 1, []float64{0, 900, 1120, 1340}, "R95: end + delay")
			},
		},
		{
			// Run 3 of a fixed-rate task throws: its future keeps the exception and no run is
			// scheduled again (R96). The worker survives — the future caught the exception,
			// not the worker (contrast R14) — and runs the task submitted at 820 ms. A task
			// that throws through execute() (= schedule(task, 0), R89) does not kill it either.
			name: "a periodic run that throws stops the series; the worker survives (R96 R8 R89)",
			script: Script{
				Pool:      Pool{Kind: KindScheduled, Core: 1},
				Submits:   []Submit{task(2, 820, 100), failing(3, 1020, 100), task(4, 1220, 100)},
				Schedules: []Schedule{{AtMs: 0, ID: 1, Mode: ScheduleFixedRate, DelayMs: 120, PeriodMs: 200, ServiceMs: []int64{20}, FailRun: 3}},
				EndMs:     1420,
			},
			expect: func(t *testing.T, m *Simulation) {
				wantRunStarts(t, m, 1, []float64{120, 320, 520}, "R96: no run after the one that threw")
				wantWorkers(t, m, []int{2, 3, 4}, []int{1, 1, 1}, "the worker survives exceptions in scheduled tasks")
				if sc, _ := m.Result.ScheduledTask(1); sc.State != ScheduleFailed {
					t.Errorf("schedule 1 is %s, want failed", sc.State)
				}
			},
		},
		{
			// Every schedule call — execute too — runs ensurePrestart: a NEW worker while fewer
			// than core exist, even with an idle one (R91), and never more than core, whatever
			// the backlog (R88). Task 2 finds worker 1 idle and yet starts worker 2; tasks 3–5
			// find two busy workers and queue.
			name: "ensurePrestart: one new worker per call below core, none beyond (R91 R88 R7)",
			script: Script{
				Pool: Pool{Kind: KindScheduled, Core: 2},
				Submits: []Submit{task(1, 20, 100), task(2, 220, 100),
					task(3, 420, 300), task(4, 520, 400), task(5, 620, 300)},
				EndMs: 1220,
			},
			expect: func(t *testing.T, m *Simulation) {
				wantCounts(t, m, 170, 1, 0, 0, 1, 0, "one worker, idle in take() with an empty queue")
				wantCounts(t, m, 370, 2, 0, 0, 2, 0, "task 2 started worker 2 though worker 1 was idle (R91)")
				wantCounts(t, m, 670, 2, 2, 0, 0, 1, "two workers, task 5 queued: the pool never exceeds core (R88)")
			},
		},
		{
			// Leader–follower (R93, R61): with tasks queued but not due, one idle worker waits
			// timed until the head is due, the other untimed. A task that becomes the new head
			// clears the leader and signals the longest-waiting worker, which becomes the leader;
			// the old leader stays in its awaitNanos until its own deadline, so at 600 ms both
			// workers are TIMED_WAITING (730 ms). When the leader takes its task, leaving take
			// with tasks queued and no leader, it signals the other, which becomes the leader.
			name: "leader and followers: one TIMED_WAITING leader, two after a new head (R93 R61)",
			script: Script{
				Pool:      Pool{Kind: KindScheduled, Core: 2},
				Submits:   []Submit{task(1, 20, 100), task(2, 220, 100)},
				Schedules: []Schedule{once(3, 420, 700, 100), once(4, 620, 200, 100)},
				EndMs:     1420,
			},
			expect: func(t *testing.T, m *Simulation) {
				wantCounts(t, m, 530, 2, 0, 1, 1, 1, "a leader waits for task 3, a follower in take()")
				wantCounts(t, m, 730, 2, 0, 2, 0, 2, "task 4 is the new head: a new leader, the old one still in awaitNanos")
				wantCounts(t, m, 870, 2, 1, 1, 0, 1, "task 4 runs; the other worker, signalled, leads for task 3")
				wantCounts(t, m, 1030, 2, 0, 1, 1, 1, "a leader and a follower again")
				wantCounts(t, m, 1170, 2, 1, 0, 1, 0, "task 3 runs")
			},
		},
		{
			// shutdown() with the default policies (R98): the queued periodic task is cancelled
			// and removed; the delayed one-shot task still runs at 1020 ms, and the pool
			// terminates after it: its worker exits when it finds the queue empty. A schedule
			// call after shutdown is rejected (R90). Meanwhile the worker waits timed for a head
			// that is gone (its awaitNanos ends at 620 ms, when the cancelled run was due).
			name: "shutdown: periodic tasks cancelled, delayed ones still run, then termination (R98 R90 R27)",
			script: Script{
				Pool:      Pool{Kind: KindScheduled, Core: 1},
				Schedules: []Schedule{fixedRate(1, 20, 0, 300, 20), once(2, 140, 880, 100), once(3, 720, 0, 20)},
				Shutdowns: []Shutdown{{AtMs: 470}},
				EndMs:     1320,
			},
			expect: func(t *testing.T, m *Simulation) {
				wantRunStarts(t, m, 1, []float64{20, 320}, "no periodic run after shutdown")
				wantCounts(t, m, 550, 1, 0, 1, 0, 1, "idle, timed, one delayed task queued")
				wantRunStarts(t, m, 2, []float64{1020}, "the delayed task runs after shutdown")
				if sc, _ := m.Result.ScheduledTask(1); sc.State != ScheduleCancelled {
					t.Errorf("schedule 1 is %s, want cancelled", sc.State)
				}
				if sc, _ := m.Result.ScheduledTask(3); sc.State != ScheduleRejected {
					t.Errorf("schedule 3 is %s, want rejected", sc.State)
				}
				wantSurvivors(t, m, nil, "the pool terminated after the delayed task")
			},
		},
		{
			// The policies the other way round (R98): continueExistingPeriodicTasksAfterShutdown
			// keeps the periodic task running after shutdown; executeExistingDelayedTasksAfterShutdown
			// false cancels the delayed task not yet due. Then shutdownNow (at 1070 ms) returns
			// the queued periodic run, and no run follows (R28); the pool terminates.
			name: "shutdown policies reversed, then shutdownNow drains the periodic run (R98 R28)",
			script: Script{
				Pool:      Pool{Kind: KindScheduled, Core: 1, ContinuePeriodic: true, DropDelayed: true},
				Schedules: []Schedule{fixedRate(1, 20, 0, 300, 20), once(2, 140, 880, 100)},
				Shutdowns: []Shutdown{{AtMs: 470}, {AtMs: 1070, Now: true}},
				EndMs:     1320,
			},
			expect: func(t *testing.T, m *Simulation) {
				wantRunStarts(t, m, 1, []float64{20, 320, 620, 920}, "runs continue after shutdown")
				wantSurvivors(t, m, nil, "shutdownNow: the idle worker exits, the pool terminates")
				if sc, _ := m.Result.ScheduledTask(2); sc.State != ScheduleCancelled {
					t.Errorf("schedule 2 is %s, want cancelled", sc.State)
				}
				if sc, _ := m.Result.ScheduledTask(1); !sc.Drained {
					t.Errorf("schedule 1 not drained by shutdownNow")
				}
			},
		},
		{
			// future.cancel(false) with the default removeOnCancelPolicy false (R97): at 540 ms
			// run 3 of the fixed-rate task, due at 720 ms, is cancelled in the queue. It stays
			// there — the queue still holds 2 — and the worker, the leader, waits TIMED_WAITING
			// for it as if it would run. At 720 ms the worker takes it and its run returns at once
			// (FutureTask.run finds it CANCELLED): completedTaskCount rises by one, no run starts,
			// none is queued again, and the worker leads for task 2, which runs at 1020 ms.
			name: "cancel: the cancelled run stays queued and is waited for until due, then skipped (R97 R61)",
			script: Script{
				Pool:      Pool{Kind: KindScheduled, Core: 1},
				Schedules: []Schedule{fixedRate(1, 20, 100, 300, 20), once(2, 260, 760, 50)},
				Cancels:   []Cancel{{AtMs: 540, ID: 1}},
				EndMs:     1220,
			},
			expect: func(t *testing.T, m *Simulation) {
				wantRunStarts(t, m, 1, []float64{120, 420}, "R97: no run after the cancel")
				wantCounts(t, m, 630, 1, 0, 1, 0, 2, "the cancelled run is still queued, and the leader waits for it")
				wantCompleted(t, m, 630, 2, "two runs so far")
				wantCounts(t, m, 870, 1, 0, 1, 0, 1, "skipped at 720 ms; the worker leads for task 2")
				wantCompleted(t, m, 870, 3, "the skipped run counts as a completed task")
				wantRunStarts(t, m, 2, []float64{1020}, "task 2 runs on time")
				if sc, _ := m.Result.ScheduledTask(1); sc.State != ScheduleCancelled || sc.Runs != 2 {
					t.Errorf("schedule 1 is %s with %d runs, want cancelled with 2", sc.State, sc.Runs)
				}
			},
		},
		{
			// setRemoveOnCancelPolicy(true) (R97): the cancel at 640 ms removes run 3 (due at
			// 920 ms) from the queue at once — ThreadPoolExecutor.remove — so the queue is empty;
			// but DelayedWorkQueue.remove wakes nobody, and the worker stays in its awaitNanos,
			// TIMED_WAITING on an empty queue, until 920 ms; then it loops in take() and waits
			// WAITING. Nothing was skipped: completedTaskCount stays at 2.
			name: "removeOnCancelPolicy: removed at once, the leader still TIMED_WAITING until it was due (R97)",
			script: Script{
				Pool:      Pool{Kind: KindScheduled, Core: 1, RemoveOnCancel: true},
				Schedules: []Schedule{fixedRate(1, 20, 100, 400, 20)},
				Cancels:   []Cancel{{AtMs: 640, ID: 1}},
				EndMs:     1120,
			},
			expect: func(t *testing.T, m *Simulation) {
				wantRunStarts(t, m, 1, []float64{120, 520}, "R97: no run after the cancel")
				wantCounts(t, m, 590, 1, 0, 1, 0, 1, "before the cancel: run 3 queued, the leader waiting for it")
				wantCounts(t, m, 770, 1, 0, 1, 0, 0, "removed at once, yet the worker is still TIMED_WAITING")
				wantCounts(t, m, 1030, 1, 0, 0, 1, 0, "after 920 ms: WAITING in take() on the empty queue")
				wantCompleted(t, m, 1030, 2, "nothing was skipped")
				if sc, _ := m.Result.ScheduledTask(1); sc.State != ScheduleCancelled || sc.Drained {
					t.Errorf("schedule 1: %+v, want cancelled and not drained", sc)
				}
			},
		},
		{
			// A cancel during a run (R97): at 170 ms the first run of a fixed-delay task (20–320
			// ms) is cancelled; it runs to its end (cancel(false) does not interrupt), and
			// runAndReset then returns false: no run is queued. A one-shot task cancelled in the
			// queue at 520 ms (due at 1020 ms) stays queued; shutdown at 720 ms sweeps it out,
			// though executeExistingDelayedTasksAfterShutdown is true, because onShutdown also
			// removes cancelled tasks (R98) — and with the queue empty the pool terminates then,
			// not at 1020 ms (contrast the shutdown case above).
			name: "cancel during a run stops the series; shutdown sweeps a cancelled delayed task out (R97 R98)",
			script: Script{
				Pool:      Pool{Kind: KindScheduled, Core: 1},
				Schedules: []Schedule{fixedDelay(1, 20, 0, 200, 300), once(2, 420, 600, 50)},
				Cancels:   []Cancel{{AtMs: 170, ID: 1}, {AtMs: 520, ID: 2}},
				Shutdowns: []Shutdown{{AtMs: 720}},
				EndMs:     920,
			},
			expect: func(t *testing.T, m *Simulation) {
				wantRunStarts(t, m, 1, []float64{20}, "the run in progress finishes; none follows")
				wantCounts(t, m, 390, 1, 0, 0, 1, 0, "after the cancelled run: nothing queued, WAITING")
				wantCounts(t, m, 630, 1, 0, 1, 0, 1, "the cancelled one-shot task stays queued; the leader waits for it")
				wantSurvivors(t, m, nil, "shutdown removed the cancelled task and the pool terminated")
				wantRunStarts(t, m, 2, nil, "the cancelled one-shot task never runs")
				for _, id := range []int{1, 2} {
					if sc, _ := m.Result.ScheduledTask(id); sc.State != ScheduleCancelled {
						t.Errorf("schedule %d is %s, want cancelled", id, sc.State)
					}
				}
			},
		},
		{
			// core 0: ensurePrestart starts one worker anyway (wc == 0, R19). It polls with
			// keepAlive 10 ms (wc > core); the last-worker guard keeps it while a task is queued,
			// not yet due, so it wakes every 10 ms (R92) — TIMED_WAITING throughout; once the
			// queue is empty, it dies 10 ms after its task.
			name: "core 0: one worker polling every 10 ms until the task is due, then gone (R92 R16)",
			script: Script{
				Pool:      Pool{Kind: KindScheduled, Core: 0},
				Schedules: []Schedule{once(1, 20, 500, 100)},
				EndMs:     920,
			},
			expect: func(t *testing.T, m *Simulation) {
				wantCounts(t, m, 270, 1, 0, 1, 0, 1, "one worker in poll(10 ms)")
				wantSurvivors(t, m, nil, "it exits 10 ms after its task")
			},
		},
	}
}

// checkScheduledSpacing checks that a scheduled script's decisive instants, as simulated, are
// far enough apart that the real pool cannot take them in another order: submissions,
// schedule calls, cancels, shutdowns, the end, every start and end of a task or a scheduled
// run, and every cancelled run a worker skips when due (R97),
// pairwise spacingMs apart — except where one causes the other: a run's start and end, a
// run's end and the next run of the same schedule (queued by that end, R94, R95), a schedule
// call and its first run when it is due at once, a submission and its task's start.
func checkScheduledSpacing(t *testing.T, s Script, m *Simulation) {
	t.Helper()
	type point struct {
		ms    float64
		what  string
		owner string // the task or schedule it belongs to; "" for directives and the end
		run   int    // the run (from 1) of a schedule; 0 for the rest
		start bool
	}
	var pts []point
	for _, r := range m.Result.Runs {
		owner := fmt.Sprintf("schedule %d", r.ID)
		pts = append(pts, point{r.StartMs, fmt.Sprintf("%s run %d start", owner, r.N), owner, r.N, true})
		if !math.IsNaN(r.EndMs) {
			pts = append(pts, point{r.EndMs, fmt.Sprintf("%s run %d end", owner, r.N), owner, r.N, false})
		}
	}
	for _, u := range s.Schedules {
		owner := fmt.Sprintf("schedule %d", u.ID)
		pts = append(pts, point{float64(u.AtMs), owner + " call", owner, 0, false})
	}
	for _, tk := range m.Result.Tasks {
		owner := fmt.Sprintf("task %d", tk.ID)
		for i, x := range []float64{tk.SubmitMs, tk.StartMs, tk.EndMs} {
			if !math.IsNaN(x) {
				pts = append(pts, point{x, fmt.Sprintf("%s %s", owner, []string{"submit", "start", "end"}[i]), owner, i, false})
			}
		}
	}
	for _, e := range s.Shutdowns {
		pts = append(pts, point{float64(e.AtMs), "shutdown", "", 0, false})
	}
	for _, c := range s.Cancels {
		pts = append(pts, point{float64(c.AtMs), fmt.Sprintf("schedule %d cancel", c.ID), "", 0, false})
	}
	for i, ps := range m.Summary.Periodic {
		// A removal happens at a cancel or a shutdown, already here; a skip, when the
		// cancelled run is due: a worker takes it and returns at once (R97).
		if ps.SkippedRuns > 0 {
			pts = append(pts, point{float64(ps.SkippedAt) * 1000, fmt.Sprintf("schedule %d skipped", s.Schedules[i].ID), "", 0, false})
		}
	}
	pts = append(pts, point{float64(s.EndMs), "end", "", 0, false})
	rank := func(p point) int { // at one instant: calls and submissions, then ends, then starts
		switch {
		case strings.HasSuffix(p.what, " end"):
			return 1
		case strings.HasSuffix(p.what, " start"):
			return 2
		}
		return 0
	}
	slices.SortStableFunc(pts, func(a, b point) int {
		if c := cmp.Compare(a.ms, b.ms); c != 0 {
			return c
		}
		return cmp.Compare(rank(a), rank(b))
	})
	causal := func(a, b point) bool {
		if a.ms == b.ms && strings.HasSuffix(a.what, " end") && strings.HasSuffix(b.what, " start") {
			return true // the worker that finishes takes the due head at once (R46)
		}
		if a.owner == "" || a.owner != b.owner {
			return false
		}
		switch {
		case strings.HasPrefix(a.owner, "task"):
			return b.run == a.run+1 // submit → start → end
		case a.run == 0: // the schedule call → its first run, due at once
			return b.run == 1 && b.start && b.ms == a.ms
		}
		return (a.run == b.run && a.start && !b.start) || (b.run == a.run+1 && !a.start && b.start)
	}
	var ps []string
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		if b.ms-a.ms < spacingMs && !causal(a, b) && !(a.ms == b.ms && causal(b, a)) {
			ps = append(ps, fmt.Sprintf("%s at %g ms and %s at %g ms are less than %d ms apart", a.what, a.ms, b.what, b.ms, spacingMs))
		}
	}
	if len(ps) > 0 {
		t.Errorf("the script's decisive instants are too close:\n  %s\n%s", strings.Join(ps, "\n  "), timeline(m))
	}
}

// compareScheduled holds a simulated ScheduledThreadPoolExecutor run against the real runs.
func compareScheduled(t *testing.T, s Script, m *Simulation, rs []*Result) string {
	t.Helper()
	exactWorkers := s.Pool.Core <= 1
	env, err := Envelope(rs)
	if err != nil {
		t.Fatal(err)
	}
	if len(env) != len(m.Result.Samples) {
		t.Fatalf("%d real samples, %d simulated", len(env), len(m.Result.Samples))
	}
	windows, _ := interruptWindows(s, m)
	compared, skipped := 0, 0
	for k, e := range env {
		x := m.Result.Samples[k]
		if x.TMs != e.TMs {
			t.Fatalf("sample %d: real at %d ms, simulated at %d ms", k, e.TMs, x.TMs)
		}
		_, inWindow := within(windows, float64(x.TMs)-quietMarginMs)
		if m.QuietMs(x.TMs) < quietMarginMs || inWindow {
			skipped++
			continue
		}
		compared++
		for _, f := range sampleFields {
			v, lo, hi := f.get(x), f.get(e.Min), f.get(e.Max)
			if v < lo || v > hi {
				t.Errorf("at %d ms: %s simulated %g, real [%g, %g] over %d runs", x.TMs, f.name, v, lo, hi, len(rs))
			}
		}
	}
	if compared == 0 {
		t.Errorf("no sample is %d ms away from the simulated transitions", quietMarginMs)
	}
	maxDrift, driftWhat := 0.0, ""
	drift := func(what string, real, sim float64) {
		if math.IsNaN(real) || math.IsNaN(sim) {
			return
		}
		d := real - sim
		if d > maxDrift {
			maxDrift, driftWhat = d, what
		}
		if d < -clockSlackMs || d > maxLatenessMs {
			t.Errorf("%s: real %.1f ms, simulated %g ms: outside [−%g, +%d] ms", what, real, sim, clockSlackMs, maxLatenessMs)
		}
	}
	runsCompared := 0
	for ri, r := range rs {
		if len(r.Tasks) != len(m.Result.Tasks) {
			t.Fatalf("run %d: %d tasks, simulated %d", ri+1, len(r.Tasks), len(m.Result.Tasks))
		}
		for i, rt := range r.Tasks {
			st := m.Result.Tasks[i]
			if rt.Outcome != st.Outcome || (exactWorkers && rt.Worker != st.Worker) {
				t.Errorf("run %d: task %d: real %s on worker %d, simulated %s on worker %d", ri+1, rt.ID, rt.Outcome, rt.Worker, st.Outcome, st.Worker)
			}
			drift(fmt.Sprintf("run %d task %d start", ri+1, rt.ID), rt.StartMs, st.StartMs)
			if !rt.Interrupted && !st.Unfinished {
				drift(fmt.Sprintf("run %d task %d end", ri+1, rt.ID), rt.EndMs, st.EndMs)
			}
		}
		for _, u := range s.Schedules {
			rsc, ok := r.ScheduledTask(u.ID)
			ssc, _ := m.Result.ScheduledTask(u.ID)
			if !ok || rsc.State != ssc.State || rsc.Drained != ssc.Drained || rsc.Runs != ssc.Runs {
				t.Errorf("run %d: schedule %d: real %+v, simulated %+v", ri+1, u.ID, rsc, ssc)
				continue
			}
			real, sim := r.RunsOf(u.ID), m.Result.RunsOf(u.ID)
			for k := range real {
				rr, sr := real[k], sim[k]
				if rr.N != sr.N || rr.Failed != sr.Failed || (exactWorkers && rr.Worker != sr.Worker) {
					t.Errorf("run %d: schedule %d run %d: real %+v, simulated %+v", ri+1, u.ID, k+1, rr, sr)
				}
				drift(fmt.Sprintf("run %d schedule %d run %d start", ri+1, u.ID, rr.N), rr.StartMs, sr.StartMs)
				if !rr.Interrupted && !math.IsNaN(sr.EndMs) {
					drift(fmt.Sprintf("run %d schedule %d run %d end", ri+1, u.ID, rr.N), rr.EndMs, sr.EndMs)
				}
				runsCompared++
			}
		}
		if len(r.Workers) != len(m.Result.Workers) {
			t.Errorf("run %d: %d threads created, simulated %d", ri+1, len(r.Workers), len(m.Result.Workers))
		} else {
			for i, rw := range r.Workers {
				sw := m.Result.Workers[i]
				if rw.Alive() != sw.Alive() {
					t.Errorf("run %d: worker %d alive at the end %v, simulated %v", ri+1, rw.Index, rw.Alive(), sw.Alive())
					continue
				}
				drift(fmt.Sprintf("run %d worker %d created", ri+1, rw.Index), rw.CreatedMs, sw.CreatedMs)
				drift(fmt.Sprintf("run %d worker %d exited", ri+1, rw.Index), rw.ExitedMs, sw.ExitedMs)
			}
		}
		var realDrains, simDrains []string
		for _, e := range r.Events {
			if e.Kind == "shutdownNow" || e.Kind == "end" {
				realDrains = append(realDrains, fmt.Sprintf("%s@%d:%s", e.Kind, e.AtMs, e.Detail))
			}
		}
		for _, e := range m.Result.Events {
			if e.Kind == "shutdownNow" || e.Kind == "end" {
				simDrains = append(simDrains, fmt.Sprintf("%s@%d:%s", e.Kind, e.AtMs, e.Detail))
			}
		}
		if !slices.Equal(realDrains, simDrains) {
			t.Errorf("run %d: drains %v, simulated %v", ri+1, realDrains, simDrains)
		}
	}
	if t.Failed() {
		t.Logf("%s", timeline(m))
		for _, r := range m.Result.Runs {
			t.Logf("simulated run: %+v", r)
		}
		for i, r := range rs {
			t.Logf("real run %d:\n%s", i+1, r.Output)
		}
	}
	who := "worker ids not compared (racy with more than one thread)"
	if exactWorkers {
		who = "worker ids equal"
	}
	return fmt.Sprintf("%d samples × %d fields inside the real envelope (%d near transitions not compared); %d task runs and %d scheduled runs, states and drains equal in each of %d runs, %s; real − simulated times ≤ %.1f ms (%s)",
		compared, len(sampleFields), skipped, len(m.Result.Tasks)*len(rs), runsCompared, len(rs), who, maxDrift, driftWhat)
}

// TestCompareScheduledScriptsAreWellSpaced checks the scheduled scripts on the simulator alone.
func TestCompareScheduledScriptsAreWellSpaced(t *testing.T) {
	for _, c := range scheduledCases() {
		t.Run(c.name, func(t *testing.T) {
			s := withSamples(c.script)
			m := simulate(t, s)
			checkScheduledSpacing(t, s, m)
			c.expect(t, m)
		})
	}
}

// TestCompareScheduled holds the simulator to java.util.concurrent.ScheduledThreadPoolExecutor:
// Java 17, and Temurin 25 (the spec's baseline) when installed.
func TestCompareScheduled(t *testing.T) {
	Require(t)
	var report []string
	for i, nr := range runners(t) {
		for _, c := range scheduledCases() {
			if i > 0 && !strings.Contains(c.name, "R94") && !strings.Contains(c.name, "R93") && !strings.Contains(c.name, "R97") {
				continue // on JDK 25: the bunching, leader and cancel cases (STPE is the same code, §10)
			}
			name := nr.name + "/" + c.name
			t.Run(name, func(t *testing.T) {
				s := withSamples(c.script)
				m := simulate(t, s)
				checkScheduledSpacing(t, s, m)
				c.expect(t, m)
				if t.Failed() {
					t.FailNow()
				}
				start := time.Now()
				rs := realRuns(t, nr.r, s, m)
				line := fmt.Sprintf("%s [%s, %.1fs]: %s", name, rs[0].Timing["java_version"], time.Since(start).Seconds(), compareScheduled(t, s, m, rs))
				t.Log(line)
				if !t.Failed() {
					report = append(report, line)
				}
			})
		}
	}
	t.Logf("agreement:\n  %s", strings.Join(report, "\n  "))
}
