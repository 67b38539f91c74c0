package conformance

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/poolsim/poolsim/model"
	"github.com/poolsim/poolsim/scenarios"
	"github.com/poolsim/poolsim/sim"
	"github.com/poolsim/poolsim/workloads"
)

// This file runs a Script on poolsim's simulator instead of the real JVM, and returns what
// happened in the harness's own shape (a Result), so that a test can hold the two side by
// side: samples at the same instants, the same task ids with their worker indexes and
// outcomes, the same worker creation indexes.

// SampleTimes returns the instants, in milliseconds, at which the harness samples the pool:
// the every/from/until series and the at list, sorted, without duplicates (as Script.java
// keeps them).
func (s Script) SampleTimes() []int64 {
	var out []int64
	if s.Samples.EveryMs > 0 {
		for t := s.Samples.FromMs; t <= s.Samples.UntilMs; t += s.Samples.EveryMs {
			out = append(out, t)
		}
	}
	out = append(out, s.Samples.AtMs...)
	slices.Sort(out)
	return slices.Compact(out)
}

// simSample is the simulator's timeline resolution in a translated scenario: one sample per
// millisecond, so that every scripted sample time (whole milliseconds) is a simulated one.
const simSample = time.Millisecond

// Scenario translates the script into a simulator scenario: the same pool (JDK, Tomcat,
// ScheduledThreadPoolExecutor or Jetty), Duration EndMs, one timeline sample per millisecond,
// the schedule directives as periodic jobs (whose runs take the directive's service times in
// order, the last repeating; a cancel directive becomes its job's cancelAt), and the set and
// shutdown directives as runtime events — one
// event per changed key, in the order the harness calls the setters, so that each setter's
// side effects (R21–R24) happen in the same order. The submits are not part of the scenario:
// pass ScriptSource(s) as sim.Options.Workload.
func (s Script) Scenario() (*scenarios.Scenario, error) {
	cfg, preset, prefix, err := s.Pool.config()
	if err != nil {
		return nil, err
	}
	if (len(s.Schedules) > 0 || len(s.Cancels) > 0) && s.Pool.Kind != KindScheduled {
		return nil, fmt.Errorf("conformance: scenario: schedule and cancel directives need kind %s, got %s", KindScheduled, s.Pool.Kind)
	}
	if s.EndMs <= 0 {
		return nil, fmt.Errorf("conformance: scenario: end at %d ms: must be > 0", s.EndMs)
	}
	sc := &scenarios.Scenario{
		Name:         "conformance",
		Description:  "a conformance.Script replayed on the simulator",
		Seed:         1,
		Duration:     time.Duration(s.EndMs) * time.Millisecond,
		Sample:       simSample,
		Pool:         scenarios.Pool{Preset: preset, ThreadNamePrefix: prefix, Config: cfg},
		WorkloadForm: "trace",
		Text:         []byte(s.String()),
	}
	// Lines as String writes them: the pool on line 1, then the timed directives in stable
	// time order, submits before schedules before cancels before sets before shutdowns; the
	// line numbers locate errors.
	type directive struct {
		at   int64
		kind int // 0 submit, 1 set, 2 shutdown, 3 schedule, 4 cancel
		idx  int
	}
	var ds []directive
	for i, u := range s.Submits {
		ds = append(ds, directive{u.AtMs, 0, i})
	}
	job := map[int]int{} // schedule id → index in sc.Periodic
	for i, u := range s.Schedules {
		ds = append(ds, directive{u.AtMs, 3, i})
		j, err := u.periodicJob()
		if err != nil {
			return nil, err
		}
		job[u.ID] = len(sc.Periodic)
		sc.Periodic = append(sc.Periodic, j)
	}
	for i, c := range s.Cancels {
		ds = append(ds, directive{c.AtMs, 4, i})
		k, ok := job[c.ID]
		switch {
		case !ok:
			return nil, fmt.Errorf("conformance: scenario: cancel at %d ms: no schedule directive has id %d", c.AtMs, c.ID)
		case sc.Periodic[k].Cancel:
			return nil, fmt.Errorf("conformance: scenario: cancel at %d ms: schedule %d is cancelled twice", c.AtMs, c.ID)
		case c.AtMs < s.Schedules[k].AtMs:
			return nil, fmt.Errorf("conformance: scenario: cancel at %d ms: before schedule %d's call at %d ms", c.AtMs, c.ID, s.Schedules[k].AtMs)
		}
		sc.Periodic[k].Cancel, sc.Periodic[k].CancelAt = true, time.Duration(c.AtMs)*time.Millisecond
	}
	for i, e := range s.Sets {
		ds = append(ds, directive{e.AtMs, 1, i})
	}
	for i, e := range s.Shutdowns {
		ds = append(ds, directive{e.AtMs, 2, i})
	}
	rank := [...]int{0: 0, 3: 1, 4: 2, 1: 3, 2: 4} // String's order at one instant
	sort.SliceStable(ds, func(i, j int) bool {
		if ds[i].at != ds[j].at {
			return ds[i].at < ds[j].at
		}
		return rank[ds[i].kind] < rank[ds[j].kind]
	})
	for k, d := range ds {
		line := k + 2
		at := time.Duration(d.at) * time.Millisecond
		switch d.kind {
		case 1:
			for _, c := range s.Sets[d.idx].Changes {
				ev, err := change(c, at, line)
				if err != nil {
					return nil, err
				}
				sc.Events = append(sc.Events, ev)
			}
		case 2:
			how := "graceful"
			if s.Shutdowns[d.idx].Now {
				how = "now"
			}
			sc.Events = append(sc.Events, scenarios.Event{At: at, Line: line, Shutdown: how})
		}
	}
	return sc, nil
}

