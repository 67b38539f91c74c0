package sim

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/poolsim/poolsim/workloads"
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

// arrivalsOf is a workload of given arrivals.
type arrivalsOf []workloads.Arrival

func (a *arrivalsOf) Next() (workloads.Arrival, bool) {
	if len(*a) == 0 {
		return workloads.Arrival{}, false
	}
	x := (*a)[0]
	*a = (*a)[1:]
	return x, true
}
func (a *arrivalsOf) Err() error   { return nil }
func (a *arrivalsOf) Close() error { return nil }

// TestWakeupRaceWindow: R113 with a race window. Two workers on a LinkedBlockingQueue: worker 1
// runs a 10 ms task, worker 2 is parked when task B is offered 30 µs before worker 1's end. The
// latency is 100 µs. With a race window of 20 µs worker 2 has the lock before worker 1 is back:
// B is worker 2's and starts 100 µs after the offer. With a window of 50 µs — or none given,
// when the window is the whole latency — worker 1 is back first and takes B at its end, and
// worker 2 finds the queue empty (a hand-off missed).
func TestWakeupRaceWindow(t *testing.T) {
	us := time.Microsecond
	offer := 10*time.Millisecond - 30*us
	for _, c := range []struct {
		race         string
		worker       int
		start        time.Duration
		missed       int64
		raceInReport bool
	}{
		{"race: 20us", 2, offer + 100*us, 0, true},
		{"race: 50us", 1, 10 * time.Millisecond, 1, true},
		{"", 1, 10 * time.Millisecond, 1, false},
	} {
		sc := parse(t, fmt.Sprintf(`duration: 1s
pool: {core: 2, max: 2, queue: {type: linked}}
workload: {arrivals: {process: constant, rate: 1}, service: {dist: constant, value: 1ms}}
host:
  wakeup: {latency: 100us, %s}
`, c.race))
		src := arrivalsOf{{At: 0, Service: 10 * time.Millisecond}, {At: time.Millisecond, Service: us}, {At: offer, Service: time.Millisecond}}
		var worker int
		var start time.Duration
		res, err := Run(context.Background(), sc, Options{Workload: &src, CheckInvariants: true, OnTask: func(e TaskEvent) {
			if e.TaskID == 3 && !e.End {
				worker, start = e.Worker, e.T
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		w := res.Summary.Wakeup
		if worker != c.worker || start != c.start || w.Missed != c.missed || (w.Race != "") != c.raceInReport {
			t.Errorf("%q: task B on worker %d from %v, %d hand-offs missed, race %q; want worker %d from %v, %d missed",
				c.race, worker, start, w.Missed, w.Race, c.worker, c.start, c.missed)
		}
	}
}

// raceBase is the conformance cases' Tomcat pool (TestHandOffTiming): grown to 300 by a burst,
// then 400 tasks/s of 2 ms, keepAlive 1 s: ideally it keeps 300 workers.
const raceBase = `duration: 10s
sample: 250ms
pool: {preset: tomcat, core: 10, max: 300, keepAlive: 1s}
workload:
  phases:
    - {duration: 600ms, arrivals: {process: burst, count: 300}, service: {dist: constant, value: 500ms}}
    - {arrivals: {process: poisson, rate: 400/s}, service: {dist: constant, value: 2ms}}
`

// TestWakeupRaceSameAsLatency: a race law equal to the latency law is the model without one,
// draw for draw (both are drawn at one uniform of the same stream), on a FIFO plateau whose
// hand-offs are missed by the hundred; a narrower window misses fewer, and the plateau stays
// nearer the ideal 300 (R113), which a window of 0 keeps exactly.
func TestWakeupRaceSameAsLatency(t *testing.T) {
	law := "{dist: quantiles, points: [[0, 10us], [0.5, 40us], [0.9, 90us], [0.99, 600us], [1, 8ms]]}"
	with := func(race string) outputs {
		return runAll(t, parse(t, raceBase+"host: {wakeup: {latency: "+law+race+", overrun: 100us}}\n"), true)
	}
	a, b := with(""), with(", race: "+law)
	wa, wb := a.res.Summary.Wakeup, b.res.Summary.Wakeup
	if a.timeline != b.timeline || wa.Missed != wb.Missed || wa.Signals != wb.Signals || wa.Missed < 100 {
		t.Errorf("race = latency: %d signals, %d missed; without a race law %d, %d; timelines equal: %v",
			wb.Signals, wb.Missed, wa.Signals, wa.Missed, a.timeline == b.timeline)
	}
	narrow, none := with(", race: 5us"), with(", race: 0s")
	if wn := narrow.res.Summary.Wakeup; wn.Missed >= wa.Missed/4 || narrow.res.Summary.FinalPoolSize <= a.res.Summary.FinalPoolSize {
		t.Errorf("race 5us: %d missed, pool %d at the end; the latency as the window: %d, %d", wn.Missed, narrow.res.Summary.FinalPoolSize, wa.Missed, a.res.Summary.FinalPoolSize)
	}
	if w := none.res.Summary.Wakeup; w.Missed != 0 || none.res.Summary.FinalPoolSize != 300 {
		t.Errorf("race 0: %d missed, pool %d at the end; want 0 and 300", w.Missed, none.res.Summary.FinalPoolSize)
	}
}

// TestWakeupWaitsForThreadStart: a prestarted thread whose Thread.start() has not completed
// (host.threadStart 1 ms each: the two core threads are up at 1 and 2 ms) runs nothing before
// it has, whatever wakes it. A task offered at 10 µs to a LinkedBlockingQueue goes to the first
// waiter (signalled: latency 100 µs, with or without a race window) and starts at 1 ms; to a
// non-fair SynchronousQueue, to the last (matched, R117), and starts at 2 ms.
func TestWakeupWaitsForThreadStart(t *testing.T) {
	for _, q := range []string{"linked", "synchronous"} {
		for _, race := range []string{"", ", race: 20us", ", race: 100us", ", race: 2ms"} {
			if q == "synchronous" && race != "" {
				continue // a matched worker's task is never raced (R120)
			}
			sc := parse(t, fmt.Sprintf(`duration: 1s
pool: {core: 2, max: 4, queue: {type: %s}, prestart: true}
workload: {arrivals: {process: constant, rate: 1}, service: {dist: constant, value: 1ms}}
host: {threadStart: 1ms, wakeup: {latency: 100us%s}}
`, q, race))
			src := arrivalsOf{{At: 10 * time.Microsecond, Service: time.Millisecond}}
			var start time.Duration
			if _, err := Run(context.Background(), sc, Options{Workload: &src, CheckInvariants: true, OnTask: func(e TaskEvent) {
				if !e.End {
					start = e.T
				}
			}}); err != nil {
				t.Fatal(err)
			}
			want := time.Millisecond
			if q == "synchronous" {
				want = 2 * time.Millisecond
			}
			if race == ", race: 2ms" {
				want = 10*time.Microsecond + 2*time.Millisecond // the worker has the lock 2 ms after the signal
			}
			if start != want {
				t.Errorf("%s%s: the task started at %v, want %v", q, race, start, want)
			}
		}
	}
}
