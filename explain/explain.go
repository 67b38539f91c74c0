package explain

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/poolsim/poolsim/model"
	"github.com/poolsim/poolsim/scenarios"
	"github.com/poolsim/poolsim/sim"
)

// Options tune an explanation.
type Options struct {
	// NoWhatIfs skips re-simulating the what-ifs (faster).
	NoWhatIfs bool
}

// Spread describes the pool size over the steady-state samples.
type Spread struct {
	Samples              int
	Mean, SD, Min, Max   float64
	P5, P95              float64
	IdleTimed, Untimed   float64 // means over the samples
	Busy                 float64
	First, Last          float64 // first and last steady sample, to show a trend
	FirstAt, LastAt      time.Duration
	PeakBusy             float64 // the largest busy count over the samples
	QueueMax             int     // the longest queue in a sample
	SteadyFrom, SteadyTo time.Duration
}

// Metrics are the figures a what-if compares.
type Metrics struct {
	PoolMean, IdleTimed, IdleUntimed, Busy, QueueMean float64
	WaitP99, WaitMean                                 float64
	Rejected, Submitted, ThreadsCreated               int64 // Rejected: by a full pool, not after shutdown
	Largest                                           int
	// Over the whole run, warmup included: the worst per-interval p99 wait
	// (peaks) and the most busy workers in a sample.
	PeakWaitP99, PeakBusy float64
	// Goodput is the callers' answers in time per second (NaN without
	// workload.client or users); ResponseP99 the tasks' steady-state p99
	// response (wait and service, resource waits included).
	Goodput, ResponseP99 float64
	// Virtual threads (nil without): steady-state means of mounted,
	// runnable and pinned VTs, the p99 carrier wait; over the whole run,
	// the requests a failed acquisition ended; steady completions per second.
	Virtual    *VirtualMetrics
	Errors     int64
	Throughput float64
}

// VirtualMetrics are a virtual-thread run's figures for the what-if table.
type VirtualMetrics struct {
	Mounted, Runnable, Pinned, CarrierWaitP99 float64
}

// WhatIf is one configuration change, re-simulated on the same traffic.
type WhatIf struct {
	Name  string   // "keepAlive 60s → 10s"
	Why   string   // what it tests
	Sets  []string // the --set overrides that make it
	Alt   Metrics
	Error string // why it could not be simulated, if so
}

// Explanation is the answer to "why does the pool look like this?".
type Explanation struct {
	Scenario *scenarios.Scenario
	Result   *sim.Result
	// Config is the pool's configuration during the steady state: the
	// scenario's, with the runtime events before it applied.
	Config model.Config
	Steady Spread
	Base   Metrics
	// Process is the arrival process of the steady state (the phase
	// running at the end): poisson, constant, onoff, burst or trace.
	Process  string
	Findings []Finding
	WhatIfs  []WhatIf

	window window
}

// Finding is one paragraph of the explanation.
type Finding struct {
	Title string
	Text  string
}

// Explain runs sc, analyses the steady state and re-simulates the what-ifs
// that matter for its configuration.
func Explain(ctx context.Context, sc *scenarios.Scenario, opt Options) (*Explanation, error) {
	e := &Explanation{Scenario: sc, window: steadyWindow(sc)}
	e.Config = e.window.cfg
	var sizes, timed, untimed, busy []float64
	var times []time.Duration
	var peaks peakTracker
	var all []sim.Sample // kept only when runtime events need them
	var queueMax int
	res, err := sim.Run(ctx, sc, sim.Options{OnSample: func(s sim.Sample) {
		peaks.observe(s)
		if len(sc.Events) > 0 {
			all = append(all, s)
		}
		if !e.window.contains(s.T) {
			return
		}
		sizes = append(sizes, float64(s.PoolSize))
		timed = append(timed, float64(s.IdleTimed))
		untimed = append(untimed, float64(s.IdleUntimed))
		busy = append(busy, float64(s.Busy))
		times = append(times, s.T)
		queueMax = max(queueMax, s.Queue)
	}})
	if err != nil {
		return nil, err
	}
	e.Result = res
	e.Steady = spread(sizes, timed, untimed, busy, times)
	e.Steady.QueueMax = queueMax
	if e.window.whole(sc) {
		// Busy and idle counts come from the time-weighted means: samples
		// can alias with periodic arrivals.
		e.Steady.Busy, e.Steady.IdleTimed, e.Steady.Untimed = float64(res.Summary.BusyMean), float64(res.Summary.IdleTimedMean), float64(res.Summary.IdleUntimedMean)
	}
	e.Base = metrics(res.Summary, peaks)
	e.Process = steadyProcess(sc)
	e.analyse()
	e.changes(all)
	if !opt.NoWhatIfs {
		for _, w := range e.whatIfs() {
			if e.window.overridden(w.Sets) {
				continue // a runtime event replaces the value before the steady state
			}
			alt, err := resimulate(ctx, sc, w.Sets)
			if err != nil {
				w.Error = err.Error()
			} else {
				w.Alt = alt
			}
			e.WhatIfs = append(e.WhatIfs, w)
		}
	}
	return e, nil
}

