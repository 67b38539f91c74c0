package sim

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"time"

	"github.com/poolsim/poolsim/internal/inputerr"
	"github.com/poolsim/poolsim/model"
	"github.com/poolsim/poolsim/scenarios"
	"github.com/poolsim/poolsim/workloads"
)

// Engine is one run of a scenario: a pool model driven by a workload on a
// virtual clock, one event at a time. Step processes the next event, Run
// steps to the end; Now, Pool and Result show where the run stands, and
// every model event reaches the observers given to Subscribe (and
// Options.Observer) as it happens.
//
// An Engine is not safe for concurrent use. Close it when done (Run does).
// When the process has more than one processor (GOMAXPROCS), a workload
// of phases without split laws or steps is drawn ahead on a goroutine of
// the engine's own (workloads.DrawAhead: the same arrivals, while the
// event loop runs on); Close stops it.
type Engine struct {
	sc   *scenarios.Scenario
	opt  Options
	pool model.Executor
	src  workloads.Source
	rec  *recorder
	h    eventHeap

	// due holds, for each phase beside the heap, when its source's next
	// event is (never: none); restAt and restPhase are the earliest of the
	// phases after the arrivals (setDue). See phase.
	due       [numPhases]time.Duration
	restAt    time.Duration
	restPhase phase

	now  time.Duration
	next workloads.Arrival // the arrival the pending arrival event submits
	// batch holds arrivals drawn ahead, from the source's NextBatch (or
	// one from Next, for a source without it); batch[bi:] are not yet
	// pulled (pullArrival).
	batch         []workloads.Arrival
	bi            int
	batchSrc      workloads.BatchSource
	one           [1]workloads.Arrival // the batch of a source without NextBatch
	submitterFree time.Duration        // caller-runs: the submitter is busy until then
	nextTaskID    uint64
	samples       int64 // samples taken
	nextRuntime   int   // index of the next runtime event
	snapAt        []time.Duration
	nextSnap      int
	stopped       bool
	finished      bool // the run is over and its end accounted (finish)
	stopReason    string
	interrupted   bool     // stopped by the context (SIGINT, SIGTERM)
	lim           *limiter // limits.maxThreads and maxQueued (limits.go)
	events        int64
	// plain: no per-event extras (a virtual-thread scheduler, resources,
	// a host's CPUs or wake-ups, Options.Observe, CheckInvariants): step
	// asks one question instead of one per extra, and nextEvent passes
	// over quiet timers (skipQuietTimers).
	plain        bool
	quietSkipped int64 // the quiet timers it passed over (for the tests)
	// recycle: exited workers go back to the pool once their event is over
	// (canRecycle); exited holds those of the current event.
	recycle  bool
	exited   []*model.Worker
	recycled int64 // how many (for the tests)
	tl       *timelineWriter
	released bool
	start    time.Time // wall clock at construction, for perf.json

	// ws is the engine's own state of each live worker, by Worker.Slot;
	// wsHot: some worker may run a host job or steps (workerState.job,
	// prog), which every task's end must then ask about.
	ws    []workerState
	wsHot bool
	// end is the scenario's duration, read at every event.
	end time.Duration

	// observers hear every model event after the engine has (Subscribe),
	// and ev holds an event of the engine's own calls while they do.
	observers []model.Observer
	ev        model.Event
	evTask    model.Task
	// submitting is the task being submitted: Execute takes a pointer,
	// and a local variable's would escape to the heap.
	submitting model.Task

	// periodic holds workload.periodic's jobs in file order (a task's
	// Periodic field indexes it from 1); periodicOrder is the order of
	// their schedule calls, and nextPeriodic the next call's index in it.
	sched         model.Scheduler
	periodic      []*periodicJob
	periodicOrder []int
	nextPeriodic  int
	periodicIDs   uint64 // runs queued so far (task ids from PeriodicTaskIDBase)
	// cancelOrder lists the jobs with a cancelAt in the order of their
	// cancels, and nextCancel the next one's index in it.
	cancelOrder []int
	nextCancel  int

	// The host (host.go): what a Thread.start() costs its caller, the
	// caller's clock during the current event (it advances by one start
	// per thread the event creates), and the CPUs (nil: unlimited).
	threadStart time.Duration
	callerClock time.Duration
	callerEvent int64 // the event callerClock belongs to (it is set lazily, at the event's first thread start)
	cpu         *cpuSched
	hostTasks   bool          // threadStart > 0 or cpu != nil: a started task takes the host's path
	lastStart   time.Duration // when the task of the latest Started event begins
	// split reports the CPU part of each arrival of a workload with split
	// service laws (nil: none has), and nextSplit that of e.next.
	split     workloads.SplitSource
	nextSplit workloads.Split

	// The resources (resources.go) and the tasks' steps (steps.go): steps
	// reports each arrival's steps (nil: no task has any); progs holds the
	// steps of tasks submitted and not ended, freeProgs their free slots;
	// acquiring is the borrower whose Acquire is under way.
	res        []model.Resource
	resIndex   map[string]int
	resMaxWait []time.Duration
	connect    []workloads.Distribution
	jitter     []*rand.Rand
	rh         resHeap
	steps      workloads.StepSource
	progs      []program
	freeProgs  []int32
	acquiring  model.Borrower

	// cl holds the callers' requests (client.go; nil: no workload.client
	// or users).
	cl *clientState
	// wk is the host's hand-off timing (wakeup.go; nil: the ideal model).
	wk *wakeState
	// vt is the virtual-thread side of the run (virtual.go; nil: a pool
	// of platform threads).
	vt      *vtState
	vtDumps []VTDump // the snapshots in jcmd Thread.dump_to_file's shape (vtdump.go)
}

