package model

import (
	"fmt"
	"time"
)

// RunState is ThreadPoolExecutor's run state (R1). It only moves forward.
type RunState uint8

const (
	PoolRunning RunState = iota
	PoolShutdown
	PoolStop
	PoolTidying
	PoolTerminated
)

var runStateNames = [...]string{PoolRunning: "RUNNING", PoolShutdown: "SHUTDOWN", PoolStop: "STOP", PoolTidying: "TIDYING", PoolTerminated: "TERMINATED"}

func (s RunState) String() string {
	if int(s) < len(runStateNames) {
		return runStateNames[s]
	}
	return fmt.Sprintf("RunState(%d)", s)
}

// Pool mirrors ThreadPoolExecutor (JDK, or Tomcat's copy of it), its
// subclass ScheduledThreadPoolExecutor (scheduled.go) and Jetty's
// QueuedThreadPool (jetty.go), chosen by Config.Flavor.
//
// Every exported method takes the virtual time of the call. A Pool is not
// safe for concurrent use; a run drives it from one goroutine.
type Pool struct {
	cfg      Config // current configuration; the setters change it
	handOff  HandOff
	obs      Observer
	now      time.Duration
	runState RunState

	// wc is ctl's worker count. The model has no races, so it always
	// equals workers.n except inside processWorkerExit (M1).
	wc      int
	workers workerList
	waiters waitList
	store   taskStore

	// submittedCount is Tomcat's count of queued plus running tasks (R64).
	submittedCount int

	// incoming and lost hold the task being executed and a task being
	// dropped, so that passing them to the Observer does not allocate.
	incoming, lost Task

	nextID             int
	largestPoolSize    int
	completedTaskCount int64 // of exited workers; live ones add theirs
	counts             [Exited + 1]int
	scratch            []*Worker

	// ScheduledThreadPoolExecutor (scheduled.go): the DelayedWorkQueue
	// (also p.store), its leader (R93), the sequence number of the last
	// ScheduledFutureTask, and the observer of periodic series, if obs
	// is one.
	dwq      *delayStore
	leader   *Worker
	seq      uint64
	schedObs ScheduleObserver

	// QueuedThreadPool (jetty.go): lastShrink and the event stamp when it
	// was set (R104); stamp numbers the pool's events.
	lastShrink      time.Duration
	lastShrinkStamp uint64
	stamp           uint64
}

// New constructs a pool, as the ThreadPoolExecutor constructor does: it
// checks the arguments (R2) and starts no thread, unless the flavor is
// Tomcat, whose constructor prestarts all core threads (R65), or Jetty,
// whose start() starts minThreads threads (R101), or cfg.Prestart asks for
// prestartAllCoreThreads() (R19).
func New(now time.Duration, cfg Config, obs Observer) (*Pool, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if obs == nil {
		obs = NopObserver{}
	}
	p := &Pool{
		cfg:     cfg,
		handOff: cfg.HandOff(),
		obs:     obs,
		now:     now,
		store:   newStore(cfg.Queue, cfg.QueueCapacity),
	}
	if d, ok := p.store.(*delayStore); ok {
		p.dwq = d
		p.schedObs, _ = obs.(ScheduleObserver)
	}
	switch {
	case cfg.Flavor == Jetty:
		p.jettyStart() // QueuedThreadPool.start(): minThreads threads (R101)
	case cfg.Flavor == Tomcat || cfg.Prestart:
		p.PrestartAllCoreThreads(now)
	}
	return p, nil
}

// Config returns the pool's current configuration.
func (p *Pool) Config() Config { return p.cfg }

// RunState returns the current run state.
func (p *Pool) RunState() RunState { return p.runState }

// PoolSize is getPoolSize(): the number of live workers (R31).
func (p *Pool) PoolSize() int { return p.workers.n }

// Count returns how many live workers are in state s.
func (p *Pool) Count(s State) int { return p.counts[s] }

// ActiveCount is getActiveCount(): workers running a task (R31).
func (p *Pool) ActiveCount() int { return p.counts[Running] }

// QueueLen is getQueue().size().
func (p *Pool) QueueLen() int { return p.store.size() }

// LargestPoolSize is getLargestPoolSize() (R31).
func (p *Pool) LargestPoolSize() int { return p.largestPoolSize }

// SubmittedCount is Tomcat's getSubmittedCount() (R64); 0 for the JDK pool.
func (p *Pool) SubmittedCount() int { return p.submittedCount }

