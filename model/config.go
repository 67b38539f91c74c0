package model

import (
	"fmt"
	"math"
	"time"
)

// Unbounded is Integer.MAX_VALUE, the JDK's "no limit" for pool sizes and
// queue capacities.
const Unbounded = math.MaxInt32

// Flavor selects which ThreadPoolExecutor the model mirrors.
type Flavor uint8

const (
	// JDK is java.util.concurrent.ThreadPoolExecutor (spec §1).
	JDK Flavor = iota
	// Tomcat is org.apache.tomcat.util.threads.ThreadPoolExecutor with its
	// TaskQueue (spec §4, R63–R72).
	Tomcat
	// Scheduled is java.util.concurrent.ScheduledThreadPoolExecutor with its
	// DelayedWorkQueue (spec §6, R88–R98; scheduled.go, delayqueue.go).
	Scheduled
	// Jetty is Jetty 9.4's org.eclipse.jetty.util.thread.QueuedThreadPool
	// with reservedThreads 0 (spec §7, R100–R110; jetty.go). Core is
	// minThreads, Max maxThreads and KeepAlive idleTimeout.
	Jetty
	// ThreadPerTask is java.util.concurrent.ThreadPerTaskExecutor, what
	// Executors.newThreadPerTaskExecutor(factory) returns (JDK 21+, R86): a
	// new thread for every task, which ends with it; no queue, no limit, no
	// reuse, no replacement. The model runs it as the ThreadPoolExecutor it
	// behaves like — core 0, max Integer.MAX_VALUE, keepAlive 0 and a
	// SynchronousQueue, so every execute finds no parked worker and starts
	// a thread, and every worker exits when its task ends (R15c) — except
	// that a task that throws is not replaced (ThreadPerTaskExecutor's
	// TaskRunner just lets the thread end; R17 is ThreadPoolExecutor's).
	ThreadPerTask
	// Virtual is a virtual-thread-per-task executor (§13, R130, R141–R143;
	// virtual.go): Executors.newVirtualThreadPerTaskExecutor(), Tomcat's
	// VirtualThreadExecutor, Spring's SimpleAsyncTaskExecutor on virtual
	// threads (with its optional concurrencyLimit, R143). Its workers are
	// the virtual threads; the carriers they run on are CarrierScheduler's.
	Virtual
)

var flavorNames = [...]string{JDK: "jdk", Tomcat: "tomcat", Scheduled: "scheduled", Jetty: "jetty", ThreadPerTask: "thread-per-task", Virtual: "virtual"}

func (f Flavor) String() string {
	if int(f) < len(flavorNames) {
		return flavorNames[f]
	}
	return fmt.Sprintf("Flavor(%d)", f)
}

// ParseFlavor returns the flavor named name, and whether it exists.
func ParseFlavor(name string) (Flavor, bool) {
	for i, n := range flavorNames {
		if n == name {
			return Flavor(i), true
		}
	}
	return 0, false
}

// QueueKind names the BlockingQueue implementation behind the pool.
type QueueKind uint8

const (
	// Linked is LinkedBlockingQueue, bounded or not (R44–R47).
	Linked QueueKind = iota
	// Array is ArrayBlockingQueue (R48).
	Array
	// Synchronous is SynchronousQueue (R49–R52).
	Synchronous
	// Priority is PriorityBlockingQueue (R53).
	Priority
	// TaskQueue is Tomcat's TaskQueue, a LinkedBlockingQueue whose offer
	// refuses while the pool can still grow (R67).
	TaskQueue
	// DelayedWorkQueue is ScheduledThreadPoolExecutor's unbounded heap by
	// due time, ties FIFO by sequence number (R88, R93; delayqueue.go).
	DelayedWorkQueue
	// BlockingArrayQueue is Jetty's default job queue: unbounded, FIFO, with
	// FIFO waiters like LinkedBlockingQueue (R100, R103).
	BlockingArrayQueue
)

// QueueKinds lists the queue kinds by their scenario names.
var queueNames = [...]string{Linked: "linked", Array: "array", Synchronous: "synchronous", Priority: "priority", TaskQueue: "tomcat",
	DelayedWorkQueue: "delayed", BlockingArrayQueue: "jetty"}

func (k QueueKind) String() string {
	if int(k) < len(queueNames) {
		return queueNames[k]
	}
	return fmt.Sprintf("QueueKind(%d)", k)
}

