package conformance

import (
	"math"
	"slices"
	"testing"
)

// jettyCases are the scripts TestCompareJetty runs on Jetty 9.4's QueuedThreadPool (Debian's
// libjetty9-java 9.4.57, reservedThreads 0) and on the simulator's Jetty flavor. As in
// jdkCases, decisive instants are 100 ms apart on a grid offset by 20 ms. The shrink cases keep
// every "now − lastShrink" a thread compares with idleTimeout at least 100 ms away from it,
// or equal to it only when that thread's own start set lastShrink just before its wait began
// (then Java's clock is strictly past it: the model's tie rule, model/jetty.go), so that no
// decision depends on which of two nearly simultaneous clock readings Jetty sees.
func jettyCases() []compareCase {
	return []compareCase{
		{
			// start() makes minThreads 2 threads, idle in poll(idleTimeout): TIMED_WAITING
			// (R101, R103). Jobs 1 and 2 go to the idle threads, the longest waiting first
			// (FIFO, R103); jobs 3 and 4 find no idle thread and each starts one, up to
			// maxThreads 4 (R102); jobs 5 and 6 queue. The first threads to finish take the
			// queued jobs at once (R46); none of them leaves: idleTimeout 5 s.
			name: "growth whenever no thread is idle, FIFO hand-off, queueing at maxThreads (R101 R102 R103)",
			script: Script{
				Pool: Pool{Kind: KindJetty, Core: 2, Max: 4, KeepAliveMs: 5000},
				Submits: []Submit{
					task(1, 120, 700), task(2, 220, 700),
					task(3, 320, 700), task(4, 420, 700),
					task(5, 520, 500), task(6, 620, 500),
				},
				EndMs: 1520,
			},
			expect: func(t *testing.T, m *Simulation) {
				wantWorkers(t, m, []int{1, 2, 3, 4, 5, 6}, []int{1, 2, 3, 4, 1, 2}, "R103 FIFO to idle threads, R102 growth, R46 queue head to the first free")
				if x := simSampleAt(t, m, 50); x.PoolSize != 2 || x.IdleTimed != 2 {
					t.Errorf("at 50 ms: %+v, want minThreads 2 in poll(idleTimeout)", x)
				}
				if x := simSampleAt(t, m, 690); x.PoolSize != 4 || x.QueueLen != 2 {
					t.Errorf("at 690 ms: %+v, want 4 threads (max) and 2 queued", x)
				}
			},
		},
		{
			// minThreads 1, maxThreads 6, idleTimeout 500 ms. Jobs of 1 s at 120, 220, 320,
			// 420 ms grow the pool to 4 threads; the last start sets lastShrink = 420 ms. Thread
			// 1 ends its job at 1120 ms, 700 ms after lastShrink, and leaves at once, without
			// polling (R104, R105: the victim can be a thread that just finished a job);
			// lastShrink = 1120. Threads 2–4 end at 1220, 1320, 1420, find less than 500 ms
			// since then and poll for 500 ms. Thread 2's poll ends at 1720 (600 ms after
			// lastShrink): it leaves. Threads 3 and 4 (1820, 1920) find lastShrink 1720 too
			// recent and poll again; thread 3 leaves at 2320. Thread 4 then is the last above
			// minThreads… and at minThreads nobody leaves. One exit per idleTimeout at most;
			// a ThreadPoolExecutor would have let threads 2–4 die together (R16, R110).
			name: "shrink: at most one thread per idleTimeout, pool-wide; lastShrink set by every start (R104 R105 R110)",
			script: Script{
				Pool: Pool{Kind: KindJetty, Core: 1, Max: 6, KeepAliveMs: 500},
				Submits: []Submit{
					task(1, 120, 1000), task(2, 220, 1000), task(3, 320, 1000), task(4, 420, 1000),
				},
				EndMs: 2720,
			},
			expect: func(t *testing.T, m *Simulation) {
				var exits []float64
				for _, w := range m.Result.Workers {
					if !math.IsNaN(w.ExitedMs) {
						exits = append(exits, w.ExitedMs)
					}
				}
				slices.Sort(exits)
				if want := []float64{1120, 1720, 2320}; !slices.Equal(exits, want) {
					t.Errorf("exits at %v ms, want %v: one per idleTimeout after the last start (R105)", exits, want)
				}
				wantSurvivors(t, m, []int{4}, "threads 1, 2, 3 leave in turn; thread 4 is at minThreads")
			},
		},
		{
			// A job that throws is caught and logged by the Runner; its thread lives on and
			// runs the next job (R108) — no replacement thread, unlike the JDK pool (R17).
			// setMinThreads(2) starts thread 2 at once (R100, R107), which sets lastShrink;
			// setMaxThreads(1) stops nobody but drags minThreads down to 1. Thread 1's poll
			// ends at 820 ms, only 300 ms after lastShrink: it polls again. Thread 2's, begun
			// just after its own start, ends 400 ms = idleTimeout after it — in Java strictly
			// more — and thread 2 leaves (R104); thread 1, alone at minThreads, stays.
			name: "a throwing job keeps its thread; setMinThreads starts one, setMaxThreads stops none (R108 R100 R107 R104)",
			script: Script{
				Pool: Pool{Kind: KindJetty, Core: 1, Max: 2, KeepAliveMs: 400},
				Submits: []Submit{
					failing(1, 120, 100),
					task(2, 320, 100),
				},
				Sets:  []Set{set(520, SetCore(2)), set(620, SetMax(1))},
				EndMs: 1320,
			},
			expect: func(t *testing.T, m *Simulation) {
				wantWorkers(t, m, []int{1, 2}, []int{1, 1}, "R108: the thread survives its job's exception")
				if x := simSampleAt(t, m, 570); x.PoolSize != 2 {
					t.Errorf("at 570 ms: pool %d, want 2 after setMinThreads(2)", x.PoolSize)
				}
				wantSurvivors(t, m, []int{1}, "thread 2 leaves at 920 ms, thread 1 stays at minThreads")
				if w := m.Result.Workers[1]; w.ExitedMs != 920 {
					t.Errorf("thread 2 exited at %g ms, want 920 (its own start set lastShrink, R104)", w.ExitedMs)
				}
			},
		},
	}
}

// TestCompareJettyScriptsAreWellSpaced checks the Jetty scripts on the simulator alone, no JVM
// needed, as TestCompareScriptsAreWellSpaced does for the JDK and Tomcat ones.
func TestCompareJettyScriptsAreWellSpaced(t *testing.T) {
	for _, c := range jettyCases() {
		t.Run(c.name, func(t *testing.T) {
			s := withSamples(c.script)
			m := simulate(t, s)
			checkSpacing(t, s, m)
			c.expect(t, m)
		})
	}
}

// TestCompareJetty holds the simulator's Jetty flavor to Jetty 9.4.57's QueuedThreadPool.
func TestCompareJetty(t *testing.T) {
	Require(t)
	runCases(t, jettyCases())
}
