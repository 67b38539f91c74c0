package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/poolsim/poolsim/model"
	"github.com/poolsim/poolsim/scenarios"
	"github.com/poolsim/poolsim/workloads"
)

// The host's hand-off timing (host.wakeup, scenarios.Wakeup, spec §12).
// The model, with Config.Wakeup, reports a condition queue's signalled
// waiter (Signalled) and a SynchronousQueue's matched worker (Started with
// Handoff); the engine draws each one's wake-up latency L from the
// "wakeup" stream and calls Woken L later (phase wake), or starts the
// matched worker's task L later (workerState.ready, the path a starting
// thread's first task takes). Every task's end is noticed late by an
// overrun drawn from "overrun". Stop-the-world pauses, drawn from
// "pause-every" and "pause-length", hold back the arrivals, the task ends
// and the wake-ups that fall inside them until they end, when they happen
// together in their phase order; timers (keepAlive, a resource's, a
// caller's) and samples keep their times, a simplification a pause of tens
// of milliseconds against timeouts of seconds hardly shows. A task with
// service steps (resources) starts its steps at once and has no overrun:
// its waits for resources are where its time goes.

// wakeState is the hand-off timing of one run.
type wakeState struct {
	spec    scenarios.Wakeup
	latency workloads.Distribution
	// race, with a race law, is it; lat is latency's quantile function
	// and u the "wakeup" stream the two are drawn at (nil: no race law,
	// latency draws alone, from the same stream).
	race, lat workloads.Quantiler
	u         *rand.Rand
	overrun   workloads.Distribution // nil: none
	// every and length draw the pauses (nil: none); the current or next
	// pause is [pauseAt, pauseEnd).
	every, length     workloads.Distribution
	pauseAt, pauseEnd time.Duration

	// Counts over the run.
	signals, missed, handoffs, idleRejections int64
	pauses                                    int64
	paused                                    time.Duration
}

func newWake(sc *scenarios.Scenario) (*wakeState, error) {
	spec := *sc.Host.Wakeup
	w := &wakeState{spec: spec}
	var err error
	if w.latency, err = workloads.NewDistribution(spec.Latency, workloads.NewStream(sc.Seed, "wakeup")); err != nil {
		return nil, prefix(err, "wakeup.latency.")
	}
	if spec.Race != nil {
		r, err := workloads.NewDistribution(*spec.Race, workloads.NewStream(sc.Seed, "wakeup-race"))
		if err != nil {
			return nil, prefix(err, "wakeup.race.")
		}
		var ok1, ok2 bool
		w.race, ok1 = r.(workloads.Quantiler)
		w.lat, ok2 = w.latency.(workloads.Quantiler)
		if !ok1 || !ok2 {
			return nil, prefix(fmt.Errorf("a law without a quantile function"), "wakeup.race: ")
		}
		w.u = rand.New(workloads.NewStream(sc.Seed, "wakeup"))
	}
	if spec.Overrun != nil {
		if w.overrun, err = workloads.NewDistribution(*spec.Overrun, workloads.NewStream(sc.Seed, "overrun")); err != nil {
			return nil, prefix(err, "wakeup.overrun.")
		}
	}
	if p := spec.Pauses; p != nil {
		if w.every, err = workloads.NewDistribution(p.Every, workloads.NewStream(sc.Seed, "pause-every")); err != nil {
			return nil, prefix(err, "wakeup.pauses.every.")
		}
		if w.length, err = workloads.NewDistribution(p.Duration, workloads.NewStream(sc.Seed, "pause-length")); err != nil {
			return nil, prefix(err, "wakeup.pauses.duration.")
		}
		w.pauseAt = w.every.Sample()
		w.pauseEnd = w.pauseAt + w.length.Sample()
	}
	return w, nil
}

// pausedUntil moves the pauses on to t and returns when the pause that
// covers t ends (0: none covers it). Pauses that have passed are counted.
func (w *wakeState) pausedUntil(t time.Duration) time.Duration {
	for w.pauseEnd <= t {
		w.pauses++
		w.paused += w.pauseEnd - w.pauseAt
		w.pauseAt = w.pauseEnd + w.every.Sample()
		w.pauseEnd = w.pauseAt + w.length.Sample()
	}
	if t >= w.pauseAt {
		return w.pauseEnd
	}
	return 0
}

// paused holds back ev if a pause covers it: the arrival, task end or
// wake-up happens when the pause ends. It reports whether it did, and
// otherwise returns ev as it happens: an arrival that was due during a
// pause that has ended comes now, after those held before it.
func (e *Engine) paused(ev event) (event, bool) {
	switch ev.phase {
	case phaseCompletion, phaseWake, phaseArrival:
	default:
		return ev, false
	}
	ev.at = max(ev.at, e.now)
	end := e.wk.pausedUntil(ev.at)
	if end == 0 {
		return ev, false
	}
	if ev.phase == phaseArrival {
		e.due[phaseArrival] = end // the same arrival, submitted at the end
	} else {
		e.h.push(end, ev.phase, ev.w)
	}
	return ev, true
}