// CompletedTaskCount is getCompletedTaskCount(): finished tasks, thrown ones
// included (R31).
func (p *Pool) CompletedTaskCount() int64 {
	n := p.completedTaskCount
	for w := p.workers.head; w != nil; w = w.next {
		n += w.Completed
	}
	return n
}

// HandOff returns the order in which parked workers receive tasks.
func (p *Pool) HandOff() HandOff { return p.handOff }

// Workers calls fn for every live worker in creation order.
func (p *Pool) Workers(fn func(*Worker)) {
	for w := p.workers.head; w != nil; w = w.next {
		fn(w)
	}
}

// Parked calls fn for every parked worker in hand-off order: the first one
// visited receives the next offered task.
func (p *Pool) Parked(fn func(*Worker)) {
	if p.handOff == LIFO {
		for w := p.waiters.tail; w != nil; w = w.wprev {
			fn(w)
		}
		return
	}
	for w := p.waiters.head; w != nil; w = w.wnext {
		fn(w)
	}
}

// Queued calls fn for every queued task in the order workers will take them.
func (p *Pool) Queued(fn func(*Task)) { p.store.each(fn) }

// Execute is execute(task) (R3–R6); for the Tomcat flavor, Tomcat's
// override (R66): count the submission, run the JDK steps, and force the
// task into the TaskQueue if they end in a RejectedExecutionException;
// for a ScheduledThreadPoolExecutor, schedule(task, 0) (R89); for Jetty,
// QueuedThreadPool.execute (R102).
func (p *Pool) Execute(now time.Duration, t Task) {
	p.now = now
	p.incoming = t
	p.execute(&p.incoming)
}

func (p *Pool) execute(t *Task) {
	switch p.cfg.Flavor {
	case Scheduled:
		p.schedule(t, 0, 0)
		return
	case Jetty:
		p.jettyExecute(t)
		return
	}
	if p.cfg.Flavor != Tomcat {
		p.executeInternal(t)
		return
	}
	p.submittedCount++
	if !p.executeInternal(t) {
		return
	}
	// TaskQueue.force (R66): refused once shut down; else a plain offer.
	if p.runState == PoolRunning && p.plainOffer(t) {
		return
	}
	if p.runState == PoolRunning {
		p.submittedCount-- // "queue full"
	}
	p.obs.Rejected(p.now, t)
	p.obs.Lost(p.now, t, Aborted)
}

// executeInternal is the JDK's execute body, the three steps of R4–R6. It
// reports whether the rejection handler threw (AbortPolicy), which Tomcat's
// execute catches.
func (p *Pool) executeInternal(t *Task) (threw bool) {
	// Step 1 (R4): below core, a new thread takes the task even if others idle.
	if p.wc < p.cfg.Core {
		ok, failed := p.addWorker(t, true)
		if ok {
			return false
		}
		if failed {
			p.obs.Lost(p.now, t, ThreadStartFailed)
			return false
		}
	}
	// Step 2 (R5): queue it; the recheck adds a worker when none is left.
	// The run state cannot change between the offer and the recheck.
	if p.runState == PoolRunning && p.offer(t) {
		if p.wc == 0 {
			p.addWorker(nil, false)
		}
		return false
	}
	// Step 3 (R6): grow past core, or reject.
	ok, failed := p.addWorker(t, false)
	if ok {
		return false
	}
	if failed {
		p.obs.Lost(p.now, t, ThreadStartFailed)
		return false
	}
	return p.reject(t)
}

// offer is workQueue.offer(task). A parked worker, if any, receives the
// task at once, chosen by the queue's hand-off order (R47, R50); a
// SynchronousQueue without one refuses (R49); Tomcat's TaskQueue first
// decides whether to refuse so that the pool grows (R67).
func (p *Pool) offer(t *Task) bool {
	if p.cfg.Queue == TaskQueue && !p.taskQueueOffers() {
		return false
	}
	return p.plainOffer(t)
}

// plainOffer is the underlying queue's offer, without TaskQueue's rule
// (LinkedBlockingQueue.offer, which TaskQueue.force calls, R66).
func (p *Pool) plainOffer(t *Task) bool {
	if p.waiters.n > 0 {
		w := p.waiters.head
		if p.handOff == LIFO {
			w = p.waiters.tail
		}
		p.unpark(w)
		w.timedOut = false
		p.runTask(w, t)
		return true
	}
	return p.store.offer(t)
}

