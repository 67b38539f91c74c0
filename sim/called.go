package sim

import (
	"fmt"
	"time"

	"github.com/poolsim/poolsim/model"
)

// calledExecutor is an executor resource (resources: {NAME: {type:
// executor, pool: ...}}): a second pool that tasks call with sub-tasks and
// wait on — an @Async ThreadPoolTaskExecutor behind Tomcat, a resilience4j
// ThreadPoolBulkhead (R163). A call is submit(task) then Future.get() (or
// get(timeout)): the calling worker waits, busy for its own pool and
// WAITING in FutureTask.get for a thread dump, until the sub-task has run
// on the called pool, with that pool's own rules (the model family its
// preset names). A RejectedExecutionException reaches the caller at once
// (an error, like a failed acquisition); a sub-task discarded without a
// word leaves its caller waiting until its timeout, or for ever; a
// caller's timeout leaves the sub-task running (wasted work); under
// CallerRunsPolicy the caller runs the sub-task itself (it is counted
// among the blocked workers meanwhile, though it runs).
//
// To the engine it is a model.Resource: the called pool's completions and
// keepAlive timers wait in a heap of its own, and the engine calls it back
// at the earliest of them (ResourceTimer, phase resource). So at one
// instant the called pool's events come after the calling pool's
// completions and timers, in their own (completion, keepAlive) order. Its
// workers' events do not reach the engine's subscribers: the stream is the
// calling pool's.
type calledExecutor struct {
	name  string
	obs   model.Observer
	pool  model.Executor
	task  model.Task      // the sub-task being submitted (Execute takes a pointer)
	h     eventHeap       // completions (phaseCompletion) and keepAlive timers (phaseKeepAlive)
	timer []time.Duration // the pending keepAlive timer of each worker slot (0: none)
	// callerRuns are the sub-tasks that CallerRunsPolicy runs on their
	// callers: each ends at its time.
	callerRuns []callerRun
	// waiting maps a waiting call's sub-task to its caller, and byBorrower
	// a caller to its sub-task (a caller waits for one call at a time).
	waiting    map[uint64]model.Borrower
	byBorrower map[model.Borrower]uint64
	deadline   map[model.Borrower]time.Duration
	nextID     uint64
	armed      time.Duration // when the engine calls it back (never: not asked)
	gen        uint64        // the id of the latest call-back asked for
	now        time.Duration
	ev         model.Event
	rev        model.ResourceEvent
}

type callerRun struct {
	at time.Duration
	id uint64
}

// newCalledExecutor builds the called pool at time 0.
func newCalledExecutor(name string, cfg model.Config, obs model.Observer) (*calledExecutor, error) {
	c := &calledExecutor{name: name, obs: obs, armed: never,
		waiting: map[uint64]model.Borrower{}, byBorrower: map[model.Borrower]uint64{}, deadline: map[model.Borrower]time.Duration{}}
	p, err := model.New(0, cfg, (*calledObserver)(c))
	if err != nil {
		return nil, err
	}
	c.pool = p
	return c, nil
}

func (c *calledExecutor) Name() string { return c.name }

// report sends a resource event to the engine.
func (c *calledExecutor) report(k model.EventKind, re model.ResourceEvent) {
	re.Resource = c.name
	c.rev = re
	c.ev = model.Event{Kind: k, At: c.now, Res: &c.rev}
	c.obs.Observe(&c.ev)
}

// call submits a sub-task of the given service for borrower b at now and
// makes b wait for it, at most timeout (model.Forever: get()).
func (c *calledExecutor) call(now time.Duration, b model.Borrower, th model.Thread, timeout, service time.Duration) {
	c.now = now
	c.nextID++
	id := c.nextID
	deadline := model.Forever
	if timeout != model.Forever {
		deadline = now + timeout
	}
	c.waiting[id], c.byBorrower[b], c.deadline[b] = b, id, deadline
	c.report(model.ResourceWaiting, model.ResourceEvent{Borrower: b, Thread: th, Deadline: deadline})
	c.task = model.Task{ID: id, Arrival: now, Submit: now, Service: service}
	c.pool.Execute(now, &c.task)
	c.rearm()
}

// answer ends the wait of sub-task id's caller, if it still waits: with
// its result (Granted) or an exception (TimedOut).
func (c *calledExecutor) answer(id uint64, ok bool) {
	b, waits := c.waiting[id]
	if !waits {
		return // the caller gave up (its sub-task ran for nobody)
	}
	delete(c.waiting, id)
	delete(c.byBorrower, b)
	delete(c.deadline, b)
	if ok {
		c.report(model.ResourceGranted, model.ResourceEvent{Borrower: b})
	} else {
		c.report(model.ResourceTimedOut, model.ResourceEvent{Borrower: b})
	}
}

// Acquire is a call of a sub-task that takes no time (the engine calls
// call for a call step).
func (c *calledExecutor) Acquire(now time.Duration, b model.Borrower, th model.Thread, timeout time.Duration) {
	c.call(now, b, th, timeout, 0)
}

// Release: a caller holds nothing once its sub-task has answered.
func (c *calledExecutor) Release(time.Duration, model.Borrower, model.Thread) {}

