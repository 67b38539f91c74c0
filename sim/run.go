package sim

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/poolsim/poolsim/internal/inputerr"
	"github.com/poolsim/poolsim/model"
	"github.com/poolsim/poolsim/scenarios"
	"github.com/poolsim/poolsim/workloads"
)

// Options are what a run writes and checks besides its Result.
type Options struct {
	// Timeline receives timeline.csv as the run is sampled; nil skips it.
	Timeline io.Writer
	// Snapshots receives snapshots.txt; nil skips it.
	Snapshots io.Writer
	// CheckInvariants checks the model's and the run's invariants after
	// every event and panics on a violation (tests).
	CheckInvariants bool
	// Observe, if set, is called after every event with the pool (tests).
	Observe func(now time.Duration, p *model.Pool)
	// Workload overrides the scenario's workload source (tests, importers).
	Workload workloads.Source
	// OnSample, if set, receives every timeline sample as it is taken.
	OnSample func(Sample)
	// OnTask, if set, receives every task start and end on a pool worker,
	// and every task run by the caller (conformance tests compare which
	// worker ran which task with the real JDK).
	OnTask func(TaskEvent)
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

// ctxCheckEvery is how many events pass between checks for cancellation.
const ctxCheckEvery = 1 << 14

// Run simulates sc. It returns an error only for bad input (a runtime event
// the JDK would refuse, a broken trace) or a failed write; a cancelled
// context ends the run early with Result.Complete false.
func Run(ctx context.Context, sc *scenarios.Scenario, opt Options) (*Result, error) {
	start := time.Now()
	r, err := newRunner(sc, opt)
	if err != nil {
		return nil, err
	}
	defer r.src.Close()
	if err := r.loop(ctx); err != nil {
		return nil, err
	}
	res := r.result()
	if n, ok := r.src.(workloads.Noter); ok {
		res.Findings = append(res.Findings, n.Notes()...)
	}
	r.rec.release()
	res.Perf = measurePerf(time.Since(start), res.Summary.Events, res.Summary.Submitted)
	return res, nil
}

type runner struct {
	sc   *scenarios.Scenario
	opt  Options
	pool *model.Pool
	src  workloads.Source
	rec  *recorder
	h    eventHeap

	now            time.Duration
	next           workloads.Arrival // the arrival the pending arrival event submits
	submitterFree  time.Duration     // caller-runs: the submitter is busy until then
	nextTaskID     uint64
	samples        int64         // samples taken
	arrivalAt      time.Duration // when the pending arrival is submitted (never: none)
	sampleAt       time.Duration // the next timeline sample
	nextRuntime    int           // index of the next runtime event
	snapAt         []time.Duration
	nextSnap       int
	stopped        bool
	stopReason     string
	interrupted    bool     // stopped by the context (SIGINT, SIGTERM)
	lim            *limiter // limits.maxThreads and maxQueued (limits.go)
	events         int64
	tl             *timelineWriter
	snapshotsTaken int

	// periodic holds workload.periodic's jobs in file order (a task's
	// Periodic field indexes it from 1); periodicOrder is the order of
	// their schedule calls, and nextPeriodic the next call's index in it.
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
	hostTasks   bool // threadStart > 0 or cpu != nil: TaskStarted takes the host's path
	// split reports the CPU part of each arrival of a workload with split
	// service laws (nil: none has), and nextSplit that of r.next.
	split     workloads.SplitSource
	nextSplit workloads.Split
}

func newRunner(sc *scenarios.Scenario, opt Options) (*runner, error) {
	if sc.Sample <= 0 {
		return nil, errors.New("sim: sample interval must be > 0")
	}
	r := &runner{sc: sc, opt: opt, threadStart: sc.Host.ThreadStart, hostTasks: sc.Host.ThreadStart > 0 || sc.Host.CPUs > 0}
	r.rec = newRecorder(sc)
	if sc.Host.CPUs > 0 {
		r.cpu = newCPUSched(sc.Host.CPUs)
	}
	if opt.Timeline != nil {
		r.tl = newTimelineWriter(opt.Timeline)
	}
	src := opt.Workload
	if src == nil && sc.WorkloadForm == "periodic" {
		src = emptySource{} // periodic jobs only
	}
	if src == nil {
		var err error
		if src, err = workloads.New(sc.Workload, sc.Seed); err != nil {
			return nil, scenarioErr(sc, "workload", err)
		}
	}
	r.src = src
	periodic, err := newPeriodic(sc)
	if err != nil {
		src.Close()
		return nil, scenarioErr(sc, "workload", err)
	}
	r.periodic = periodic
	for i := range periodic {
		r.periodicOrder = append(r.periodicOrder, i)
	}
	slices.SortStableFunc(r.periodicOrder, func(a, b int) int { return cmp.Compare(periodic[a].spec.At, periodic[b].spec.At) })
	for i, j := range periodic {
		if j.spec.Cancel {
			r.cancelOrder = append(r.cancelOrder, i)
		}
	}
	slices.SortStableFunc(r.cancelOrder, func(a, b int) int { return cmp.Compare(periodic[a].spec.CancelAt, periodic[b].spec.CancelAt) })
	if ss, ok := src.(workloads.SplitSource); ok && ss.HasSplits() {
		r.split = ss
	}
	r.lim = newLimiter(sc)
	cfg := sc.Pool.Config
	cfg.ThreadLimit = r.lim.MaxThreads
	pool, err := model.New(0, cfg, r)
	if err != nil {
		src.Close()
		return nil, scenarioErr(sc, "pool", err)
	}
	r.pool = pool
	r.lim.constructed(cfg, pool.PoolSize())
	// Runtime events are validated in time order; snapshots are sorted here.
	r.snapAt = append([]time.Duration(nil), sc.Snapshots...)
	slices.Sort(r.snapAt)
	r.arrivalAt = never
	r.pullArrival()
	return r, nil
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

// pullArrival draws the next arrival and schedules its submission: at its
// time, or when the submitter is free again if a caller-runs task holds it
// (backlogged submissions then go in order, back to back).
func (r *runner) pullArrival() {
	a, ok := r.src.Next()
	if !ok || a.At > r.sc.Duration {
		return
	}
	r.next = a
	if r.split != nil {
		r.nextSplit = r.split.LastSplit()
	}
	at := a.At
	if r.submitterFree > at {
		at = r.submitterFree
	}
	r.arrivalAt = at
}

// never is a time no event reaches.
const never = time.Duration(math.MaxInt64)

// nextEvent returns the next event to process, or false when none is due by
// the end of the run. Only completions and keepAlive timers live in the
// heap; the single pending arrival, the next sample and the sorted runtime
// events and snapshots are kept aside and merged here, in phase order: at
// equal times the source considered first wins, and they are considered in
// the phase order of doc.go.
func (r *runner) nextEvent() (event, bool) {
	at, phase := never, uint8(0)
	if r.h.len() > 0 {
		top := r.h.peek()
		at, phase = top.at, top.phase()
	}
	if r.arrivalAt < at {
		at, phase = r.arrivalAt, phaseArrival
	}
	if pa := r.nextPeriodicAt(); pa < at {
		at, phase = pa, phasePeriodic
	}
	if ca := r.nextCancelAt(); ca < at {
		at, phase = ca, phaseCancel
	}
	if r.nextRuntime < len(r.sc.Events) && r.sc.Events[r.nextRuntime].At < at {
		at, phase = r.sc.Events[r.nextRuntime].At, phaseRuntime
	}
	if r.nextSnap < len(r.snapAt) && r.snapAt[r.nextSnap] < at {
		at, phase = r.snapAt[r.nextSnap], phaseSnapshot
	}
	if r.sampleAt < at {
		at, phase = r.sampleAt, phaseSample
	}
	if at > r.sc.Duration {
		return event{}, false
	}
	if phase <= phaseKeepAlive { // the heap's phases: completions, CPU timers, keepAlive timers
		e := r.h.pop()
		return event{at: e.at, phase: phase, w: e.w}, true
	}
	switch phase {
	case phaseArrival:
		r.arrivalAt = never
	case phasePeriodic, phaseCancel:
		return event{at: at, phase: phase}, true
	case phaseRuntime:
		r.nextRuntime++
		return event{at: at, phase: phase, idx: int32(r.nextRuntime - 1)}, true
	case phaseSnapshot:
		r.nextSnap++
	case phaseSample:
		r.sampleAt += r.sc.Sample
	}
	return event{at: at, phase: phase}, true
}

func (r *runner) loop(ctx context.Context) error {
	for !r.stopped {
		ev, ok := r.nextEvent()
		if !ok {
			break
		}
		r.events++
		if r.events%ctxCheckEvery == 0 && ctx.Err() != nil {
			r.stop(ev.at, "interrupted")
			r.interrupted = true
			break
		}
		r.rec.advance(ev.at)
		r.now = ev.at
		switch ev.phase {
		case phaseCompletion:
			if k := ev.w.HostJob; k != 0 {
				r.stepJob(ev.at, k-1, false) // a blocking piece or a thread start has passed
				break
			}
			r.rec.onComplete(ev.at, ev.w) // finishTask, kept inline: the hot path
			if r.opt.OnTask != nil {
				t, _ := ev.w.Task()
				r.opt.OnTask(TaskEvent{T: ev.at, TaskID: t.ID, Worker: ev.w.ID, End: true, Job: t.Periodic, Run: t.Run})
			}
			r.pool.TaskDone(ev.at, ev.w)
		case phaseCPU:
			r.fireCPU(ev.at)
		case phaseKeepAlive:
			r.fireKeepAlive(ev)
		case phaseArrival:
			r.submit()
		case phasePeriodic:
			r.schedulePeriodic()
		case phaseCancel:
			r.cancelPeriodic()
		case phaseRuntime:
			if err := r.runtimeEvent(r.sc.Events[ev.idx]); err != nil {
				return err
			}
		case phaseSnapshot:
			if err := r.snapshot(); err != nil {
				return err
			}
		case phaseSample:
			if err := r.sample(); err != nil {
				return err
			}
		}
		if r.cpu != nil && r.cpu.dirty { // r.cpu is nil without a CPU limit
			r.rearmCPU(r.now)
		}
		r.rec.settle(r.now, r.pool)
		if r.lim.queueFull(r.now, r.pool.QueueLen(), r.sc.Duration) {
			r.stop(r.now, fmt.Sprintf("queue reached the limit of %d tasks (limits.maxQueued)", r.lim.MaxQueued))
		}
		if r.opt.CheckInvariants {
			r.pool.CheckInvariants()
			r.rec.checkConservation(r.pool)
		}
		if r.opt.Observe != nil {
			r.opt.Observe(r.now, r.pool)
		}
	}
	if err := r.src.Err(); err != nil {
		return err
	}
	end := r.sc.Duration
	if r.stopped {
		end = r.now
	}
	r.rec.advance(end)
	r.now = end
	if r.tl != nil {
		return r.tl.flush()
	}
	return nil
}

func (r *runner) stop(at time.Duration, why string) {
	r.stopped = true
	r.now = at
	r.stopReason = why
}

func (r *runner) submit() {
	a := r.next
	r.nextTaskID++
	t := model.Task{ID: r.nextTaskID, Arrival: a.At, Submit: r.now, Service: a.Service, Priority: a.Priority, Fails: a.Fails,
		CPU: r.nextSplit.CPU, Slices: r.nextSplit.Slices}
	r.rec.onSubmit(r.now, &t)
	r.pool.Execute(r.now, t)
	if r.callerEvent == r.events && r.callerClock > r.now { // the submitter started threads inside execute
		r.rec.threadStartSubmitter += r.callerClock - r.now
		if r.callerClock > r.submitterFree {
			r.submitterFree = r.callerClock
		}
	}
	r.pullArrival()
}

// fireKeepAlive handles a worker's timer. Each worker has at most one timer
// in the heap (timerAt); a wait that ends early leaves it stale, and a wait
// that began later than the timer re-arms it at the new deadline.
func (r *runner) fireKeepAlive(ev event) {
	w := ev.w
	if w.HostTimer != ev.at {
		return // superseded by an earlier re-arm
	}
	w.HostTimer = 0
	if w.State() != model.IdleTimed {
		return
	}
	switch d := w.Deadline(); {
	case d == ev.at:
		r.pool.KeepAliveExpired(ev.at, w)
	case d > ev.at:
		r.armTimer(w, d)
	}
}

func (r *runner) runtimeEvent(ev scenarios.Event) error {
	p := r.pool
	wrap := func(err error) error {
		if err == nil {
			return nil
		}
		var ce *model.ConfigError
		if errors.As(err, &ce) {
			return inputerr.New(r.sc.Path, ev.Line, 0, "events.set."+ce.Field,
				fmt.Sprintf("at %v: %s", ev.At, ce.Msg), ce.Rule)
		}
		return err
	}
	r.rec.runtimeEvent(r.now, ev)
	// The JDK refuses a core above max and a max below core at each call,
	// so raise max before core, and lower core before max.
	if ev.Max != nil && *ev.Max >= p.Config().Max {
		if err := wrap(p.SetMaximumPoolSize(r.now, *ev.Max)); err != nil {
			return err
		}
	}
	if ev.Core != nil {
		if err := wrap(p.SetCorePoolSize(r.now, *ev.Core)); err != nil {
			return err
		}
	}
	if ev.Max != nil && *ev.Max < p.Config().Max {
		if err := wrap(p.SetMaximumPoolSize(r.now, *ev.Max)); err != nil {
			return err
		}
	}
	if ev.KeepAlive != nil {
		// Turning core time-out off first lets keepAlive drop to 0.
		if ev.CoreTimeOut != nil && !*ev.CoreTimeOut {
			if err := wrap(p.AllowCoreThreadTimeOut(r.now, false)); err != nil {
				return err
			}
		}
		if err := wrap(p.SetKeepAliveTime(r.now, *ev.KeepAlive)); err != nil {
			return err
		}
	}
	if ev.CoreTimeOut != nil {
		if err := wrap(p.AllowCoreThreadTimeOut(r.now, *ev.CoreTimeOut)); err != nil {
			return err
		}
	}
	switch ev.Shutdown {
	case "graceful":
		p.Shutdown(r.now)
	case "now":
		p.ShutdownNow(r.now)
	}
	return nil
}

func (r *runner) sample() error {
	r.samples++
	if r.opt.OnSample != nil {
		rec := r.rec
		r.opt.OnSample(Sample{T: r.now, PoolSize: rec.poolSize, Busy: rec.busy, IdleTimed: rec.idleTimed,
			IdleUntimed: rec.idleUntimed, Queue: rec.queueLen, Submitted: rec.submitted, Completed: rec.completed, Rejected: rec.rejected,
			WaitP99: rec.ivWait.quantile(0.99), Largest: r.pool.LargestPoolSize()})
	}
	if r.tl == nil {
		r.rec.resetInterval()
		return nil
	}
	err := r.tl.row(r.now, r.rec, r.pool)
	r.rec.resetInterval()
	return err
}
