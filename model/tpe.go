package model

import (
	"fmt"
	"time"
)

// ThreadPoolExecutor mirrors java.util.concurrent.ThreadPoolExecutor (spec
// §1): execute, addWorker, runWorker's loop with getTask,
// processWorkerExit, tryTerminate, interruptIdleWorkers, the setters,
// shutdown and shutdownNow, with the queues of §2 behind it.
//
// Tomcat's executor (TomcatThreadPoolExecutor), ScheduledThreadPoolExecutor
// and the thread-per-task executor extend it as their Java classes do:
// each overrides a few methods (see overrides), and the JDK's code reaches
// an override because it calls through p.self, as a Java virtual call does.
type ThreadPoolExecutor struct {
	pool
	self overrides

	// leader is the DelayedWorkQueue's leader (R93) — nil for every other
	// queue. It is kept here because every end of a wait clears it
	// (unpark), whichever code ends the wait.
	leader *Worker

	// incoming and lost hold a task being rejected out of the queue and
	// a task being dropped, so that reporting them does not allocate.
	incoming, lost Task
	scratch        []*Worker

	// setterBan, if set, is why this executor has no setters (the
	// thread-per-task executor, R86; newSingleThreadExecutor's wrapper,
	// R82): every setter returns it with its own field.
	setterBan *ConfigError
}

// overrides are the methods of ThreadPoolExecutor that a subclass (or its
// queue) overrides. *ThreadPoolExecutor implements them with the JDK's
// behaviour; the JDK's code calls them through p.self.
type overrides interface {
	// execute is execute(Runnable) — each family's exported Execute calls
	// its own — for DiscardOldestPolicy's retry, e.execute(r): Tomcat counts
	// and forces (R66); STPE schedules with delay 0 (R89).
	execute(t *Task)
	// offer is workQueue.offer(task): Tomcat's TaskQueue refuses so that
	// the pool grows (R67).
	offer(t *Task) bool
	// replaceOnExit is processWorkerExit's rule for a normal exit: whether
	// a worker must be added (R17; Tomcat R70; thread-per-task R86 adds
	// none, even after an abrupt exit).
	replaceOnExit(abrupt bool) bool
	// await is getTask's workQueue.poll(keepAlive) (timed) or take() for
	// w (R15d): it runs a task on w or parks it, and reports false when
	// the poll returned null at once (DelayedWorkQueue: R93).
	await(w *Worker, timed bool) bool
	// awaitAgain continues w's wait after its timed wait expired: false
	// means the poll returned null (a condition's awaitNanos loop may go
	// on instead: DelayedWorkQueue).
	awaitAgain(w *Worker) bool
	// interrupted is the finally clause of an interrupted poll or take.
	interrupted()
	// onShutdown is shutdown's hook (STPE's policies, R98).
	onShutdown()
	// drainQueue is shutdownNow's drainQueue (R28).
	drainQueue()
	// checkQueue holds the queue's invariants.
	checkQueue(fail func(string, ...any))
}

// newJDK constructs a java.util.concurrent.ThreadPoolExecutor.
func newJDK(now time.Duration, cfg Config, obs Observer) *ThreadPoolExecutor {
	p := &ThreadPoolExecutor{}
	p.init(now, cfg, obs, p)
	p.construct()
	return p
}

// init sets up the shared state; self is the outermost type.
func (p *ThreadPoolExecutor) init(now time.Duration, cfg Config, obs Observer, self overrides) {
	p.pool.init(now, cfg, obs)
	p.self = self
	if cfg.Delegated {
		p.setterBan = &ConfigError{Msg: "newSingleThreadExecutor() hides the setters", Rule: "R82"}
	}
}

// construct finishes the constructor: prestartAllCoreThreads() if asked
// (R19).
func (p *ThreadPoolExecutor) construct() {
	if p.cfg.Prestart {
		p.PrestartAllCoreThreads(p.now)
	}
}

// Execute is execute(task) (R3–R6).
func (p *ThreadPoolExecutor) Execute(now time.Duration, t *Task) {
	p.now = now
	if p.executeInternal(t) {
		p.aborted(t)
	}
}

// execute is the JDK's execute: the three steps, and the caller gets the
// AbortPolicy's RejectedExecutionException.
func (p *ThreadPoolExecutor) execute(t *Task) {
	if p.executeInternal(t) {
		p.aborted(t)
	}
}

// aborted reports t refused by AbortPolicy: the exception reaches the
// caller of execute (R32).
func (p *ThreadPoolExecutor) aborted(t *Task) {
	p.emit(Event{Kind: Rejected, Task: t})
	p.lose(t, Aborted)
}