// JavaName is the Java class the kind models, as a thread dump shows it.
func (k QueueKind) JavaName() string {
	switch k {
	case Linked:
		return "LinkedBlockingQueue"
	case Array:
		return "ArrayBlockingQueue"
	case Synchronous:
		return "SynchronousQueue"
	case Priority:
		return "PriorityBlockingQueue"
	case TaskQueue:
		return "TaskQueue"
	case DelayedWorkQueue:
		return "DelayedWorkQueue"
	case BlockingArrayQueue:
		return "BlockingArrayQueue"
	}
	return k.String()
}

// ParseQueueKind returns the kind named name, and whether it exists.
func ParseQueueKind(name string) (QueueKind, bool) {
	for i, n := range queueNames {
		if n == name {
			return QueueKind(i), true
		}
	}
	return 0, false
}

// QueueKindNames returns the scenario names of all queue kinds.
func QueueKindNames() []string { return append([]string(nil), queueNames[:]...) }

// HandOff is the order in which parked workers receive work.
type HandOff uint8

const (
	// FIFO gives the next task to the worker that entered the wait list
	// longest ago (condition queues, R40/R47; fair SynchronousQueue, R50).
	FIFO HandOff = iota
	// LIFO gives it to the worker that parked most recently (non-fair
	// SynchronousQueue's stack, R50).
	LIFO
)

func (h HandOff) String() string {
	if h == LIFO {
		return "LIFO"
	}
	return "FIFO"
}

// HandOffMode chooses the hand-off order of a configuration.
type HandOffMode uint8

const (
	// NaturalHandOff is the queue kind's own order.
	NaturalHandOff HandOffMode = iota
	// ForceFIFO hands tasks to the longest-waiting worker.
	ForceFIFO
	// ForceLIFO hands tasks to the most recently parked worker.
	ForceLIFO
)

// HandOff returns the configuration's hand-off order: the queue's natural
// one unless overridden.
func (c Config) HandOff() HandOff {
	switch c.HandOffOverride {
	case ForceFIFO:
		return FIFO
	case ForceLIFO:
		return LIFO
	}
	return c.Queue.HandOff(c.Fair)
}

// HandOff returns the order in which a queue of this kind hands tasks to
// parked workers: LIFO only for a non-fair SynchronousQueue (R50); FIFO for
// every lock-and-condition queue whatever its fairness (R47, R48, R53),
// Jetty's BlockingArrayQueue (R103) and the DelayedWorkQueue, whose signal
// wakes the longest waiter (R93).
func (k QueueKind) HandOff(fair bool) HandOff {
	if k == Synchronous && !fair {
		return LIFO
	}
	return FIFO
}

// cascades reports whether a queue of this kind, its take or poll having
// removed a task, signals the next waiter when tasks remain (R114): the
// two-lock LinkedBlockingQueue does (its offer signals only on an empty
// queue), and so do the queues built like it — Tomcat's TaskQueue, Jetty's
// BlockingArrayQueue, the DelayedWorkQueue; ArrayBlockingQueue and
// PriorityBlockingQueue signal at every insert instead (R111), and a
// SynchronousQueue holds nothing.
func (k QueueKind) cascades() bool {
	return k != Array && k != Priority && k != Synchronous
}

// Policy is a RejectedExecutionHandler (R32–R36).
type Policy uint8

const (
	// AbortPolicy throws RejectedExecutionException to the caller (R32).
	AbortPolicy Policy = iota
	// CallerRunsPolicy runs the task on the submitting thread (R33).
	CallerRunsPolicy
	// DiscardPolicy drops the task silently (R34).
	DiscardPolicy
	// DiscardOldestPolicy drops the queue's head and retries (R35).
	DiscardOldestPolicy
)

var policyNames = [...]string{AbortPolicy: "abort", CallerRunsPolicy: "caller-runs", DiscardPolicy: "discard", DiscardOldestPolicy: "discard-oldest"}

func (p Policy) String() string {
	if int(p) < len(policyNames) {
		return policyNames[p]
	}
	return fmt.Sprintf("Policy(%d)", p)
}

// ParsePolicy returns the policy named name, and whether it exists.
func ParsePolicy(name string) (Policy, bool) {
	for i, n := range policyNames {
		if n == name {
			return Policy(i), true
		}
	}
	return 0, false
}

// PolicyNames returns the scenario names of the rejection policies.
func PolicyNames() []string { return append([]string(nil), policyNames[:]...) }