// taskQueueOffers is TaskQueue.offer's decision (R67): false means "refuse,
// so that execute adds a thread"; true means "do a plain offer".
func (p *Pool) taskQueueOffers() bool {
	poolSize := p.workers.n // getPoolSizeNoLock()
	switch {
	case poolSize == p.cfg.Max:
		return true
	case p.submittedCount <= poolSize:
		return true // an idle worker should exist
	case poolSize < p.cfg.Max:
		return false
	}
	return true
}

// reject is reject(command): the handler's rejectedExecution (R32–R36). It
// reports whether the handler threw RejectedExecutionException.
func (p *Pool) reject(t *Task) (threw bool) {
	shutdown := p.runState >= PoolShutdown
	switch p.cfg.Rejection {
	case AbortPolicy:
		if p.cfg.Flavor == Tomcat {
			return true // Tomcat's execute catches it and forces (R66)
		}
		p.obs.Rejected(p.now, t)
		p.obs.Lost(p.now, t, Aborted)
		return true
	case CallerRunsPolicy:
		p.obs.Rejected(p.now, t)
		if shutdown {
			p.obs.Lost(p.now, t, DroppedAfterShutdown)
		} else {
			p.obs.CallerRuns(p.now, t)
		}
	case DiscardPolicy:
		p.obs.Rejected(p.now, t)
		p.obs.Lost(p.now, t, Discarded)
	case DiscardOldestPolicy:
		p.obs.Rejected(p.now, t)
		if shutdown {
			p.obs.Lost(p.now, t, DroppedAfterShutdown)
			return false
		}
		victim, ok := p.store.poll()
		if !ok {
			// Nothing to drop (a saturated SynchronousQueue): the JDK's
			// execute/reject recursion would repeat until a worker frees up
			// or the stack overflows; in zero time nothing frees up (R35).
			p.obs.Lost(p.now, t, RetryExhausted)
			return false
		}
		p.lost = victim
		p.obs.Lost(p.now, &p.lost, DiscardedOldest)
		p.execute(t) // e.execute(r): the public execute, in full
	}
	return false
}

// addWorker is addWorker(firstTask, core) (R9–R11). ok reports that a
// thread started; failed that the thread could not be created
// (ThreadLimit), which the JDK surfaces as an Error from execute.
func (p *Pool) addWorker(firstTask *Task, core bool) (ok, failed bool) {
	// R9: no new workers once stopping, nor task-carrying ones once shut down.
	if p.runState >= PoolShutdown && (p.runState >= PoolStop || firstTask != nil || p.store.size() == 0) {
		return false, false
	}
	// R10
	limit := p.cfg.Max
	if core {
		limit = p.cfg.Core
	}
	if p.wc >= limit {
		return false, false
	}
	// R11: Thread.start throws; addWorkerFailed rolls back.
	if p.cfg.ThreadLimit > 0 && p.workers.n >= p.cfg.ThreadLimit {
		p.tryTerminate()
		return false, true
	}
	w := p.newWorker()
	// runWorker: the first task, else getTask.
	if firstTask != nil {
		p.runTask(w, firstTask)
	} else {
		p.getTask(w)
	}
	return true, false
}

// newWorker counts and registers a new thread (wc+1, workers, the
// largest pool size).
func (p *Pool) newWorker() *Worker {
	p.wc++
	p.nextID++
	w := &Worker{ID: p.nextID, Created: p.now}
	p.workers.pushBack(w)
	if p.workers.n > p.largestPoolSize {
		p.largestPoolSize = p.workers.n
	}
	return w
}

// runTask hands t to w, which runs it (R13).
func (p *Pool) runTask(w *Worker, t *Task) {
	w.task, w.hasTask = *t, true
	p.setState(w, Running)
	p.obs.TaskStarted(p.now, w, &w.task)
}

