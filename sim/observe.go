package sim

import (
	"time"

	"github.com/poolsim/poolsim/model"
)

// listener is the Engine as the model's Observer: the one stream of model
// events. For each event the engine first does what the event asks of an
// event loop (a completion to schedule, a timer to arm, a host to account,
// a periodic run to draw), the recorder counts it, and then every
// subscribed observer hears it. The events of the engine's own calls —
// Submitted, ScheduleCalled, Finished — enter the same stream from report.
//
// The listener is a model.Notifier: the events of every task's path come
// as OnStarted, OnWorkerChanged and OnTimerArmed, and their Event is built
// only when an observer is subscribed; the others come through Observe.
type listener Engine

// OnStarted handles Started: w begins t.
func (l *listener) OnStarted(at time.Duration, w *model.Worker, t *model.Task, handoff bool) {
	e := (*Engine)(l)
	if handoff && e.wk != nil {
		e.handedOff(at, w)
	}
	if e.hostTasks || t.Periodic != 0 || t.Program != 0 {
		e.taskStarted(at, w, t)
	} else {
		// The common case, kept inline: the task ends after its service.
		e.h.push(at+t.Service, phaseCompletion, w)
		e.lastStart = at
		e.rec.onStart(at, at, t)
	}
	if len(e.observers) > 0 {
		e.ev = model.StartedEvent(at, w, t, handoff)
		e.fanOut(&e.ev)
	}
}

// OnWorkerChanged handles WorkerChanged: w went from state from to to.
func (l *listener) OnWorkerChanged(at time.Duration, w *model.Worker, from, to model.State) {
	e := (*Engine)(l)
	e.rec.moved(from, to)
	if from != model.Running || to == model.Exited {
		e.workerChanged(at, w, from, to)
	}
	if len(e.observers) > 0 {
		e.ev = model.WorkerChangedEvent(at, w, from, to)
		e.fanOut(&e.ev)
	}
}

// OnTimerArmed handles TimerArmed: w waits timed until its deadline.
func (l *listener) OnTimerArmed(at time.Duration, w *model.Worker) {
	e := (*Engine)(l)
	if d, ws := w.Deadline(), &e.ws[w.Slot()]; ws.timer == 0 || ws.timer > d {
		e.armTimer(w, d)
	}
	if len(e.observers) > 0 {
		e.ev = model.TimerArmedEvent(at, w)
		e.fanOut(&e.ev)
	}
}

// Observe handles the model events other than the three of OnStarted,
// OnWorkerChanged and OnTimerArmed.
func (l *listener) Observe(ev *model.Event) {
	e := (*Engine)(l)
	switch ev.Kind {
	case model.Rejected:
		e.rejected(ev.At, ev.Task)
		if e.wk != nil {
			e.rejectedWhileIdle(ev.At)
		}
	case model.Signalled:
		e.signalled(ev.At, ev.Worker)
	case model.HandOffMissed:
		e.wk.missed++
	case model.CallerRan:
		e.callerRan(ev.At, ev.Task)
	case model.Lost:
		e.lost(ev.At, ev.Task, ev.Outcome)
	case model.RunStateChanged:
		e.rec.runStateChanged(ev.At, ev.RunTo)
	case model.Reconfigured:
		e.rec.applied = append(e.rec.applied, AppliedEvent{At: ev.At, What: ev.Change.String()})
	case model.Rescheduled:
		e.rescheduled(ev.Task)
	case model.PeriodicEnded:
		e.periodicEnded(ev.At, ev.Task, ev.End)
	case model.SkippedCancelled:
		e.skippedCancelled(ev.At, ev.Task)
	}
	if len(e.observers) > 0 {
		e.fanOut(ev)
	}
}

// report puts an event of the engine's own calls into the stream: the
// recorder has counted it; the subscribed observers hear it.
// Callers check len(e.observers) first: the common run has none.
func (e *Engine) report(kind model.EventKind, w *model.Worker, t model.Task) {
	e.evTask = t
	e.ev = model.Event{Kind: kind, At: e.now, Worker: w, Task: &e.evTask}
	e.fanOut(&e.ev)
}

// taskDone ends w's task at now — with an error if failed (a resource
// refused it): the recorder, the stream (Finished) and its caller hear of
// it, then the model (TaskDone).
func (e *Engine) taskDone(now time.Duration, w *model.Worker, failed bool) {
	e.rec.onComplete(now, w)
	if len(e.observers) > 0 {
		e.reportFinished(w)
	}
	if e.cl != nil {
		e.answered(now, w, failed)
	}
	e.pool.TaskDone(now, w)
}

// reportFinished puts the end of w's task into the stream.
func (e *Engine) reportFinished(w *model.Worker) {
	t, _ := w.Task()
	e.report(model.Finished, w, t)
}