// change turns one key of a set directive into a runtime event.
func change(c Change, at time.Duration, line int) (scenarios.Event, error) {
	ev := scenarios.Event{At: at, Line: line}
	bad := func(err error) (scenarios.Event, error) {
		return scenarios.Event{}, fmt.Errorf("conformance: scenario: line %d: set %s=%s: %w", line, c.Key, c.Value, err)
	}
	switch c.Key {
	case "core", "max":
		n := Unbounded
		if c.Value != "unbounded" {
			v, err := strconv.Atoi(c.Value)
			if err != nil {
				return bad(err)
			}
			n = v
		}
		if c.Key == "core" {
			ev.Core = &n
		} else {
			ev.Max = &n
		}
	case "keepAliveMs":
		v, err := strconv.ParseInt(c.Value, 10, 64)
		if err != nil {
			return bad(err)
		}
		d := time.Duration(v) * time.Millisecond
		ev.KeepAlive = &d
	case "allowCoreThreadTimeOut":
		v, err := strconv.ParseBool(c.Value)
		if err != nil {
			return bad(err)
		}
		ev.CoreTimeOut = &v
	default:
		return bad(fmt.Errorf("unknown key (core, max, keepAliveMs, allowCoreThreadTimeOut)"))
	}
	return ev, nil
}