// workerState is what the engine keeps per live worker, beside the model.
type workerState struct {
	// timer is when the pending keepAlive event for this worker fires (0:
	// none): a worker has at most one timer in the heap.
	timer time.Duration
	// ready is when the thread's Thread.start() completes, before which it
	// runs nothing (a thread start cost, host.go), or when a SynchronousQueue
	// worker matched with a task is awake (wakeup.go), whichever is later.
	ready time.Duration
	// woke is when a task taken by a signalled worker may start, with a
	// race law: max(L, R) after the signal (wakeup.go); 0 once void.
	woke time.Duration
	// job is 1 + the index of the task it runs on the host's CPUs (0: none).
	job int32
	// prog is the handle of the steps it runs (0: none, steps.go).
	prog int32
	// superseded: an earlier timer replaced the pending one, which is
	// still in the heap (fireKeepAlive passes over it).
	superseded bool
}

// NewEngine prepares a run of sc: the workload, the periodic jobs and the
// pool, constructed at time 0 (its prestarted threads are reported to the
// observers of Options.Observer; Subscribe later hears only later events).
// It returns an input error for a scenario the model refuses.
func NewEngine(sc *scenarios.Scenario, opt Options) (*Engine, error) {
	if sc.Sample <= 0 {
		return nil, errors.New("sim: sample interval must be > 0")
	}
	e := &Engine{sc: sc, opt: opt, threadStart: sc.Host.ThreadStart, hostTasks: sc.Host.ThreadStart > 0 || sc.Host.CPUs > 0,
		start: time.Now()}
	for p := range e.due {
		e.due[p] = never
	}
	e.h.tq.at = never
	if opt.Observer != nil {
		e.observers = append(e.observers, opt.Observer)
	}
	if opt.OnTask != nil {
		e.observers = append(e.observers, taskHook{e, opt.OnTask})
	}
	e.rec = newRecorder(sc, opt.Timeline != nil, opt.OnSample != nil)
	e.vt = newVT(e)
	if e.vt != nil {
		e.hostTasks = false // host.cpus only sizes the carriers (virtual.go)
	} else if sc.Host.CPUs > 0 {
		e.cpu = newCPUSched(sc.Host.CPUs)
	}
	if opt.Timeline != nil {
		var names []string
		for _, r := range sc.Resources {
			names = append(names, r.Name)
		}
		cols := ResourceColumns(names)
		if sc.Client != nil || sc.Users != nil {
			cols = append(cols, ClientColumns...)
		}
		if e.vt != nil {
			cols = append(cols, VirtualColumns...)
		}
		e.tl = newTimelineWriter(opt.Timeline, cols)
	}
	src := opt.Workload
	if src == nil && (sc.WorkloadForm == "periodic" || sc.WorkloadForm == "users") {
		src = emptySource{} // periodic jobs only, or closed-loop users (client.go)
	}
	if src == nil {
		var err error
		if src, err = workloads.New(sc.Workload, sc.Seed); err != nil {
			e.rec.release()
			return nil, scenarioErr(sc, "workload", err)
		}
		if runtime.GOMAXPROCS(0) > 1 {
			// The arrivals are drawn ahead on another processor: the same
			// ones. Close stops its goroutine; should an engine be dropped
			// unclosed, the collector does.
			if ahead := workloads.DrawAhead(src); ahead != src {
				src = ahead
				runtime.AddCleanup(e, func(s workloads.Source) { s.Close() }, ahead)
			}
		}
	}
	e.src = src
	e.batchSrc, _ = src.(workloads.BatchSource)
	fail := func(section string, err error) (*Engine, error) {
		src.Close()
		e.rec.release()
		return nil, scenarioErr(sc, section, err)
	}
	periodic, err := newPeriodic(sc)
	if err != nil {
		return fail("workload", err)
	}
	e.periodic = periodic
	for i := range periodic {
		e.periodicOrder = append(e.periodicOrder, i)
	}
	slices.SortStableFunc(e.periodicOrder, func(a, b int) int { return cmp.Compare(periodic[a].spec.At, periodic[b].spec.At) })
	for i, j := range periodic {
		if j.spec.Cancel {
			e.cancelOrder = append(e.cancelOrder, i)
		}
	}
	slices.SortStableFunc(e.cancelOrder, func(a, b int) int { return cmp.Compare(periodic[a].spec.CancelAt, periodic[b].spec.CancelAt) })
	if ss, ok := src.(workloads.SplitSource); ok && ss.HasSplits() {
		e.split = ss
	}
	if ss, ok := src.(workloads.StepSource); ok && ss.HasSteps() {
		e.steps = ss
	}
	e.lim = newLimiter(sc)
	if err := e.newResources(sc); err != nil {
		return fail("resources", err)
	}
	if err := e.newClient(sc); err != nil {
		return fail("workload", err)
	}
	cfg := sc.Pool.Config
	cfg.ThreadLimit = e.lim.MaxThreads
	if sc.Host.Wakeup != nil {
		if e.wk, err = newWake(sc); err != nil {
			return fail("host", err)
		}
		cfg.Wakeup, e.hostTasks = true, true
	}
	pool, err := model.New(0, cfg, (*listener)(e))
	if err != nil {
		return fail("pool", err)
	}
	e.pool = pool
	if e.vt != nil {
		if th, ok := pool.(interface{ CallerMustWait() bool }); ok && cfg.Throttle {
			e.vt.throttle = th
		}
	}
	if len(periodic) > 0 {
		s, ok := pool.(model.Scheduler)
		if !ok {
			return fail("workload", fmt.Errorf("periodic jobs need a ScheduledThreadPoolExecutor, not %T", pool))
		}
		e.sched = s
	}
	e.lim.constructed(cfg, pool.PoolSize())
	e.plain = e.skipQuietTimers()
	e.recycle = e.canRecycle()
	e.wsHot = e.hostTasks || e.steps != nil || e.vt != nil
	e.end = sc.Duration
	// Runtime events are validated in time order; snapshots are sorted here.
	e.snapAt = append([]time.Duration(nil), sc.Snapshots...)
	slices.Sort(e.snapAt)
	e.pullArrival()
	e.setDue(phasePeriodic, e.nextPeriodicAt())
	e.setDue(phaseCancel, e.nextCancelAt())
	e.setDue(phaseRuntime, e.nextRuntimeAt())
	e.setDue(phaseSnapshot, e.nextSnapAt())
	e.setDue(phaseSample, 0)
	return e, nil
}

