package model

import (
	"fmt"
	"math"
	"time"
)

// This file is java.util.concurrent.ScheduledThreadPoolExecutor (spec §6,
// R88–R98) on top of the ThreadPoolExecutor model: schedule,
// scheduleAtFixedRate, scheduleWithFixedDelay, delayedExecute,
// reExecutePeriodic, ensurePrestart, onShutdown, and the DelayedWorkQueue's
// take/poll with its leader–follower wait (R93). The heap itself is in
// delayqueue.go.
//
// Workers wait on the queue's one condition ("available"), whose waiters
// are the pool's wait list in FIFO order (R40). A waiter in await() is
// IdleUntimed (WAITING); one in awaitNanos — the leader, waiting until the
// head is due, or a worker in poll(keepAlive) — is IdleTimed (TIMED_WAITING,
// R61, M6), its Deadline the instant that awaitNanos returns. The event
// loop's keepAlive timer serves both: KeepAliveExpired returns the
// awaitNanos, and the worker loops in take or poll as the JDK's does.
//
// Zero wake-up latency (spec R47) becomes: a parked worker and a due task
// never coexist. A signalled worker re-runs its loop at once, ahead of a
// worker being started by the same call (ensurePrestart), which in Java
// needs far longer to start than a parked thread needs to wake.

// DefaultScheduledKeepAlive is ScheduledThreadPoolExecutor's keepAliveTime,
// DEFAULT_KEEPALIVE_MILLIS (R88).
const DefaultScheduledKeepAlive = 10 * time.Millisecond

// maxScheduleDelay is ScheduledThreadPoolExecutor.MAX_NANOS (JDK 25), about
// 146 years: triggerTime caps every delay at it (R89).
const maxScheduleDelay = time.Duration(math.MaxInt64>>1 - 1)

// ScheduledThreadPoolExecutor mirrors
// java.util.concurrent.ScheduledThreadPoolExecutor (spec §6, R88–R98): a
// ThreadPoolExecutor whose queue is the DelayedWorkQueue (delayqueue.go),
// whose execute is schedule(task, 0), whose ScheduledFutureTasks catch what
// their runs throw and re-queue periodic runs, and whose onShutdown applies
// the shutdown policies.
type ScheduledThreadPoolExecutor struct {
	ThreadPoolExecutor
	dwq *delayStore // the DelayedWorkQueue's heap (also p.store)
	seq uint64      // the sequence number of the last ScheduledFutureTask
}

// newScheduled constructs a ScheduledThreadPoolExecutor: no thread starts
// before the first schedule call (R91), unless cfg.Prestart (R19).
func newScheduled(now time.Duration, cfg Config, obs Observer) *ScheduledThreadPoolExecutor {
	p := &ScheduledThreadPoolExecutor{}
	p.init(now, cfg, obs, p)
	p.dwq = p.store.(*delayStore)
	p.construct()
	return p
}

// validateScheduled holds the ScheduledThreadPoolExecutor constructor's
// shape: a DelayedWorkQueue, which is unbounded (R88).
func (c Config) validateScheduled() error {
	switch {
	case c.Flavor == Scheduled && c.Queue != DelayedWorkQueue:
		return &ConfigError{"queue.type", fmt.Sprintf("ScheduledThreadPoolExecutor uses its DelayedWorkQueue, got %s", c.Queue), "R88"}
	case c.Flavor != Scheduled && c.Queue == DelayedWorkQueue:
		return &ConfigError{"queue.type", "DelayedWorkQueue needs a ScheduledThreadPoolExecutor (preset scheduled)", "R88"}
	case c.Flavor == Scheduled && c.QueueCapacity != Unbounded:
		return &ConfigError{"queue.capacity", fmt.Sprintf("DelayedWorkQueue is unbounded, got %d", c.QueueCapacity), "R88"}
	case c.Flavor != Scheduled && (c.ContinuePeriodicAfterShutdown || c.DropDelayedOnShutdown):
		return &ConfigError{"continueExistingPeriodicTasksAfterShutdown", "a shutdown policy of ScheduledThreadPoolExecutor only", "R98"}
	case c.Flavor != Scheduled && c.RemoveOnCancel:
		return &ConfigError{"removeOnCancelPolicy", "a policy of ScheduledThreadPoolExecutor only", "R97"}
	}
	return nil
}

// Future is the ScheduledFuture a schedule call returns, named by its
// ScheduledFutureTask's sequence number: every run of a periodic task is
// the same future (reExecutePeriodic queues the same object again, R94).
// Cancel takes it. The zero Future names no task.
type Future uint64