// fanOut passes ev on to the subscribed observers.
func (e *Engine) fanOut(ev *model.Event) {
	for _, o := range e.observers {
		o.Observe(ev)
	}
}

// workerChanged keeps what the recorder learns from a worker's change
// besides the counts by state (Observe keeps those): the pool's size, the
// idle gaps — from a worker becoming idle to its next task, or to its exit
// while idle — and, for a new thread, its place in the engine's per-worker
// state and, on a host with a thread start cost, its start on the caller's
// clock. A running worker that parks needs none of it.
func (e *Engine) workerChanged(now time.Duration, w *model.Worker, from, to model.State) {
	rec := e.rec
	switch {
	case from == model.Starting:
		rec.threadsCreated++
		e.newWorkerState(w)
		if ts := e.threadStart; ts > 0 {
			// Thread.start() takes the caller's time; the thread runs
			// nothing before it returns (host.go). Each event is one
			// caller's call into the model: its clock starts at the event.
			if e.callerEvent != e.events {
				e.callerEvent, e.callerClock = e.events, e.now
			}
			e.callerClock += ts
			e.ws[w.Slot()].ready = e.callerClock
			rec.threadStartTotal += ts
		}
	case from != model.Running && rec.steady(now): // idle
		switch to {
		case model.Running:
			gap := now - w.IdleSince()
			rec.nGap++
			rec.gapSum += float64(gap)
			if gap > rec.gapMax {
				rec.gapMax = gap
			}
		case model.Exited:
			rec.nIdleExit++
		}
	}
	if to == model.Exited {
		rec.threadsExited++
		for _, r := range e.res {
			r.ThreadEnded(thread(w))
		}
		e.retire(w)
	}
}

// newWorkerState clears the state kept for w's slot.
func (e *Engine) newWorkerState(w *model.Worker) {
	s := w.Slot()
	for len(e.ws) <= s {
		e.ws = append(e.ws, workerState{})
	}
	e.ws[s] = workerState{}
}

// taskStarted schedules the end of t, just handed to w at now — on the
// host, when w's thread is up and through the CPUs — and records its wait.
func (e *Engine) taskStarted(now time.Duration, w *model.Worker, t *model.Task) {
	start := now
	switch {
	case t.Program != 0:
		// Its steps begin now: a host with a thread start cost or CPUs
		// is refused with steps, and a wake-up latency does not delay
		// them (sim/wakeup.go).
	case e.hostTasks:
		start = e.hostStart(now, w, t)
	default:
		e.h.push(now+t.Service, phaseCompletion, w)
	}
	e.lastStart = start
	if t.Periodic != 0 {
		e.periodicStarted(start, t)
	}
	e.rec.onStart(now, start, t)
	if t.Program != 0 {
		e.startProgram(now, w, t) // its first step, after its wait is recorded
	}
}

// taskBegins is when the task of a Started event begins on the host.
func (e *Engine) taskBegins(*model.Event) time.Duration { return e.lastStart }

func (e *Engine) rejected(now time.Duration, t *model.Task) {
	if t.Periodic != 0 {
		e.periodic[t.Periodic-1].rejected = true
	}
	rec := e.rec
	rec.rejected++
	if e.pool.RunState() >= model.PoolShutdown {
		rec.rejectedAfterShutdown++
	}
	if !rec.haveRejection {
		rec.haveRejection, rec.firstRejection = true, now
	}
}

// callerStart is when the submitting thread can run a task refused at now:
// after any thread it started in this execute.
func (e *Engine) callerStart(now time.Duration) time.Duration {
	if e.callerEvent == e.events {
		return max(now, e.callerClock)
	}
	return now
}

// callerRan: CallerRunsPolicy runs t on the submitter, which is busy until
// it ends.
func (e *Engine) callerRan(now time.Duration, t *model.Task) {
	rec := e.rec
	end := e.callerStart(now) + t.Service
	rec.callerRan++
	rec.callerBusy += t.Service
	if t.Fails {
		rec.failed++
	}
	if end > e.submitterFree {
		e.submitterFree = end
	}
	rec.callerLastEnd = max(rec.callerLastEnd, end)
}

func (e *Engine) lost(now time.Duration, t *model.Task, why model.Outcome) {
	rec := e.rec
	if t.Program != 0 {
		e.freeProgram(t.Program)
	}
	rec.discarded++
	rec.lost[why]++
	if e.cl != nil {
		e.notAnswered(now, t, why)
	}
	switch why {
	case model.RemovedAfterCancel:
		e.removedAfterCancel(now, t)
	case model.ThreadStartFailed:
		e.lim.refuse(now, t.Service, e.sc.Duration)
		if !rec.haveThreadFailure {
			rec.haveThreadFailure, rec.firstThreadFailure = true, now
		}
	}
}
