package conformance

import (
	"math"
	"sort"
	"testing"
)

// These tests check facts of shared/spec/threadpool-semantics.md against the real pools. They
// use only the harness: the simulator is compared elsewhere. Every decisive transition is at
// least scheduleMarginMs away from the samples and events whose outcome depends on it.

// TestCoreZeroUnboundedQueueKeepsOneThread checks R5/R7 and P5 (spec §11 experiment 4): with
// core 0 and an unbounded LinkedBlockingQueue every task is queued, and only the wc == 0
// recheck of R5 adds a thread — one worker, whatever max is.
func TestCoreZeroUnboundedQueueKeepsOneThread(t *testing.T) {
	s := Script{
		Pool:    Pool{Kind: KindJDK, Core: 0, Max: 8, KeepAliveMs: 1000, Queue: QueueLinked},
		Submits: submits(10, 20, 1, 400), // task 1 runs 20–420, task 2 420–820
		Samples: Samples{AtMs: []int64{200, 600}},
		EndMs:   700,
	}
	// LinkedBlockingQueue and this path of execute are the same code in JDK 17 and 25 (§10):
	// the default java only.
	t.Run("java", func(t *testing.T) {
		res := runValid(t, Runner{}, s)
		for _, c := range []struct {
			tMs    int64
			queued int
		}{
			{200, 9}, // task 1 running, nine queued
			{600, 8}, // task 2 running, eight queued
		} {
			got := sampleAt(t, res, c.tMs)
			steady(t, res, got)
			if got.PoolSize != 1 || got.Busy != 1 || got.QueueLen != c.queued || got.Largest != 1 {
				t.Errorf("at %d ms: pool %d busy %d queue %d largest %d, want 1 1 %d 1 (R7)",
					c.tMs, got.PoolSize, got.Busy, got.QueueLen, got.Largest, c.queued)
			}
		}
		if len(res.Workers) != 1 {
			t.Errorf("%d threads created, want 1 (R5)", len(res.Workers))
		}
	})
}

// TestIdleWorkersTimeOutToCore checks R15/R16 (spec §11 experiment 3): five idle workers on a
// SynchronousQueue with core 2 all wait in poll(keepAlive) (TIMED_WAITING, R59); at the
// deadline exactly wc − core = 3 exit and the other 2 move to take() (WAITING, R60).
func TestIdleWorkersTimeOutToCore(t *testing.T) {
	const keepAliveMs = 1000
	s := Script{
		Pool:    Pool{Kind: KindJDK, Core: 2, Max: 10, KeepAliveMs: keepAliveMs, Queue: QueueSynchronous},
		Submits: submits(5, 20, 1, 100), // five threads (R4, R6), busy 20–120, idle deadline ≈ 1120
		Samples: Samples{AtMs: []int64{300, 700, 1400, 1600}},
		EndMs:   1700,
	}
	for _, nr := range runners(t) {
		t.Run(nr.name, func(t *testing.T) {
			res := runValid(t, nr.r, s)
			for _, c := range []struct {
				tMs                  int64
				pool, timed, untimed int
			}{
				{300, 5, 5, 0},  // all idle in poll: wc 5 > core 2
				{700, 5, 5, 0},  // still within keepAlive
				{1400, 2, 0, 2}, // 3 timed out; the 2 left re-evaluated timed = wc > core = false: take()
				{1600, 2, 0, 2}, // and stay there
			} {
				got := sampleAt(t, res, c.tMs)
				steady(t, res, got)
				if got.PoolSize != c.pool || got.IdleTimed != c.timed || got.IdleUntimed != c.untimed {
					t.Errorf("at %d ms: pool %d timed %d untimed %d, want %d %d %d",
						c.tMs, got.PoolSize, got.IdleTimed, got.IdleUntimed, c.pool, c.timed, c.untimed)
				}
			}
			// A worker exits no earlier than keepAlive after its last task ended (its poll's
			// deadline, R16), and not much later.
			lastEnd := map[int]float64{}
			for _, tk := range res.Tasks {
				lastEnd[tk.Worker] = math.Max(lastEnd[tk.Worker], tk.EndMs)
			}
			exited := 0
			for _, w := range res.Workers {
				if w.Alive() {
					continue
				}
				exited++
				deadline := lastEnd[w.Index] + keepAliveMs
				if w.ExitedMs < deadline-0.2 || w.ExitedMs > deadline+scheduleMarginMs {
					t.Errorf("worker %d exited at %.1f ms, want within [%.1f, %.1f] (R16)",
						w.Index, w.ExitedMs, deadline, deadline+scheduleMarginMs)
				}
			}
			if exited != 3 {
				t.Errorf("%d workers exited, want 3 = wc − core (R16)", exited)
			}
		})
	}
}

