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

// pool is the machinery every executor family shares: its live workers in
// creation order, the wait list of parked workers in hand-off order, the
// counts by state, the observer, the clock of the current call and the run
// state. Families embed it and add their own rules; nothing here decides
// when a thread starts, waits or ends.
//
// Every exported method of a family takes the virtual time of the call. An
// executor is not safe for concurrent use; a run drives it from one
// goroutine.
type pool struct {
	cfg      Config // current configuration; the setters change it
	handOff  HandOff
	obs      Observer
	note     Notifier // obs, or events on its behalf (Notifier)
	now      time.Duration
	runState RunState

	// wc is ctl's worker count. The model has no races, so it always
	// equals workers.n except inside processWorkerExit (M1).
	wc      int
	workers workerList
	waiters waitList
	store   taskStore
	// queued is store.size(), kept here so that QueueLen, asked after
	// every event, and the rules that ask "is the queue empty?" on every
	// task (getTask, addWorker, processWorkerExit, tryTerminate) read a
	// field instead of calling the store (CheckInvariants holds them
	// equal): every change of the store goes through enqueue, dequeue or
	// drained.
	queued int
	// signalled counts the workers signalled and still waking
	// (Config.Wakeup).
	signalled int
	// cascades: with Config.Wakeup, a dequeue that leaves tasks queued
	// signals the next waiter (cascade, R114). It is fixed at
	// construction (no setter changes the queue or the wake-up latency),
	// so that every dequeue tests one field.
	cascades bool

	nextID             int
	largestPoolSize    int
	completedTaskCount int64 // of exited workers; live ones add theirs
	// counts[s] is how many workers entered state s less how many left
	// it: for Running and the idle states the live workers in s; Starting,
	// which no worker enters, and Exited, which none leaves, count every
	// thread ever created and exited, so that setState moves a worker
	// between any two states without asking which. setState indexes it
	// by s&stateMask, which the compiler knows is in range.
	counts [stateMask + 1]int

	// freeSlots holds the slots of exited workers for reuse, and nSlots
	// how many slots were ever handed out (Worker.Slot).
	freeSlots []int32
	nSlots    int32

	// ev is the event being reported, so that reporting allocates nothing;
	// events reports the hot events to an Observer that is no Notifier.
	ev     Event
	events eventer

	// slab holds Workers not yet handed out: they are allocated a block at
	// a time, since a pool whose threads come and go (a cached or an
	// elastic pool) creates tens of thousands in a run. free holds exited
	// Workers the driver handed back (Recycle), taken first: without it a
	// pointer to an exited Worker stays what it was.
	slab []Worker
	free []*Worker
}

// stateMask masks a State into pool.counts: the states fit in three bits,
// and an index so masked needs no bounds check on every task's path.
const stateMask = 7

const _ = uint8(stateMask - Exited) // every State fits: a compile error otherwise

// workerSlab is how many Workers are allocated at once.
const workerSlab = 64

func (p *pool) init(now time.Duration, cfg Config, obs Observer) {
	p.cfg, p.handOff, p.obs, p.now = cfg, cfg.HandOff(), obs, now
	p.note = notifier(obs, &p.events)
	p.store = newStore(cfg.Queue, cfg.QueueCapacity)
	p.cascades = cfg.Wakeup && cfg.Queue.cascades()
}

// Config returns the pool's current configuration.
func (p *pool) Config() Config { return p.cfg }

// RunState returns the current run state.
func (p *pool) RunState() RunState { return p.runState }

// PoolSize is getPoolSize(): the number of live workers (R31).
func (p *pool) PoolSize() int { return p.workers.n }

// Count returns how many live workers are in state s: none is Starting or
// Exited.
func (p *pool) Count(s State) int {
	switch s {
	case Running, IdleTimed, IdleUntimed:
		return p.counts[s]
	}
	return 0
}

// ActiveCount is getActiveCount(): workers running a task (R31).
func (p *pool) ActiveCount() int { return p.counts[Running] }

// QueueLen is getQueue().size().
func (p *pool) QueueLen() int { return p.queued }

// enqueue is the store's offer, counted.
func (p *pool) enqueue(t *Task) bool {
	if p.store.offer(t) {
		p.queued++
		return true
	}
	return false
}