// TaskDone ends w's current task at its completion time: runWorker's
// afterExecute, the completed count (R13), then either the abrupt exit of a
// task that threw (R14, R17) or the next getTask. A ScheduledThreadPoolExecutor
// task never kills its worker (R96) and a periodic one is queued again
// first (R94, R95); a Jetty thread survives a throwing job (R108).
func (p *Pool) TaskDone(now time.Duration, w *Worker) {
	if !w.hasTask || w.state != Running {
		panic(fmt.Sprintf("model: TaskDone for worker %d in state %v without a task", w.ID, w.state))
	}
	p.now = now
	failed := w.task.Fails
	w.hasTask = false
	w.Completed++
	switch p.cfg.Flavor {
	case Tomcat:
		p.submittedCount-- // Tomcat's afterExecute (R64), thrown or not
	case Scheduled:
		p.scheduledTaskDone(w) // the future caught a throw (R96)
		p.getTask(w)
		return
	case Jetty:
		p.jettyRunner(w) // the Runner caught a throw (R108)
		return
	}
	if failed {
		p.processWorkerExit(w, true)
		return
	}
	p.getTask(w)
}

// getTask is getTask() (R15) together with runWorker's loop around it: it
// either hands w its next task, parks it in poll(keepAlive) or take(), or
// makes it exit. Its "timed" decision is taken on every pass (R15b).
func (p *Pool) getTask(w *Worker) {
	for {
		// (a) stopping, or shut down with nothing left to do.
		if p.runState >= PoolShutdown && (p.runState >= PoolStop || p.store.size() == 0) {
			p.wc--
			p.processWorkerExit(w, false)
			return
		}
		// (b)
		timed := p.cfg.CoreTimeOut || p.wc > p.cfg.Core
		// (c) cull, with the last-worker guard.
		if (p.wc > p.cfg.Max || (timed && w.timedOut)) && (p.wc > 1 || p.store.size() == 0) {
			p.wc--
			p.processWorkerExit(w, false)
			return
		}
		// (d) On a DelayedWorkQueue: take() or poll(keepAlive), with the
		// leader–follower wait (R93).
		if p.dwq != nil {
			if p.dwqGetTask(w, timed) {
				return
			}
			w.timedOut = true
			continue
		}
		// A queued task is taken at once, without parking (R46).
		if t, ok := p.store.poll(); ok {
			w.timedOut = false
			p.runTask(w, &t)
			return
		}
		if timed && p.cfg.KeepAlive <= 0 {
			w.timedOut = true // poll(0) on an empty queue returns null at once
			continue
		}
		p.park(w, timed)
		return
	}
}

// park makes w wait in poll(keepAlive) (timed) or take(): it joins the tail
// of the wait list (R47) and keeps that state until the wait ends (R16).
func (p *Pool) park(w *Worker, timed bool) {
	w.parkedAt = p.now
	p.waiters.pushBack(w)
	if timed {
		w.deadline = p.now + p.cfg.KeepAlive
		p.setState(w, IdleTimed)
		p.obs.KeepAliveArmed(p.now, w)
		return
	}
	p.setState(w, IdleUntimed)
}

// unpark ends w's wait (a task, an interrupt or a timeout). The
// DelayedWorkQueue's leader stops being the leader whenever its wait ends
// (take's "if (leader == thisThread) leader = null", R93).
func (p *Pool) unpark(w *Worker) {
	p.waiters.remove(w)
	if p.leader == w {
		p.leader = nil
	}
}

// KeepAliveExpired fires w's keepAlive timer: if w is still in the same
// poll(keepAlive), the poll returns null and getTask re-evaluates with the
// current worker count (R15c, R16). A stale timer — the wait ended or was
// replaced — does nothing and returns false. On a ScheduledThreadPoolExecutor
// the timer ends any timed wait on the DelayedWorkQueue, the leader's
// included (R93); on Jetty, a poll(idleTimeout) (R104).
func (p *Pool) KeepAliveExpired(now time.Duration, w *Worker) bool {
	if w.state != IdleTimed || w.deadline != now {
		return false
	}
	p.now = now
	switch p.cfg.Flavor {
	case Scheduled:
		p.dwqWake(w) // awaitNanos returned: loop in take or poll (R93)
		return true
	case Jetty:
		p.unpark(w)
		p.jettyRunner(w) // poll returned null: shrink check, or poll again (R104)
		return true
	}
	p.unpark(w)
	w.timedOut = true
	p.getTask(w)
	return true
}

