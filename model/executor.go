package model

import (
	"fmt"
	"time"
)

// Executor is what an event loop drives: every executor family implements
// it (ThreadPoolExecutor, TomcatThreadPoolExecutor, ThreadPerTaskExecutor,
// ScheduledThreadPoolExecutor, QueuedThreadPool). Every method that changes
// the pool takes the virtual time of the call and reports what happens
// through the Observer given to New.
//
// A new family implements Executor with its own type, embedding the shared
// worker and wait-list machinery (pool), and registers its constructor in
// New; no other family changes.
type Executor interface {
	// Execute submits t, as execute(task) does. The pool reads *t during
	// the call only (its events may point to it) and keeps its own copy of
	// a task it queues or runs, so the caller may reuse *t afterwards.
	Execute(now time.Duration, t *Task)
	// TaskDone ends w's current task at its completion time (w was
	// reported Started with it).
	TaskDone(now time.Duration, w *Worker)
	// TimedWaitExpired fires the timer of w's timed wait (reported as
	// TimerArmed). A stale timer — the wait ended or was replaced — does
	// nothing and returns false.
	TimedWaitExpired(now time.Duration, w *Worker) bool
	// Woken: w, reported Signalled (Config.Wakeup), is awake and acts on
	// the queue (R112–R114). It returns false if w was not signalled.
	Woken(now time.Duration, w *Worker) bool
	// Apply makes the calls of one runtime change, in the order that
	// makes a consistent change acceptable (see each family), and reports
	// it as Reconfigured. It returns a *ConfigError for a call the Java
	// class refuses or does not have; calls before it in the same change
	// have been made.
	Apply(now time.Duration, c Change) error

	// Config returns the current configuration (setters change it).
	Config() Config
	// RunState returns the current run state (R1).
	RunState() RunState
	// PoolSize is getPoolSize(): live workers (R31).
	PoolSize() int
	// Count returns how many live workers are in state s.
	Count(s State) int
	// ActiveCount is getActiveCount(): workers running a task (R31).
	ActiveCount() int
	// QueueLen is getQueue().size().
	QueueLen() int
	// LargestPoolSize is getLargestPoolSize() (R31).
	LargestPoolSize() int
	// CompletedTaskCount is getCompletedTaskCount() (R31).
	CompletedTaskCount() int64
	// HandOff is the order in which parked workers receive tasks.
	HandOff() HandOff
	// Workers calls fn for every live worker in creation order.
	Workers(fn func(*Worker))
	// Parked calls fn for every parked worker in hand-off order: the
	// first one visited receives the next offered task.
	Parked(fn func(*Worker))
	// Queued calls fn for every queued task in the order workers will
	// take them.
	Queued(fn func(*Task))

	// TimedWaitSite names where this family's idle workers wait timed,
	// as a thread dump would show it (e.g. "LinkedBlockingQueue.poll(1m0s)").
	TimedWaitSite() string
	// DescribeIdle says, as a thread dump annotated by poolsim would,
	// what idle worker w waits for at now; rank is its place in the
	// hand-off order (1 receives the next task).
	DescribeIdle(now time.Duration, w *Worker, rank int) string

	// CheckInvariants panics with a state dump if the bookkeeping is
	// inconsistent. Tests call it after every event.
	CheckInvariants()

	// Recycle hands back w, exited, for a later thread to reuse: the
	// caller holds no pointer to it any more, nor does anyone it gave one.
	Recycle(w *Worker)
}

// Scheduler is implemented by the executors that schedule tasks for later
// (ScheduledThreadPoolExecutor).
type Scheduler interface {
	Executor
	Schedule(now time.Duration, t Task, delay time.Duration) (Future, error)
	ScheduleAtFixedRate(now time.Duration, t Task, initialDelay, period time.Duration) (Future, error)
	ScheduleWithFixedDelay(now time.Duration, t Task, initialDelay, delay time.Duration) (Future, error)
	Cancel(now time.Duration, f Future) bool
}

// New constructs the executor family cfg.Flavor names, as its Java
// constructor (and, for Jetty, start()) does: it checks the arguments
// (R2) and starts the threads the constructor starts (Tomcat's core
// threads, R65; Jetty's minThreads, R101; all core threads with
// cfg.Prestart, R19). obs hears every event; nil ignores them.
func New(now time.Duration, cfg Config, obs Observer) (Executor, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if obs == nil {
		obs = nopObserver{}
	}
	switch cfg.Flavor {
	case Tomcat:
		return newTomcat(now, cfg, obs), nil
	case Scheduled:
		return newScheduled(now, cfg, obs), nil
	case Jetty:
		return newQueuedThreadPool(now, cfg, obs), nil
	case ThreadPerTask:
		return newThreadPerTask(now, cfg, obs), nil
	case Virtual:
		return newVirtual(now, cfg, obs), nil
	}
	return newJDK(now, cfg, obs), nil
}

// ShutdownMode is the shutdown call a Change makes.
type ShutdownMode uint8

const (
	// NoShutdown: none.
	NoShutdown ShutdownMode = iota
	// Graceful is shutdown() (R27).
	Graceful
	// Immediate is shutdownNow() (R28).
	Immediate
)

// Change is one runtime reconfiguration: the setter calls and the shutdown
// call a caller makes at one instant. Nil fields are left alone.
type Change struct {
	Core        *int           // setCorePoolSize (Jetty: setMinThreads)
	Max         *int           // setMaximumPoolSize (Jetty: setMaxThreads)
	KeepAlive   *time.Duration // setKeepAliveTime (Jetty: setIdleTimeout)
	CoreTimeOut *bool          // allowCoreThreadTimeOut
	Shutdown    ShutdownMode
}

// HasSetters reports whether c calls any setter.
func (c Change) HasSetters() bool {
	return c.Core != nil || c.Max != nil || c.KeepAlive != nil || c.CoreTimeOut != nil
}

// String renders c as the calls it makes: "set core=20 max=400",
// "shutdown", "set keepAlive=1s shutdownNow".
func (c Change) String() string {
	s := ""
	add := func(x string) {
		if s != "" {
			s += " "
		}
		s += x
	}
	if c.Core != nil {
		add(fmt.Sprintf("core=%d", *c.Core))
	}
	if c.Max != nil {
		add("max=" + SizeString(*c.Max))
	}
	if c.KeepAlive != nil {
		add(fmt.Sprintf("keepAlive=%v", *c.KeepAlive))
	}
	if c.CoreTimeOut != nil {
		add(fmt.Sprintf("allowCoreThreadTimeOut=%v", *c.CoreTimeOut))
	}
	if s != "" {
		s = "set " + s
	}
	switch c.Shutdown {
	case Graceful:
		add("shutdown")
	case Immediate:
		add("shutdownNow")
	}
	return s
}

// SizeString formats a pool size or queue capacity: "unbounded" for
// Unbounded (Integer.MAX_VALUE), else the number.
func SizeString(n int) string {
	if n == Unbounded {
		return "unbounded"
	}
	return fmt.Sprint(n)
}