// dequeue is the store's poll, counted: the head, or nil. The task it
// points to is valid until the queue's next change. An empty queue, which
// is what a worker finishing its task finds whenever the pool keeps up,
// answers nil without asking the store.
func (p *pool) dequeue() *Task {
	if p.queued == 0 {
		return nil
	}
	p.queued-- // a store that holds tasks polls one
	return p.store.poll()
}

// LargestPoolSize is getLargestPoolSize() (R31).
func (p *pool) LargestPoolSize() int { return p.largestPoolSize }

// CompletedTaskCount is getCompletedTaskCount(): finished tasks, thrown ones
// included (R31).
func (p *pool) CompletedTaskCount() int64 {
	n := p.completedTaskCount
	for w := p.workers.head; w != nil; w = w.next {
		n += w.Completed
	}
	return n
}

// HandOff returns the order in which parked workers receive tasks.
func (p *pool) HandOff() HandOff { return p.handOff }

// Workers calls fn for every live worker in creation order.
func (p *pool) Workers(fn func(*Worker)) {
	for w := p.workers.head; w != nil; w = w.next {
		fn(w)
	}
}

// Parked calls fn for every parked worker in hand-off order: the first one
// visited receives the next offered task.
func (p *pool) Parked(fn func(*Worker)) {
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
func (p *pool) Queued(fn func(*Task)) { p.store.each(fn) }

// unparkNext takes the parked worker the queue hands the next task to
// (R47, R50) off the wait list and returns it; some worker is parked.
func (p *pool) unparkNext() *Worker { return p.waiters.pop(p.handOff == LIFO) }

// offer is workQueue.offer(task) on a JDK queue: a parked worker, if any,
// receives the task at once, chosen by the queue's hand-off order (R47,
// R50); else the store takes it if it has room; a SynchronousQueue without
// a parked worker refuses (R49). ThreadPoolExecutor's offer (overrides) is
// this method, promoted, so that execute reaches it in one call; Tomcat's
// TaskQueue overrides it and calls it as LinkedBlockingQueue's
// super.offer.
func (p *pool) offer(t *Task) bool {
	if p.cfg.Wakeup && p.cfg.Queue != Synchronous {
		return p.conditionOffer(t)
	}
	if p.waiters.n > 0 {
		w := p.unparkNext()
		w.timedOut = false
		// With a wake-up latency only a SynchronousQueue gets here: its
		// matched worker has the task now and starts it once awake (R119).
		w.task, w.hasTask = *t, true
		p.setState(w, Running)
		p.note.OnStarted(p.now, w, &w.task, p.cfg.Wakeup)
		return true
	}
	return p.enqueue(t)
}

// conditionOffer is the offer of a condition queue when waking takes time
// (Config.Wakeup): the task is queued, and the head waiter is signalled —
// by LinkedBlockingQueue (Tomcat's TaskQueue too) only when the queue was
// empty, by ArrayBlockingQueue and PriorityBlockingQueue at every insert
// (R111, R114). The signalled worker takes a task only when Woken.
func (p *pool) conditionOffer(t *Task) bool {
	if !p.enqueue(t) {
		return false // full: refused at once (R115)
	}
	if p.queued == 1 || p.cfg.Queue == Array || p.cfg.Queue == Priority {
		p.signal()
	}
	return true
}

// signal moves the waiter the queue hands off to (R47, R50) off the wait
// list: it wakes, and acts when the event loop calls Woken (R111).
func (p *pool) signal() {
	if p.waiters.n == 0 {
		return
	}
	w := p.unparkNext()
	w.signalled = true
	p.signalled++
	p.emit(Event{Kind: Signalled, Worker: w})
}

// cascade is LinkedBlockingQueue's take/poll signalling the next waiter
// when tasks remain after a dequeue (R114), with Config.Wakeup. It inlines:
// without a wake-up latency a dequeue pays one test.
func (p *pool) cascade() {
	if p.cascades && p.queued > 0 {
		p.signal()
	}
}

// newWorker counts and registers a new thread (wc+1, workers, the
// largest pool size).
func (p *pool) newWorker() *Worker {
	p.wc++
	p.nextID++
	var w *Worker
	if n := len(p.free); n > 0 {
		w = p.free[n-1] // zeroed by Recycle
		p.free = p.free[:n-1]
	} else {
		if len(p.slab) == 0 {
			p.slab = make([]Worker, workerSlab)
		}
		w = &p.slab[0] // zero, as make left it: only the fields set here differ
		p.slab = p.slab[1:]
	}
	w.ID, w.Created, w.slot = p.nextID, p.now, p.allocSlot()
	p.workers.pushBack(w)
	if p.workers.n > p.largestPoolSize {
		p.largestPoolSize = p.workers.n
	}
	return w
}

func (p *pool) allocSlot() int32 {
	if n := len(p.freeSlots); n > 0 {
		s := p.freeSlots[n-1]
		p.freeSlots = p.freeSlots[:n-1]
		return s
	}
	p.nSlots++
	return p.nSlots - 1
}

// Recycle hands w, exited, back to the pool, which reuses it for a later
// thread: the driver calls it once nothing it holds — an event, a timer,
// an observer — points to w any more, and the pool holds nothing of an
// exited worker. Reuse spares an elastic pool's allocations (tens of
// thousands of threads a simulated day) and the memory they touch.
func (p *pool) Recycle(w *Worker) {
	if w.state != Exited {
		panic(fmt.Sprintf("model: Recycle of worker %d, %v, not exited", w.ID, w.state))
	}
	*w = Worker{}
	p.free = append(p.free, w)
}

// retire removes w, which has left its wait or its task, from the pool:
// its completed count moves to the pool's, it is reported Exited, and its
// slot is freed after the report.
func (p *pool) retire(w *Worker) {
	p.completedTaskCount += w.Completed
	p.workers.remove(w)
	p.setState(w, Exited)
	p.freeSlots = append(p.freeSlots, w.slot)
}

// finishTask ends w's task at its completion time: w holds no task and
// has completed one more (R13). w.task keeps the task for what follows.
func (p *pool) finishTask(now time.Duration, w *Worker) {
	if !w.hasTask {
		notRunning(w)
	}
	p.now = now
	w.hasTask = false
	w.Completed++
}

// notRunning panics: TaskDone for a worker that runs no task (a worker
// holds a task exactly while it is Running) is a bug of the event loop.
// It is kept out of line so that finishTask, on every task's path, inlines.
//
//go:noinline
func notRunning(w *Worker) {
	panic(fmt.Sprintf("model: TaskDone for worker %d in state %v without a task", w.ID, w.state))
}

// runTask hands t to w, which runs it (R13).
func (p *pool) runTask(w *Worker, t *Task) {
	w.task, w.hasTask = *t, true
	p.setState(w, Running)
	p.note.OnStarted(p.now, w, &w.task, false)
}

// park makes w wait in poll(keepAlive) (timed) or take(): it joins the tail
// of the wait list (R47) and keeps that state until the wait ends (R16).
func (p *pool) park(w *Worker, timed bool) {
	deadline := time.Duration(0)
	if timed {
		deadline = p.now + p.cfg.KeepAlive
	}
	p.parkUntil(w, timed, deadline)
}

// parkUntil makes w wait, untimed or timed until deadline.
func (p *pool) parkUntil(w *Worker, timed bool, deadline time.Duration) {
	w.parkedAt = p.now
	p.waiters.pushBack(w)
	if timed {
		w.deadline = deadline
		p.setState(w, IdleTimed)
		p.note.OnTimerArmed(p.now, w)
		return
	}
	p.setState(w, IdleUntimed)
}

// unpark takes w off the wait list: its wait ended (a task, an interrupt
// or a timeout).
func (p *pool) unpark(w *Worker) { p.waiters.remove(w) }

// setState is the one place a worker's state changes; it keeps the counts
// and reports the change. It runs twice on every task's path (the worker
// starts it, then parks or takes the next), so it does only that: the
// counts move from one entry to the other, whichever the states.
//
// A worker that stays in its state (a running worker taking its next task
// from the queue) only restarts its Since.
func (p *pool) setState(w *Worker, s State) {
	now, from := p.now, w.state
	w.state, w.since = s, now
	if from == s {
		return
	}
	p.counts[from&stateMask]--
	p.counts[s&stateMask]++
	if s.idle() && !from.idle() {
		w.idleSince = now
	}
	p.note.OnWorkerChanged(now, w, from, s)
}

func (p *pool) advanceRunState(to RunState) {
	if p.runState >= to {
		return
	}
	from := p.runState
	p.runState = to
	p.emit(Event{Kind: RunStateChanged, RunFrom: from, RunTo: to})
}

// emit reports e, at the current time, to the observer.
func (p *pool) emit(e Event) {
	e.At = p.now
	p.ev = e
	p.obs.Observe(&p.ev)
}

// lose reports that t will never run, and why.
func (p *pool) lose(t *Task, why Outcome) {
	p.emit(Event{Kind: Lost, Task: t, Outcome: why})
}

// checkWorkers holds the invariants every family shares: the counts agree
// with the workers' states, idle workers and only they are parked.
func (p *pool) checkWorkers(fail func(string, ...any)) {
	if p.wc != p.workers.n {
		fail("wc %d != workers %d", p.wc, p.workers.n)
	}
	n, busy, timed, untimed, parked, sig := 0, 0, 0, 0, 0, 0
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
			if w.waiting == w.signalled || w.hasTask {
				fail("idle worker %d neither parked nor signalled, or holding a task", w.ID)
			}
		default:
			fail("live worker %d in state %v", w.ID, w.state)
		}
		if w.waiting {
			parked++
		} else if w.wprev != nil || w.wnext != nil {
			fail("worker %d off the wait list with links", w.ID) // pushBack relies on nil ones
		}
		if w.signalled {
			sig++
		}
	}
	if n != p.workers.n || busy != p.counts[Running] || timed != p.counts[IdleTimed] || untimed != p.counts[IdleUntimed] {
		fail("counts %v disagree with workers (n=%d busy=%d timed=%d untimed=%d)", p.counts, n, busy, timed, untimed)
	}
	if sig != p.signalled {
		fail("%d signalled workers, counted %d", sig, p.signalled)
	}
	if parked != p.waiters.n {
		fail("wait list %d != parked %d", p.waiters.n, parked)
	}
	if p.queued != p.store.size() {
		fail("queued %d != the store's %d", p.queued, p.store.size())
	}
	if p.cfg.Queue != Synchronous && p.store.size() > p.cfg.QueueCapacity {
		fail("queue %d > capacity %d", p.store.size(), p.cfg.QueueCapacity)
	}
	if p.runState >= PoolTidying && p.wc != 0 {
		fail("run state %v with %d workers", p.runState, p.wc)
	}
}