// processWorkerExit is processWorkerExit(w, completedAbruptly) (R17): an
// abrupt exit lowers wc here; the worker leaves; tryTerminate; then a
// replacement is added for an abrupt exit always, for a normal one when
// fewer than min workers remain — and, in Tomcat, whenever tasks are queued
// (R70). A thread-per-task executor replaces nobody (R86).
func (p *Pool) processWorkerExit(w *Worker, abrupt bool) {
	if abrupt {
		p.wc--
	}
	if w.waiting {
		p.unpark(w)
	}
	p.completedTaskCount += w.Completed
	p.workers.remove(w)
	p.setState(w, Exited)
	p.tryTerminate()
	if p.runState >= PoolStop || p.cfg.Flavor == ThreadPerTask {
		return // ThreadPerTaskExecutor never replaces a thread (R86)
	}
	if !abrupt {
		min := p.cfg.Core
		if p.cfg.CoreTimeOut {
			min = 0
		}
		if min == 0 && p.store.size() > 0 {
			min = 1
		}
		if p.cfg.Flavor == Tomcat {
			if p.wc >= min && p.store.size() == 0 {
				return
			}
		} else if p.wc >= min {
			return
		}
	}
	p.addWorker(nil, false)
}

// tryTerminate is tryTerminate() (R29).
func (p *Pool) tryTerminate() {
	if p.runState == PoolRunning || p.runState >= PoolTidying || (p.runState == PoolShutdown && p.store.size() > 0) {
		return
	}
	if p.wc != 0 {
		p.interruptIdleWorkers(true)
		return
	}
	p.advanceRunState(PoolTidying)
	// terminated() hook: nothing.
	p.advanceRunState(PoolTerminated)
}

// interruptIdleWorkers is interruptIdleWorkers(onlyOne) (R25): every parked
// worker leaves its wait with "timed out" cleared and runs getTask again,
// re-entering the wait list at the tail, with a fresh keepAlive if timed.
// Java wakes them in an order thread scheduling decides; the model keeps
// their previous wait-list order (see doc.go). With onlyOne, Java looks only
// at the first worker of its HashSet; the model looks at the oldest worker.
func (p *Pool) interruptIdleWorkers(onlyOne bool) {
	if onlyOne {
		if w := p.workers.head; w != nil && w.waiting {
			p.interrupt(w)
		}
		return
	}
	p.scratch = p.scratch[:0]
	for w := p.waiters.head; w != nil; w = w.wnext {
		p.scratch = append(p.scratch, w)
	}
	for i, w := range p.scratch {
		p.scratch[i] = nil
		if w.waiting {
			p.interrupt(w)
		}
	}
	p.scratch = p.scratch[:0]
}

func (p *Pool) interrupt(w *Worker) {
	p.unpark(w)
	if p.dwq != nil {
		p.dwqLeave() // take's finally: the InterruptedException leaves take (R93)
	}
	w.timedOut = false
	p.getTask(w)
}

func (p *Pool) advanceRunState(to RunState) {
	if p.runState >= to {
		return
	}
	from := p.runState
	p.runState = to
	p.obs.RunStateChanged(p.now, from, to)
}

// setState is the one place a worker's state changes; it keeps the counts
// and notifies the observer.
func (p *Pool) setState(w *Worker, s State) {
	from := w.state
	if from != Starting {
		p.counts[from]--
	}
	if s != Exited {
		p.counts[s]++
	}
	w.state, w.since = s, p.now
	if (s == IdleTimed || s == IdleUntimed) && from != IdleTimed && from != IdleUntimed {
		w.idleSince = p.now
	}
	if from != s {
		p.obs.WorkerChanged(p.now, w, from, s)
	}
}

// PrestartCoreThread is prestartCoreThread() (R19); on Jetty, one thread
// if there are fewer than minThreads.
func (p *Pool) PrestartCoreThread(now time.Duration) bool {
	p.now = now
	if p.cfg.Flavor == Jetty {
		return p.wc < p.cfg.Core && p.startThread()
	}
	if p.wc >= p.cfg.Core {
		return false
	}
	ok, _ := p.addWorker(nil, true)
	return ok
}

// PrestartAllCoreThreads is prestartAllCoreThreads() (R19): idle core
// workers until addWorker refuses. They wait in take() unless timed (R20).
// On Jetty it is ensureThreads (R107).
func (p *Pool) PrestartAllCoreThreads(now time.Duration) int {
	p.now = now
	if p.cfg.Flavor == Jetty {
		return p.ensureThreads()
	}
	n := 0
	for {
		ok, _ := p.addWorker(nil, true)
		if !ok {
			return n
		}
		n++
	}
}