func spread(sizes, timed, untimed, busy []float64, times []time.Duration) Spread {
	var s Spread
	s.Samples = len(sizes)
	if s.Samples == 0 {
		return s
	}
	s.Mean, s.SD = stat.MeanStdDev(sizes, nil)
	if s.Samples == 1 {
		s.SD = 0
	}
	sorted := append([]float64(nil), sizes...)
	sort.Float64s(sorted)
	s.Min, s.Max = sorted[0], sorted[len(sorted)-1]
	s.P5 = stat.Quantile(0.05, stat.Empirical, sorted, nil)
	s.P95 = stat.Quantile(0.95, stat.Empirical, sorted, nil)
	s.IdleTimed = stat.Mean(timed, nil)
	s.Untimed = stat.Mean(untimed, nil)
	s.Busy = stat.Mean(busy, nil)
	for _, b := range busy {
		s.PeakBusy = math.Max(s.PeakBusy, b)
	}
	s.First, s.Last = sizes[0], sizes[len(sizes)-1]
	s.FirstAt, s.LastAt = times[0], times[len(times)-1]
	s.SteadyFrom, s.SteadyTo = times[0], times[len(times)-1]
	return s
}

// peakTracker keeps whole-run peaks from the timeline samples.
type peakTracker struct{ waitP99, busy float64 }

func (p *peakTracker) observe(s sim.Sample) {
	if s.WaitP99 == s.WaitP99 && s.WaitP99 > p.waitP99 {
		p.waitP99 = s.WaitP99
	}
	p.busy = math.Max(p.busy, float64(s.Busy))
}

func metrics(s sim.Summary, p peakTracker) Metrics {
	return Metrics{
		PeakWaitP99: p.waitP99, PeakBusy: p.busy,
		PoolMean: float64(s.PoolSizeMean), IdleTimed: float64(s.IdleTimedMean), IdleUntimed: float64(s.IdleUntimedMean),
		Busy: float64(s.BusyMean), QueueMean: float64(s.QueueLenMean), WaitP99: float64(s.WaitP99), WaitMean: float64(s.WaitMean),
		Rejected: s.Rejected - s.RejectedAfterShutdown, Submitted: s.Submitted, ThreadsCreated: s.ThreadsCreated, Largest: s.LargestPoolSize,
		Goodput: goodput(s), ResponseP99: float64(s.ResponseP99),
		Virtual: virtualMetrics(s), Errors: errorsOf(s), Throughput: nan0(float64(s.Throughput)),
	}
}

func virtualMetrics(s sim.Summary) *VirtualMetrics {
	v := s.Virtual
	if v == nil {
		return nil
	}
	return &VirtualMetrics{Mounted: nan0(float64(v.MountedMean)), Runnable: nan0(float64(v.RunnableMean)),
		Pinned: nan0(float64(v.PinnedMean)), CarrierWaitP99: float64(v.CarrierWaitP99)}
}

func errorsOf(s sim.Summary) int64 {
	if s.ResourceErrors == nil {
		return 0
	}
	return *s.ResourceErrors
}