// scenarioErr turns a model or workload error into an input error naming
// the scenario file.
func scenarioErr(sc *scenarios.Scenario, section string, err error) error {
	if inputerr.Is(err) {
		return err
	}
	var ce *model.ConfigError
	if errors.As(err, &ce) {
		return inputerr.New(sc.Path, 0, 0, section+"."+ce.Field, ce.Msg, ce.Rule)
	}
	var pe *workloads.ParamError
	if errors.As(err, &pe) {
		return inputerr.New(sc.Path, 0, 0, section+"."+pe.Field, pe.Msg, pe.Allowed)
	}
	return fmt.Errorf("sim: %s: %w", section, err)
}

// Subscribe adds an observer that hears every model event from now on,
// after the engine has recorded it. It must not call back into the pool.
func (e *Engine) Subscribe(o model.Observer) { e.observers = append(e.observers, o) }

// Now is the virtual time of the last event processed.
func (e *Engine) Now() time.Duration { return e.now }

// Pool is the pool being simulated, for reading its state; changing it
// other than through the engine breaks the run.
func (e *Engine) Pool() model.Executor { return e.pool }

// Done reports whether the run is over.
func (e *Engine) Done() bool { return e.finished }

// Step processes the next event and reports whether there may be more.
// After the last event, at the end of the scenario's duration or when a
// limit stopped the run, it accounts the run's end, flushes the timeline
// and returns false; so does every later call. It returns an error only
// for a runtime event the model refuses, a broken workload or a failed
// write. Quiet keepAlive timers — whose worker has since taken a task,
// exited or re-armed — are passed over on the way to the next event
// (nextEvent): they change nothing observable, so Now after a Step is
// never such a timer's instant; they still count in Summary.Events.
func (e *Engine) Step() (bool, error) { return e.loop(nil, true) }