// executeInternal is the JDK's execute body, the three steps of R4–R6. It
// reports whether the rejection handler threw (AbortPolicy), which
// execute passes to its caller and Tomcat's execute catches.
func (p *ThreadPoolExecutor) executeInternal(t *Task) (threw bool) {
	// Step 1 (R4): below core, a new thread takes the task even if others idle.
	if p.wc < p.cfg.Core {
		ok, failed := p.addWorker(t, true)
		if ok {
			return false
		}
		if failed {
			p.lose(t, ThreadStartFailed)
			return false
		}
	}
	// Step 2 (R5): queue it; the recheck adds a worker when none is left.
	// The run state cannot change between the offer and the recheck.
	if p.runState == PoolRunning && p.self.offer(t) {
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
		p.lose(t, ThreadStartFailed)
		return false
	}
	return p.reject(t)
}

// reject is reject(command): the handler's rejectedExecution (R32–R36). It
// reports whether the handler threw RejectedExecutionException
// (AbortPolicy); the throw itself is reported by whoever it reaches.
func (p *ThreadPoolExecutor) reject(t *Task) (threw bool) {
	shutdown := p.runState >= PoolShutdown
	switch p.cfg.Rejection {
	case AbortPolicy:
		return true
	case CallerRunsPolicy:
		p.emit(Event{Kind: Rejected, Task: t})
		if shutdown {
			p.lose(t, DroppedAfterShutdown)
		} else {
			p.emit(Event{Kind: CallerRan, Task: t})
		}
	case DiscardPolicy:
		p.emit(Event{Kind: Rejected, Task: t})
		p.lose(t, Discarded)
	case DiscardOldestPolicy:
		p.emit(Event{Kind: Rejected, Task: t})
		if shutdown {
			p.lose(t, DroppedAfterShutdown)
			return false
		}
		victim := p.dequeue()
		if victim == nil {
			// Nothing to drop (a saturated SynchronousQueue): the JDK's
			// execute/reject recursion would repeat until a worker frees up
			// or the stack overflows; in zero time nothing frees up (R35).
			p.lose(t, RetryExhausted)
			return false
		}
		p.lost = *victim
		p.lose(&p.lost, DiscardedOldest)
		p.self.execute(t) // e.execute(r): the public execute, in full
	}
	return false
}

