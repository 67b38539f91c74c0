package sim

import (
	"time"

	"github.com/poolsim/poolsim/model"
	"github.com/poolsim/poolsim/workloads"
)

// This file runs tasks whose service is a list of steps (workload service:
// {steps: [...]}): compute for a time, or hold a resource — a connection of
// a HikariCP pool, a semaphore's permit — for a time, waiting for it if none
// is free. The pool model sees such a task as running from its start to its
// end, as a ThreadPoolExecutor does; the engine runs its steps on the
// worker meanwhile. A worker waiting for a resource is busy for the pool but
// parked for a thread dump (TIMED_WAITING in ConcurrentBag.borrow, WAITING
// in Semaphore.acquire): the timeline counts such workers as blocked.
//
// A hold whose acquisition times out (HikariCP's
// SQLTransientConnectionException, a bulkhead's BulkheadFullException) ends
// the task at once with an error: its other steps are skipped, and the
// worker goes back to the pool — the servlet container or the caller
// catches the exception — rather than dying (R14 is for an exception that
// escapes the Runnable).

// program is one task's steps while it is submitted, queued or running.
type program struct {
	steps []workloads.DrawnStep
	next  int           // the step to run next
	w     *model.Worker // the worker running it (nil while queued)
	// held is 1 + the index of the resource the current step holds, or
	// waits for (0: none); waiting: it waits for it, since waitFrom.
	held     int
	waiting  bool
	waitFrom time.Duration
	failed   bool // an acquisition timed out

	// On a virtual thread (virtual.go): mounted on a carrier; blocking in
	// the current step's call, which blk says what it does to the
	// carrier, with comp its compensation (R133–R136).
	mounted, blocking bool
	blk               model.Blocking
	comp              model.Compensation
}

// newProgram stores the steps the workload drew for the task being
// submitted and returns its handle (model.Task.Program).
func (e *Engine) newProgram(steps []workloads.DrawnStep) int32 {
	var k int
	if n := len(e.freeProgs); n > 0 {
		k = int(e.freeProgs[n-1])
		e.freeProgs = e.freeProgs[:n-1]
	} else {
		e.progs = append(e.progs, program{})
		k = len(e.progs) - 1
	}
	p := &e.progs[k]
	*p = program{steps: append(p.steps[:0], steps...)}
	return int32(k + 1)
}

// freeProgram forgets a task's steps: it ended, or will never run.
func (e *Engine) freeProgram(h int32) {
	e.progs[h-1].w = nil
	e.freeProgs = append(e.freeProgs, h-1)
}

// borrower is the name a resource knows a program's acquisitions by.
func borrower(h int32) model.Borrower { return model.Borrower(h) }

// thread is the name a resource knows a worker's thread by.
func thread(w *model.Worker) model.Thread { return model.Thread(w.ID) }

// startProgram begins the steps of t, just handed to w at now.
func (e *Engine) startProgram(now time.Duration, w *model.Worker, t *model.Task) {
	p := &e.progs[t.Program-1]
	p.w = w
	e.ws[w.Slot()].prog = t.Program
	if e.vt != nil {
		e.vtStart(now, t.Program) // a started VT is runnable (R131)
		return
	}
	e.runSteps(now, t.Program)
}

// runSteps runs program h's steps from its next one until one takes time
// (a computation, a blocking call, a hold, a wait) or the task ends. A
// block step holds the platform thread without a CPU: for the pool it
// times like a computation.
func (e *Engine) runSteps(now time.Duration, h int32) {
	p := &e.progs[h-1]
	for p.next < len(p.steps) && !p.failed {
		st := &p.steps[p.next]
		if st.Kind == workloads.Compute || st.Kind == workloads.Block {
			if st.Time > 0 {
				e.h.push(now+st.Time, phaseCompletion, p.w)
				return
			}
			p.next++
			continue
		}
		if e.acquire(now, h, st) {
			return
		}
	}
	e.endProgram(now, h)
}

// acquire asks st's resource for a unit (a hold) or calls its executor (a
// call) for program h. It reports whether the step takes time: the
// resource granted the unit (a completion is pushed at the end of the
// hold) or made it wait; false: it refused (p.failed), and the task ends
// now.
func (e *Engine) acquire(now time.Duration, h int32, st *workloads.DrawnStep) bool {
	p := &e.progs[h-1]
	r := e.resIndex[st.Resource]
	p.held = r + 1
	timeout := model.Forever
	if st.Timeout != workloads.OwnTimeout {
		timeout = st.Timeout
	} else if w := e.resMaxWait[r]; w != model.Forever {
		timeout = w
	}
	e.acquiring = borrower(h)
	if st.Kind == workloads.Call {
		e.res[r].(*calledExecutor).call(now, borrower(h), thread(p.w), timeout, st.Time)
	} else {
		e.res[r].Acquire(now, borrower(h), thread(p.w), timeout)
	}
	e.acquiring = 0
	return !p.failed
}

// endProgram ends program h's task at now.
func (e *Engine) endProgram(now time.Duration, h int32) {
	p := &e.progs[h-1]
	w := p.w
	if p.failed {
		e.rec.resourceErrors++
	}
	failed := p.failed
	if e.vt != nil {
		e.vtEnd(now, h)
	}
	e.ws[w.Slot()].prog = 0
	e.freeProgram(h)
	e.taskDone(now, w, failed)
	if e.vt != nil {
		e.vtTaskEnded(now)
	}
}

// stepDone ends program h's current step at now: a computation, or a hold,
// whose unit goes back to its resource.
func (e *Engine) stepDone(now time.Duration, h int32) {
	if e.vt != nil {
		e.vtStepDone(now, h)
		return
	}
	p := &e.progs[h-1]
	if p.held != 0 {
		r := p.held - 1
		p.held = 0
		e.res[r].Release(now, borrower(h), thread(p.w))
	}
	p.next++
	e.runSteps(now, h)
}

// granted: program b's acquisition succeeded at now; it holds the unit for
// its step's time.
func (e *Engine) granted(now time.Duration, r int, b model.Borrower) {
	p := &e.progs[b-1]
	rr := &e.rec.res[r]
	e.rec.resWait(rr, now, e.endWait(p, now))
	hold := p.steps[p.next].Time
	if p.steps[p.next].Kind == workloads.Call {
		hold = 0 // the sub-task has run: the caller goes on
	}
	e.h.push(now+hold, phaseCompletion, p.w)
}

// endWait ends p's wait for a resource, if it waited, and returns how long
// it waited.
func (e *Engine) endWait(p *program, now time.Duration) time.Duration {
	if !p.waiting {
		return 0
	}
	p.waiting = false
	e.rec.blocked--
	return now - p.waitFrom
}

// waitingFor: program b waits for resource r until deadline.
func (e *Engine) waitingFor(now time.Duration, r int, b model.Borrower, deadline time.Duration) {
	p := &e.progs[b-1]
	if !p.waiting {
		p.waiting, p.waitFrom = true, now
		e.rec.blocked++
	}
	if deadline != model.Forever {
		e.pushResource(deadline, r, resWait, uint64(b))
	}
}

// refused: program b's acquisition failed (it timed out, or could not
// wait): the task ends now with an error.
func (e *Engine) refused(now time.Duration, r int, b model.Borrower) {
	p := &e.progs[b-1]
	rr := &e.rec.res[r]
	rr.timeouts++
	e.rec.resWait(rr, now, e.endWait(p, now))
	p.held = 0
	p.failed = true
	if e.acquiring != b { // else runSteps, in whose Acquire this happens, ends the task
		e.endProgram(now, int32(b))
	}
}