func goodput(s sim.Summary) float64 {
	if s.Client == nil {
		return math.NaN()
	}
	return float64(s.Client.Goodput)
}

// steadyProcess names the arrival process running at the end of the run.
func steadyProcess(sc *scenarios.Scenario) string {
	if sc.Workload.Trace != "" || sc.Workload.AccessLog != nil {
		return "trace"
	}
	if sc.WorkloadForm == "users" {
		return "users"
	}
	var t time.Duration
	for _, ph := range sc.Workload.Phases {
		if ph.Duration == 0 || t+ph.Duration >= sc.Duration {
			return ph.Arrivals.Process
		}
		t += ph.Duration
	}
	return "none" // every phase ended before the run did
}

func resimulate(ctx context.Context, sc *scenarios.Scenario, sets []string) (Metrics, error) {
	alt, err := scenarios.Parse(sc.Text, sc.Path, append(append([]string(nil), sc.Sets...), sets...))
	if err != nil {
		return Metrics{}, err
	}
	alt.Seed = sc.Seed
	var peaks peakTracker
	res, err := sim.Run(ctx, alt, sim.Options{OnSample: peaks.observe})
	if err != nil {
		return Metrics{}, err
	}
	return metrics(res.Summary, peaks), nil
}

// PlateauPeriodic is the largest pool a FIFO hand-off keeps alive under
// strictly periodic arrivals at rate lambda with service s and keepAlive k:
// a worker survives its turn iff N/λ − S < K, so N = ⌈λ(K+S)⌉ − 1 (R78).
func PlateauPeriodic(lambda float64, k, s time.Duration) int {
	x := lambda * (k + s).Seconds()
	n := int(math.Ceil(x)) - 1
	if n < 0 {
		n = 0
	}
	return n
}

// PoissonDeathRate is the rate (workers per second) at which a FIFO pool of
// n idle workers loses workers under Poisson arrivals at rate lambda: each
// arrival ends one worker's wait; a worker at the back of the line dies if
// fewer than n tasks arrive within keepAlive, P(Poisson(λK) ≤ n−1) (R78).
func PoissonDeathRate(lambda float64, k time.Duration, n int) float64 {
	if n <= 0 {
		return 0
	}
	p := distuv.Poisson{Lambda: lambda * k.Seconds()}.CDF(float64(n - 1))
	return lambda * p
}

func (e *Explanation) add(title, format string, args ...any) {
	e.Findings = append(e.Findings, Finding{Title: title, Text: fmt.Sprintf(format, args...)})
}