// addWorker is addWorker(firstTask, core) (R9–R11). ok reports that a
// thread started; failed that the thread could not be created
// (ThreadLimit), which the JDK surfaces as an Error from execute.
func (p *ThreadPoolExecutor) addWorker(firstTask *Task, core bool) (ok, failed bool) {
	// R9: no new workers once stopping, nor task-carrying ones once shut down.
	if p.runState >= PoolShutdown && (p.runState >= PoolStop || firstTask != nil || p.queued == 0) {
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

// TaskDone ends w's current task at its completion time: the completed count (R13), then either the abrupt exit of a
// task that threw (R14, R17) or the next getTask. The JDK's afterExecute
// does nothing.
func (p *ThreadPoolExecutor) TaskDone(now time.Duration, w *Worker) {
	p.finishTask(now, w)
	if w.task.Fails {
		p.processWorkerExit(w, true)
		return
	}
	p.getTask(w)
}

// getTask is getTask() (R15) together with runWorker's loop around it: it
// either hands w its next task, parks it in poll(keepAlive) or take(), or
// makes it exit. Its "timed" decision is taken on every pass (R15b).
func (p *ThreadPoolExecutor) getTask(w *Worker) {
	for {
		// (a) stopping, or shut down with nothing left to do.
		if p.runState >= PoolShutdown && (p.runState >= PoolStop || p.queued == 0) {
			p.wc--
			p.processWorkerExit(w, false)
			return
		}
		// (b)
		timed := p.cfg.CoreTimeOut || p.wc > p.cfg.Core
		// (c) cull, with the last-worker guard.
		if (p.wc > p.cfg.Max || (timed && w.timedOut)) && (p.wc > 1 || p.queued == 0) {
			p.wc--
			p.processWorkerExit(w, false)
			return
		}
		// (d) workQueue.poll(keepAlive) or take().
		if p.self.await(w, timed) {
			return
		}
		w.timedOut = true
	}
}

// await is poll(keepAlive) or take() on a JDK queue: a queued task is
// taken at once, without parking (R46); poll(0) on an empty queue returns
// null at once; otherwise w parks.
func (p *ThreadPoolExecutor) await(w *Worker, timed bool) bool {
	if t := p.dequeue(); t != nil {
		w.timedOut = false
		p.runTask(w, t)
		p.cascade()
		return true
	}
	if timed && p.cfg.KeepAlive <= 0 {
		return false
	}
	p.park(w, timed)
	return true
}

// awaitAgain: a JDK queue's poll returns null when its time is up.
func (p *ThreadPoolExecutor) awaitAgain(*Worker) bool { return false }

// interrupted: nothing to do after a JDK queue's interrupted wait.
func (p *ThreadPoolExecutor) interrupted() {}

// unpark ends w's wait (a task, an interrupt or a timeout). A
// DelayedWorkQueue's leader stops being the leader whenever its wait ends
// (take's "if (leader == thisThread) leader = null", R93).
func (p *ThreadPoolExecutor) unpark(w *Worker) {
	p.waiters.remove(w)
	if p.leader == w {
		p.leader = nil
	}
}

// Woken: w, signalled by the queue (Config.Wakeup), is awake and
// re-acquires the queue's lock (R112). If a task is still queued it takes
// the head, and signals the next waiter if tasks remain (R114); if a
// worker returning from a task took it first, w waits again at the tail
// of the wait list with what is left of its timeout — or, none left, its
// poll returns null (R113, R116). An interrupt that came while it woke is
// seen now (R25). It returns false if w was not signalled.
func (p *ThreadPoolExecutor) Woken(now time.Duration, w *Worker) bool {
	if !w.signalled {
		return false
	}
	p.now = now
	w.signalled = false
	p.signalled--
	if t := p.dequeue(); t != nil {
		w.timedOut = false
		w.interruptPending = false // runWorker clears it before the task
		p.runTask(w, t)
		p.cascade()
		return true
	}
	p.emit(Event{Kind: HandOffMissed, Worker: w})
	switch {
	case w.interruptPending:
		w.interruptPending = false
		p.self.interrupted()
		w.timedOut = false
		p.getTask(w)
	case w.state == IdleTimed && w.deadline <= now:
		w.timedOut = true // awaitNanos came back with no time left: poll returns null
		p.getTask(w)
	case w.state == IdleTimed:
		p.parkUntil(w, true, w.deadline)
	default:
		p.parkUntil(w, false, 0)
	}
	return true
}

// KeepAliveExpired fires w's keepAlive timer: if w is still in the same
// poll(keepAlive), the poll returns null and getTask re-evaluates with the
// current worker count (R15c, R16). A stale timer — the wait ended or was
// replaced — does nothing and returns false. On a DelayedWorkQueue the
// timer ends any timed wait, the leader's included, and the wait may go on
// (R93).
func (p *ThreadPoolExecutor) KeepAliveExpired(now time.Duration, w *Worker) bool {
	if w.state != IdleTimed || w.deadline != now || w.signalled {
		return false // a signalled waiter does not time out: the signal won (R116)
	}
	p.now = now
	p.unpark(w)
	if p.self.awaitAgain(w) {
		return true
	}
	w.timedOut = true
	p.getTask(w)
	return true
}

// TimedWaitExpired is KeepAliveExpired.
func (p *ThreadPoolExecutor) TimedWaitExpired(now time.Duration, w *Worker) bool {
	return p.KeepAliveExpired(now, w)
}

// processWorkerExit is processWorkerExit(w, completedAbruptly) (R17): an
// abrupt exit lowers wc here; the worker leaves; tryTerminate; then a
// replacement is added for an abrupt exit, and for a normal one as the
// subclass's rule says (replaceOnExit).
func (p *ThreadPoolExecutor) processWorkerExit(w *Worker, abrupt bool) {
	if abrupt {
		p.wc--
	}
	if w.waiting {
		p.unpark(w)
	}
	p.retire(w)
	p.tryTerminate()
	if p.runState >= PoolStop || !p.self.replaceOnExit(abrupt) {
		return
	}
	p.addWorker(nil, false)
}

// replaceOnExit is the JDK's rule (R17): always after an abrupt exit;
// after a normal one when fewer than min workers remain, min being core
// (0 with allowCoreThreadTimeOut), at least 1 while tasks are queued.
func (p *ThreadPoolExecutor) replaceOnExit(abrupt bool) bool {
	return abrupt || p.wc < p.minWorkers()
}

// minWorkers is processWorkerExit's min.
func (p *ThreadPoolExecutor) minWorkers() int {
	min := p.cfg.Core
	if p.cfg.CoreTimeOut {
		min = 0
	}
	if min == 0 && p.queued > 0 {
		min = 1
	}
	return min
}

// tryTerminate is tryTerminate() (R29).
func (p *ThreadPoolExecutor) tryTerminate() {
	if p.runState == PoolRunning || p.runState >= PoolTidying || (p.runState == PoolShutdown && p.queued > 0) {
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
func (p *ThreadPoolExecutor) interruptIdleWorkers(onlyOne bool) {
	if onlyOne {
		if w := p.workers.head; w != nil && (w.waiting || w.signalled) {
			p.interrupt(w)
		}
		return
	}
	p.scratch = p.scratch[:0]
	for w := p.waiters.head; w != nil; w = w.wnext {
		p.scratch = append(p.scratch, w)
	}
	if p.signalled > 0 { // waking workers are idle too: tryLock succeeds on them
		for w := p.workers.head; w != nil; w = w.next {
			if w.signalled {
				w.interruptPending = true
			}
		}
	}
	for i, w := range p.scratch {
		p.scratch[i] = nil
		if w.waiting {
			p.interrupt(w)
		}
	}
	p.scratch = p.scratch[:0]
}

func (p *ThreadPoolExecutor) interrupt(w *Worker) {
	if w.signalled {
		w.interruptPending = true // it sees the interrupt once awake (Woken)
		return
	}
	p.unpark(w)
	p.self.interrupted()
	w.timedOut = false
	p.getTask(w)
}

// PrestartCoreThread is prestartCoreThread() (R19).
func (p *ThreadPoolExecutor) PrestartCoreThread(now time.Duration) bool {
	p.now = now
	if p.wc >= p.cfg.Core {
		return false
	}
	ok, _ := p.addWorker(nil, true)
	return ok
}

// PrestartAllCoreThreads is prestartAllCoreThreads() (R19): idle core
// workers until addWorker refuses. They wait in take() unless timed (R20).
func (p *ThreadPoolExecutor) PrestartAllCoreThreads(now time.Duration) int {
	p.now = now
	n := 0
	for {
		ok, _ := p.addWorker(nil, true)
		if !ok {
			return n
		}
		n++
	}
}

// Shutdown is shutdown() (R27): no new tasks; queued ones still run; idle
// workers are interrupted and exit once the queue is empty; then the
// onShutdown hook (STPE's policies, R98) and tryTerminate. Idempotent.
func (p *ThreadPoolExecutor) Shutdown(now time.Duration) {
	p.now = now
	p.advanceRunState(PoolShutdown)
	p.interruptIdleWorkers(false)
	p.self.onShutdown()
	p.tryTerminate()
}

// onShutdown: the JDK's hook does nothing.
func (p *ThreadPoolExecutor) onShutdown() {}

// ShutdownNow is shutdownNow() (R28): every worker is interrupted, the queue
// is drained — each drained task reported Lost(Drained), in queue order —
// and running tasks finish (tasks in the model ignore interrupts).
func (p *ThreadPoolExecutor) ShutdownNow(now time.Duration) {
	p.now = now
	p.advanceRunState(PoolStop)
	p.interruptIdleWorkers(false) // busy workers notice STOP after their task
	p.self.drainQueue()
	p.tryTerminate()
}

// drainQueue is drainQueue(): every queued task, in queue order.
func (p *ThreadPoolExecutor) drainQueue() {
	for {
		t := p.dequeue()
		if t == nil {
			return
		}
		p.lost = *t
		p.lose(&p.lost, Drained)
	}
}

// CheckInvariants panics with a state dump if the pool's bookkeeping is
// inconsistent. Tests call it after every event.
func (p *ThreadPoolExecutor) CheckInvariants() {
	fail := p.failer()
	p.checkWorkers(fail)
	if p.wc > p.cfg.Max && p.waiters.n > 0 {
		fail("wc %d > max %d with parked workers", p.wc, p.cfg.Max)
	}
	p.self.checkQueue(fail)
}

// checkQueue: a parked worker and a queued task never coexist (R47).
func (p *ThreadPoolExecutor) checkQueue(fail func(string, ...any)) { p.checkHandOff(fail) }

// TimedWaitSite: idle workers above core wait in the queue's
// poll(keepAlive).
func (p *ThreadPoolExecutor) TimedWaitSite() string { return p.pollSite() }

// DescribeIdle says where idle worker w waits and for how long.
func (p *ThreadPoolExecutor) DescribeIdle(now time.Duration, w *Worker, rank int) string {
	if w.state == IdleUntimed {
		return p.describeTake(now, w, rank)
	}
	return fmt.Sprintf("TIMED_WAITING (parking) in %s.poll for %v, times out in %v; hand-off rank %d",
		p.cfg.Queue.JavaName(), now-w.since, w.deadline-now, rank)
}
