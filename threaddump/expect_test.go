package threaddump

import (
	"reflect"
	"testing"
)

// poolWant is what testdata/java/PoolStates.java creates in one pool, and
// so what Summarise must report for it, exactly.
type poolWant struct {
	key         string // PoolStates' key, printed as "POOL <key> <prefix>"
	prefix      string // default name prefix; "" for Jetty's qtp<hash>- (resolved per dump)
	family      Family
	threads     int
	daemon      int
	busy        int
	idleTimed   int
	idleUntimed int
	other       int
	states      map[string]int
	sites       []ParkSite
	maxNumber   int // -2: not checked (Jetty names carry thread ids, R62)
}

// poolStatesWant is the ground truth of PoolStates.java, one row per pool.
func poolStatesWant() []poolWant {
	return []poolWant{
		// Executors.newFixedThreadPool(3) after 3 tasks: one thread per task (R4, R81),
		// then all idle in LinkedBlockingQueue.take (R58).
		{key: "fixed", prefix: "pool-1-thread-", family: FamilyJDK, threads: 3, idleUntimed: 3,
			states: map[string]int{StateWaiting: 3},
			sites:  []ParkSite{{Site: "LinkedBlockingQueue.take", Queue: QueueLinked, Untimed: 3}}, maxNumber: 3},
		// Executors.newCachedThreadPool(), 4 concurrent tasks: 4 threads (R83), idle in
		// SynchronousQueue.poll(K) (R59).
		{key: "cached", prefix: "pool-2-thread-", family: FamilyJDK, threads: 4, idleTimed: 4,
			states: map[string]int{StateTimedWaiting: 4},
			sites:  []ParkSite{{Site: "SynchronousQueue.poll", Queue: QueueSynchronous, Timed: 4}}, maxNumber: 4},
		// TPE(core 2, max 5, LinkedBlockingQueue(1)), 6 tasks: 5 threads (R7); wc 5 > core 2,
		// so every idle worker waits in poll(K) (R15b, R57, R60).
		{key: "grown", prefix: "pool-3-thread-", family: FamilyJDK, threads: 5, idleTimed: 5,
			states: map[string]int{StateTimedWaiting: 5},
			sites:  []ParkSite{{Site: "LinkedBlockingQueue.poll", Queue: QueueLinked, Timed: 5}}, maxNumber: 5},
		// TPE(5, 5, ArrayBlockingQueue(10)): tasks sleeping, computing, BLOCKED on a monitor and
		// WAITING on a latch are busy whatever their state (R56); one worker idle in take (R58).
		{key: "busy", prefix: "pool-4-thread-", family: FamilyJDK, threads: 5, busy: 4, idleUntimed: 1,
			states: map[string]int{StateRunnable: 1, StateTimedWaiting: 1, StateBlocked: 1, StateWaiting: 2},
			sites:  []ParkSite{{Site: "ArrayBlockingQueue.take", Queue: QueueArray, Untimed: 1}}, maxNumber: 5},
		// ScheduledThreadPoolExecutor(3): 3 workers (R91); one leader waits timed for the
		// first due task, the others untimed (R61, R93).
		{key: "scheduled", prefix: "pool-5-thread-", family: FamilyScheduled, threads: 3, idleTimed: 1, idleUntimed: 2,
			states: map[string]int{StateTimedWaiting: 1, StateWaiting: 2},
			sites:  []ParkSite{{Site: "DelayedWorkQueue.take", Queue: QueueDelayed, Timed: 1, Untimed: 2}}, maxNumber: 3},
		// Tomcat TPE(core 2, max 10) + TaskQueue + TaskThreadFactory("http-nio-8080-exec-", daemon):
		// a burst of 6 grows it to 6 (R65, R67); wc 6 > core 2, so all wait in TaskQueue.poll (R57, R77).
		{key: "tomcat", prefix: "http-nio-8080-exec-", family: FamilyTomcat, threads: 6, daemon: 6, idleTimed: 6,
			states: map[string]int{StateTimedWaiting: 6},
			sites:  []ParkSite{{Site: "TaskQueue.poll", Queue: QueueTomcat, Timed: 6}}, maxNumber: 6},
		// Spring Boot's executor shape (core 8, unbounded queue, allowCoreThreadTimeOut, "task-N"):
		// 3 tasks make 3 threads (R4), timed because of allowCoreThreadTimeOut (P2, R15b).
		{key: "spring", prefix: "task-", family: FamilyJDK, threads: 3, idleTimed: 3,
			states: map[string]int{StateTimedWaiting: 3},
			sites:  []ParkSite{{Site: "LinkedBlockingQueue.poll", Queue: QueueLinked, Timed: 3}}, maxNumber: 3},
		// Jetty 9.4 QueuedThreadPool(max 10, min 3): 6 concurrent jobs grow it to 6 (R101, R102);
		// 5 idle in BlockingArrayQueue.poll(idleTimeout) (R103), 1 job sleeping: busy.
		{key: "jetty", prefix: "", family: FamilyJetty, threads: 6, busy: 1, idleTimed: 5,
			states: map[string]int{StateTimedWaiting: 6},
			sites:  []ParkSite{{Site: "BlockingArrayQueue.poll", Queue: QueueJetty, Timed: 5}}, maxNumber: -2},
		// new ForkJoinPool(2), 2 sleeping tasks: both workers busy.
		{key: "forkjoin", prefix: "ForkJoinPool-1-worker-", family: FamilyForkJoin, threads: 2, daemon: 2, busy: 2,
			states: map[string]int{StateTimedWaiting: 2}, maxNumber: 2},
		// java.util.Timer "Timer-0": numbered like a pool, but no worker loop in its frames.
		{key: "timer", prefix: "Timer-", family: FamilyUnknown, threads: 1, other: 1,
			states: map[string]int{StateTimedWaiting: 1}, maxNumber: 0},
	}
}