// Run steps to the end of the run, closes the engine and returns what the
// run found. A cancelled context stops the run early (checked every
// ctxCheckEvery events), with Result.Complete false.
func (e *Engine) Run(ctx context.Context) (*Result, error) {
	defer e.Close()
	if _, err := e.loop(ctx, false); err != nil {
		return nil, err
	}
	return e.Result(), nil
}

// Close releases the workload source and the run's statistics buffers.
// Result must have been taken before. Close is idempotent.
func (e *Engine) Close() error {
	if e.released {
		return nil
	}
	e.released = true
	e.rec.release()
	return e.src.Close()
}

// ctxCheckEvery is how many events pass between checks for cancellation:
// a power of two, so that loop tests it with a mask.
const ctxCheckEvery = 1 << 14

// never is a time no event reaches.
const never = time.Duration(math.MaxInt64)

// loop processes events: just the next one if one is set (Step), else
// until the run is over (Run). Both share this one body, the event loop's
// step; Run's loop stays inside it, so it pays no call and no return per
// event.
func (e *Engine) loop(ctx context.Context, one bool) (bool, error) {
	if e.finished {
		return false, nil
	}
	for {
		ev, ok := e.nextEvent()
		if !ok {
			return false, e.finish()
		}
		e.events++
		if e.events&(ctxCheckEvery-1) == 0 && ctx != nil && ctx.Err() != nil { // a power of two: a mask, not a signed remainder
			e.stop(ev.at, "interrupted")
			e.interrupted = true
			return false, e.finish()
		}
		if !e.plain {
			if e.wk != nil && e.wk.every != nil {
				var held bool
				if ev, held = e.paused(ev); held {
					if one {
						return true, nil
					}
					continue // it happens when the pause ends
				}
			}
			if e.opt.CheckInvariants && ev.at < e.now {
				panic(fmt.Sprintf("sim: time went back from %v to %v (phase %d)", e.now, ev.at, ev.phase))
			}
			if e.vt != nil {
				e.vtAdvance(ev.at)
			}
		}
		e.rec.advance(ev.at)
		e.now = ev.at
		switch ev.phase { // the two phases of every task, then the rest
		case phaseCompletion:
			if e.wsHot {
				if ws := &e.ws[ev.w.Slot()]; ws.job != 0 || ws.prog != 0 {
					if ws.prog != 0 {
						e.stepDone(ev.at, ws.prog) // a step has ended
					} else {
						e.stepJob(ev.at, ws.job-1, false) // a blocking piece or a thread start has passed
					}
					break
				}
			}
			e.rec.onComplete(ev.at, ev.w)
			if len(e.observers) > 0 {
				e.reportFinished(ev.w)
			}
			if e.cl != nil {
				e.answered(ev.at, ev.w, false)
			}
			e.pool.TaskDone(ev.at, ev.w) // e.taskDone, kept inline: every task passes here
		case phaseArrival:
			e.submit()
		default:
			if err := e.fire(ev); err != nil {
				return false, err
			}
		}
		if len(e.exited) > 0 {
			for _, w := range e.exited {
				e.pool.Recycle(w)
			}
			e.recycled += int64(len(e.exited))
			e.exited = e.exited[:0]
		}
		if !e.plain {
			if e.cpu != nil && e.cpu.dirty { // e.cpu is nil without a CPU limit
				e.rearmCPU(e.now)
			}
			if e.vt != nil {
				e.vtDrain(e.now)
				e.vtSettle()
			}
		}
		q := e.pool.QueueLen()
		e.rec.settle(e.now, q)
		if !e.plain && e.res != nil {
			e.settleResources(e.now)
		}
		if e.lim.queueFull(e.now, q, e.end) {
			e.stop(e.now, fmt.Sprintf("queue reached the limit of %d tasks (limits.maxQueued)", e.lim.MaxQueued))
		}
		if !e.plain {
			if e.opt.CheckInvariants {
				e.pool.CheckInvariants()
				e.rec.checkConservation(e.pool)
				for _, r := range e.res {
					r.CheckInvariants()
				}
				if e.vt != nil {
					e.vtCheckInvariants()
				}
			}
			if e.opt.Observe != nil {
				e.opt.Observe(e.now, e.pool)
			}
		}
		if e.stopped {
			return false, e.finish()
		}
		if one {
			return true, nil
		}
	}
}

