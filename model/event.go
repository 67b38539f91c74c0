package model

import (
	"fmt"
	"time"
)

// EventKind says what an Event reports.
type EventKind uint8

const (
	// Submitted: execute(task) was called with Task (every family's
	// Execute; a ScheduledThreadPoolExecutor's is schedule(task, 0)). The
	// event loop that makes the call reports it (sim.Engine's stream); the
	// model does not echo its caller's calls.
	Submitted EventKind = iota + 1
	// ScheduleCalled: a ScheduledThreadPoolExecutor's schedule,
	// scheduleAtFixedRate or scheduleWithFixedDelay was called with Task, its
	// first run (R89, R94, R95). Reported by the event loop, as Submitted.
	ScheduleCalled
	// Started: Worker begins running Task (Worker is Running). The driver
	// must call TaskDone(Worker) when Task.Service has passed.
	Started
	// Finished: Worker's task ended (Task; Task.Fails: it threw): the
	// event loop reports it just before it calls TaskDone, as Submitted.
	// What the worker does next follows as the model's events.
	Finished
	// Rejected: the RejectedExecutionHandler was invoked for Task (R32–R36;
	// Jetty: execute threw). What became of Task follows as CallerRan, Lost
	// or a retry.
	Rejected
	// CallerRan: CallerRunsPolicy runs Task on the submitting thread, which
	// is busy for Task.Service (R33, M4).
	CallerRan
	// Lost: Task will never run; Outcome says why.
	Lost
	// WorkerChanged: Worker went from state From to To, in the one place a
	// worker's state changes. From is Starting when the thread is created,
	// To is Exited when it ends; Running → idle is a worker parking,
	// idle → Running a worker woken with a task.
	WorkerChanged
	// TimerArmed: Worker waits timed until Worker.Deadline() (a
	// poll(keepAlive), a DelayedWorkQueue leader's awaitNanos, Jetty's
	// poll(idleTimeout)). The driver must call TimedWaitExpired(Worker) at
	// that deadline; if the wait ends earlier the call is a no-op, so the
	// timer need not be cancelled.
	TimerArmed
	// RunStateChanged: the run state went from RunFrom to RunTo (R1).
	RunStateChanged
	// Reconfigured: Apply applied Change (the setters, a shutdown).
	Reconfigured
	// Rescheduled: a ScheduledThreadPoolExecutor queued Task, the next run
	// of a periodic series, due at Task.Arrival (R94, R95); Task.Run is its
	// number. The model cannot draw what that run takes: the observer sets
	// Task.Service and Task.Fails, and may give it a new Task.ID, during
	// the call.
	Rescheduled
	// PeriodicEnded: the series of Task will not run again, and End says
	// why (R96, R97, R98). A one-shot task with Task.Periodic set is
	// reported too when shutdown cancels or drains it or its future is
	// cancelled.
	PeriodicEnded
	// SkippedCancelled: Worker took Task, whose future was cancelled, from
	// the queue when it was due, and its run returned at once (R97): no
	// service time, no next run, one more completed task for Worker.
	SkippedCancelled

	// The events of a Resource (resource.go): Res says which resource,
	// which borrower and which unit.

	// ResourceGranted: Res.Borrower now holds a unit (Res.Unit: the
	// connection's number, for a HikariPool).
	ResourceGranted
	// ResourceWaiting: Res.Borrower waits for a unit until Res.Deadline
	// (Forever: no limit). The event loop must call WaitExpired at the
	// deadline; it is a no-op if the wait has ended.
	ResourceWaiting
	// ResourceTimedOut: Res.Borrower's acquisition failed: its wait timed
	// out, or it could not wait (HikariCP's
	// SQLTransientConnectionException, tryAcquire returning false).
	ResourceTimedOut
	// ResourceTimer: the resource asks to be called back (TimerFired with
	// Res.Timer) at Res.Deadline.
	ResourceTimer
	// ConnectionCreating: a HikariPool starts to open a connection; the
	// event loop fills in Res.Draw (its connect time, its lifetime jitter)
	// during the call.
	ConnectionCreating
	// ConnectionOpened and ConnectionClosed: connection Res.Unit joined or
	// left the pool.
	ConnectionOpened
	ConnectionClosed
	// Signalled: a condition queue signalled parked Worker (R111): it has
	// left the wait list and still counts as idle; the event loop must call
	// Woken(Worker) once it is awake (Config.Wakeup only).
	Signalled
	// HandOffMissed: Worker, signalled, woke to an empty queue — a worker
	// returning from a task took the task first — and waits again at the
	// tail of the wait list, with what was left of its timeout (R113).
	HandOffMissed
)

