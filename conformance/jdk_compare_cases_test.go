package conformance

import "testing"

// jdkCases are the scripts TestCompareJDK runs on java.util.concurrent.ThreadPoolExecutor and
// on the simulator. Times are on a 100 ms grid offset by 20 ms (submissions at 20, 120, …;
// service and keep-alive times in hundreds), so that decisive instants either coincide
// deliberately or lie 100 ms apart. Each row says what it exercises and what the simulator
// shows; the real pool must agree (compare).
func jdkCases() []compareCase {
	return []compareCase{
		{
			// Fixed pool (core = max = 3, keepAlive 0, unbounded LinkedBlockingQueue, R81).
			// Below core every execute starts a new thread, even with idle workers (R4:
			// tasks 2 and 3 get new workers 2 and 3 while worker 1 idles). At core, tasks
			// queue (R7) and parked workers are served longest-waiting first (R47); a
			// worker finishing with tasks queued takes the head without parking (R46).
			// Task 6 throws: its worker 3 exits and a replacement, worker 4, starts at once
			// (R14, R17) and, being the longest idle, gets task 8 (R47).
			name: "linked unbounded: new thread below core, FIFO hand-off, a throwing task's worker replaced (R4 R7 R46 R47 R14 R17)",
			script: Script{
				Pool: Pool{Kind: KindJDK, Core: 3, Max: 3, KeepAliveMs: 0, Queue: QueueLinked},
				Submits: []Submit{
					task(1, 20, 100),
					task(2, 220, 100),
					task(3, 420, 300),
					task(4, 520, 300), task(5, 520, 500), failing(6, 520, 200), task(7, 520, 300),
					task(8, 1220, 100),
				},
				EndMs: 1420,
			},
			expect: func(t *testing.T, m *Simulation) {
				wantWorkers(t, m, []int{1, 2, 3, 4, 5, 6, 7, 8}, []int{1, 2, 3, 1, 2, 3, 1, 4},
					"R4 new threads below core; then FIFO, queue head to the first free worker; replacement 4")
				if x := simSampleAt(t, m, 610); x.QueueLen != 2 || x.Busy != 3 {
					t.Errorf("at 610 ms: busy %d queue %d, want 3 busy and 2 queued (R7)", x.Busy, x.QueueLen)
				}
			},
		},
		{
			// LinkedBlockingQueue(2), core 1, max 3, abort: task 1 takes the core thread,
			// tasks 2–3 fill the queue, tasks 4–5 grow the pool past core (R6), task 6 finds
			// queue and pool full and is rejected (R32). Once idle, the three workers wait in
			// poll(400 ms) (wc > core). Task 7 goes to the longest waiting, worker 1 (R47),
			// whose wait restarts; workers 2 and 3 reach their deadlines first and exit —
			// exactly wc − core of them (R16) — and worker 1, alone, moves to take().
			name: "linked bounded + abort: growth past core when full, rejection, keep-alive expiry of the earliest waiters (R6 R32 R16 R47)",
			script: Script{
				Pool: Pool{Kind: KindJDK, Core: 1, Max: 3, KeepAliveMs: 400, Queue: QueueLinked, Capacity: 2, Rejection: RejectAbort},
				Submits: []Submit{
					task(1, 20, 700),
					task(2, 120, 300), task(3, 120, 300),
					task(4, 220, 300), task(5, 220, 400), task(6, 220, 100),
					task(7, 1020, 100),
				},
				EndMs: 1620,
			},
			expect: func(t *testing.T, m *Simulation) {
				wantWorkers(t, m, []int{1, 2, 3, 4, 5, 6, 7}, []int{1, 2, 3, 2, 3, -1, 1}, "R6 growth, R32 rejection, R47 FIFO")
				wantSurvivors(t, m, []int{1}, "workers 2 and 3 waited longest without work (R16)")
				if x := simSampleAt(t, m, 1610); x.IdleUntimed != 1 || x.Rejected != 1 || x.Largest != 3 {
					t.Errorf("at 1610 ms: %+v, want one worker in take(), 1 rejected, largest 3", x)
				}
			},
		},
		{
			// core 0 with an unbounded LinkedBlockingQueue: every task is queued, and only
			// execute's recheck (wc == 0, R5) adds a worker — one, whatever max is (R7, P5).
			// Once the queue is empty it waits in poll (wc > core) and expires, being the
			// last worker with an empty queue (R15c).
			name: "core 0 + linked unbounded: one worker from the recheck, then it expires (R5 R7 R15)",
			script: Script{
				Pool:    Pool{Kind: KindJDK, Core: 0, Max: 8, KeepAliveMs: 300, Queue: QueueLinked},
				Submits: []Submit{task(1, 20, 200), task(2, 20, 200), task(3, 20, 200)},
				EndMs:   1020,
			},
			expect: func(t *testing.T, m *Simulation) {
				wantWorkers(t, m, []int{1, 2, 3}, []int{1, 1, 1}, "one worker (R5, R7)")
				if x := simSampleAt(t, m, 110); x.PoolSize != 1 || x.QueueLen != 2 {
					t.Errorf("at 110 ms: %+v, want one worker and two queued (R7)", x)
				}
				wantSurvivors(t, m, nil, "the last worker expires with the queue empty (R15c)")
			},
		},
		{
			// ArrayBlockingQueue(1), core 1, max 2, caller-runs: task 4 finds the queue and
			// the pool full and runs on the submitter (R33, M4) from 320 to 620 ms, so task 5,
			// due at 420 ms, is submitted only at 620 ms and goes to worker 2, parked since
			// 520 ms. Task 6 then goes to the longest waiting, worker 1 (R47, R48); worker 2
			// expires (wc 2 > core 1), worker 1 survives in take() (R16).
			name: "array + caller-runs: the submitter runs the task and later submissions wait (R33 M4 R48 R16)",
			script: Script{
				Pool: Pool{Kind: KindJDK, Core: 1, Max: 2, KeepAliveMs: 500, Queue: QueueArray, Capacity: 1, Rejection: RejectCallerRuns},
				Submits: []Submit{
					task(1, 20, 400),
					task(2, 120, 300),
					task(3, 220, 300),
					task(4, 320, 300),
					task(5, 420, 200),
					task(6, 1020, 100),
				},
				EndMs: 1720,
			},
			expect: func(t *testing.T, m *Simulation) {
				wantWorkers(t, m, []int{1, 2, 3, 4, 5, 6}, []int{1, 1, 2, 0, 2, 1}, "R33 caller runs task 4; R47 FIFO")
				if tk, _ := m.Result.Task(5); tk.SubmitMs != 620 {
					t.Errorf("task 5 submitted at %g ms, want 620: after the caller-run task 4 (R33)", tk.SubmitMs)
				}
				wantSurvivors(t, m, []int{1}, "worker 2 waited longer without work (R16)")
			},
		},
		{
			// Non-fair SynchronousQueue (a cached-pool shape: core 0, keepAlive 800 ms): four
			// tasks of staggered lengths make four threads, which park in that order. The next tasks go
			// to the most recently parked worker (a LIFO stack, R50): worker 4 gets all of
			// them, and workers 1–3 expire in turn (R55).
			name:   "synchronous non-fair: LIFO hand-off, the most recent waiter gets every task (R49 R50 R55)",
			script: handOffScript(false),
			jdk25:  true,
			expect: func(t *testing.T, m *Simulation) {
				wantWorkers(t, m, []int{5, 6, 7}, []int{4, 4, 4}, "LIFO: the most recently parked worker (R50)")
				wantSurvivors(t, m, []int{4}, "the workers deeper in the stack get nothing and expire (R55)")
			},
		},
		{
			// The same script on a fair SynchronousQueue: waiters are served FIFO (R50), so
			// tasks 5, 6, 7 go to workers 1, 2, 1 — the longest waiting — and workers 3 and 4
			// expire instead.
			name:   "synchronous fair: FIFO hand-off, the longest waiter gets the task (R50 R54)",
			script: handOffScript(true),
			jdk25:  true,
			expect: func(t *testing.T, m *Simulation) {
				wantWorkers(t, m, []int{5, 6, 7}, []int{1, 2, 1}, "FIFO: the longest-waiting worker (R50)")
				wantSurvivors(t, m, []int{1, 2}, "workers 3 and 4 waited longest without work (R54)")
			},
		},
		{
			// PriorityBlockingQueue (unbounded, so the pool stays at core, R53): four tasks
			// queue behind a long one and run in priority order, lowest first.
			name: "priority: queued tasks run lowest priority first, pool stays at core (R53 R7)",
			script: Script{
				Pool: Pool{Kind: KindJDK, Core: 1, Max: 4, KeepAliveMs: 500, Queue: QueuePriority},
				Submits: []Submit{
					task(1, 20, 300),
					prio(2, 120, 100, 5), prio(3, 120, 100, 1), prio(4, 120, 100, 3), prio(5, 120, 100, 4),
				},
				EndMs: 820,
			},
			expect: func(t *testing.T, m *Simulation) {
				order := map[int]float64{}
				for _, id := range []int{3, 4, 5, 2} {
					tk, _ := m.Result.Task(id)
					order[id] = tk.StartMs
				}
				if !(order[3] < order[4] && order[4] < order[5] && order[5] < order[2]) {
					t.Errorf("start times %v, want priorities 1, 3, 4, 5 in that order (R53)", order)
				}
				if x := simSampleAt(t, m, 210); x.PoolSize != 1 || x.QueueLen != 4 {
					t.Errorf("at 210 ms: pool %d queue %d, want 1 and 4 (R7)", x.PoolSize, x.QueueLen)
				}
			},
		},
		{
			// Fair ArrayBlockingQueue(1), one thread, discard: task 3 finds the queue full and
			// is dropped silently (R34); the handler ran once.
			name: "array fair + discard: the new task is dropped (R34 R48)",
			script: Script{
				Pool: Pool{Kind: KindJDK, Core: 1, Max: 1, KeepAliveMs: 0, Queue: QueueArray, Capacity: 1, Fair: true, Rejection: RejectDiscard},
				Submits: []Submit{
					task(1, 20, 300), task(2, 120, 200), task(3, 220, 100), task(4, 420, 100),
				},
				EndMs: 720,
			},
			expect: func(t *testing.T, m *Simulation) {
				wantWorkers(t, m, []int{1, 2, 3, 4}, []int{1, 1, -1, 1}, "R34 discard")
				if tk, _ := m.Result.Task(3); tk.Outcome != OutcomeDiscarded {
					t.Errorf("task 3 %s, want discarded (R34)", tk.Outcome)
				}
			},
		},
		{
			// LinkedBlockingQueue(2), one thread, discard-oldest: task 4 finds the queue full,
			// the handler drops the head (task 2) and execute retries, queueing task 4 (R35).
			name: "linked bounded + discard-oldest: the queue's head is dropped (R35)",
			script: Script{
				Pool: Pool{Kind: KindJDK, Core: 1, Max: 1, KeepAliveMs: 0, Queue: QueueLinked, Capacity: 2, Rejection: RejectDiscardOldest},
				Submits: []Submit{
					task(1, 20, 300), task(2, 120, 100), task(3, 120, 100), task(4, 220, 100),
				},
				EndMs: 620,
			},
			expect: func(t *testing.T, m *Simulation) {
				wantWorkers(t, m, []int{1, 2, 3, 4}, []int{1, -1, 1, 1}, "R35 drops task 2, the head")
			},
		},
		{
			// allowCoreThreadTimeOut on from the start: core workers wait in poll(400 ms) and
			// expire, even the last one since the queue is empty (R15c, R18): the pool falls
			// to 0. Task 3 starts a new core thread (R4). Turning the option off interrupts
			// nobody: worker 3 keeps its timed wait, and at the deadline, now untimed, moves
			// to take() (R24, R16). Turning it on again interrupts it into poll(400 ms), and
			// it expires (R24).
			name: "allowCoreThreadTimeOut: core threads expire; the setter's interrupts (R15 R18 R24)",
			script: Script{
				Pool: Pool{Kind: KindJDK, Core: 2, Max: 2, KeepAliveMs: 400, Queue: QueueLinked, AllowCoreThreadTimeOut: true},
				Submits: []Submit{
					task(1, 20, 100), task(2, 220, 100), task(3, 820, 100),
				},
				Sets:  []Set{set(1020, SetAllowCoreThreadTimeOut(false)), set(1420, SetAllowCoreThreadTimeOut(true))},
				EndMs: 1920,
			},
			expect: func(t *testing.T, m *Simulation) {
				if x := simSampleAt(t, m, 790); x.PoolSize != 0 {
					t.Errorf("at 790 ms: pool %d, want 0: core threads timed out (R18)", x.PoolSize)
				}
				if x := simSampleAt(t, m, 1210); x.IdleTimed != 1 {
					t.Errorf("at 1210 ms: %+v, want worker 3 still in poll (R24: turning it off interrupts nobody)", x)
				}
				if x := simSampleAt(t, m, 1390); x.IdleUntimed != 1 {
					t.Errorf("at 1390 ms: %+v, want worker 3 in take() after its deadline (R16)", x)
				}
				wantSurvivors(t, m, nil, "turning the option on again lets worker 3 expire (R24)")
			},
		},
		{
			// The setters at run time. setCorePoolSize(3) with two tasks queued starts two
			// workers for them (R21). setCorePoolSize(1) interrupts the idle worker 2, which
			// waits again, now in poll(1000 ms) (R25). A shorter keepAlive interrupts it again
			// into poll(400 ms), from now (R23); a longer one interrupts nobody, so worker 2
			// keeps that deadline and exits at 1020 ms, while worker 3, parking after it,
			// waits the new 2000 ms. setMaximumPoolSize(1) makes the idle worker 3 exit at
			// once (R22); worker 1, busy, goes to take() when done (wc = core). With core 2
			// again, task 4 starts a new thread although worker 1 is idle (R21, R4).
			name: "runtime setCorePoolSize, setKeepAliveTime, setMaximumPoolSize (R21 R22 R23 R25 R4)",
			script: Script{
				Pool: Pool{Kind: KindJDK, Core: 1, Max: 4, KeepAliveMs: 1000, Queue: QueueLinked},
				Submits: []Submit{
					task(1, 20, 1700),
					task(2, 120, 200), task(3, 120, 600),
					task(4, 1920, 100),
				},
				Sets: []Set{
					set(220, SetCore(3)),
					set(520, SetCore(1)),
					set(620, SetKeepAliveMs(400)),
					set(720, SetKeepAliveMs(2000)),
					set(1120, SetMax(1)),
					set(1820, SetMax(4), SetCore(2)),
				},
				EndMs: 2120,
			},
			expect: func(t *testing.T, m *Simulation) {
				wantWorkers(t, m, []int{1, 2, 3, 4}, []int{1, 2, 3, 4}, "R21 starts workers for queued tasks; R4 a new one below core")
				exits := map[int]float64{}
				for _, w := range m.Result.Workers {
					exits[w.Index] = w.ExitedMs
				}
				if exits[2] != 1020 || exits[3] != 1120 {
					t.Errorf("workers 2 and 3 exited at %g and %g ms, want 1020 (keepAlive 400 from 620, R23) and 1120 (setMaximumPoolSize, R22)", exits[2], exits[3])
				}
				wantSurvivors(t, m, []int{1, 4}, "")
			},
		},
		{
			// setMaximumPoolSize below the pool size with busy workers (R22): the idle
			// worker 1 is interrupted and exits at once; the busy ones are checked when they
			// next reach getTask — worker 2 exits as it finishes (wc 2 > max 1, no timeout
			// needed, R15c), worker 3, the last, stays and, with wc = core, waits in take().
			name: "setMaximumPoolSize below the pool size: idle workers exit now, busy ones when done (R22 R15)",
			script: Script{
				Pool:    Pool{Kind: KindJDK, Core: 1, Max: 3, KeepAliveMs: 5000, Queue: QueueSynchronous},
				Submits: []Submit{task(1, 20, 300), task(2, 120, 400), task(3, 220, 500)},
				Sets:    []Set{set(420, SetMax(1))},
				EndMs:   820,
			},
			expect: func(t *testing.T, m *Simulation) {
				exits := map[int]float64{}
				for _, w := range m.Result.Workers {
					exits[w.Index] = w.ExitedMs
				}
				if exits[1] != 420 || exits[2] != 520 {
					t.Errorf("workers 1 and 2 exited at %g and %g ms, want 420 (idle, R22) and 520 (its task's end, R15c)", exits[1], exits[2])
				}
				if x := simSampleAt(t, m, 790); x.PoolSize != 1 || x.IdleUntimed != 1 {
					t.Errorf("at 790 ms: %+v, want worker 3 alone in take()", x)
				}
			},
		},
		{
			// shutdown(): the queued tasks still run (R27); a submission after it is refused
			// by the handler, which, caller-runs, drops it once shut down (R33, R36). Each
			// worker exits when it finds the queue empty, and nothing is drained.
			name: "shutdown: queued tasks run, later submissions dropped, workers exit (R27 R33 R36)",
			script: Script{
				Pool: Pool{Kind: KindJDK, Core: 2, Max: 2, KeepAliveMs: 0, Queue: QueueLinked, Rejection: RejectCallerRuns},
				Submits: []Submit{
					task(1, 20, 300), task(2, 20, 500), task(3, 120, 300), task(4, 120, 300), task(5, 420, 100),
				},
				Shutdowns: []Shutdown{{AtMs: 220}},
				EndMs:     920,
			},
			expect: func(t *testing.T, m *Simulation) {
				wantWorkers(t, m, []int{1, 2, 3, 4, 5}, []int{1, 2, 1, 2, -1}, "R27 queued tasks run")
				if tk, _ := m.Result.Task(5); tk.Outcome != OutcomeDiscarded {
					t.Errorf("task 5 %s, want dropped after shutdown (R33, R36)", tk.Outcome)
				}
				wantSurvivors(t, m, nil, "workers exit once the queue is empty (R27)")
			},
		},
		{
			// shutdownNow(): the three queued tasks are drained and returned (R28), the
			// running one is interrupted (the harness's task stops; the model's runs on: not
			// compared until it would have ended), and a later submission is rejected
			// (R32, R36).
			name: "shutdownNow: queued tasks drained, later submissions rejected (R28 R36)",
			script: Script{
				Pool: Pool{Kind: KindJDK, Core: 1, Max: 1, KeepAliveMs: 0, Queue: QueueLinked},
				Submits: []Submit{
					task(1, 20, 400), task(2, 120, 100), task(3, 120, 100), task(4, 120, 100), task(5, 320, 100),
				},
				Shutdowns: []Shutdown{{AtMs: 220, Now: true}},
				EndMs:     620,
			},
			expect: func(t *testing.T, m *Simulation) {
				wantWorkers(t, m, []int{1, 2, 3, 4, 5}, []int{1, -1, -1, -1, -1}, "R28 drains the queue")
				if e := m.Result.Events[0]; e.Kind != "shutdownNow" || e.Detail != "drained=3" {
					t.Errorf("event %+v, want shutdownNow drained=3 (R28)", e)
				}
				if tk, _ := m.Result.Task(5); tk.Outcome != OutcomeRejected {
					t.Errorf("task 5 %s, want rejected after shutdownNow (R36)", tk.Outcome)
				}
			},
		},
	}
}

// handOffScript is the LIFO-versus-FIFO script on a SynchronousQueue (core 0, max 10,
// keepAlive 800 ms): a burst of four tasks of 100–400 ms makes four threads (R6), which park
// at 120, 220, 320 and 420 ms; then three 100 ms tasks arrive at 520, 720 and 1320 ms.
func handOffScript(fair bool) Script {
	return Script{
		Pool: Pool{Kind: KindJDK, Core: 0, Max: 10, KeepAliveMs: 800, Queue: QueueSynchronous, Fair: fair},
		Submits: []Submit{
			task(1, 20, 100), task(2, 20, 200), task(3, 20, 300), task(4, 20, 400),
			task(5, 520, 100), task(6, 720, 100), task(7, 1320, 100),
		},
		EndMs: 1520,
	}
}