// WaitExpired: b's Future.get(timeout) throws TimeoutException; its
// sub-task goes on.
func (c *calledExecutor) WaitExpired(now time.Duration, b model.Borrower) {
	id, ok := c.byBorrower[b]
	if !ok || c.deadline[b] != now {
		return
	}
	c.now = now
	c.answer(id, false)
}

// TimerFired runs the called pool's events due now.
func (c *calledExecutor) TimerFired(now time.Duration, gen uint64) {
	if gen != c.gen {
		return // superseded by an earlier call-back
	}
	c.now, c.armed = now, never
	for {
		at, isRun := c.next()
		if at > now {
			break
		}
		if isRun {
			r := c.callerRuns[0]
			c.callerRuns = c.callerRuns[1:]
			c.answer(r.id, true)
			continue
		}
		x := c.h.pop()
		if x.phase() == phaseCompletion {
			id := x.w.Running().ID
			c.pool.TaskDone(now, x.w)
			c.answer(id, true)
			continue
		}
		c.keepAlive(now, x)
	}
	c.rearm()
}

// keepAlive handles a worker's timer, as the engine does its own pool's
// (fireKeepAlive): one timer per worker, stale ones ignored.
func (c *calledExecutor) keepAlive(now time.Duration, x entry) {
	w := x.w
	if w.State() == model.Exited || c.timer[w.Slot()] != x.at {
		return
	}
	c.timer[w.Slot()] = 0
	if w.State() != model.IdleTimed {
		return
	}
	switch d := w.Deadline(); {
	case d == now:
		c.pool.TimedWaitExpired(now, w)
	case d > now:
		c.armTimer(w, d)
	}
}

func (c *calledExecutor) armTimer(w *model.Worker, at time.Duration) {
	c.timer[w.Slot()] = at
	c.h.push(at, phaseKeepAlive, w)
}

// next is the time of the called pool's earliest event, and whether it is
// the end of a sub-task run by its caller.
func (c *calledExecutor) next() (time.Duration, bool) {
	at, isRun := never, false
	if c.h.len() > 0 {
		at = c.h.peek().at
	}
	if len(c.callerRuns) > 0 && c.callerRuns[0].at < at {
		at, isRun = c.callerRuns[0].at, true
	}
	return at, isRun
}

// rearm asks the engine for a call-back at the earliest event, unless one
// at or before it is pending.
func (c *calledExecutor) rearm() {
	at, _ := c.next()
	if at == never || at >= c.armed {
		return
	}
	c.gen++
	c.armed = at
	c.report(model.ResourceTimer, model.ResourceEvent{Deadline: at, Timer: c.gen})
}

func (c *calledExecutor) ThreadEnded(model.Thread) {}

// Stats: the called pool's threads (busy: in use; idle) and its queue (the
// sub-tasks waiting for a thread).
func (c *calledExecutor) Stats() model.ResourceStats {
	n, busy := c.pool.PoolSize(), c.pool.ActiveCount()
	return model.ResourceStats{Total: n, InUse: busy, Idle: n - busy, Waiters: c.pool.QueueLen()}
}

func (c *calledExecutor) Describe() string {
	return fmt.Sprintf("WAITING in FutureTask.get() for a sub-task on the executor %s (TIMED_WAITING with get(timeout))", c.name)
}

func (c *calledExecutor) CheckInvariants() {
	c.pool.CheckInvariants()
	if len(c.waiting) != len(c.byBorrower) {
		panic(fmt.Sprintf("sim invariant: executor %s: %d waiting calls, %d waiting callers", c.name, len(c.waiting), len(c.byBorrower)))
	}
}

// calledObserver hears the called pool's events: what an event loop must
// do for them (schedule a completion, arm a timer, end a caller's wait).
type calledObserver calledExecutor

func (o *calledObserver) Observe(ev *model.Event) {
	c := (*calledExecutor)(o)
	switch ev.Kind {
	case model.Started:
		c.h.push(ev.At+ev.Task.Service, phaseCompletion, ev.Worker)
	case model.WorkerChanged:
		if ev.From == model.Starting {
			s := ev.Worker.Slot()
			for len(c.timer) <= s {
				c.timer = append(c.timer, 0)
			}
			c.timer[s] = 0
		}
	case model.TimerArmed:
		if d, t := ev.Worker.Deadline(), c.timer[ev.Worker.Slot()]; t == 0 || t > d {
			c.armTimer(ev.Worker, d)
		}
	case model.CallerRan:
		// CallerRunsPolicy: the caller runs the sub-task itself, then has
		// its result (callers run in the order of their ends).
		r := callerRun{at: ev.At + ev.Task.Service, id: ev.Task.ID}
		k := len(c.callerRuns)
		for k > 0 && c.callerRuns[k-1].at > r.at {
			k--
		}
		c.callerRuns = append(c.callerRuns[:k], append([]callerRun{r}, c.callerRuns[k:]...)...)
	case model.Lost:
		switch ev.Outcome {
		case model.Aborted, model.ThreadStartFailed, model.RetryExhausted:
			c.answer(ev.Task.ID, false) // the exception reaches the caller
		}
		// Discarded without a word: the caller waits until its timeout.
	}
}
