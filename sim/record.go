package sim

import (
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/poolsim/poolsim/model"
	"github.com/poolsim/poolsim/scenarios"
)

// recorder keeps the run's counters and statistics. It is fed by the
// runner's Observer methods (the model's notifications) and never scans the
// model's internals, except the queue length after each event.
type recorder struct {
	warmup time.Duration

	// Cumulative counts over the whole run.
	submitted, completed, rejected, discarded, callerRan, failed int64
	threadsCreated, threadsExited                                int64
	lost                                                         [model.NumOutcomes]int64

	// Current state.
	// count holds the live workers by state (model.Running, IdleTimed,
	// IdleUntimed; the Starting and Exited slots absorb the other end of a
	// creation or an exit), and poolSize their sum.
	count              [model.Exited + 1]int
	poolSize, queueLen int

	// Steady state (from warmup on).
	lastT                                                 time.Duration
	areaPool, areaBusy, areaTimed, areaUntimed, areaQueue float64 // count × nanoseconds
	poolSizeMax, queueLenMax                              int
	wait, response                                        *durHist
	waitSum, responseSum                                  float64 // nanoseconds
	waitMax, responseMax                                  time.Duration
	nWait, nResponse                                      int64
	submitDelaySum                                        float64 // nanoseconds
	submitDelayMax                                        time.Duration
	nSubmitSteady                                         int64
	callerBusy                                            time.Duration // time the submitter spent running rejected tasks
	// Idle gaps: from a worker becoming idle to its next task, or to its
	// exit while idle (a keepAlive expiry, a shrink or a shutdown).
	nGap, nIdleExit                    int64
	gapSum                             float64 // nanoseconds
	gapMax                             time.Duration
	serviceSum                         float64 // nanoseconds, of tasks started in the steady state
	firstThreadFailure, firstRejection time.Duration
	rejectedAfterShutdown              int64
	skippedCancelled                   int64 // cancelled tasks taken from the queue and skipped (R97), counted in completed
	haveThreadFailure, haveRejection   bool
	shutdownAt, terminatedAt           time.Duration
	haveShutdown, haveTerminated       bool
	runState                           model.RunState

	// The current timeline interval.
	ivWait, ivResponse *intervalHist // from intervalHists

	applied []AppliedEvent // runtime events, as applied

	// Resources (resources.go): each one's record; workers blocked on a
	// resource now, their steady-state area and maximum; tasks ended by an
	// acquisition's failure.
	res                 []resRecord
	blocked, blockedMax int
	areaBlocked         float64
	resourceErrors      int64

	// The callers' response times (client.go; nil without workload.client
	// or users).
	clientResponse *durHist

	// The host (host.go).
	threadStartTotal, threadStartSubmitter time.Duration // time spent in Thread.start(): by all callers; by the submitter
	lastEnd, callerLastEnd                 time.Duration // when the last task ended on a worker (events come in time order), on the caller
	cpus                                   int           // host.cpus (0: unlimited)
	cpuRunnable, cpuRunnableMax            int           // tasks in a CPU piece: now; steady-state maximum
	areaRunnable, areaCPUBusy              float64       // steady-state integrals, kept by the CPU scheduler (host.go)
	cpuDelaySum                            float64       // nanoseconds runnable but not running, of tasks ended in the steady state
	nCPUDelay                              int64
}

// histograms recycles the whole-run histograms across runs: each is
// ~400 KB, and a sweep or a diagnosis runs thousands of simulations in one
// process.
var histograms = sync.Pool{New: func() any { return newDurHist() }}

// intervalHists recycles the timeline's interval histograms (~17 KB each).
var intervalHists = sync.Pool{New: func() any { return new(intervalHist) }}

// newRecorder prepares the statistics of a run. The timeline's interval
// histograms are kept only for what reads them — the timeline (waits and
// responses), the OnSample hook (waits) — so a run that writes only its
// summary (a sweep point, a search) does not pay for them.
func newRecorder(sc *scenarios.Scenario, timeline, samples bool) *recorder {
	r := &recorder{
		cpus:     sc.Host.CPUs,
		warmup:   sc.Warmup,
		wait:     histograms.Get().(*durHist),
		response: histograms.Get().(*durHist),
	}
	if timeline || samples {
		r.ivWait = intervalHists.Get().(*intervalHist)
	}
	if timeline {
		r.ivResponse = intervalHists.Get().(*intervalHist)
	}
	return r
}