// findPool returns the pool with the prefix; for prefix "" the Jetty pool.
func findPool(pools []Pool, prefix string) (Pool, bool) {
	for _, p := range pools {
		if p.Prefix == prefix || (prefix == "" && isJettyPrefix(p.Prefix)) {
			return p, true
		}
	}
	return Pool{}, false
}

// checkPools compares Summarise(d) with want, row by row. prefixes maps
// PoolStates keys to the prefixes the JVM reported (nil: the rows'
// defaults). With inferredStates the dump prints no states and the state
// counts are not compared (TestInferredStatesNeverContradict checks them).
// Thread.dump_to_file prints no daemon flag, so daemon counts are compared
// on HotSpot dumps only. With exact, d must hold no other pool.
func checkPools(t *testing.T, d *Dump, want []poolWant, prefixes map[string]string, inferredStates, exact bool) {
	t.Helper()
	pools := Summarise(d)
	checkPoolInvariants(t, pools)
	for _, w := range want {
		if p, ok := prefixes[w.key]; ok {
			w.prefix = p
		}
		got, ok := findPool(pools, w.prefix)
		if !ok {
			t.Errorf("%s: pool %q (%s) missing; pools: %v", d.Name, w.prefix, w.key, pools)
			continue
		}
		g := poolWant{key: w.key, prefix: w.prefix, family: got.Family, threads: got.Threads, daemon: got.Daemon, busy: got.Busy,
			idleTimed: got.IdleTimed, idleUntimed: got.IdleUntimed, other: got.Other, states: got.States, sites: got.ParkSites, maxNumber: got.MaxNumber}
		if d.Form != FormHotSpot {
			w.daemon = 0
		}
		if inferredStates {
			g.states = w.states
		}
		if w.maxNumber == -2 {
			g.maxNumber = -2
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s: pool %q:\n got  %+v\n want %+v", d.Name, w.prefix, g, w)
		}
	}
	if exact && len(pools) != len(want) {
		t.Errorf("%s: %d pools, want %d: %v", d.Name, len(pools), len(want), pools)
	}
}

// checkPoolInvariants holds for every summary: roles, states and park sites
// each add up to the thread count.
func checkPoolInvariants(t *testing.T, pools []Pool) {
	t.Helper()
	for i, p := range pools {
		if p.Busy+p.IdleTimed+p.IdleUntimed+p.Other != p.Threads {
			t.Errorf("pool %s: roles add to %d, not %d", p.Prefix, p.Busy+p.IdleTimed+p.IdleUntimed+p.Other, p.Threads)
		}
		n := 0
		for _, c := range p.States {
			n += c
		}
		if n != p.Threads {
			t.Errorf("pool %s: states add to %d, not %d", p.Prefix, n, p.Threads)
		}
		timed, untimed := 0, 0
		for _, s := range p.ParkSites {
			timed += s.Timed
			untimed += s.Untimed
		}
		if timed != p.IdleTimed || untimed != p.IdleUntimed {
			t.Errorf("pool %s: park sites hold %d timed, %d untimed; roles say %d, %d", p.Prefix, timed, untimed, p.IdleTimed, p.IdleUntimed)
		}
		if p.Daemon > p.Threads || p.StatesInferred > p.Threads {
			t.Errorf("pool %s: %d daemon, %d inferred of %d threads", p.Prefix, p.Daemon, p.StatesInferred, p.Threads)
		}
		if i > 0 && (pools[i-1].Threads < p.Threads || (pools[i-1].Threads == p.Threads && pools[i-1].Prefix >= p.Prefix)) {
			t.Errorf("pools out of order: %s (%d) before %s (%d)", pools[i-1].Prefix, pools[i-1].Threads, p.Prefix, p.Threads)
		}
	}
}

// checkClean fails when d was read with truncation, cut threads or skipped lines.
func checkClean(t *testing.T, d *Dump, skippedOK bool) {
	t.Helper()
	if d.Truncated {
		t.Errorf("%s: reported truncated: %v", d.Name, d.Notes)
	}
	for _, th := range d.Threads {
		if th.Incomplete {
			t.Errorf("%s: thread %q incomplete", d.Name, th.Name)
		}
	}
	if !skippedOK && d.SkippedLines != 0 {
		t.Errorf("%s: %d lines skipped: %v", d.Name, d.SkippedLines, d.Notes)
	}
}