// fire processes an event of the phases other than completions and
// arrivals.
func (e *Engine) fire(ev event) error {
	switch ev.phase {
	case phaseCPU:
		e.fireCPU(ev.at)
	case phaseResource:
		e.fireResource()
	case phaseClient:
		e.fireClient()
	case phaseKeepAlive:
		e.fireKeepAlive(ev)
	case phaseWake:
		e.woken(ev.at, ev.w)
	case phasePeriodic:
		e.schedulePeriodic()
	case phaseCancel:
		e.cancelPeriodic()
	case phaseRuntime:
		return e.runtimeEvent(e.sc.Events[ev.idx])
	case phaseSnapshot:
		return e.snapshot()
	case phaseSample:
		return e.sample()
	}
	return nil
}

// finish accounts the end of the run: the statistics up to the end (the
// scenario's duration, or the time the run stopped) and the timeline's
// last bytes.
func (e *Engine) finish() error {
	e.finished = true
	if err := e.src.Err(); err != nil {
		return err
	}
	end := e.sc.Duration
	if e.stopped {
		end = e.now
	}
	e.rec.advance(end)
	e.now = end
	if e.tl != nil {
		return e.tl.flush()
	}
	return nil
}

func (e *Engine) stop(at time.Duration, why string) {
	e.stopped = true
	e.now = at
	e.stopReason = why
}

