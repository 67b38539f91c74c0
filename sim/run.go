package sim

import (
	"context"
	"io"
	"time"

	"github.com/poolsim/poolsim/model"
	"github.com/poolsim/poolsim/scenarios"
	"github.com/poolsim/poolsim/workloads"
)

// Options are what a run writes, checks and tells besides its Result.
type Options struct {
	// Timeline receives timeline.csv as the run is sampled; nil skips it.
	Timeline io.Writer
	// Snapshots receives snapshots.txt; nil skips it.
	Snapshots io.Writer
	// Workload overrides the scenario's workload source (tests, importers).
	Workload workloads.Source
	// Observer, if set, hears every model event of the run, the pool's
	// construction included (see model.EventKind), after the engine has
	// recorded it. It must not call back into the pool.
	Observer model.Observer
	// OnSample, if set, receives every timeline sample as it is taken.
	OnSample func(Sample)
	// OnTask, if set, receives every task start and end on a pool worker,
	// and every task run by the caller: the Started, Finished and
	// CallerRan events, with the times the host gives them (a task handed
	// to a thread still starting begins when the thread is up).
	OnTask func(TaskEvent)
	// OnStep, if set, receives the begin and end of every step of a task
	// run on a virtual thread (§13; the conformance tests hold them against
	// the real JDK's): a step begins on a mounted VT — the first one when
	// the VT first mounts — and ends when its time is over; after an
	// unmounting call the VT is runnable then, and its next step begins
	// once it has mounted again.
	OnStep func(StepEvent)
	// CheckInvariants checks the model's and the run's invariants after
	// every event and panics on a violation (tests).
	CheckInvariants bool
	// Observe, if set, is called after every event with the pool (tests).
	Observe func(now time.Duration, p model.Executor)
}

// Run simulates sc to the end: NewEngine, then Engine.Run. It returns an
// error only for bad input (a runtime event the JDK would refuse, a broken
// trace) or a failed write; a cancelled context ends the run early with
// Result.Complete false.
func Run(ctx context.Context, sc *scenarios.Scenario, opt Options) (*Result, error) {
	e, err := NewEngine(sc, opt)
	if err != nil {
		return nil, err
	}
	return e.Run(ctx)
}

// TaskEvent is a task starting or ending.
type TaskEvent struct {
	T      time.Duration
	TaskID uint64
	Worker int  // the worker's number (pool-1-thread-N); 0 for the caller
	End    bool // false: started; true: ended
	// Job numbers the workload.periodic job a run belongs to (from 1; 0 for
	// ordinary traffic), and Run the run (from 1).
	Job, Run int32
}

// StepEvent is a step of a task on a virtual thread beginning or ending.
type StepEvent struct {
	T      time.Duration
	TaskID uint64
	Step   int  // the step's index in the task's steps, from 0
	End    bool // false: began; true: its time is over
}

// taskHook turns the stream's task events into Options.OnTask calls.
type taskHook struct {
	e  *Engine
	fn func(TaskEvent)
}

func (h taskHook) Observe(ev *model.Event) {
	t := ev.Task
	switch ev.Kind {
	case model.Started:
		h.fn(TaskEvent{T: h.e.taskBegins(ev), TaskID: t.ID, Worker: ev.Worker.ID, Job: t.Periodic, Run: t.Run})
	case model.Finished:
		h.fn(TaskEvent{T: ev.At, TaskID: t.ID, Worker: ev.Worker.ID, End: true, Job: t.Periodic, Run: t.Run})
	case model.CallerRan:
		start := h.e.callerStart(ev.At)
		h.fn(TaskEvent{T: start, TaskID: t.ID, Worker: 0})
		h.fn(TaskEvent{T: start + t.Service, TaskID: t.ID, Worker: 0, End: true})
	}
}

// Sample is the pool's state at a timeline sample (a row of timeline.csv).
type Sample struct {
	T                                             time.Duration
	PoolSize, Busy, IdleTimed, IdleUntimed, Queue int
	Submitted, Completed, Rejected                int64
	// WaitP99 is the 99th percentile wait of the tasks that started in the
	// interval ending at T, in seconds (NaN when none did).
	WaitP99 float64
	// Largest is getLargestPoolSize() so far.
	Largest int
}