// draw draws a wake-up: the latency L until the woken thread runs its
// task, and the race window R until it has the queue's lock (R = L
// without a race law).
func (w *wakeState) draw() (lat, race time.Duration) {
	if w.race == nil {
		l := w.latency.Sample()
		return l, l
	}
	u := w.u.Float64()
	return w.lat.Quantile(u), w.race.Quantile(u)
}

// handedOff: the model matched w, parked in a SynchronousQueue, with a
// task at now; w runs it once awake. No other thread can take a matched
// worker's task (R120): only the latency counts.
func (e *Engine) handedOff(now time.Duration, w *model.Worker) {
	e.wk.handoffs++
	lat, _ := e.wk.draw()
	ws := &e.ws[w.Slot()]
	ws.ready = max(ws.ready, now+lat) // a thread still starting wakes no sooner
}

// signalled: the queue signalled w at now; it acts once it has the
// queue's lock (R after now), and a task it takes then starts once it is
// awake (max(L, R) after now).
func (e *Engine) signalled(now time.Duration, w *model.Worker) {
	e.wk.signals++
	lat, race := e.wk.draw()
	if e.wk.race != nil {
		e.ws[w.Slot()].woke = now + max(lat, race)
	}
	e.h.push(now+race, phaseWake, w)
}

// woken: w, signalled, has the queue's lock at now. Unless it took a task,
// the start it was given at the signal is void (it waits again, R113).
func (e *Engine) woken(now time.Duration, w *model.Worker) {
	slot := w.Slot() // before the call: w may exit in it
	e.pool.Woken(now, w)
	if e.wk.race != nil && w.State() != model.Running {
		e.ws[slot].woke = 0
	}
}

// overrun is how late the end of a task starting now is noticed.
func (e *Engine) overrun() time.Duration {
	if e.wk == nil || e.wk.overrun == nil {
		return 0
	}
	return e.wk.overrun.Sample()
}

// rejectedWhileIdle counts a rejection at now while some worker was not
// running a task body: parked, signalled and waking, or matched and not
// yet awake — what ThreadPoolExecutor.getActiveCount() would show as idle
// at that instant (R119).
func (e *Engine) rejectedWhileIdle(now time.Duration) {
	if e.pool.RunState() >= model.PoolShutdown {
		return
	}
	idle := e.pool.Count(model.IdleTimed)+e.pool.Count(model.IdleUntimed) > 0
	if !idle {
		e.pool.Workers(func(w *model.Worker) {
			if ws := &e.ws[w.Slot()]; w.State() == model.Running && max(ws.ready, ws.woke) > now {
				idle = true
			}
		})
	}
	if idle {
		e.wk.idleRejections++
	}
}

// WakeupSummary is what the hand-off timing did (summary.json "wakeup",
// present with host.wakeup).
type WakeupSummary struct {
	// Latency and Overrun describe the laws (Calibrated: the project's
	// measured ones), with their means.
	Calibrated  bool   `json:"calibrated"`
	Latency     string `json:"latency"`
	LatencyMean Stat   `json:"latency_mean_s"`
	Overrun     string `json:"overrun,omitempty"`
	OverrunMean Stat   `json:"overrun_mean_s"`
	// Race is the race window's law (host.wakeup.race), with its mean.
	Race     string `json:"race,omitempty"`
	RaceMean Stat   `json:"race_mean_s,omitempty"`
	// Signals are condition-queue wake-ups; Missed those whose worker woke
	// to an empty queue (a returning worker took the task, R113); Handoffs
	// SynchronousQueue matches started late (R119).
	Signals  int64 `json:"signals"`
	Missed   int64 `json:"handoffs_missed"`
	Handoffs int64 `json:"sync_handoffs"`
	// IdleRejections were rejections while some worker was not running a
	// task (parked, waking, or matched and not yet awake).
	IdleRejections int64 `json:"rejected_while_idle"`
	// Pauses: stop-the-world pauses that began in the run, and their total.
	Pauses int64 `json:"pauses"`
	Paused Stat  `json:"paused_s"`
}

func (e *Engine) wakeupSummary() *WakeupSummary {
	w := e.wk
	s := &WakeupSummary{Calibrated: w.spec.Calibrated, Latency: w.latency.String(), LatencyMean: Stat(w.latency.Mean()),
		OverrunMean: Stat(math.NaN()), Signals: w.signals, Missed: w.missed, Handoffs: w.handoffs,
		IdleRejections: w.idleRejections, Paused: Stat(math.NaN())}
	if w.overrun != nil {
		s.Overrun, s.OverrunMean = w.overrun.String(), Stat(w.overrun.Mean())
	}
	if r, ok := w.race.(workloads.Distribution); ok {
		s.Race, s.RaceMean = r.String(), Stat(r.Mean())
	}
	if w.every != nil {
		w.pausedUntil(e.now) // count the pauses up to the end
		n, d := w.pauses, w.paused
		if w.pauseAt < e.now { // one under way at the end
			n++
			d += e.now - w.pauseAt
		}
		s.Pauses, s.Paused = n, Stat(d.Seconds())
	}
	return s
}