// Schedule is schedule(task, delay) (R89): the task is due at now +
// max(delay, 0) and goes through delayedExecute (R90). execute(task) on a
// ScheduledThreadPoolExecutor is Schedule(task, 0). The model sets
// t.Arrival to the due time when that is later, so a task's wait is its
// lateness. It returns the task's future (also when the handler rejected
// it: the JDK's non-throwing policies return it too), and an error only for
// a pool that is not a ScheduledThreadPoolExecutor.
func (p *ScheduledThreadPoolExecutor) Schedule(now time.Duration, t Task, delay time.Duration) (Future, error) {
	p.now = now
	return p.schedule(&t, delay, 0), nil
}

// ScheduleAtFixedRate is scheduleAtFixedRate(task, initialDelay, period)
// (R94): runs due at now+initialDelay, then each previous due time plus
// period; a late run is followed by the missed ones back to back, never
// overlapping. period <= 0 is the JDK's IllegalArgumentException.
func (p *ScheduledThreadPoolExecutor) ScheduleAtFixedRate(now time.Duration, t Task, initialDelay, period time.Duration) (Future, error) {
	if period <= 0 {
		return 0, &ConfigError{"every", fmt.Sprintf("must be > 0, got %v", period), "R94: scheduleAtFixedRate throws IllegalArgumentException for period <= 0"}
	}
	return p.schedulePeriodic(now, t, initialDelay, period)
}

// ScheduleWithFixedDelay is scheduleWithFixedDelay(task, initialDelay,
// delay) (R95): each next run is due delay after the previous run ended.
// delay <= 0 is the JDK's IllegalArgumentException.
func (p *ScheduledThreadPoolExecutor) ScheduleWithFixedDelay(now time.Duration, t Task, initialDelay, delay time.Duration) (Future, error) {
	if delay <= 0 {
		return 0, &ConfigError{"every", fmt.Sprintf("must be > 0, got %v", delay), "R95: scheduleWithFixedDelay throws IllegalArgumentException for delay <= 0"}
	}
	return p.schedulePeriodic(now, t, initialDelay, -delay)
}

func (p *ScheduledThreadPoolExecutor) schedulePeriodic(now time.Duration, t Task, initialDelay, period time.Duration) (Future, error) {
	p.now = now
	if t.Run == 0 {
		t.Run = 1
	}
	return p.schedule(&t, initialDelay, period), nil
}

// triggerTime is the due time of a task scheduled now with this delay:
// negative delays count as 0, and delays are capped at MAX_NANOS (R89).
func (p *ScheduledThreadPoolExecutor) triggerTime(delay time.Duration) time.Duration {
	delay = min(max(delay, 0), maxScheduleDelay)
	if p.now > math.MaxInt64-delay {
		return math.MaxInt64
	}
	return p.now + delay
}

// schedule builds the ScheduledFutureTask (a new sequence number) and
// hands it to delayedExecute.
func (p *ScheduledThreadPoolExecutor) schedule(t *Task, delay, period time.Duration) Future {
	p.seq++
	d := delayed{task: *t, schedule: schedule{due: p.triggerTime(delay), seq: p.seq, period: period}}
	if d.due > d.task.Arrival {
		d.task.Arrival = d.due
	}
	p.delayedExecute(&d)
	return Future(d.seq)
}