// config translates the pool directive into the model's configuration, with the harness's
// defaults for the keys a Pool leaves out.
func (p Pool) config() (cfg model.Config, preset, prefix string, err error) {
	bad := func(format string, a ...any) (model.Config, string, string, error) {
		return model.Config{}, "", "", fmt.Errorf("conformance: scenario: pool: "+format, a...)
	}
	cfg = model.Config{
		Core:        p.Core,
		Max:         p.Max,
		KeepAlive:   time.Duration(p.KeepAliveMs) * time.Millisecond,
		CoreTimeOut: p.AllowCoreThreadTimeOut,
		Prestart:    p.Prestart,
		Fair:        p.Fair,
	}
	switch p.Rejection {
	case RejectAbort, "":
		cfg.Rejection = model.AbortPolicy
	case RejectCallerRuns:
		cfg.Rejection = model.CallerRunsPolicy
	case RejectDiscard:
		cfg.Rejection = model.DiscardPolicy
	case RejectDiscardOldest:
		cfg.Rejection = model.DiscardOldestPolicy
	default:
		return bad("unknown rejection %q", p.Rejection)
	}
	capacity := p.Capacity
	switch p.Kind {
	case KindJDK:
		cfg.Flavor, preset, prefix = model.JDK, "jdk", "pool-1-thread-"
		switch p.Queue {
		case QueueLinked, "":
			cfg.Queue = model.Linked
			if capacity == 0 {
				capacity = Unbounded
			}
		case QueueArray:
			cfg.Queue = model.Array
			if capacity == 0 {
				return bad("an array queue needs a capacity")
			}
		case QueueSynchronous:
			cfg.Queue = model.Synchronous
			if capacity != 0 {
				return bad("a synchronous queue has no capacity, got %d", capacity)
			}
		case QueuePriority:
			cfg.Queue = model.Priority
			if capacity != 0 && capacity != Unbounded {
				return bad("a priority queue is unbounded, got capacity %d", capacity)
			}
			capacity = Unbounded
		default:
			return bad("unknown queue %q", p.Queue)
		}
	case KindTomcat:
		if p.Queue != "" || p.Fair {
			return bad("Tomcat's queue is always a TaskQueue: leave queue and fair out")
		}
		// The constructor prestarts the core threads (R65); TaskQueue(capacity), default
		// Integer.MAX_VALUE (R73).
		cfg.Flavor, preset, prefix = model.Tomcat, "tomcat", "tomcat-exec-"
		cfg.Queue, cfg.Prestart = model.TaskQueue, true
		if capacity == 0 {
			capacity = Unbounded
		}
	case KindJetty:
		// QueuedThreadPool(max, min, idleTimeout, reservedThreads 0) with its default queue; the
		// harness's thread factory names its threads qtp-worker-M (R100).
		if p.Queue != "" || p.Fair || capacity != 0 {
			return bad("Jetty's queue is its default BlockingArrayQueue: leave queue, fair and capacity out")
		}
		cfg.Flavor, preset, prefix = model.Jetty, "jetty", "qtp-worker-"
		cfg.Queue, capacity = model.BlockingArrayQueue, Unbounded
	case KindScheduled:
		// new ScheduledThreadPoolExecutor(core): max, keepAlive and the queue are fixed (R88).
		if p.Queue != "" || p.Fair || capacity != 0 || p.Max != 0 || p.KeepAliveMs != 0 {
			return bad("ScheduledThreadPoolExecutor's constructor fixes max, keepAlive and the queue: leave them out")
		}
		cfg.Flavor, preset, prefix = model.Scheduled, "scheduled", "pool-1-thread-"
		cfg.Max, cfg.KeepAlive = model.Unbounded, model.DefaultScheduledKeepAlive
		cfg.Queue, capacity = model.DelayedWorkQueue, Unbounded
		cfg.ContinuePeriodicAfterShutdown, cfg.DropDelayedOnShutdown = p.ContinuePeriodic, p.DropDelayed
		cfg.RemoveOnCancel = p.RemoveOnCancel
	default:
		return bad("unknown kind %q", p.Kind)
	}
	cfg.QueueCapacity = capacity
	if p.Kind != KindScheduled && (p.ContinuePeriodic || p.DropDelayed || p.RemoveOnCancel) {
		return bad("continuePeriodic, executeDelayed and removeOnCancel are ScheduledThreadPoolExecutor policies")
	}
	if err := cfg.Validate(); err != nil {
		return model.Config{}, "", "", fmt.Errorf("conformance: scenario: pool: %w", err)
	}
	return cfg, preset, prefix, nil
}