// Config is a pool's construction parameters: the arguments of the
// ThreadPoolExecutor constructor plus what the model needs around it.
type Config struct {
	Flavor        Flavor
	Core          int           // corePoolSize (Tomcat: minSpareThreads)
	Max           int           // maximumPoolSize; Unbounded = Integer.MAX_VALUE
	KeepAlive     time.Duration // keepAliveTime
	CoreTimeOut   bool          // allowCoreThreadTimeOut
	Prestart      bool          // prestartAllCoreThreads() after construction (Tomcat always, R65)
	Queue         QueueKind
	QueueCapacity int  // Unbounded for an unbounded queue; ignored for Synchronous
	Fair          bool // SynchronousQueue / ArrayBlockingQueue fairness
	Rejection     Policy
	// HandOffOverride replaces the queue's natural hand-off order (see
	// QueueKind.HandOff) for what-if experiments: a queue whose waiters
	// form a stack (LIFO) or a queue (FIFO). No stock JDK or Tomcat queue
	// offers this except the non-fair/fair SynchronousQueue; it models a
	// custom queue. Zero keeps the natural order.
	HandOffOverride HandOffMode
	// Delegated: the pool is reachable only through the ExecutorService
	// wrapper of Executors.newSingleThreadExecutor()
	// (FinalizableDelegatedExecutorService), which hides the setters
	// (R82): Apply refuses them.
	Delegated bool
	// ThreadLimit models the operating system refusing more threads
	// (OutOfMemoryError: unable to create native thread, R11): addWorker
	// fails once this many workers are alive. 0 means no limit.
	ThreadLimit int
	// Wakeup says that a parked thread takes time to wake (the host's
	// wake-up latency, spec §12): a condition queue (linked, array,
	// priority, Tomcat's) signals its head waiter, which acts only when the
	// event loop calls Woken, so a worker returning from a task may take
	// the task first (R111–R116); a SynchronousQueue's matched worker is
	// reported Started with Event.Handoff, for the event loop to start the
	// task once the worker is awake (R117–R119). False: zero latency (R47).
	Wakeup bool

	// ContinuePeriodicAfterShutdown is ScheduledThreadPoolExecutor's
	// continueExistingPeriodicTasksAfterShutdown policy (default false:
	// shutdown cancels queued periodic tasks, R98). Scheduled flavor only.
	ContinuePeriodicAfterShutdown bool
	// DropDelayedOnShutdown is the negation of
	// executeExistingDelayedTasksAfterShutdown (default true: delayed
	// one-shot tasks still run after shutdown, R98). Scheduled flavor only.
	DropDelayedOnShutdown bool
	// RemoveOnCancel is ScheduledThreadPoolExecutor's removeOnCancelPolicy
	// (setRemoveOnCancelPolicy; default false: a cancelled task stays in
	// the queue until a worker takes it when due, R97). Scheduled flavor
	// only.
	RemoveOnCancel bool

	// Throttle: the executor is Spring's SimpleAsyncTaskExecutor with a
	// concurrencyLimit >= 0 (R143): at most ConcurrencyLimit tasks run at
	// once; the caller of execute waits for a permit (FIFO), or, with
	// RejectWhenLimited (rejectTasksWhenLimitReached), is refused. Limit 0
	// refuses everything. Virtual flavor only.
	Throttle          bool
	ConcurrencyLimit  int
	RejectWhenLimited bool
}

// ConfigError is a constructor or setter argument the JDK refuses.
type ConfigError struct {
	Field string // Config field in scenario spelling: core, max, keepAlive, ...
	Msg   string // what is wrong, e.g. "must be > 0, got 0"
	Rule  string // the spec rule, e.g. "R2"
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("model: %s: %s (%s)", e.Field, e.Msg, e.Rule)
}