var eventKindNames = [...]string{Submitted: "submitted", ScheduleCalled: "schedule-called", Started: "started", Finished: "finished",
	Rejected: "rejected", CallerRan: "caller-ran", Lost: "lost", WorkerChanged: "worker-changed", TimerArmed: "timer-armed",
	RunStateChanged: "run-state-changed", Reconfigured: "reconfigured", Rescheduled: "rescheduled",
	PeriodicEnded: "periodic-ended", SkippedCancelled: "skipped-cancelled",
	ResourceGranted: "resource-granted", ResourceWaiting: "resource-waiting", ResourceTimedOut: "resource-timed-out",
	ResourceTimer: "resource-timer", ConnectionCreating: "connection-creating", ConnectionOpened: "connection-opened",
	ConnectionClosed: "connection-closed", Signalled: "signalled", HandOffMissed: "hand-off-missed"}

func (k EventKind) String() string {
	if int(k) < len(eventKindNames) && eventKindNames[k] != "" {
		return eventKindNames[k]
	}
	return fmt.Sprintf("EventKind(%d)", k)
}

// Event is one thing the model reports: the model's whole output. Which
// fields are set depends on Kind (see the kinds). An Event and what its
// pointers point to are valid only during the Observe call that carries
// it: copy what you keep.
type Event struct {
	At       time.Duration
	Worker   *Worker
	Task     *Task
	Change   *Change        // Reconfigured
	Res      *ResourceEvent // the Resource* and Connection* events
	Kind     EventKind
	From, To State       // WorkerChanged
	Outcome  Outcome     // Lost
	RunFrom  RunState    // RunStateChanged
	RunTo    RunState    // RunStateChanged
	End      PeriodicEnd // PeriodicEnded
	// Handoff, on Started with Config.Wakeup: the task was handed to a
	// parked worker of a SynchronousQueue, which runs it once awake (R119).
	Handoff bool
}

// Observer receives every Event the model reports, synchronously, inside
// the model's entry points. An Observer must not call back into the
// executor that reports to it.
type Observer interface {
	Observe(e *Event)
}

// ObserverFunc adapts a function to an Observer.
type ObserverFunc func(e *Event)

// Observe calls f(e).
func (f ObserverFunc) Observe(e *Event) { f(e) }

// nopObserver ignores every event.
type nopObserver struct{}

func (nopObserver) Observe(*Event) {}

// Notifier is an Observer that hears the events every task causes —
// Started, WorkerChanged, TimerArmed — as calls of their own, with their
// fields as arguments, and every other event through Observe. A pool
// whose Observer is a Notifier calls these methods instead of Observe for
// those three kinds, so that the events of a task's path cost no Event
// (an event loop keeps its books from the arguments). The stream is the
// same: an implementation that passes events on to Observers builds each
// with StartedEvent, WorkerChangedEvent or TimerArmedEvent, and the pool
// reports to an Observer that is no Notifier the same way.
type Notifier interface {
	Observer
	// OnStarted is Started: w begins running t (&w's task), handed off
	// to a parked worker that runs it once awake if handoff.
	OnStarted(at time.Duration, w *Worker, t *Task, handoff bool)
	// OnWorkerChanged is WorkerChanged: w went from state from to to.
	OnWorkerChanged(at time.Duration, w *Worker, from, to State)
	// OnTimerArmed is TimerArmed: w waits timed until w.Deadline().
	OnTimerArmed(at time.Duration, w *Worker)
}

// StartedEvent is the Event of Notifier.OnStarted.
func StartedEvent(at time.Duration, w *Worker, t *Task, handoff bool) Event {
	return Event{Kind: Started, At: at, Worker: w, Task: t, Handoff: handoff}
}

// WorkerChangedEvent is the Event of Notifier.OnWorkerChanged.
func WorkerChangedEvent(at time.Duration, w *Worker, from, to State) Event {
	return Event{Kind: WorkerChanged, At: at, Worker: w, From: from, To: to}
}

// TimerArmedEvent is the Event of Notifier.OnTimerArmed.
func TimerArmedEvent(at time.Duration, w *Worker) Event {
	return Event{Kind: TimerArmed, At: at, Worker: w}
}

// notifier returns obs as a Notifier: itself if it is one, else events,
// which hands obs each notification as its Event.
func notifier(obs Observer, events *eventer) Notifier {
	if n, ok := obs.(Notifier); ok {
		return n
	}
	events.obs = obs
	return events
}

// eventer is the Notifier of an Observer that is none: it builds each
// notification's Event and passes it to Observe.
type eventer struct {
	obs Observer
	ev  Event
}

func (n *eventer) Observe(e *Event) { n.obs.Observe(e) }

func (n *eventer) OnStarted(at time.Duration, w *Worker, t *Task, handoff bool) {
	n.ev = StartedEvent(at, w, t, handoff)
	n.obs.Observe(&n.ev)
}

func (n *eventer) OnWorkerChanged(at time.Duration, w *Worker, from, to State) {
	n.ev = WorkerChangedEvent(at, w, from, to)
	n.obs.Observe(&n.ev)
}

func (n *eventer) OnTimerArmed(at time.Duration, w *Worker) {
	n.ev = TimerArmedEvent(at, w)
	n.obs.Observe(&n.ev)
}

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