// periodicJob translates a schedule directive into a periodic job: run k takes ServiceMs[k-1],
// the last value repeating, and run FailRun throws.
func (u Schedule) periodicJob() (scenarios.PeriodicJob, error) {
	ms := func(v int64) time.Duration { return time.Duration(v) * time.Millisecond }
	if len(u.ServiceMs) == 0 {
		return scenarios.PeriodicJob{}, fmt.Errorf("conformance: scenario: schedule %d: no serviceMs", u.ID)
	}
	job := scenarios.PeriodicJob{
		Name:         "schedule-" + strconv.Itoa(u.ID),
		Mode:         scenarios.PeriodicMode(u.Mode),
		InitialDelay: ms(u.DelayMs),
		At:           ms(u.AtMs),
		Service:      workloads.ServiceSpec{Dist: "constant", Mean: ms(u.ServiceMs[len(u.ServiceMs)-1])},
		FailAt:       u.FailRun,
	}
	if u.Mode != ScheduleOnce {
		job.Every = ms(u.PeriodMs)
	}
	for _, v := range u.ServiceMs {
		job.FirstRuns = append(job.FirstRuns, ms(v))
	}
	return job, nil
}

// scheduledAtEnd is what the harness reports for a schedule directive, from the simulator's
// summary of its job: the future's state just before the end, and whether the final (or an
// earlier) shutdownNow returned its queued run.
func scheduledAtEnd(u Schedule, ps sim.PeriodicSummary, runs []TaskRun, queuedAtEnd bool, endMs int64) Scheduled {
	sc := Scheduled{ID: u.ID, Mode: u.Mode, SubmitMs: float64(u.AtMs), State: ScheduleActive, Drained: queuedAtEnd || ps.Drained}
	for _, r := range runs {
		if r.StartMs <= float64(endMs) {
			sc.Runs++
		}
	}
	switch {
	case ps.Rejected:
		sc.State, sc.Drained = ScheduleRejected, false
	case ps.Cancelled && float64(ps.CancelledAt)*1000 <= float64(endMs):
		sc.State = ScheduleCancelled // a cancel directive (R97)
	case ps.StoppedByException && float64(ps.StoppedAt)*1000 <= float64(endMs):
		sc.State = ScheduleFailed
	case ps.CancelledByShutdown:
		sc.State = ScheduleCancelled
	case u.Mode == ScheduleOnce && len(runs) == 1 && runs[0].EndMs <= float64(endMs):
		sc.State = ScheduleDone
		if u.FailRun == 1 {
			sc.State = ScheduleFailed
		}
	}
	return sc
}

// scriptSource replays a script's submissions as a workload, in the harness's order (stable
// time order). The simulator numbers tasks 1, 2, … in that order; ids maps them back.
type scriptSource struct {
	arrivals []workloads.Arrival
	ids      []int // ids[k] is the script id of the simulator's task k+1
	next     int
	calls    int // Next calls so far
}

// ScriptSource returns the script's submissions as a simulator workload: each at its time,
// with its service time, priority and failure. The simulator numbers the tasks 1, 2, … in
// submission order; the k-th is the k-th of s.Submits in stable time order.
func ScriptSource(s Script) workloads.Source { return newScriptSource(s) }

func newScriptSource(s Script) *scriptSource {
	subs := slices.Clone(s.Submits)
	sort.SliceStable(subs, func(i, j int) bool { return subs[i].AtMs < subs[j].AtMs })
	src := &scriptSource{}
	for _, u := range subs {
		src.arrivals = append(src.arrivals, workloads.Arrival{
			At:       time.Duration(u.AtMs) * time.Millisecond,
			Service:  time.Duration(u.ServiceMs) * time.Millisecond,
			Priority: int32(u.Priority),
			Fails:    u.Fail,
		})
		src.ids = append(src.ids, u.ID)
	}
	return src
}

func (s *scriptSource) Next() (workloads.Arrival, bool) {
	s.calls++
	if s.next >= len(s.arrivals) {
		return workloads.Arrival{}, false
	}
	s.next++
	return s.arrivals[s.next-1], true
}

func (s *scriptSource) Err() error   { return nil }
func (s *scriptSource) Close() error { return nil }