// checkHandOff: with zero wake-up latency a parked worker and a queued task
// never coexist (R47, doc.go).
func (p *pool) checkHandOff(fail func(string, ...any)) {
	if p.waiters.n > 0 && p.store.size() > 0 && p.signalled == 0 {
		// With a wake-up latency they coexist while a signalled worker
		// wakes (R114): a queued task always has one on its way.
		fail("%d parked workers beside %d queued tasks, none signalled", p.waiters.n, p.store.size())
	}
}

// pollSite is where a worker waits timed on a plain queue:
// Queue.poll(keepAlive).
func (p *pool) pollSite() string {
	return fmt.Sprintf("%s.poll(%v)", p.cfg.Queue.JavaName(), p.cfg.KeepAlive)
}

// describeTake is the thread-dump line of a worker waiting in take(),
// WAITING.
func (p *pool) describeTake(now time.Duration, w *Worker, rank int) string {
	return fmt.Sprintf("WAITING (parking) in %s.take for %v; hand-off rank %d", p.cfg.Queue.JavaName(), now-w.since, rank)
}

// applySizes makes the size calls of a runtime change in the order the
// setters of every family accept: max raised before core is set, and
// lowered after (R21, R22; Jetty's drag the other bound anyway, R100).
func (p *pool) applySizes(now time.Duration, c Change, setMax, setCore func(time.Duration, int) error) error {
	if c.Max != nil && *c.Max >= p.cfg.Max {
		if err := setMax(now, *c.Max); err != nil {
			return err
		}
	}
	if c.Core != nil {
		if err := setCore(now, *c.Core); err != nil {
			return err
		}
	}
	if c.Max != nil && *c.Max < p.cfg.Max {
		return setMax(now, *c.Max)
	}
	return nil
}

// failer returns the fail function of CheckInvariants: a panic with a
// state dump.
func (p *pool) failer() func(string, ...any) {
	return func(format string, args ...any) {
		panic(fmt.Sprintf("model invariant: "+format+"\n%s", append(args, p.dump())...))
	}
}

func (p *pool) dump() string {
	s := fmt.Sprintf("pool %v wc=%d core=%d max=%d keepAlive=%v queue=%d\n", p.runState, p.wc, p.cfg.Core, p.cfg.Max, p.cfg.KeepAlive, p.store.size())
	for w := p.workers.head; w != nil; w = w.next {
		s += fmt.Sprintf("  worker %d %v since %v parked=%v deadline=%v\n", w.ID, w.state, w.since, w.waiting, w.deadline)
	}
	return s
}