// pullArrival draws the next arrival and schedules its submission: at its
// time, or when the submitter is free again if a caller-runs task holds it
// (backlogged submissions then go in order, back to back).
func (e *Engine) pullArrival() {
	e.due[phaseArrival] = never
	if e.bi == len(e.batch) && !e.pullBatch() {
		return
	}
	a := e.batch[e.bi]
	e.bi++
	if a.At > e.end {
		e.batch, e.bi = nil, 0 // the arrivals end here (the source may have more)
		return
	}
	e.next = a
	if e.split != nil {
		e.nextSplit = e.split.LastSplit()
	}
	e.due[phaseArrival] = max(a.At, e.submitterFree)
}

// pullBatch fills e.batch with the source's next arrivals: those drawn
// ahead, or the one of Next. It reports false when the workload has ended.
func (e *Engine) pullBatch() bool {
	e.bi = 0
	if e.batchSrc != nil {
		e.batch = e.batchSrc.NextBatch()
		return len(e.batch) > 0
	}
	a, ok := e.src.Next()
	if !ok {
		e.batch = nil
		return false
	}
	e.one[0] = a
	e.batch = e.one[:]
	return true
}

func (e *Engine) submit() {
	if e.vt != nil && e.vtCallerMustWait() { // e.vt is nil for platform threads: no call on every task's path
		return // SimpleAsyncTaskExecutor's limit holds the caller (R143)
	}
	a := e.next
	e.nextTaskID++
	t := &e.submitting
	*t = model.Task{ID: e.nextTaskID, Arrival: a.At, Submit: e.now, Service: a.Service, Priority: a.Priority, Fails: a.Fails,
		CPU: e.nextSplit.CPU, Slices: e.nextSplit.Slices}
	var steps []workloads.DrawnStep
	if e.steps != nil {
		if steps = e.steps.LastSteps(); steps != nil {
			t.Program = e.newProgram(steps)
		}
	}
	if e.vt != nil && t.Program == 0 {
		e.vtPlainProgram(t)
	}
	if e.cl != nil {
		e.openRequest(t, steps)
	}
	e.rec.onSubmit(e.now, t)
	if len(e.observers) > 0 {
		e.report(model.Submitted, nil, *t)
	}
	e.pool.Execute(e.now, t)
	if e.callerEvent == e.events && e.callerClock > e.now { // the submitter started threads inside execute
		e.rec.threadStartSubmitter += e.callerClock - e.now
		if e.callerClock > e.submitterFree {
			e.submitterFree = e.callerClock
		}
	}
	e.pullArrival()
}

// fireKeepAlive handles a worker's timer. Each worker has at most one timer
// in the heap (workerState.timer); a wait that ends early leaves it stale,
// and a wait that began later than the timer re-arms it at the new
// deadline.
func (e *Engine) fireKeepAlive(ev event) {
	w := ev.w
	if w.State() == model.Exited {
		return // its slot may serve another worker now
	}
	ws := &e.ws[w.Slot()]
	if ws.timer != ev.at {
		return // superseded by an earlier re-arm
	}
	ws.timer = 0
	if w.State() != model.IdleTimed {
		return
	}
	switch d := w.Deadline(); {
	case d == ev.at:
		e.pool.TimedWaitExpired(ev.at, w)
	case d > ev.at:
		e.armTimer(w, d)
	}
}

// timerQuiet reports whether w's timer, due at at, changes nothing the
// model or the recorder sees: its worker has exited, a re-arm superseded
// it, its worker is no longer in a timed wait (it took a task: the common
// case of an elastic pool), or the wait now ends later (the timer re-arms).
// fireKeepAlive then only keeps the engine's own books.
func (e *Engine) timerQuiet(w *model.Worker, at time.Duration) bool {
	return w.State() != model.IdleTimed || e.ws[w.Slot()].timer != at || w.Deadline() != at
}