// release returns the histograms for reuse; the recorder must not be used
// afterwards.
func (r *recorder) release() {
	for _, h := range []*durHist{r.wait, r.response, r.clientResponse} {
		if h != nil {
			h.reset()
			histograms.Put(h)
		}
	}
	r.wait, r.response, r.clientResponse = nil, nil, nil
	for i := range r.res {
		r.res[i].wait.reset()
		histograms.Put(r.res[i].wait)
		r.res[i].wait = nil
	}
	for _, h := range []*intervalHist{r.ivWait, r.ivResponse} {
		if h != nil {
			h.reset()
			intervalHists.Put(h)
		}
	}
	r.ivWait, r.ivResponse = nil, nil
}

func (r *recorder) steady(t time.Duration) bool { return t >= r.warmup }

// advance integrates the state held since the last event up to t.
func (r *recorder) advance(t time.Duration) {
	if t <= r.lastT {
		return
	}
	from := r.lastT
	if from < r.warmup {
		from = r.warmup
		if t >= r.warmup {
			r.observeMax() // the state that holds at the warmup boundary
		}
	}
	if t > from {
		dt := float64(t - from) // nanoseconds; scaled to seconds once, at the end
		r.areaPool += float64(r.poolSize) * dt
		r.areaBusy += float64(r.count[model.Running]) * dt
		r.areaTimed += float64(r.count[model.IdleTimed]) * dt
		r.areaUntimed += float64(r.count[model.IdleUntimed]) * dt
		r.areaQueue += float64(r.queueLen) * dt
		if r.res != nil {
			r.advanceResources(dt)
		}
	}
	r.lastT = t
}

// mergeExact reports whether advance may skip an instant at which nothing
// changes, up to end, and leave every state integral the same to the last
// bit. An integral is a float64 sum of count × nanoseconds, every term and
// partial sum an integer; below 2^53 each of them is exact, so the terms
// c·d1 + c·d2 of two segments sum to exactly c·(d1+d2), the one term of
// the merged segment. It holds when every integral would stay below 2^52
// (a margin for the rounding of this check) even if its count held to end.
// The resources' integrals are not checked: a run with resources does not
// skip (skipQuietTimers).
func (r *recorder) mergeExact(end time.Duration) bool {
	const exact = 1 << 52
	rem := float64(end - r.lastT)
	return r.areaPool+float64(r.poolSize)*rem < exact && r.areaBusy+float64(r.count[model.Running])*rem < exact &&
		r.areaTimed+float64(r.count[model.IdleTimed])*rem < exact && r.areaUntimed+float64(r.count[model.IdleUntimed])*rem < exact &&
		r.areaQueue+float64(r.queueLen)*rem < exact
}

func (r *recorder) observeMax() {
	if r.poolSize > r.poolSizeMax {
		r.poolSizeMax = r.poolSize
	}
	if r.queueLen > r.queueLenMax {
		r.queueLenMax = r.queueLen
	}
}

// settle records the state after an event at now.
func (r *recorder) settle(now time.Duration, queueLen int) {
	r.queueLen = queueLen
	if r.steady(now) {
		r.observeMax()
	}
}

func (r *recorder) resetInterval() {
	if r.ivWait != nil {
		r.ivWait.reset()
	}
	if r.ivResponse != nil {
		r.ivResponse.reset()
	}
}

