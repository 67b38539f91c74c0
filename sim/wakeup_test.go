package sim

import (
	"strings"
	"testing"
)

const wakeBase = `duration: 20s
warmup: 2s
sample: 1s
pool: {preset: tomcat, core: 10, max: 200, keepAlive: 1s}
workload:
  phases:
    - {duration: 1s, arrivals: {process: burst, count: 200}, service: {dist: constant, value: 300ms}}
    - {arrivals: {process: poisson, rate: 200}, service: {dist: constant, value: 2ms}}
`

// TestWakeupOffIsIdeal: host.wakeup: 0 is the ideal model byte for byte;
// the calibrated timing repeats byte for byte with the same seed, shrinks
// the FIFO plateau (R113) and reports what it did.
func TestWakeupOffIsIdeal(t *testing.T) {
	ideal := runAll(t, parse(t, wakeBase), true)
	off := runAll(t, parse(t, wakeBase+"host: {wakeup: 0}\n"), true)
	if ideal.summary != off.summary || ideal.timeline != off.timeline {
		t.Fatal("host.wakeup: 0 changed the outputs")
	}
	a := runAll(t, parse(t, wakeBase+"host: {wakeup: calibrated}\n"), true)
	b := runAll(t, parse(t, wakeBase+"host: {wakeup: calibrated}\n"), true)
	if a.summary != b.summary || a.timeline != b.timeline {
		t.Fatal("the same seed gave different outputs with the hand-off timing")
	}
	w := a.res.Summary.Wakeup
	if w == nil || w.Signals == 0 || w.Missed == 0 || !w.Calibrated {
		t.Fatalf("wakeup summary %+v", w)
	}
	if got, want := a.res.Summary.FinalPoolSize, ideal.res.Summary.FinalPoolSize; got >= want {
		t.Errorf("with the hand-off timing the pool ends at %d, ideal %d: want fewer (R113)", got, want)
	}
}

// TestWakeupPauses: a stop-the-world pause holds the arrivals back; they
// come together when it ends, and a FIFO pool grows for them.
func TestWakeupPauses(t *testing.T) {
	y := `duration: 10s
sample: 100ms
pool: {core: 2, max: 50, queue: {type: synchronous}, keepAlive: 1m}
workload:
  arrivals: {process: constant, rate: 200}
  service: {dist: constant, value: 2ms}
host:
  wakeup:
    latency: 0s
    pauses: {every: 3s, duration: 200ms}
`
	o := runAll(t, parse(t, y), true)
	w := o.res.Summary.Wakeup
	if w.Pauses != 3 || float64(w.Paused) < 0.59 || float64(w.Paused) > 0.61 {
		t.Errorf("pauses %d for %vs, want 3 for 0.6s (at 3, 6.2 and 9.4s)", w.Pauses, w.Paused)
	}
	// 40 arrivals held for 200 ms come at once: 40 threads where 2 sufficed.
	if l := o.res.Summary.LargestPoolSize; l < 35 {
		t.Errorf("largest pool %d: the held-back arrivals did not come together", l)
	}
	calm := runAll(t, parse(t, strings.Replace(y, "pauses: {every: 3s, duration: 200ms}", "overrun: 0s", 1)), true)
	if l := calm.res.Summary.LargestPoolSize; l > 3 {
		t.Errorf("largest pool without pauses %d, want at most 3", l)
	}
}

// TestWakeupWithSteps: tasks with service steps (a connection pool) and
// a SynchronousQueue's matched workers run under the hand-off timing with
// the model's invariants held after every event.
func TestWakeupWithSteps(t *testing.T) {
	y := `duration: 20s
sample: 1s
pool: {core: 2, max: 8, queue: {type: synchronous}}
resources:
  db: {type: hikari, maximumPoolSize: 4}
workload:
  arrivals: {process: poisson, rate: 150}
  service: {steps: [{compute: {dist: exponential, mean: 2ms}}, {hold: db, for: {dist: exponential, mean: 10ms}}]}
host: {wakeup: calibrated}
`
	o := runAll(t, parse(t, y), true)
	w := o.res.Summary.Wakeup
	if w.Handoffs == 0 || o.res.Summary.Completed == 0 {
		t.Errorf("no SynchronousQueue hand-offs or no completions: %+v", w)
	}
}