// Cancel is future.cancel(false) on a ScheduledFutureTask (R97, JDK 17's
// ScheduledFutureTask.cancel and FutureTask.cancel): it reports whether the
// future was still live (state NEW) and is now cancelled. A periodic series
// ends there, whether its run is queued or running.
//
//   - Queued, removeOnCancelPolicy false (the default): the task keeps its
//     place in the DelayedWorkQueue. The queue's length counts it, and the
//     leader goes on waiting TIMED_WAITING until it is due; then a worker
//     takes it and its run returns at once (FutureTask.run finds the state
//     not NEW): no service time, no next run, one more completed task for
//     that worker (runWorker counts it).
//   - Queued, removeOnCancelPolicy true: ThreadPoolExecutor.remove takes it
//     out of the heap at once (DelayedWorkQueue.remove), then tryTerminate
//     — which ends a shut-down pool whose queue is now empty. remove
//     neither signals the condition nor clears the leader: a leader waiting
//     for the removed head stays TIMED_WAITING until that head's due time,
//     then loops in take (measured on JDK 17: TIMED_WAITING with an empty
//     queue until the due time, then WAITING).
//   - Running: the run goes on to its end (mayInterruptIfRunning is false);
//     a periodic task is not queued again (runAndReset returns false for a
//     cancelled future), nor does a throw then count as its end (R96).
//
// A future that already completed, threw, was cancelled, or is not known
// (drained by shutdownNow, rejected) reports false and changes nothing. (For
// a drained or rejected future, whose state is still NEW, the JDK's cancel
// returns true; it changes nothing in the pool either.)
func (p *ScheduledThreadPoolExecutor) Cancel(now time.Duration, f Future) bool {
	if f == 0 {
		return false
	}
	p.now = now
	seq := uint64(f)
	if i := p.dwq.indexOf(seq); i >= 0 {
		e := &p.dwq.es[i]
		if e.cancelled {
			return false
		}
		e.cancelled = true
		p.lost = e.task
		p.cancelled(&p.lost, e.periodic())
		if p.cfg.RemoveOnCancel {
			d := p.dwq.removeAt(i)
			p.queued--
			p.lost = d.task
			p.lose(&p.lost, RemovedAfterCancel)
			p.tryTerminate() // ThreadPoolExecutor.remove: in case SHUTDOWN and now empty
		}
		return true
	}
	for w := p.workers.head; w != nil; w = w.next {
		if w.hasTask && w.sched.seq == seq {
			if w.sched.cancelled {
				return false
			}
			w.sched.cancelled = true
			p.lost = w.task
			p.cancelled(&p.lost, w.sched.periodic())
			return true
		}
	}
	return false
}

// cancelled reports a caller's job — periodic, or a one-shot task with
// Task.Periodic set — whose future was just cancelled.
func (p *ScheduledThreadPoolExecutor) cancelled(t *Task, periodic bool) {
	if periodic || t.Periodic != 0 {
		p.periodicEnded(t, EndedByCancel)
	}
}

// delayedExecute (R90): a shut-down pool rejects the task through its
// handler; otherwise it is queued, then ensurePrestart starts a worker if
// there are fewer than core (R91). (The JDK's recheck — cancel the task if
// shutdown came between the two steps — cannot trigger here: the model has
// no concurrent shutdown.)
func (p *ScheduledThreadPoolExecutor) delayedExecute(d *delayed) {
	if p.runState >= PoolShutdown {
		p.incoming = d.task
		if p.reject(&p.incoming) {
			p.aborted(&p.incoming)
		}
		return
	}
	p.dwqAdd(*d)
	p.ensurePrestart()
}

// ensurePrestart is ThreadPoolExecutor.ensurePrestart (R19, R91): one core
// worker if wc < core, else one worker if there is none at all.
func (p *ScheduledThreadPoolExecutor) ensurePrestart() {
	if p.wc < p.cfg.Core {
		p.addWorker(nil, true)
	} else if p.wc == 0 {
		p.addWorker(nil, false)
	}
}

// dwqAdd is DelayedWorkQueue.offer (R93): a task that becomes the head
// clears the leader and signals one waiter.
func (p *ScheduledThreadPoolExecutor) dwqAdd(d delayed) {
	p.queued++
	if p.dwq.add(d) {
		p.leader = nil
		p.dwqSignal()
	}
}

// canRunInCurrentRunState (R98): always while running; never once
// stopped; after shutdown, periodic tasks only with
// continueExistingPeriodicTasksAfterShutdown, delayed ones unless
// executeExistingDelayedTasksAfterShutdown is off — or they are due.
func (p *ScheduledThreadPoolExecutor) canRunInCurrentRunState(s *schedule) bool {
	switch {
	case p.runState == PoolRunning:
		return true
	case p.runState >= PoolStop:
		return false
	case s.periodic():
		return p.cfg.ContinuePeriodicAfterShutdown
	}
	return !p.cfg.DropDelayedOnShutdown || s.due <= p.now
}

// dwqGetTask is the wait of getTask (R15d) on a DelayedWorkQueue: take(),
// or poll(keepAlive) when timed. It reports false when the poll returned
// null (getTask then remembers "timed out" and loops); true when the worker
// got a task or is parked.
//
// With keepAlive 0 (setKeepAliveTime(0)) the last worker cannot leave while
// a task is queued (the last-worker guard, R16), and poll(0) returns null
// at once until the task is due: Java spins on the CPU meanwhile. The model
// lets that worker wait timed until the head is due instead, the instant
// the spin would end.
func (p *ScheduledThreadPoolExecutor) dwqGetTask(w *Worker, timed bool) bool {
	w.inPoll = timed
	if timed {
		w.pollDeadline = p.now + p.cfg.KeepAlive
		if h := p.dwq.head(); p.cfg.KeepAlive <= 0 && h != nil && h.due > p.now && p.wc <= 1 {
			w.pollDeadline = h.due
		}
	}
	return p.dwqAwait(w)
}