// analyse writes the findings that apply.
func (e *Explanation) analyse() {
	sc, s, st := e.Scenario, e.Result.Summary, e.Steady
	c := e.Config
	handOff := c.HandOff()
	queue := c.Queue.JavaName()
	if st.Samples == 0 {
		if w := e.window; w.cut && w.to <= sc.Warmup {
			e.add("No steady state", "the pool was shut down at %v, before the warmup (%v) ended; shorten the warmup, or shut down later, to see the pool at work.", w.to, sc.Warmup)
		} else {
			e.add("No steady state", "the run has no timeline sample after the warmup; lengthen the duration or shorten the warmup.")
		}
		e.rejectedAfterShutdown()
		return
	}

	// What the pool looks like.
	if v := s.Virtual; v != nil {
		e.add("Steady state", "from %v to %v, %s virtual threads were alive on average (%s over %d samples; 90%% of samples between %s and %s): %s mounted on a carrier, %s runnable waiting for one, %s parked (unmounted), %s pinned (holding a carrier while blocked). At the end: %d alive.",
			st.SteadyFrom, st.SteadyTo, f1(st.Mean), rangeText(st), st.Samples, f0(st.P5), f0(st.P95),
			f2(nan0(float64(v.MountedMean))), f2(nan0(float64(v.RunnableMean))), f1(nan0(float64(v.ParkedMean))), f2(nan0(float64(v.PinnedMean))), s.FinalPoolSize)
	} else {
		e.add("Steady state", "from %v to %v the pool held %s on average (%s over %d samples; 90%% of samples between %s and %s): %s busy, %s idle TIMED_WAITING in %s, %s idle WAITING in %s.take(). At the end: %s (%d busy, %d TIMED_WAITING, %d WAITING), %d queued.",
			st.SteadyFrom, st.SteadyTo, workers(f1(st.Mean)), rangeText(st), st.Samples, f0(st.P5), f0(st.P95),
			f2(st.Busy), f1(st.IdleTimed), timedWait(c), f1(st.Untimed), queue,
			workers(fmt.Sprint(s.FinalPoolSize)), s.FinalBusy, s.FinalIdleTimed, s.FinalIdleUntime, s.QueuedEnd)
	}

	lambda, svc := float64(s.ArrivalRate), float64(s.ServiceMean)
	if e.Process == "burst" {
		a := sc.Workload.Phases[e.steadyPhase()].Arrivals
		every := ""
		if a.Every > 0 {
			every = fmt.Sprintf(", repeated every %v", a.Every)
		}
		e.add("Load", "the workload releases %d tasks at once (%v after its phase starts%s), with a mean service time of %s: the pool sees the whole burst at a single instant, so its rules, not an average rate, decide what happens.",
			a.Count, a.At, every, dur(svc))
	} else if lambda == lambda && svc == svc && lambda > 0 {
		e.add("Load", "%s tasks/s arrive (%s%s) with a mean service time of %s, so on average λ·S = %s workers are busy; the pool's size is set by its rules, not by this load alone.",
			f2(lambda), processName(e.Process), retryShare(s.Client), dur(svc), f2(lambda*svc))
	}

	// Which stage saturates, when tasks hold resources (resources.go).
	e.bottleneck()
	// What the callers saw: timeouts, retries, wasted work (client.go).
	e.callers()
	// What the host's hand-off timing did (handoff.go).
	e.handOffTiming()

	// A ScheduledThreadPoolExecutor, Jetty's pool and virtual threads
	// follow their own rules.
	if e.familyFindings() || e.virtualFindings() {
		return
	}

	// Why timed or untimed.
	switch {
	case st.IdleTimed > 0 && c.Core == 0 && !c.CoreTimeOut:
		e.add("Why TIMED_WAITING", "core is 0, so every worker is above core: each idle worker waits in poll(%v) and dies when that wait ends without a task (R15b, R16; the cached pool, R83).", c.KeepAlive)
	case st.IdleTimed > 0 && st.Untimed < 0.5 && !c.CoreTimeOut:
		e.add("Why TIMED_WAITING", "the pool has more workers (%s) than core (%d), so every worker that starts to wait computes timed = allowCoreThreadTimeOut || workerCount > corePoolSize = true and waits in poll(%v) (R15b, R77). Nothing marks %d of them as \"core\": workers are interchangeable (R16), and WAITING appears only once the pool is back to %d.",
			f1(st.Mean), c.Core, c.KeepAlive, c.Core, c.Core)
	case c.CoreTimeOut && st.IdleTimed > 0:
		e.add("Why TIMED_WAITING", "allowCoreThreadTimeOut is on, so every idle worker, core or not, waits in poll(%v) and may time out (R15b, R24).", c.KeepAlive)
	case st.Untimed > 0 && st.IdleTimed < 0.5:
		e.add("Why WAITING", "the pool is at or below core (%d), so idle workers wait in take() with no timeout and never die (R15b, R20).", c.Core)
	case st.Untimed > 0 && st.IdleTimed > 0:
		e.add("Why both states", "the pool moves around core (%d): a worker whose wait began with more than core workers stays TIMED_WAITING until that wait ends, even after the pool falls back to core, then waits in take() (R16, R60).", c.Core)
	}

	// The hand-off mechanism and the equilibrium it implies.
	above := st.Mean > float64(c.Core)+0.5 || c.CoreTimeOut
	idleWorkers := st.IdleTimed+st.Untimed >= 0.5 // the mechanism is about idle workers' turns
	if above && idleWorkers && c.KeepAlive > 0 && lambda > 0 && e.Process != "burst" {
		e.mechanism(lambda, svc, handOff)
	}

	// Growth history.
	if c.Flavor == model.ThreadPerTask {
		e.add("A thread per task", "Executors.newThreadPerTaskExecutor starts a new thread for every task and never reuses one (R86): %d threads were created for %d tasks, each ending with its task; at most %d were alive at once. Nothing is idle and nothing times out: the cost is one Thread.start() per task (host.threadStart) and a stack per running task.",
			s.ThreadsCreated, s.Submitted, s.LargestPoolSize)
	} else if s.LargestPoolSize > c.Core && c.Flavor == model.Tomcat {
		e.add("How it grew", "the pool reached %d workers: Tomcat's TaskQueue refuses a task whenever no worker is idle and the pool is below maxThreads (%s), so the executor adds a thread for it before queueing anything (R67).",
			s.LargestPoolSize, model.SizeString(c.Max))
	} else if s.LargestPoolSize > c.Core && c.Queue == model.Synchronous {
		e.add("How it grew", "the pool reached %d workers: a SynchronousQueue accepts a task only if a worker is waiting for it, so every task arriving while none is idle starts a new thread, up to max (%s) (R49, R83).",
			s.LargestPoolSize, model.SizeString(c.Max))
	} else if s.LargestPoolSize > c.Core {
		e.add("How it grew", "the pool reached %d workers: beyond core (%d), the JDK adds a thread only when the queue refuses a task — here when the %s (capacity %s) was full (R6, R7).",
			s.LargestPoolSize, c.Core, queue, model.SizeString(c.QueueCapacity))
	}

	// Never grows past core. Not Tomcat's TaskQueue: it refuses a task
	// whenever no worker is idle, however unbounded it is (R67).
	queueMax := s.QueueLenMax
	if !e.window.whole(sc) {
		queueMax = st.QueueMax // the configuration c holds only in the window
	}
	if c.Queue != model.Synchronous && c.Queue != model.TaskQueue && c.QueueCapacity == model.Unbounded && c.Max > c.Core && queueMax > 0 {
		limit := c.Core
		if c.Core == 0 {
			limit = 1
		}
		e.add("Why it never grows past core", "the %s is unbounded, so offer() never refuses a task and the pool never adds a thread beyond %d (core %d%s), however long the queue gets (up to %d here): max = %s is never used (R7, P1, P2, P5).",
			queue, limit, c.Core, map[bool]string{true: "; with core 0 the recheck keeps exactly one", false: ""}[c.Core == 0], queueMax, model.SizeString(c.Max))
	}

	// Rejections: those of a full pool, then those of a shut-down one.
	if full := s.Rejected - s.RejectedAfterShutdown; full > 0 {
		why := fmt.Sprintf("all %s workers were busy and the %s was full (capacity %s)", model.SizeString(c.Max), queue, model.SizeString(c.QueueCapacity))
		if c.Queue == model.Synchronous {
			why = fmt.Sprintf("all %s workers were busy, so the SynchronousQueue found nobody to hand the task to", model.SizeString(c.Max))
		}
		e.add("Why tasks were rejected", "%d of %d tasks (%s) were rejected (%s). A task is rejected only when, at that instant, %s (R6, R32–R35); idle workers at other times do not help. Policy %s: %s.",
			full, s.Submitted, pct(float64(full)/float64(s.Submitted)), c.Rejection, why, c.Rejection, policyText(c.Rejection, s))
	}
	e.rejectedAfterShutdown()

	// Queueing delay and overload.
	if lambda == lambda && svc == svc && lambda*svc > float64(min(c.Max, sizeCap(c)))*0.98 && c.QueueCapacity == model.Unbounded {
		e.add("Overload", "the offered load λ·S = %s workers exceeds what the pool can run (%d): the queue grows without bound (%d at the end) and so do waits (P4).",
			f2(lambda*svc), sizeCap(c), s.QueuedEnd)
	}
	if s.CallerRan > 0 {
		e.add("Back-pressure", "CallerRunsPolicy ran %d tasks on the submitting thread (R33); while it did, submissions waited: on average %s, at most %s. That is the throttle CallerRuns gives.",
			s.CallerRan, dur(float64(s.SubmitDelayMean)), dur(float64(s.SubmitDelayMax)))
	}
	if len(e.Result.Findings) > 0 {
		e.add("Also in this run", "%s", strings.Join(e.Result.Findings, "; "))
	}
}