// Validate applies the ThreadPoolExecutor constructor's argument checks (R2)
// and allowCoreThreadTimeOut's (R24), plus the queue constructors'.
func (c Config) Validate() error {
	switch {
	case c.Core < 0:
		return &ConfigError{"core", fmt.Sprintf("must be >= 0, got %d", c.Core), "R2: corePoolSize < 0 throws IllegalArgumentException"}
	case c.Max <= 0:
		return &ConfigError{"max", fmt.Sprintf("must be > 0, got %d", c.Max), "R2: maximumPoolSize <= 0 throws IllegalArgumentException"}
	case c.Max < c.Core && c.Flavor == Jetty:
		return &ConfigError{"max", fmt.Sprintf("max threads (%d) less than min threads (%d): QueuedThreadPool's constructor throws IllegalArgumentException", c.Max, c.Core), "max >= core (R100)"}
	case c.Max < c.Core:
		return &ConfigError{"max", fmt.Sprintf("must be >= core (%d), got %d", c.Core, c.Max), "R2: maximumPoolSize < corePoolSize throws IllegalArgumentException"}
	case c.KeepAlive < 0:
		return &ConfigError{"keepAlive", fmt.Sprintf("must be >= 0, got %v", c.KeepAlive), "R2: keepAliveTime < 0 throws IllegalArgumentException"}
	case c.CoreTimeOut && c.KeepAlive <= 0:
		return &ConfigError{"allowCoreThreadTimeOut", "needs keepAlive > 0", "R24: core threads must have nonzero keep alive times"}
	case c.Max > Unbounded:
		return &ConfigError{"max", fmt.Sprintf("must be <= %d (Integer.MAX_VALUE), got %d", Unbounded, c.Max), "R2"}
	case c.ThreadLimit < 0:
		return &ConfigError{"threadLimit", fmt.Sprintf("must be >= 0, got %d", c.ThreadLimit), "R11"}
	case c.Wakeup && (c.Flavor == Jetty || c.Flavor == Scheduled):
		return &ConfigError{"wakeup", fmt.Sprintf("a wake-up latency is not modelled for %s's queue (it hands off with zero latency)", c.Flavor),
			"§12 covers LinkedBlockingQueue, ArrayBlockingQueue, PriorityBlockingQueue, Tomcat's TaskQueue and SynchronousQueue: leave host.wakeup out"}
	}
	if int(c.Queue) >= len(queueNames) {
		return &ConfigError{"queue.type", fmt.Sprintf("unknown queue kind %d", c.Queue), "R44–R53"}
	}
	if int(c.Rejection) >= len(policyNames) {
		return &ConfigError{"rejection", fmt.Sprintf("unknown policy %d", c.Rejection), "R32–R35"}
	}
	if c.Throttle && c.Flavor != Virtual {
		return &ConfigError{"concurrencyLimit", "only SimpleAsyncTaskExecutor (preset simple-async) has a concurrency limit", "R143"}
	}
	if c.Throttle && c.ConcurrencyLimit < 0 {
		return &ConfigError{"concurrencyLimit", fmt.Sprintf("must be >= 0 when set, got %d", c.ConcurrencyLimit), "R143: -1 (unbounded) is the default: leave it out"}
	}
	if c.Flavor == ThreadPerTask || c.Flavor == Virtual {
		switch {
		case c.Core != 0:
			return &ConfigError{"core", fmt.Sprintf("a thread-per-task executor has no core threads, got %d", c.Core), "R86: newThreadPerTaskExecutor starts a thread per task; leave core out"}
		case c.Max != Unbounded:
			return &ConfigError{"max", fmt.Sprintf("a thread-per-task executor has no thread limit, got %d", c.Max), "R86: leave max out; limits.maxThreads models the OS refusing threads"}
		case c.KeepAlive != 0 || c.CoreTimeOut || c.Prestart:
			return &ConfigError{"keepAlive", "a thread-per-task executor keeps no idle threads (keepAlive 0, no prestart)", "R86"}
		case c.Queue != Synchronous || c.Fair || c.HandOffOverride != NaturalHandOff:
			return &ConfigError{"queue.type", "a thread-per-task executor has no queue", "R86"}
		}
	}
	if c.Queue != Synchronous && (c.QueueCapacity <= 0 || c.QueueCapacity > Unbounded) {
		return &ConfigError{"queue.capacity", fmt.Sprintf("must be in 1..%d, got %d", Unbounded, c.QueueCapacity), "LinkedBlockingQueue/ArrayBlockingQueue(capacity <= 0) throw IllegalArgumentException"}
	}
	if int(c.Flavor) >= len(flavorNames) {
		return &ConfigError{"flavor", fmt.Sprintf("unknown flavor %d", c.Flavor), "jdk, tomcat, scheduled, jetty, thread-per-task, virtual"}
	}
	if c.Flavor == Tomcat && c.Queue != TaskQueue {
		return &ConfigError{"queue.type", fmt.Sprintf("Tomcat's executor uses its TaskQueue, got %s", c.Queue), "R67"}
	}
	if c.Flavor != Tomcat && c.Queue == TaskQueue {
		return &ConfigError{"queue.type", "TaskQueue needs Tomcat's executor (preset tomcat)", "R67"}
	}
	if err := c.validateScheduled(); err != nil {
		return err
	}
	if err := c.validateJetty(); err != nil {
		return err
	}
	if c.Fair && c.Queue != Synchronous && c.Queue != Array {
		return &ConfigError{"queue.fair", fmt.Sprintf("only synchronous and array queues take a fairness flag, got %s", c.Queue), "R48, R50"}
	}
	return nil
}