// dwqAwait is one pass of DelayedWorkQueue.take's or poll's loop (R93) for
// w, which is not parked: take the head if it is due; otherwise wait —
// untimed behind a leader, or as the leader until the head is due, or, in
// poll, no longer than the poll's own deadline. It reports false when the
// poll's time is up.
func (p *ScheduledThreadPoolExecutor) dwqAwait(w *Worker) bool {
	h := p.dwq.head()
	switch {
	case h != nil && h.due <= p.now:
		d := p.dwq.pollHead()
		p.queued--
		w.timedOut = false
		p.runScheduled(w, &d)
		return true
	case w.inPoll && p.now >= w.pollDeadline:
		p.dwqLeave()
		return false
	case h == nil:
		p.parkUntil(w, w.inPoll, w.pollDeadline) // await(), or awaitNanos(nanos) in poll
	case w.inPoll && (w.pollDeadline < h.due || p.leader != nil):
		p.parkUntil(w, true, w.pollDeadline) // poll: nanos < delay, or a leader exists
	case !w.inPoll && p.leader != nil:
		p.parkUntil(w, false, 0) // a follower
	default:
		p.leader = w
		p.parkUntil(w, true, h.due) // the leader waits until the head is due
	}
	return true
}

// dwqLeave is the finally clause of take and poll: leaving with no leader
// and a non-empty queue signals a waiter, which may become the next leader
// (R93).
func (p *ScheduledThreadPoolExecutor) dwqLeave() {
	if p.leader == nil && p.dwq.size() > 0 {
		p.dwqSignal()
	}
}

// dwqSignal is available.signal(): the longest-waiting worker (R40) wakes
// and re-runs its take or poll loop at once. A poll whose time is up
// returns null to its getTask.
func (p *ScheduledThreadPoolExecutor) dwqSignal() {
	w := p.waiters.head
	if w == nil {
		return
	}
	p.unpark(w)
	if !p.dwqAwait(w) {
		w.timedOut = true
		p.getTask(w)
	}
}

// runScheduled is the end of take (its finally clause, dwqLeave) and the
// start of ScheduledFutureTask.run on w. A cancelled task (R97) returns at
// once: w counts it as completed and asks for its next task. A task that
// may not run in the current state (R98: taken after shutdownNow began,
// say) is cancelled instead, and w asks for its next task.
func (p *ScheduledThreadPoolExecutor) runScheduled(w *Worker, d *delayed) {
	if d.cancelled {
		// FutureTask.run (or runAndReset) finds the state CANCELLED and
		// returns: no service time, no next run; runWorker still counts
		// a completed task.
		p.dwqLeave()
		w.Completed++
		p.lost = d.task
		p.emit(Event{Kind: SkippedCancelled, Worker: w, Task: &p.lost})
		p.getTask(w)
		return
	}
	if !p.canRunInCurrentRunState(&d.schedule) {
		p.dwqLeave()
		p.lost = d.task
		p.lose(&p.lost, Cancelled)
		p.jobEnded(d, EndedByShutdown)
		p.getTask(w)
		return
	}
	w.sched = d.schedule
	p.runTask(w, &d.task)
	p.dwqLeave()
}

// scheduledTaskDone is the end of ScheduledFutureTask.run on w: a FutureTask
// keeps what the task threw, so the worker never dies of it (R8, R96). A
// periodic task that ran normally computes its next due time
// (setNextRunTime: previous due + period, R94; or now + delay, R95) and is
// queued again (reExecutePeriodic), before w returns to getTask; one that
// threw stops its series (R96).
func (p *ScheduledThreadPoolExecutor) scheduledTaskDone(w *Worker) {
	if !w.sched.periodic() || w.sched.cancelled {
		return // cancelled during the run: runAndReset returns false (R97)
	}
	t, s := w.task, w.sched
	if t.Fails {
		p.periodicEnded(&t, EndedByException)
		return
	}
	if s.period > 0 {
		s.due += s.period
	} else {
		s.due = p.triggerTime(-s.period)
	}
	p.reExecutePeriodic(t, s)
}

