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