// skipQuietTimers reports whether the run is plain (Engine.plain), and so
// whether nextEvent may handle a quiet timer
// (timerQuiet) without making it an event of its own: in a run where an
// event that changes nothing still does something — a virtual-thread
// scheduler, resources, a host's CPUs or wake-ups, a per-event hook, the
// invariant checks — every timer stays an event. Otherwise the one thing
// an event does at an instant where nothing changes is to cut the state
// integrals there (recorder.advance), which leaves them bit-identical as
// long as they are exact (recorder.mergeExact).
func (e *Engine) skipQuietTimers() bool {
	return e.vt == nil && e.res == nil && e.cpu == nil && e.wk == nil && e.opt.Observe == nil && !e.opt.CheckInvariants
}

func (e *Engine) armTimer(w *model.Worker, at time.Duration) {
	ws := &e.ws[w.Slot()]
	if ws.timer != 0 {
		ws.superseded = true
	}
	ws.timer = at
	e.h.pushTimer(at, w)
}

// canRecycle reports whether the run's exited workers may be handed back to
// the pool for reuse (Executor.Recycle): only when the engine's own events
// are all that can point to a worker — no observer, no per-event hook, no
// host timing, CPUs, resources, steps or virtual threads, whose states hold
// workers — and then only a worker with no timer left (retire).
func (e *Engine) canRecycle() bool {
	return e.vt == nil && e.res == nil && e.cpu == nil && e.wk == nil && e.steps == nil && e.opt.Observe == nil
}

// retire notes w, just exited, for reuse once the event that made it exit
// is over (the model may still be in the call that retired it): if
// nothing holds it, no observer has ever been subscribed, and no keepAlive
// event for it is pending (fireKeepAlive cleared its timer before the
// expiry that made it exit; an exit from a task or on a shutdown may
// leave one, and a superseded timer another).
func (e *Engine) retire(w *model.Worker) {
	if ws := &e.ws[w.Slot()]; e.recycle && len(e.observers) == 0 && ws.timer == 0 && !ws.superseded {
		e.exited = append(e.exited, w)
	}
}

func (e *Engine) nextRuntimeAt() time.Duration {
	if e.nextRuntime < len(e.sc.Events) {
		return e.sc.Events[e.nextRuntime].At
	}
	return never
}

func (e *Engine) nextSnapAt() time.Duration {
	if e.nextSnap < len(e.snapAt) {
		return e.snapAt[e.nextSnap]
	}
	return never
}

// runtimeEvent applies a runtime event through the model's one entry point
// (Apply), which knows the order its calls must come in. The loader has
// replayed the events on a scratch pool, so a refusal here means a
// scenario built in code.
func (e *Engine) runtimeEvent(ev scenarios.Event) error {
	err := e.pool.Apply(e.now, ev.Change())
	var ce *model.ConfigError
	if errors.As(err, &ce) {
		return inputerr.New(e.sc.Path, ev.Line, 0, "events."+scenarios.EventKey(ce.Field), fmt.Sprintf("at %v: %s", ev.At, ce.Msg), ce.Rule)
	}
	return err
}

func (e *Engine) sample() error {
	e.samples++
	if e.opt.OnSample != nil {
		rec := e.rec
		e.opt.OnSample(Sample{T: e.now, PoolSize: rec.poolSize, Busy: rec.count[model.Running], IdleTimed: rec.count[model.IdleTimed],
			IdleUntimed: rec.count[model.IdleUntimed], Queue: rec.queueLen, Submitted: rec.submitted, Completed: rec.completed, Rejected: rec.rejected,
			WaitP99: rec.ivWait.quantile(0.99), Largest: e.pool.LargestPoolSize()})
	}
	if e.tl == nil {
		e.rec.resetInterval()
		return nil
	}
	var vt func([]byte) []byte
	if e.vt != nil {
		vt = e.vtRow
	}
	err := e.tl.row(e.now, e.rec, e.pool, e.cl, vt)
	e.rec.resetInterval()
	return err
}