// reExecutePeriodic (R94, R98): queue the next run unless the run state
// forbids it, then ensurePrestart — so every run, like every schedule call,
// may start a worker while wc < core (R91).
func (p *ScheduledThreadPoolExecutor) reExecutePeriodic(t Task, s schedule) {
	if !p.canRunInCurrentRunState(&s) {
		p.periodicEnded(&t, EndedByShutdown)
		return
	}
	t.Run++
	t.Arrival, t.Submit = s.due, p.now
	p.emit(Event{Kind: Rescheduled, Task: &t})
	p.dwqAdd(delayed{task: t, schedule: s})
	p.ensurePrestart()
}

func (p *ScheduledThreadPoolExecutor) periodicEnded(t *Task, why PeriodicEnd) {
	p.emit(Event{Kind: PeriodicEnded, Task: t, End: why})
}

// jobEnded reports that a queued task of a caller's job — periodic, or a
// one-shot one with Task.Periodic set — was cancelled or drained.
func (p *ScheduledThreadPoolExecutor) jobEnded(d *delayed, why PeriodicEnd) {
	if d.periodic() || d.task.Periodic != 0 {
		p.periodicEnded(&p.lost, why)
	}
}

// onShutdown is ScheduledThreadPoolExecutor.onShutdown (R98), called by
// shutdown after the idle workers were interrupted: in toArray (heap
// array) order, it removes and cancels the queued periodic tasks unless
// continueExistingPeriodicTasksAfterShutdown, and the delayed tasks not yet
// due if executeExistingDelayedTasksAfterShutdown is off; it also removes
// the tasks already cancelled (R97), whatever the policies (reported
// RemovedAfterCancel: their series ended at the cancel); then tryTerminate.
func (p *ScheduledThreadPoolExecutor) onShutdown() {
	keepPeriodic := p.cfg.ContinuePeriodicAfterShutdown
	keepDelayed := !p.cfg.DropDelayedOnShutdown
	for _, seq := range p.dwq.snapshot() {
		i := p.dwq.indexOf(seq)
		if i < 0 {
			continue
		}
		e := &p.dwq.es[i]
		drop := !keepDelayed && e.due > p.now
		if e.periodic() {
			drop = !keepPeriodic
		}
		if e.cancelled {
			d := p.dwq.removeAt(i)
			p.queued--
			p.lost = d.task
			p.lose(&p.lost, RemovedAfterCancel)
			continue
		}
		if !drop {
			continue
		}
		d := p.dwq.removeAt(i)
		p.queued--
		p.lost = d.task
		p.lose(&p.lost, Cancelled)
		p.jobEnded(&d, EndedByShutdown)
	}
	p.tryTerminate()
}

// dwqDrain is ThreadPoolExecutor.drainQueue on a DelayedWorkQueue (R28,
// R98): drainTo takes the due tasks in due order, then the others are
// removed one by one in toArray (heap array) order.
func (p *ScheduledThreadPoolExecutor) dwqDrain() {
	for h := p.dwq.head(); h != nil && h.due <= p.now; h = p.dwq.head() {
		d := p.dwq.pollHead()
		p.queued--
		p.drained(&d)
	}
	rest := p.dwq.es
	p.dwq.es = nil
	p.queued = 0
	for i := range rest {
		p.drained(&rest[i])
	}
}

func (p *ScheduledThreadPoolExecutor) drained(d *delayed) {
	p.lost = d.task
	p.lose(&p.lost, Drained)
	p.jobEnded(d, EndedByDrain)
}

// CancelledQueued returns how many queued tasks are cancelled: with
// removeOnCancelPolicy false they stay in the queue until due (R97).
func (p *ScheduledThreadPoolExecutor) CancelledQueued() int {
	n := 0
	for i := range p.dwq.es {
		if p.dwq.es[i].cancelled {
			n++
		}
	}
	return n
}

// NextDue returns the due time of the DelayedWorkQueue's head
// (queue[0].time), and false when the queue is empty or not a
// DelayedWorkQueue.
func (p *ScheduledThreadPoolExecutor) NextDue() (time.Duration, bool) {
	if h := p.dwq.head(); h != nil {
		return h.due, true
	}
	return 0, false
}

// Leader returns the DelayedWorkQueue's leader — the worker waiting timed
// until the head is due (R61, R93) — or nil.
func (p *ScheduledThreadPoolExecutor) Leader() *Worker { return p.leader }