// Simulation is a script run on the simulator.
type Simulation struct {
	// Result is the run in the harness's shape. Samples are taken at SampleTimes, after
	// every event at that instant; Busy, BusyCounter and Active are the workers running a
	// task, Other is 0, SubmittedCount is Tomcat's submittedCount (−1 for the JDK pool), and
	// LateMs is 0. Tasks are in the script's Submits order, with exact times. Workers are in
	// creation order, named with the pool's thread-name prefix (pool-1-thread-M,
	// tomcat-exec-M; the real JDK pool's number differs). Events hold the set, shutdown and
	// shutdownNow directives (shutdownNow: drained=N) and the end, whose drained=N counts the
	// tasks still queued, which the harness's final shutdownNow drains. Timing and Output
	// are empty.
	Result *Result
	// Summary is the simulator's summary of the run.
	Summary sim.Summary
	// Transitions are the instants at which something observable happened: a submission, a
	// task's start or end, a set or shutdown directive, a thread's creation (Tomcat's
	// prestarted ones at 0 included), or a change of the pool's size,
	// worker states, queue length, completed count, largest size or run state (a keepAlive
	// expiry, a worker exit). Sorted, without duplicates.
	Transitions []time.Duration
}

// QuietMs returns how far the sample time tMs is from the nearest transition, in
// milliseconds (+Inf when there is none).
func (m *Simulation) QuietMs(tMs int64) float64 {
	t := time.Duration(tMs) * time.Millisecond
	i, _ := slices.BinarySearch(m.Transitions, t)
	d := math.Inf(1)
	if i < len(m.Transitions) {
		d = math.Min(d, float64(m.Transitions[i]-t)/float64(time.Millisecond))
	}
	if i > 0 {
		d = math.Min(d, float64(t-m.Transitions[i-1])/float64(time.Millisecond))
	}
	return d
}

// observed is the part of the pool's state a sample or a transition is made of.
type observed struct {
	pool, busy, timed, untimed, queue, largest int
	completed                                  int64
	state                                      model.RunState
}

func observe(p model.Executor) observed {
	return observed{
		pool: p.PoolSize(), busy: p.Count(model.Running), timed: p.Count(model.IdleTimed),
		untimed: p.Count(model.IdleUntimed), queue: p.QueueLen(), largest: p.LargestPoolSize(),
		completed: p.CompletedTaskCount(), state: p.RunState(),
	}
}

// Simulate runs the script on the simulator (with its invariant checks on) and returns what
// happened in the harness's shape. Every task's fate is read from the engine's event stream:
// which worker started and ended it, or why it never ran (rejected under AbortPolicy,
// discarded by a policy or dropped after shutdown, drained by shutdownNow), and a task with
// no fate at the end was still queued, which the harness's final shutdownNow drains.
// Schedule directives come back as Result.Scheduled (the state of each series just before
// the end, as the harness notes it) and Result.Runs.
func Simulate(ctx context.Context, s Script) (*Simulation, error) {
	sc, err := s.Scenario()
	if err != nil {
		return nil, err
	}
	tr := newTrace(s, sc)
	opts := sim.Options{
		Workload:        tr.src,
		CheckInvariants: true,
		Observer:        tr,
		OnSample:        tr.sample,
		OnTask:          tr.task,
		Observe:         tr.afterEvent,
	}
	out, err := sim.Run(ctx, sc, opts)
	if err != nil {
		return nil, fmt.Errorf("conformance: simulate: %w", err)
	}
	if tr.err != nil {
		return nil, tr.err
	}
	if !out.Complete {
		return nil, fmt.Errorf("conformance: simulate: the run stopped early: %s", out.StopReason)
	}
	if tr.submissions != out.Summary.Submitted {
		return nil, fmt.Errorf("conformance: simulate: the stream reported %d submissions and periodic runs, the simulator counted %d",
			tr.submissions, out.Summary.Submitted)
	}
	res := tr.res
	for i, u := range s.Schedules {
		res.Scheduled = append(res.Scheduled, scheduledAtEnd(u, out.Summary.Periodic[i], res.RunsOf(u.ID), tr.queuedJobs()[int32(i+1)], s.EndMs))
	}
	for i := range res.Runs {
		if r := &res.Runs[i]; r.EndMs > float64(s.EndMs) {
			r.EndMs, r.Failed = math.NaN(), false // still running at the end
		}
	}
	endDrained := tr.finishTasks()
	tr.directives(out.Summary, endDrained)
	slices.Sort(tr.transitions)
	return &Simulation{Result: res, Summary: out.Summary, Transitions: slices.Compact(tr.transitions)}, nil
}

