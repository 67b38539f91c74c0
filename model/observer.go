package model

import "time"

// Observer receives everything the model wants the world to know or do. The
// event loop implements it: it schedules a completion for every TaskStarted
// and a keepAlive timer for every KeepAliveArmed, and records the rest.
// Calls happen synchronously inside the model's entry points; an Observer
// must not call back into the Pool.
type Observer interface {
	// WorkerChanged reports every worker state change, made in one place
	// (Pool.setState). from is Starting when the thread starts, to is Exited
	// when it ends.
	WorkerChanged(now time.Duration, w *Worker, from, to State)
	// TaskStarted reports that w begins running t (w is Running). The
	// event loop must call Pool.TaskDone(w) at now+t.Service. t is valid
	// only during the call.
	TaskStarted(now time.Duration, w *Worker, t *Task)
	// KeepAliveArmed reports that w waits in poll(keepAlive) until
	// w.Deadline(). The event loop must call Pool.KeepAliveExpired(w) at
	// that deadline; if the wait ends earlier the call is a no-op, so the
	// timer need not be cancelled.
	KeepAliveArmed(now time.Duration, w *Worker)
	// Rejected reports that the RejectedExecutionHandler was invoked for t
	// (R32–R36). What became of t follows as CallerRuns, Lost or a retry.
	Rejected(now time.Duration, t *Task)
	// CallerRuns reports that CallerRunsPolicy runs t on the submitting
	// thread, which is busy until now+t.Service (R33, M4).
	CallerRuns(now time.Duration, t *Task)
	// Lost reports that t will never run, and why.
	Lost(now time.Duration, t *Task, why Outcome)
	// RunStateChanged reports every run-state transition (R1).
	RunStateChanged(now time.Duration, from, to RunState)
}

// NopObserver ignores every report. Embed it to implement only some methods.
type NopObserver struct{}

func (NopObserver) WorkerChanged(time.Duration, *Worker, State, State) {}
func (NopObserver) TaskStarted(time.Duration, *Worker, *Task)          {}
func (NopObserver) KeepAliveArmed(time.Duration, *Worker)              {}
func (NopObserver) Rejected(time.Duration, *Task)                      {}
func (NopObserver) CallerRuns(time.Duration, *Task)                    {}
func (NopObserver) Lost(time.Duration, *Task, Outcome)                 {}
func (NopObserver) RunStateChanged(time.Duration, RunState, RunState)  {}

// PeriodicEnd says why a periodic series stopped.
type PeriodicEnd uint8

const (
	// EndedByException: a run threw; the future keeps the exception and no
	// further run is scheduled (R96).
	EndedByException PeriodicEnd = iota
	// EndedByShutdown: shutdown cancelled the series, or a run ended after
	// shutdown and was not re-queued (R98).
	EndedByShutdown
	// EndedByDrain: shutdownNow returned the queued run unrun (R28, R98);
	// its future is not cancelled.
	EndedByDrain
	// EndedByCancel: future.cancel(false) cancelled it, queued or running
	// (R97).
	EndedByCancel
)

func (e PeriodicEnd) String() string {
	switch e {
	case EndedByException:
		return "exception"
	case EndedByDrain:
		return "drained"
	case EndedByCancel:
		return "cancel"
	}
	return "shutdown"
}

// ScheduleObserver is an Observer that also hears of the periodic tasks of
// a ScheduledThreadPoolExecutor. The pool checks whether its Observer
// implements it; one that does not sees every run of a series with the
// first run's service time.
type ScheduleObserver interface {
	Observer
	// Rescheduled reports that periodic task t ended a run and is queued
	// again, due at t.Arrival (R94, R95); t.Run is the coming run's number.
	// The model cannot draw what that run will take: the observer sets
	// t.Service and t.Fails for it, and may give it a new t.ID. t is valid
	// only during the call.
	Rescheduled(now time.Duration, t *Task)
	// PeriodicEnded reports that the series of t will not run again (R96,
	// R98): its last run threw, or ended after shutdown; or shutdown
	// cancelled, or shutdownNow drained, its queued run (reported Lost just
	// before), or Pool.Cancel cancelled it, queued or running. A one-shot
	// task with Task.Periodic set is reported too when shutdown cancels or
	// drains it, or Pool.Cancel cancels it.
	PeriodicEnded(now time.Duration, t *Task, why PeriodicEnd)
	// SkippedCancelled reports that w took t, a task whose future was
	// cancelled, from the queue when it was due, and that its run returned
	// at once (R97): no service time, no next run, one more completed
	// task for w (getCompletedTaskCount counts it). t is valid only during
	// the call.
	SkippedCancelled(now time.Duration, w *Worker, t *Task)
}