// noSetters refuses the setters a ThreadPerTaskExecutor does not have (R86).
func (p *Pool) noSetters(field string) error {
	if p.cfg.Flavor == ThreadPerTask {
		return &ConfigError{field, "a thread-per-task executor has no pool settings to change", "R86: ThreadPerTaskExecutor has no setters"}
	}
	return nil
}

// SetCorePoolSize is setCorePoolSize(n) (R21); on Jetty, setMinThreads
// (R100), which drags maxThreads up and starts threads up to the new
// minimum.
func (p *Pool) SetCorePoolSize(now time.Duration, n int) error {
	if p.cfg.Flavor == Jetty {
		p.now = now
		return p.setMinThreads(n)
	}
	if err := p.noSetters("core"); err != nil {
		return err
	}
	if n < 0 || p.cfg.Max < n {
		return &ConfigError{"core", fmt.Sprintf("must be in 0..max (%d), got %d", p.cfg.Max, n), "R21: setCorePoolSize throws IllegalArgumentException"}
	}
	p.now = now
	delta := n - p.cfg.Core
	p.cfg.Core = n
	if p.wc > n {
		p.interruptIdleWorkers(false)
	} else if delta > 0 {
		for k := min(delta, p.store.size()); k > 0; k-- {
			if ok, _ := p.addWorker(nil, true); !ok || p.store.size() == 0 {
				break
			}
		}
	}
	return nil
}

// SetMaximumPoolSize is setMaximumPoolSize(n) (R22); on Jetty,
// setMaxThreads (R100), which drags minThreads down and stops nobody.
func (p *Pool) SetMaximumPoolSize(now time.Duration, n int) error {
	if p.cfg.Flavor == Jetty {
		p.now = now
		return p.setMaxThreads(n)
	}
	if err := p.noSetters("max"); err != nil {
		return err
	}
	if n <= 0 || n < p.cfg.Core || n > Unbounded {
		return &ConfigError{"max", fmt.Sprintf("must be in max(1, core (%d))..%d, got %d", p.cfg.Core, Unbounded, n), "R22: setMaximumPoolSize throws IllegalArgumentException"}
	}
	p.now = now
	p.cfg.Max = n
	if p.wc > n {
		p.interruptIdleWorkers(false)
	}
	return nil
}

// SetKeepAliveTime is setKeepAliveTime(d) (R23): a shorter keepAlive
// interrupts idle workers, whose waits restart with it from now. On Jetty
// it is setIdleTimeout, which interrupts nobody.
func (p *Pool) SetKeepAliveTime(now time.Duration, d time.Duration) error {
	if p.cfg.Flavor == Jetty {
		p.now = now
		return p.setIdleTimeout(d)
	}
	if err := p.noSetters("keepAlive"); err != nil {
		return err
	}
	if d < 0 {
		return &ConfigError{"keepAlive", fmt.Sprintf("must be >= 0, got %v", d), "R23: setKeepAliveTime throws IllegalArgumentException"}
	}
	if d == 0 && p.cfg.CoreTimeOut {
		return &ConfigError{"keepAlive", "must be > 0 while allowCoreThreadTimeOut is on", "R23: core threads must have nonzero keep alive times"}
	}
	p.now = now
	delta := d - p.cfg.KeepAlive
	p.cfg.KeepAlive = d
	if delta < 0 {
		p.interruptIdleWorkers(false)
	}
	return nil
}

// AllowCoreThreadTimeOut is allowCoreThreadTimeOut(v) (R24): turning it on
// interrupts idle workers; turning it off interrupts nobody.
func (p *Pool) AllowCoreThreadTimeOut(now time.Duration, v bool) error {
	if p.cfg.Flavor == Jetty {
		return &ConfigError{"allowCoreThreadTimeOut", "QueuedThreadPool has no core time-out", "R104"}
	}
	if err := p.noSetters("allowCoreThreadTimeOut"); err != nil {
		return err
	}
	if v && p.cfg.KeepAlive <= 0 {
		return &ConfigError{"allowCoreThreadTimeOut", "needs keepAlive > 0", "R24: core threads must have nonzero keep alive times"}
	}
	p.now = now
	if v != p.cfg.CoreTimeOut {
		p.cfg.CoreTimeOut = v
		if v {
			p.interruptIdleWorkers(false)
		}
	}
	return nil
}

