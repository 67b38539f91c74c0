package conformance

import (
	"math"
	"testing"
)

// TestTaskOutcomes checks, on the real pools, what the harness reports for each way a task can
// end: rejection policies (R32–R36), shutdownNow (R28), and failing tasks (R14, R17, R108).
// The pools are saturated on purpose: one thread, a queue of one.
func TestTaskOutcomes(t *testing.T) {
	oneSlot := func(kind Kind, rej Rejection) Pool {
		p := Pool{Kind: kind, Core: 1, Max: 1, KeepAliveMs: 5000, Capacity: 1, Rejection: rej}
		if kind == KindJDK {
			p.Queue = QueueArray
		}
		return p
	}
	// Three tasks at 20 ms: 1 runs 20–320 on worker 1, 2 waits in the queue, 3 finds both full.
	// Like every test here, decisive instants are scheduleMarginMs apart: a sample never
	// comes within 100 ms of a submission or a task's end.
	three := []Submit{{AtMs: 20, ID: 1, ServiceMs: 300}, {AtMs: 20, ID: 2, ServiceMs: 300}, {AtMs: 20, ID: 3, ServiceMs: 300}}
	type want struct {
		id      int
		outcome Outcome
		worker  int     // -1: never ran
		startMs float64 // NaN: do not check
	}
	cases := []struct {
		name     string
		script   Script
		tasks    []want
		sampleMs int64
		rejected int64
		queued   int
		extra    func(t *testing.T, res *Result)
	}{
		{
			name:   "abort throws (R32)",
			script: Script{Pool: oneSlot(KindJDK, RejectAbort), Submits: three, EndMs: 700},
			tasks: []want{
				{1, OutcomePool, 1, 20},
				{2, OutcomePool, 1, 320},
				{3, OutcomeRejected, -1, math.NaN()},
			},
			sampleMs: 150, rejected: 1, queued: 1,
		},
		{
			name: "caller-runs runs on the submitter and holds it (R33, M4)",
			script: Script{Pool: oneSlot(KindJDK, RejectCallerRuns), EndMs: 1000,
				Submits: []Submit{three[0], three[1], {AtMs: 20, ID: 3, ServiceMs: 400}, {AtMs: 100, ID: 4, ServiceMs: 100}}},
			tasks: []want{
				{1, OutcomePool, 1, 20},
				{2, OutcomePool, 1, 320},
				{3, OutcomeCaller, 0, 20},
				{4, OutcomePool, 1, 620}, // submitted when task 3 ends (≈ 420), queued behind task 2
			},
			sampleMs: 150, rejected: 1, queued: 1,
			extra: func(t *testing.T, res *Result) {
				if tk, _ := res.Task(4); tk.SubmitMs < 420-1 {
					t.Errorf("task 4 submitted at %.1f ms, want after task 3 ran on the submitter (≈ 420 ms)", tk.SubmitMs)
				}
				if s := sampleAt(t, res, 150); s.BusyCounter != 1 {
					t.Errorf("busy counter %d at 150 ms, want 1: a caller-run task is not a pool thread's", s.BusyCounter)
				}
			},
		},
		{
			name:   "discard drops the new task (R34)",
			script: Script{Pool: oneSlot(KindJDK, RejectDiscard), Submits: three, EndMs: 700},
			tasks: []want{
				{1, OutcomePool, 1, 20},
				{2, OutcomePool, 1, 320},
				{3, OutcomeDiscarded, -1, math.NaN()},
			},
			sampleMs: 150, rejected: 1, queued: 1,
		},
		{
			name:   "discard-oldest drops the queue's head and retries (R35)",
			script: Script{Pool: oneSlot(KindJDK, RejectDiscardOldest), Submits: three, EndMs: 700},
			tasks: []want{
				{1, OutcomePool, 1, 20},
				{2, OutcomeDiscarded, -1, math.NaN()},
				{3, OutcomePool, 1, 320},
			},
			sampleMs: 150, rejected: 1, queued: 1,
		},
		{
			name: "shutdownNow interrupts, drains, then rejects (R28, R36)",
			script: Script{Pool: oneSlot(KindJDK, RejectAbort), EndMs: 500,
				Submits: []Submit{{AtMs: 20, ID: 1, ServiceMs: 600}, {AtMs: 20, ID: 2, ServiceMs: 600},
					{AtMs: 20, ID: 3, ServiceMs: 600}, {AtMs: 400, ID: 4, ServiceMs: 100}},
				Shutdowns: []Shutdown{{AtMs: 300, Now: true}}},
			tasks: []want{
				{1, OutcomePool, 1, 20}, // interrupted at 300
				{2, OutcomeDrained, -1, math.NaN()},
				{3, OutcomeRejected, -1, math.NaN()},
				{4, OutcomeRejected, -1, math.NaN()}, // after shutdown: the handler again
			},
			sampleMs: 150, rejected: 1, queued: 1,
			extra: func(t *testing.T, res *Result) {
				tk, _ := res.Task(1)
				if !tk.Interrupted || math.Abs(tk.EndMs-300) > scheduleMarginMs {
					t.Errorf("task 1: interrupted %v, ended %.1f ms; want interrupted at ≈ 300 ms", tk.Interrupted, tk.EndMs)
				}
				if len(res.Events) == 0 || res.Events[0].Kind != "shutdownNow" || res.Events[0].Detail != "drained=1" {
					t.Errorf("events %+v, want shutdownNow with drained=1 first", res.Events)
				}
			},
		},
		{
			name: "a failing task's JDK worker is replaced at once (R14, R17, M5)",
			script: Script{Pool: Pool{Kind: KindJDK, Core: 1, Max: 1, KeepAliveMs: 5000, Queue: QueueLinked}, EndMs: 600,
				Submits: []Submit{{AtMs: 20, ID: 1, ServiceMs: 100, Fail: true}, {AtMs: 400, ID: 2, ServiceMs: 100}}},
			tasks: []want{
				{1, OutcomePool, 1, 20},
				{2, OutcomePool, 2, 400},
			},
			sampleMs: 250, rejected: 0, queued: 0,
			extra: func(t *testing.T, res *Result) {
				tk, _ := res.Task(1)
				if !tk.Failed {
					t.Errorf("task 1 not marked failed")
				}
				if len(res.Workers) != 2 || res.Workers[0].Alive() || !res.Workers[1].Alive() {
					t.Fatalf("workers %+v, want worker 1 dead and worker 2 alive", res.Workers)
				}
				if c := res.Workers[1].CreatedMs; c < tk.EndMs || c > tk.EndMs+scheduleMarginMs {
					t.Errorf("replacement created at %.1f ms, want right after task 1 ended (%.1f ms)", c, tk.EndMs)
				}
				if s := sampleAt(t, res, 250); s.PoolSize != 1 || s.IdleUntimed != 1 || s.Completed != 1 {
					t.Errorf("at 250 ms: %+v, want one idle worker in take() and 1 completed (R13)", s)
				}
			},
		},
		{
			name: "a failing Jetty job leaves its thread alive (R108)",
			script: Script{Pool: Pool{Kind: KindJetty, Core: 1, Max: 1, KeepAliveMs: 5000}, EndMs: 600,
				Submits: []Submit{{AtMs: 20, ID: 1, ServiceMs: 100, Fail: true}, {AtMs: 400, ID: 2, ServiceMs: 100}}},
			tasks: []want{
				{1, OutcomePool, 1, 20},
				{2, OutcomePool, 1, 400},
			},
			sampleMs: 250, rejected: 0, queued: 0,
			extra: func(t *testing.T, res *Result) {
				if len(res.Workers) != 1 || !res.Workers[0].Alive() {
					t.Errorf("workers %+v, want the one thread alive", res.Workers)
				}
			},
		},
		{
			name: "Tomcat rejects only when its queue is full (R66)",
			// Spaced 100 ms apart: task 1 goes through the queue to the prestarted worker (R65),
			// which must have taken it before task 2 is offered.
			script: Script{Pool: oneSlot(KindTomcat, RejectAbort), EndMs: 700,
				Submits: []Submit{{AtMs: 20, ID: 1, ServiceMs: 500}, {AtMs: 120, ID: 2, ServiceMs: 500}, {AtMs: 220, ID: 3, ServiceMs: 500}}},
			tasks: []want{
				{1, OutcomePool, 1, 20},
				{2, OutcomePool, 1, 520},
				{3, OutcomeRejected, -1, math.NaN()}, // RejectPolicy threw, force() found the queue full
			},
			sampleMs: 370, rejected: 1, queued: 1,
		},
		{
			// R64: submittedCount rises on entry to execute and falls in afterExecute, or when
			// execute gives up on a full queue. A task the handler absorbs (run by the caller,
			// or discarded) takes neither path: the count stays one too high for good, and
			// TaskQueue.offer (R67) then sees one more task than is really there.
			name: "Tomcat caller-runs leaves submittedCount one too high (R64)",
			script: Script{Pool: Pool{Kind: KindTomcat, Core: 1, Max: 2, KeepAliveMs: 5000, Capacity: 1, Rejection: RejectCallerRuns},
				EndMs: 1800, Samples: Samples{AtMs: []int64{1750}},
				Submits: []Submit{{AtMs: 20, ID: 1, ServiceMs: 800}, {AtMs: 220, ID: 2, ServiceMs: 800},
					{AtMs: 420, ID: 3, ServiceMs: 800}, {AtMs: 620, ID: 4, ServiceMs: 800}}},
			tasks: []want{
				{1, OutcomePool, 1, 20},    // the prestarted worker
				{2, OutcomePool, 2, 220},   // S 2 > P 1 < max: a new thread (R67 step 4)
				{3, OutcomePool, 1, 820},   // P = max: queued until task 1 ends
				{4, OutcomeCaller, 0, 620}, // queue full at max: the handler runs it
			},
			sampleMs: 720, rejected: 1, queued: 1,
			extra: func(t *testing.T, res *Result) {
				if s := sampleAt(t, res, 720); s.SubmittedCount != 4 {
					t.Errorf("at 720 ms: submittedCount %d, want 4 (3 in the pool, 1 absorbed)", s.SubmittedCount)
				}
				if s := sampleAt(t, res, 1750); s.Busy != 0 || s.QueueLen != 0 || s.SubmittedCount != 1 {
					t.Errorf("at 1750 ms, all done: busy %d queue %d submittedCount %d, want 0 0 1 (the leak)",
						s.Busy, s.QueueLen, s.SubmittedCount)
				}
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.script.Samples.AtMs = append([]int64{c.sampleMs}, c.script.Samples.AtMs...)
			res := runValid(t, Runner{}, c.script)
			for _, w := range c.tasks {
				tk, ok := res.Task(w.id)
				if !ok {
					t.Fatalf("no task %d\n%s", w.id, res.Output)
				}
				if tk.Outcome != w.outcome || tk.Worker != w.worker {
					t.Errorf("task %d: outcome %s on worker %d, want %s on %d", w.id, tk.Outcome, tk.Worker, w.outcome, w.worker)
				}
				if !math.IsNaN(w.startMs) && math.Abs(tk.StartMs-w.startMs) > scheduleMarginMs {
					t.Errorf("task %d started at %.1f ms, want ≈ %.0f", w.id, tk.StartMs, w.startMs)
				}
			}
			s := sampleAt(t, res, c.sampleMs)
			if s.Rejected != c.rejected || s.QueueLen != c.queued {
				t.Errorf("at %d ms: rejected %d queue %d, want %d %d", c.sampleMs, s.Rejected, s.QueueLen, c.rejected, c.queued)
			}
			if c.extra != nil {
				c.extra(t, res)
			}
			if t.Failed() {
				t.Logf("output:\n%s", res.Output)
			}
		})
	}
}