// checkScheduled holds the DelayedWorkQueue's invariants: no parked worker
// beside a due task (zero wake-up latency), and a leader, if any, waiting
// timed. Within one instant a task can come due while the leader's wake-up
// at that same instant is still to be processed (a run ending exactly when
// the next head is due): that is not a lost wake-up.
func (p *ScheduledThreadPoolExecutor) checkScheduled(fail func(string, ...any)) {
	wakingNow := p.leader != nil && p.leader.waiting && p.leader.deadline <= p.now
	if h := p.dwq.head(); h != nil && h.due <= p.now && p.waiters.n > 0 && !wakingNow {
		fail("%d parked workers beside a task due at %v", p.waiters.n, h.due)
	}
	if l := p.leader; l != nil && (!l.waiting || l.state != IdleTimed) {
		fail("leader %d is %v, not waiting timed", l.ID, l.state)
	}
}

// The methods of ThreadPoolExecutor that ScheduledThreadPoolExecutor and
// its DelayedWorkQueue override (see overrides).

// Execute is STPE.execute(task): schedule(task, 0) (R89).
func (p *ScheduledThreadPoolExecutor) Execute(now time.Duration, t *Task) {
	p.now = now
	p.execute(t)
}

// execute is STPE.execute: schedule(command, 0) (R89).
func (p *ScheduledThreadPoolExecutor) execute(t *Task) { p.schedule(t, 0, 0) }

// TaskDone ends w's task, at the end of ScheduledFutureTask.run: the
// future caught what the run threw, so it never reaches runWorker (R8,
// R96), which goes straight on to getTask; a periodic run is queued again
// first (R94, R95).
func (p *ScheduledThreadPoolExecutor) TaskDone(now time.Duration, w *Worker) {
	p.finishTask(now, w)
	p.scheduledTaskDone(w)
	p.getTask(w)
}

// await is DelayedWorkQueue.take or poll(keepAlive) (R93).
func (p *ScheduledThreadPoolExecutor) await(w *Worker, timed bool) bool {
	return p.dwqGetTask(w, timed)
}

// awaitAgain: awaitNanos returned; the worker loops in its take or poll.
func (p *ScheduledThreadPoolExecutor) awaitAgain(w *Worker) bool { return p.dwqAwait(w) }

// interrupted is take's finally clause: the InterruptedException leaves
// take (R93).
func (p *ScheduledThreadPoolExecutor) interrupted() { p.dwqLeave() }

// drainQueue is drainQueue on a DelayedWorkQueue (R98).
func (p *ScheduledThreadPoolExecutor) drainQueue() { p.dwqDrain() }

// checkQueue holds the DelayedWorkQueue's invariants.
func (p *ScheduledThreadPoolExecutor) checkQueue(fail func(string, ...any)) { p.checkScheduled(fail) }

// TimedWaitSite: with core threads that do not time out, the only timed
// waiter is the leader, in take until the next task is due (R61, R93).
func (p *ScheduledThreadPoolExecutor) TimedWaitSite() string {
	if p.cfg.Core > 0 && !p.cfg.CoreTimeOut {
		return p.cfg.Queue.JavaName() + ".take as the leader, until the next task is due"
	}
	return p.ThreadPoolExecutor.TimedWaitSite()
}

// DescribeIdle says what idle worker w waits for: the leader waits for the
// head's due time; the others await the condition (R93).
func (p *ScheduledThreadPoolExecutor) DescribeIdle(now time.Duration, w *Worker, rank int) string {
	q := p.cfg.Queue.JavaName()
	switch {
	case w.state != IdleTimed:
		return p.ThreadPoolExecutor.DescribeIdle(now, w, rank)
	case w != p.leader:
		return fmt.Sprintf("TIMED_WAITING (parking) in %s (awaitNanos) for %v, wakes in %v; signal rank %d", q, now-w.since, w.deadline-now, rank)
	}
	if due, ok := p.NextDue(); ok && due == w.deadline {
		return fmt.Sprintf("TIMED_WAITING (parking) in %s.take, the leader, for %v: the head is due in %v; signal rank %d", q, now-w.since, w.deadline-now, rank)
	}
	// Its head left the queue (a cancel under removeOnCancelPolicy, or
	// shutdown's sweep): DelayedWorkQueue.remove wakes nobody (R97), so it
	// sleeps on until that head's due time.
	return fmt.Sprintf("TIMED_WAITING (parking) in %s.take, the leader, for %v: its head was removed unrun, and it wakes in %v, when that head was due; signal rank %d",
		q, now-w.since, w.deadline-now, rank)
}