func (e *Explanation) rejectedAfterShutdown() {
	if n := e.Result.Summary.RejectedAfterShutdown; n > 0 {
		e.add("Rejected after shutdown", "%d tasks submitted after the pool was shut down were rejected: a shut-down pool hands every new task to its rejection policy (%s), however idle it is (R5, R6, R27, R28).",
			n, e.Config.Rejection)
	}
}

// sizeCap is how many workers the pool can actually run: max, or core when
// an unbounded queue keeps it there.
func sizeCap(c model.Config) int {
	if c.Queue != model.Synchronous && c.Queue != model.TaskQueue && c.QueueCapacity == model.Unbounded {
		// An unbounded queue never refuses, so the pool stays at core
		// (R7); Tomcat's TaskQueue refuses while the pool can grow (R67).
		return max(c.Core, 1)
	}
	return c.Max
}

// mechanism explains which idle worker receives the next task, the idle
// gaps that follow, and the equilibrium they imply (R47, R50, R54, R55, R78).
func (e *Explanation) mechanism(lambda, svc float64, handOff model.HandOff) {
	s, st := e.Result.Summary, e.Steady
	c := e.Config
	k := c.KeepAlive
	gap := float64(s.IdleGapMean)
	idle := st.IdleTimed + st.Untimed
	if handOff == model.LIFO {
		e.add("Mechanism: LIFO hand-off", "%s hands each task to the worker that started waiting most recently (R50). The same few workers keep getting the work; a worker deeper in the stack than the concurrency needed within one keepAlive (%v) gets nothing and expires (R55). The pool therefore follows the recent peak concurrency (here at most %s busy in a sample), not the arrival rate: %s workers on average.",
			queueWho(c), k, f0(st.PeakBusy), f1(st.Mean))
		return
	}
	text := fmt.Sprintf("%s hands each task to the worker that has waited longest (FIFO, R47), so the work is dealt round-robin to all %s idle workers: each receives a task about every N/λ = %s/%s = %s. The measured mean idle gap was %s (longest %s) against a keepAlive of %v; a worker dies only when its gap exceeds keepAlive (R54).",
		queueWho(c), f1(idle), f1(idle), f2(lambda), dur(idle/lambda), dur(gap), dur(float64(s.IdleGapMax)), k)
	switch e.Process {
	case "constant":
		ceiling := fmt.Sprintf("With periodic arrivals a pool of N survives iff N/λ − S < K, so it shrinks until N = ⌈λ(K+S)⌉ − 1 = ⌈%s/s × %ss⌉ − 1 = %d workers and then stays there indefinitely (R78)",
			f2(lambda), trim(fmt.Sprintf("%.4f", k.Seconds()+svc)), PlateauPeriodic(lambda, k, time.Duration(svc*1e9)))
		if plateau := PlateauPeriodic(lambda, k, time.Duration(svc*1e9)); c.Max != model.Unbounded && plateau >= c.Max {
			text += " " + ceiling + fmt.Sprintf(". That is at least max (%d), so this mechanism never shrinks the pool; it holds %s on average.", c.Max, f1(st.Mean))
		} else {
			text += " " + ceiling + fmt.Sprintf("; the simulation holds %s (the plateau is a ceiling: a pool that never grew that far stays smaller, and never below core %d).", f1(st.Mean), c.Core)
		}
	case "poisson", "onoff":
		n := int(math.Round(st.Mean))
		rate := PoissonDeathRate(lambda, k, max(n-int(math.Round(st.Busy)), 1))
		text += fmt.Sprintf(" With random (Poisson) arrivals a worker's wait for its turn is the time for N arrivals, so a wait ends in death with probability P(Poisson(λK) ≤ N−1); at N = %d the pool loses about λ·P = %s workers per hour (R78).",
			n, f2(rate*3600))
		switch lk := lambda * k.Seconds(); {
		case c.Max != model.Unbounded && PoissonDeathRate(lambda, k, c.Max)*3600 < 0.01:
			// Even at max, fewer than one death per 100 hours.
			text += fmt.Sprintf(" Here λK = %s is far above max (%d): even a pool of max idle workers gives each a task well within keepAlive (fewer than one death per 100 hours at N = %d), so this mechanism does not shrink it; it holds %s on average.",
				f1(lk), c.Max, c.Max, f1(st.Mean))
		case st.First > st.Last:
			text += fmt.Sprintf(" A pool larger than that falls quickly to somewhat below λK = %s, then ever more slowly: %s at %v, %s at %v in this run.",
				f1(lk), f0(st.First), st.FirstAt, f0(st.Last), st.LastAt)
		default:
			text += fmt.Sprintf(" A pool larger than that falls quickly to somewhat below λK = %s, then ever more slowly; this one holds %s on average.", f1(lk), f1(st.Mean))
		}
	default:
		text += fmt.Sprintf(" The pool settles where the idle gap matches keepAlive; λK = %s is the scale.", f1(lambda*k.Seconds()))
	}
	e.add("Mechanism: FIFO hand-off", "%s", text)
}