// trace turns the engine's event stream into the harness's shape (Simulate).
type trace struct {
	s   Script
	sc  *scenarios.Scenario
	src *scriptSource
	res *Result
	err error

	index       map[uint64]int // simulator task id → index in s.Submits
	fate        map[uint64]Outcome
	runs        map[[2]int32]int // (job, run) → index in res.Runs
	queuedRuns  map[uint64]int32 // periodic runs queued now → their job
	live        map[int]int      // worker id → index in res.Workers
	drainedAt   map[time.Duration]int
	submissions int64 // Submitted, ScheduleCalled and Rescheduled events
	wantSample  map[int64]bool

	sampled     bool // the event just processed was a timeline sample
	changed     bool // something observable happened in this event
	prev        observed
	havePrev    bool
	transitions []time.Duration
}

func newTrace(s Script, sc *scenarios.Scenario) *trace {
	tr := &trace{s: s, sc: sc, src: newScriptSource(s), res: &Result{Timing: map[string]string{}},
		index: map[uint64]int{}, fate: map[uint64]Outcome{}, runs: map[[2]int32]int{}, queuedRuns: map[uint64]int32{},
		live: map[int]int{}, drainedAt: map[time.Duration]int{}, wantSample: map[int64]bool{}}
	byID := make(map[int]int, len(s.Submits))
	for i, u := range s.Submits {
		byID[u.ID] = i
	}
	for k, id := range tr.src.ids {
		tr.index[uint64(k+1)] = byID[id]
	}
	nan := math.NaN()
	tr.res.Tasks = make([]Task, len(s.Submits))
	for i, u := range s.Submits {
		tr.res.Tasks[i] = Task{ID: u.ID, Worker: -1, SubmitMs: nan, StartMs: nan, EndMs: nan, Outcome: OutcomeUnsubmitted}
	}
	for _, t := range s.SampleTimes() {
		tr.wantSample[t] = true
	}
	return tr
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// periodic reports whether simulator task id is a run of a schedule directive.
func periodic(id uint64) bool { return id > sim.PeriodicTaskIDBase }

// Observe reads the fates of tasks and threads from the stream.
func (tr *trace) Observe(ev *model.Event) {
	switch ev.Kind {
	case model.Submitted:
		tr.submissions++
		tr.changed = true
		if i, ok := tr.index[ev.Task.ID]; ok {
			tr.res.Tasks[i].SubmitMs = ms(ev.At)
		} else {
			tr.err = fmt.Errorf("conformance: simulate: submission of unknown task %d", ev.Task.ID)
		}
	case model.ScheduleCalled, model.Rescheduled:
		tr.submissions++
		tr.queuedRuns[ev.Task.ID] = ev.Task.Periodic
	case model.Started, model.SkippedCancelled:
		delete(tr.queuedRuns, ev.Task.ID)
	case model.Lost:
		tr.lost(ev)
	case model.WorkerChanged:
		tr.workerChanged(ev)
	}
}

// lost notes why a task will never run: the outcome the harness reports.
func (tr *trace) lost(ev *model.Event) {
	id := ev.Task.ID
	if ev.Outcome == model.Drained {
		tr.drainedAt[ev.At]++ // a task or a scheduled run returned by shutdownNow
	}
	if periodic(id) {
		delete(tr.queuedRuns, id)
		return
	}
	switch ev.Outcome {
	case model.Aborted:
		tr.fate[id] = OutcomeRejected // execute threw RejectedExecutionException (R32, R66)
	case model.Drained:
		tr.fate[id] = OutcomeDrained // returned by shutdownNow (R28)
	case model.Discarded, model.DiscardedOldest, model.DroppedAfterShutdown, model.RetryExhausted:
		tr.fate[id] = OutcomeDiscarded // accepted but never run (R33–R36)
	default:
		tr.err = fmt.Errorf("conformance: simulate: task %d lost as %v, which no harness script provokes", id, ev.Outcome)
	}
}

// workerChanged notes the threads created and exited.
func (tr *trace) workerChanged(ev *model.Event) {
	w := ev.Worker
	switch {
	case ev.From == model.Starting:
		tr.live[w.ID] = len(tr.res.Workers)
		tr.res.Workers = append(tr.res.Workers, Worker{Index: w.ID, CreatedMs: ms(w.Created), ExitedMs: math.NaN(),
			Name: tr.sc.Pool.ThreadNamePrefix + strconv.Itoa(w.ID)})
	case ev.To == model.Exited:
		tr.res.Workers[tr.live[w.ID]].ExitedMs = ms(ev.At)
		delete(tr.live, w.ID)
	}
}

// task records a task's start and end, and a periodic run's, at the times the host gives them.
func (tr *trace) task(e sim.TaskEvent) {
	tr.changed = true
	res := tr.res
	if e.Job != 0 {
		k := [2]int32{e.Job, e.Run}
		if e.End {
			res.Runs[tr.runs[k]].EndMs = ms(e.T)
			return
		}
		u := tr.s.Schedules[e.Job-1]
		tr.runs[k] = len(res.Runs)
		res.Runs = append(res.Runs, TaskRun{ID: u.ID, N: int(e.Run), Worker: e.Worker, StartMs: ms(e.T), EndMs: math.NaN(),
			Failed: int(e.Run) == u.FailRun})
		return
	}
	i, ok := tr.index[e.TaskID]
	if !ok {
		tr.err = fmt.Errorf("conformance: simulate: task event for unknown task %d", e.TaskID)
		return
	}
	tk := &res.Tasks[i]
	if e.End {
		tk.EndMs = ms(e.T)
		return
	}
	tk.StartMs, tk.Worker, tk.Outcome = ms(e.T), e.Worker, OutcomePool
	if e.Worker == 0 {
		tk.Outcome = OutcomeCaller
	}
}

// sample keeps the samples at the script's sample times.
func (tr *trace) sample(x sim.Sample) {
	tr.sampled = true
	if x.T%time.Millisecond != 0 || !tr.wantSample[int64(x.T/time.Millisecond)] {
		return
	}
	tr.res.Samples = append(tr.res.Samples, Sample{
		TMs: int64(x.T / time.Millisecond), PoolSize: x.PoolSize, Busy: x.Busy, IdleTimed: x.IdleTimed,
		IdleUntimed: x.IdleUntimed, QueueLen: x.Queue, Completed: x.Completed, Rejected: x.Rejected,
		Largest: x.Largest, BusyCounter: x.Busy, Active: x.Busy, SubmittedCount: -1,
	})
}

// afterEvent runs after every event: a sample takes Tomcat's submittedCount, which the
// timeline does not carry; any other event is a transition if something observable happened
// (a submission, a task's start or end, a change of the pool's observed state).
func (tr *trace) afterEvent(now time.Duration, p model.Executor) {
	if tr.sampled {
		tr.sampled = false
		if n := len(tr.res.Samples); n > 0 && tr.res.Samples[n-1].TMs == int64(now/time.Millisecond) && now%time.Millisecond == 0 {
			if tc, ok := p.(*model.TomcatThreadPoolExecutor); ok {
				tr.res.Samples[n-1].SubmittedCount = tc.SubmittedCount()
			}
		}
		return
	}
	cur := observe(p)
	if tr.changed || !tr.havePrev || cur != tr.prev {
		tr.transitions = append(tr.transitions, now)
	}
	tr.prev, tr.havePrev, tr.changed = cur, true, false
}

// queuedJobs returns the jobs with a run still queued at the end.
func (tr *trace) queuedJobs() map[int32]bool {
	out := map[int32]bool{}
	for _, job := range tr.queuedRuns {
		out[job] = true
	}
	return out
}

// finishTasks settles each submitted task's outcome at the end of the script and returns how
// many the harness's final shutdownNow drains (queued tasks and scheduled runs).
func (tr *trace) finishTasks() int {
	endMs := float64(tr.s.EndMs)
	endDrained := len(tr.queuedRuns)
	for k, i := range tr.index {
		tk := &tr.res.Tasks[i]
		u := tr.s.Submits[i]
		switch {
		case math.IsNaN(tk.SubmitMs):
			continue // unsubmitted
		case !math.IsNaN(tk.StartMs):
			if math.IsNaN(tk.EndMs) || tk.EndMs > endMs {
				tk.EndMs, tk.Unfinished = math.NaN(), true // still running at the end, where shutdownNow interrupts it
			}
		case tr.fate[k] != "":
			tk.Outcome = tr.fate[k]
		default:
			tk.Outcome = OutcomeDrained // still queued: the harness's final shutdownNow returns it
			endDrained++
		}
		if tk.Outcome == OutcomeCaller && tk.EndMs > endMs {
			tk.EndMs, tk.Unfinished = math.NaN(), true
		}
		tk.Failed = u.Fail && !tk.Unfinished && !math.IsNaN(tk.StartMs)
	}
	return endDrained
}

// directives lists the script's cancel, set and shutdown directives and the end as the
// harness reports them, and counts them as transitions, with the threads' creations.
func (tr *trace) directives(sum sim.Summary, endDrained int) {
	s, res := tr.s, tr.res
	at := func(v int64) time.Duration { return time.Duration(v) * time.Millisecond }
	for _, c := range s.Cancels {
		k := slices.IndexFunc(s.Schedules, func(u Schedule) bool { return u.ID == c.ID })
		res.Events = append(res.Events, Event{AtMs: c.AtMs, ActualMs: float64(c.AtMs), Kind: "cancel",
			Detail: "cancelled=" + strconv.FormatBool(sum.Periodic[k].Cancelled)})
		tr.transitions = append(tr.transitions, at(c.AtMs))
	}
	for _, e := range s.Sets {
		d := ""
		for k, c := range e.Changes {
			if k > 0 {
				d += " "
			}
			d += c.Key + "=" + c.Value
		}
		res.Events = append(res.Events, Event{AtMs: e.AtMs, ActualMs: float64(e.AtMs), Kind: "set", Detail: d})
		tr.transitions = append(tr.transitions, at(e.AtMs))
	}
	for _, e := range s.Shutdowns {
		ev := Event{AtMs: e.AtMs, ActualMs: float64(e.AtMs), Kind: "shutdown"}
		if e.Now {
			ev.Kind = "shutdownNow"
			ev.Detail = "drained=" + strconv.Itoa(tr.drainedAt[at(e.AtMs)])
		}
		res.Events = append(res.Events, ev)
		tr.transitions = append(tr.transitions, at(e.AtMs))
	}
	sort.SliceStable(res.Events, func(i, j int) bool { return res.Events[i].AtMs < res.Events[j].AtMs })
	res.Events = append(res.Events, Event{AtMs: s.EndMs, ActualMs: float64(s.EndMs), Kind: "end", Detail: "drained=" + strconv.Itoa(endDrained)})
	for _, w := range res.Workers {
		// Tomcat's prestarted workers start at construction, before any event.
		tr.transitions = append(tr.transitions, time.Duration(w.CreatedMs*float64(time.Millisecond)))
	}
}