// TestHandOffOrderDecidesPoolSize checks R54/R55 (spec §11 experiment 1, shortened): after a
// burst grows the pool, a trickle of one task every periodMs keeps ⌈λ(K+S)⌉ − 1 workers under
// FIFO hand-off (R78), dealt round-robin, but only one under LIFO hand-off (non-fair
// SynchronousQueue, R50), which reuses the same worker.
//
// Timing (ms): the burst runs 20–320. The plateau is a ceiling, so at least five workers must
// get a task before the first keep-alive deadlines (≈ 1400) for the pool to settle at five:
// the trickle starts at 460, and its fifth task comes at 1260, 140 ms early. (The sixth, at
// 1460, may land either side of a deadline: a sixth survivor dies within one rotation.) In
// steady state a worker's idle gap is 5·200 − 20 = 980 ms, 100 ms inside keepAlive; a sixth
// worker's would be 1180 ms, 100 ms outside. Samples come 100 ms after a trickle arrival.
func TestHandOffOrderDecidesPoolSize(t *testing.T) {
	const (
		periodMs     = 200
		serviceMs    = 20
		keepAliveMs  = 1080
		trickleFrom  = 460
		trickleUntil = 3660
		steadyFrom   = 2260 // tasks from here on are dealt in the settled rotation
		endMs        = 3800
	)
	plateau := int(math.Ceil(1000.0/periodMs*(keepAliveMs+serviceMs)/1000)) - 1 // R78: ⌈λ(K+S)⌉ − 1 = 5
	script := func(q Queue, capacity int, fair bool) Script {
		s := Script{
			Pool:    Pool{Kind: KindJDK, Core: 1, Max: 20, KeepAliveMs: keepAliveMs, Queue: q, Capacity: capacity, Fair: fair},
			Submits: submits(12, 20, 1, 300),
			Samples: Samples{AtMs: []int64{2560, 3160, 3760}}, // 100 ms after a trickle arrival
			EndMs:   endMs,
		}
		for at, id := int64(trickleFrom), 101; at <= trickleUntil; at, id = at+periodMs, id+1 {
			s.Submits = append(s.Submits, Submit{AtMs: at, ID: id, ServiceMs: serviceMs})
		}
		return s
	}
	cases := []struct {
		name      string
		script    Script
		fifo      bool
		wantPool  int
		wantTimed bool // idle workers in poll (wc > core) rather than take()
		allJDKs   bool // also on JDK 25, whose SynchronousQueue is new code (§10)
	}{
		// LinkedBlockingQueue(1): the burst makes 11 threads and queues one task; FIFO waiters
		// (R47). Same code in JDK 17 and 25 (§10): run on the default java only.
		{"linked FIFO", script(QueueLinked, 1, false), true, plateau, true, false},
		// Fair SynchronousQueue: FIFO waiters (R50); the burst makes 12 threads.
		{"fair synchronous FIFO", script(QueueSynchronous, 0, true), true, plateau, true, true},
		// Non-fair SynchronousQueue: LIFO waiters (R50); one worker is left, and with wc = core
		// it waits in take() (R16).
		{"non-fair synchronous LIFO", script(QueueSynchronous, 0, false), false, 1, false, true},
	}
	for i, nr := range runners(t) {
		for _, c := range cases {
			if i > 0 && !c.allJDKs {
				continue
			}
			t.Run(nr.name+"/"+c.name, func(t *testing.T) {
				res := runValid(t, nr.r, c.script)
				for _, tMs := range c.script.Samples.AtMs {
					got := sampleAt(t, res, tMs)
					steady(t, res, got)
					idle := got.IdleUntimed
					if c.wantTimed {
						idle = got.IdleTimed
					}
					if got.PoolSize != c.wantPool || got.Busy != 0 || idle != c.wantPool {
						t.Errorf("at %d ms: pool %d busy %d timed %d untimed %d, want pool %d all idle (timed: %v)",
							tMs, got.PoolSize, got.Busy, got.IdleTimed, got.IdleUntimed, c.wantPool, c.wantTimed)
					}
				}
				if got := sampleAt(t, res, 2560).Largest; got < 11 {
					t.Errorf("largest pool size %d, want the burst's ≥ 11", got)
				}
				var trickle []Task // in submission order
				for _, tk := range res.Tasks {
					if tk.ID > 100 && tk.SubmitMs >= steadyFrom {
						trickle = append(trickle, tk)
					}
				}
				workers := make([]int, len(trickle))
				for i, tk := range trickle {
					workers[i] = tk.Worker
				}
				if c.fifo {
					// Round-robin: every window of `plateau` tasks uses distinct workers, and task
					// k and k+plateau share one.
					for i := 0; i+plateau < len(workers); i++ {
						seen := map[int]bool{}
						for _, w := range workers[i : i+plateau] {
							seen[w] = true
						}
						if len(seen) != plateau || workers[i] != workers[i+plateau] {
							t.Fatalf("trickle workers %v from %d ms: not a round-robin over %d (R54)", workers, steadyFrom, plateau)
						}
					}
				} else {
					for _, w := range workers {
						if w != workers[0] {
							t.Fatalf("trickle workers %v from %d ms: LIFO should reuse one worker (R55)", workers, steadyFrom)
						}
					}
				}
			})
		}
	}
}