func queueWho(c model.Config) string {
	if c.HandOffOverride != model.NaturalHandOff {
		return "The queue (with its hand-off overridden)"
	}
	switch c.Queue {
	case model.TaskQueue:
		return "Tomcat's TaskQueue (a LinkedBlockingQueue)"
	case model.Synchronous:
		if c.Fair {
			return "The fair SynchronousQueue"
		}
		return "The non-fair SynchronousQueue"
	}
	return "The " + c.Queue.JavaName()
}

func policyText(p model.Policy, s sim.Summary) string {
	switch p {
	case model.AbortPolicy:
		return fmt.Sprintf("each threw RejectedExecutionException to the submitter and the task was lost (%d aborted)", max(s.Aborted-s.RejectedAfterShutdown, 0))
	case model.CallerRunsPolicy:
		return fmt.Sprintf("the submitter ran %d of them itself", s.CallerRan)
	case model.DiscardPolicy:
		return "dropped silently"
	case model.DiscardOldestPolicy:
		return fmt.Sprintf("the oldest queued task was dropped to make room (%d dropped)", s.DiscardedOldest)
	}
	return ""
}

func processName(p string) string {
	switch p {
	case "constant":
		return "periodic arrivals"
	case "poisson":
		return "Poisson arrivals"
	case "onoff":
		return "on/off bursts"
	case "burst":
		return "bursts"
	case "trace":
		return "a recorded trace"
	case "users":
		return "sent by closed-loop users"
	}
	return p
}