// checkConservation panics if a task was lost or counted twice (tests).
func (r *recorder) checkConservation(p model.Executor) {
	busy, timed, untimed := r.count[model.Running], r.count[model.IdleTimed], r.count[model.IdleUntimed]
	if r.poolSize != p.PoolSize() || busy != p.ActiveCount() ||
		timed != p.Count(model.IdleTimed) || untimed != p.Count(model.IdleUntimed) {
		panic(fmt.Sprintf("sim: recorded counts pool=%d busy=%d timed=%d untimed=%d disagree with the model's %d/%d/%d/%d",
			r.poolSize, busy, timed, untimed, p.PoolSize(), p.ActiveCount(), p.Count(model.IdleTimed), p.Count(model.IdleUntimed)))
	}
	if got := r.completed + r.callerRan + r.discarded + int64(p.QueueLen()) + int64(p.ActiveCount()); got != r.submitted {
		panic(fmt.Sprintf("sim: conservation broken: submitted %d != completed %d + caller_ran %d + discarded %d + queued %d + running %d",
			r.submitted, r.completed, r.callerRan, r.discarded, p.QueueLen(), p.ActiveCount()))
	}
}

// onStart records the wait of t, handed to a worker at now, which begins
// at start (later than now on a thread still starting).
func (rec *recorder) onStart(now, start time.Duration, t *model.Task) {
	wait := start - t.Arrival
	if rec.ivWait != nil {
		rec.ivWait.record(wait)
	}
	if rec.steady(now) {
		rec.serviceSum += float64(t.Service)
		rec.nWait++
		rec.waitSum += float64(wait) // nanoseconds
		if wait > rec.waitMax {
			rec.waitMax = wait
		}
		rec.wait.record(wait)
	}
}

// runStateChanged notes when the pool was shut down and terminated.
func (rec *recorder) runStateChanged(now time.Duration, to model.RunState) {
	rec.runState = to
	switch to {
	case model.PoolShutdown, model.PoolStop:
		if !rec.haveShutdown {
			rec.haveShutdown, rec.shutdownAt = true, now
		}
	case model.PoolTerminated:
		rec.haveTerminated, rec.terminatedAt = true, now
	}
}

// onSubmit counts a submission.
func (rec *recorder) onSubmit(now time.Duration, t *model.Task) {
	rec.submitted++
	if rec.steady(now) {
		d := t.Submit - t.Arrival
		rec.nSubmitSteady++
		rec.submitDelaySum += float64(d) // nanoseconds
		if d > rec.submitDelayMax {
			rec.submitDelayMax = d
		}
	}
}

// onComplete records the end of w's task, before the model hears of it.
func (rec *recorder) onComplete(now time.Duration, w *model.Worker) {
	t := w.Running()
	rec.completed++
	rec.lastEnd = now
	if t.Fails {
		rec.failed++
	}
	resp := now - t.Arrival
	if rec.ivResponse != nil {
		rec.ivResponse.record(resp)
	}
	if rec.steady(now) {
		rec.nResponse++
		rec.responseSum += float64(resp) // nanoseconds
		if resp > rec.responseMax {
			rec.responseMax = resp
		}
		rec.response.record(resp)
	}
}

// AppliedEvent is a runtime event as the run applied it.
type AppliedEvent struct {
	At   time.Duration
	What string // e.g. "set core=20 max=400", "shutdown"
}

// CDFQuantiles are the quantiles Result reports for distribution charts.
var CDFQuantiles = []float64{0, 0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 0.995, 0.999, 1}

// Quantile is one point of a steady-state distribution: the fraction Q of
// tasks whose time was at most Seconds.
type Quantile struct {
	Q       float64
	Seconds float64
}

func cdf(h *durHist, n int64, max time.Duration) []Quantile {
	if n == 0 {
		return nil
	}
	out := make([]Quantile, len(CDFQuantiles))
	for i, q := range CDFQuantiles {
		out[i] = Quantile{q, quantile(h, n, q, max)}
		if q == 1 {
			out[i].Seconds = max.Seconds()
		}
	}
	return out
}

// quantile returns the q-quantile in seconds (NaN when empty), never above
// the exact maximum (HDR reports a bucket's upper bound).
func quantile(h *durHist, n int64, q float64, max time.Duration) float64 {
	if n == 0 {
		return math.NaN()
	}
	v := time.Duration(h.valueAtPercentile(q * 100))
	if v > max {
		v = max
	}
	return v.Seconds()
}