// Shutdown is shutdown() (R27): no new tasks; queued ones still run; idle
// workers are interrupted and exit once the queue is empty. Idempotent.
// A ScheduledThreadPoolExecutor then applies its shutdown policies to the
// queued tasks (onShutdown, R98). QueuedThreadPool has no shutdown: the
// scenario loader refuses it, and the model panics.
func (p *Pool) Shutdown(now time.Duration) {
	p.noJettyShutdown()
	p.now = now
	p.advanceRunState(PoolShutdown)
	p.interruptIdleWorkers(false)
	if p.dwq != nil {
		p.onShutdown()
	}
	p.tryTerminate()
}

func (p *Pool) noJettyShutdown() {
	if p.cfg.Flavor == Jetty {
		panic("model: QueuedThreadPool has no shutdown or shutdownNow (its stop() is not modelled)")
	}
}

// ShutdownNow is shutdownNow() (R28): every worker is interrupted, the queue
// is drained — each drained task reported Lost(Drained), in queue order —
// and running tasks finish (tasks in the model ignore interrupts).
func (p *Pool) ShutdownNow(now time.Duration) {
	p.noJettyShutdown()
	p.now = now
	p.advanceRunState(PoolStop)
	p.interruptIdleWorkers(false) // busy workers notice STOP after their task
	if p.dwq != nil {
		p.dwqDrain() // due tasks first, then heap order (R98)
		p.tryTerminate()
		return
	}
	for {
		t, ok := p.store.poll()
		if !ok {
			break
		}
		p.lost = t
		p.obs.Lost(p.now, &p.lost, Drained)
	}
	p.tryTerminate()
}

// CheckInvariants panics with a state dump if the pool's bookkeeping is
// inconsistent. Tests call it after every event.
func (p *Pool) CheckInvariants() {
	fail := func(format string, args ...any) {
		panic(fmt.Sprintf("model invariant: "+format+"\n%s", append(args, p.dump())...))
	}
	if p.wc != p.workers.n {
		fail("wc %d != workers %d", p.wc, p.workers.n)
	}
	if p.wc > p.cfg.Max && p.waiters.n > 0 && p.cfg.Flavor != Jetty {
		fail("wc %d > max %d with parked workers", p.wc, p.cfg.Max)
	}
	n, busy, timed, untimed, parked := 0, 0, 0, 0, 0
	for w := p.workers.head; w != nil; w = w.next {
		n++
		switch w.state {
		case Running:
			busy++
			if !w.hasTask || w.waiting {
				fail("running worker %d without task or parked", w.ID)
			}
		case IdleTimed, IdleUntimed:
			if w.state == IdleTimed {
				timed++
			} else {
				untimed++
			}
			if !w.waiting || w.hasTask {
				fail("idle worker %d not parked or holding a task", w.ID)
			}
		default:
			fail("live worker %d in state %v", w.ID, w.state)
		}
		if w.waiting {
			parked++
		}
	}
	if n != p.workers.n || busy != p.counts[Running] || timed != p.counts[IdleTimed] || untimed != p.counts[IdleUntimed] {
		fail("counts %v disagree with workers (n=%d busy=%d timed=%d untimed=%d)", p.counts, n, busy, timed, untimed)
	}
	if parked != p.waiters.n {
		fail("wait list %d != parked %d", p.waiters.n, parked)
	}
	if p.dwq != nil {
		p.checkScheduled(fail)
	} else if parked > 0 && p.store.size() > 0 {
		fail("%d parked workers beside %d queued tasks", parked, p.store.size())
	}
	if p.cfg.Queue != Synchronous && p.store.size() > p.cfg.QueueCapacity {
		fail("queue %d > capacity %d", p.store.size(), p.cfg.QueueCapacity)
	}
	if p.runState >= PoolTidying && p.wc != 0 {
		fail("run state %v with %d workers", p.runState, p.wc)
	}
}

func (p *Pool) dump() string {
	s := fmt.Sprintf("pool %v wc=%d core=%d max=%d keepAlive=%v queue=%d\n", p.runState, p.wc, p.cfg.Core, p.cfg.Max, p.cfg.KeepAlive, p.store.size())
	for w := p.workers.head; w != nil; w = w.next {
		s += fmt.Sprintf("  worker %d %v since %v parked=%v deadline=%v\n", w.ID, w.state, w.since, w.waiting, w.deadline)
	}
	return s
}