// TestTomcatGrowsBeforeQueueing checks R65–R67: Tomcat's TaskQueue refuses an offer while
// submittedCount exceeds the pool size and the pool is below max, so the pool grows to max
// before anything is queued; the JDK pool with an unbounded LinkedBlockingQueue queues at core
// instead (R7).
func TestTomcatGrowsBeforeQueueing(t *testing.T) {
	cases := []struct {
		name                   string
		kind                   Kind
		queue                  Queue
		wantPool, wantQueue    int
		wantIdleUntimedAtStart int
	}{
		// Tomcat prestarts 2 workers (R65), in take() since wc = core; 8 tasks: 6 threads, 2 queued.
		{"tomcat", KindTomcat, "", 6, 2, 2},
		// The JDK pool starts none (R2); 8 tasks: 2 core threads, 6 queued.
		{"jdk linked", KindJDK, QueueLinked, 2, 6, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := Script{
				Pool:    Pool{Kind: c.kind, Core: 2, Max: 6, KeepAliveMs: 5000, Queue: c.queue},
				Submits: submits(8, 150, 1, 500), // the first tasks run 150–650
				Samples: Samples{AtMs: []int64{50, 400}},
				EndMs:   500,
			}
			res := runValid(t, Runner{}, s)
			start := sampleAt(t, res, 50)
			steady(t, res, start)
			if start.PoolSize != c.wantIdleUntimedAtStart || start.IdleUntimed != c.wantIdleUntimedAtStart {
				t.Errorf("at 50 ms: pool %d untimed %d, want %d idle in take()", start.PoolSize, start.IdleUntimed, c.wantIdleUntimedAtStart)
			}
			got := sampleAt(t, res, 400)
			steady(t, res, got)
			if got.PoolSize != c.wantPool || got.Busy != c.wantPool || got.QueueLen != c.wantQueue {
				t.Errorf("at 400 ms: pool %d busy %d queue %d, want %d %d %d (R67)",
					got.PoolSize, got.Busy, got.QueueLen, c.wantPool, c.wantPool, c.wantQueue)
			}
			if c.kind == KindTomcat && got.SubmittedCount != 8 {
				t.Errorf("at 400 ms: submittedCount %d, want 8 = running + queued (R64)", got.SubmittedCount)
			}
		})
	}
}

// TestJettyShrinksOneThreadPerIdleTimeout checks R104/R105 on Jetty 9.4: after a burst, idle
// threads above minThreads leave at most one per idleTimeout pool-wide, not all at once as
// in the JDK pool (R16, R110).
func TestJettyShrinksOneThreadPerIdleTimeout(t *testing.T) {
	const idleTimeoutMs = 500
	const burstMs, serviceMs = 150, 200
	idleFrom := float64(burstMs + serviceMs)
	s := Script{
		Pool:    Pool{Kind: KindJetty, Core: 2, Max: 20, KeepAliveMs: idleTimeoutMs},
		Submits: submits(8, burstMs, 1, serviceMs), // grows to 8 threads (R102), idle from ≈ 350
		Samples: Samples{AtMs: []int64{50, 250}},
		EndMs:   3000,
	}
	res := runValid(t, Runner{}, s)
	if got := sampleAt(t, res, 50); got.PoolSize != 2 || got.IdleTimed != 2 {
		t.Errorf("at 50 ms: pool %d timed %d, want minThreads = 2 idle in poll(idleTimeout) (R101, R103)", got.PoolSize, got.IdleTimed)
	}
	if got := sampleAt(t, res, 250); got.PoolSize != 8 || got.Busy != 8 {
		t.Errorf("at 250 ms: pool %d busy %d, want 8 8 (R102)", got.PoolSize, got.Busy)
	}
	var exits []float64
	for _, w := range res.Workers {
		if !w.Alive() {
			exits = append(exits, w.ExitedMs)
		}
	}
	sort.Float64s(exits)
	// The first exit needs idleTimeout since the last thread start (≈ 155 ms) and an empty
	// poll of idleTimeout after going idle (≈ 350 ms): ≈ 850 ms. Each next one needs
	// idleTimeout since the last shrink; a thread that loses the race polls again for
	// idleTimeout, so exits come one per idleTimeout, or at worst one per two: 850, 1350, …,
	// 2850 gives at most 5 by 3000 ms, and at least 3 (850, 1850, 2850).
	if len(exits) < 3 || len(exits) > 5 {
		t.Errorf("%d threads left by %d ms, want 3–5 (one per %d ms idleTimeout) %v", len(exits), s.EndMs, idleTimeoutMs, exits)
	}
	if len(exits) > 0 && exits[0] < idleFrom+idleTimeoutMs-scheduleMarginMs {
		t.Errorf("first exit at %.1f ms, before its idle poll could expire (≈ %.0f ms)", exits[0], idleFrom+idleTimeoutMs)
	}
	for i := 1; i < len(exits); i++ {
		if gap := exits[i] - exits[i-1]; gap < idleTimeoutMs-scheduleMarginMs {
			t.Errorf("exits at %.1f and %.1f ms: %.1f ms apart, want ≥ idleTimeout %d ms (R105)", exits[i-1], exits[i], gap, idleTimeoutMs)
		}
	}
}