func rangeText(st Spread) string {
	if st.Min == st.Max {
		return fmt.Sprintf("constant at %s", f0(st.Min))
	}
	return fmt.Sprintf("range %s–%s, sd %s", f0(st.Min), f0(st.Max), f1(st.SD))
}

// workers is "1 worker" or "n workers" for a formatted count.
func workers(n string) string {
	if n == "1" {
		return "1 worker"
	}
	return n + " workers"
}

func f0(x float64) string { return fmt.Sprintf("%.0f", x) }
func f1(x float64) string { return trim(fmt.Sprintf("%.1f", x)) }
func f2(x float64) string { return trim(fmt.Sprintf("%.2f", x)) }

func trim(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

func pct(x float64) string { return trim(fmt.Sprintf("%.2f", 100*x)) + "%" }

// dur formats seconds readably.
func dur(sec float64) string {
	switch {
	case sec != sec:
		return "n/a"
	case sec == 0:
		return "0"
	case sec < 1e-3:
		return trim(fmt.Sprintf("%.3g", sec*1e6)) + "µs"
	case sec < 1:
		return trim(fmt.Sprintf("%.3g", sec*1e3)) + "ms"
	case sec < 120:
		return trim(fmt.Sprintf("%.3g", sec)) + "s"
	}
	return time.Duration(sec * 1e9).Round(time.Second).String()
}
