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
	count              [stateSlots]int
	poolSize, queueLen int

	// Steady state (from warmup on).
	// lastT is the instant of the event being recorded (advance).
	lastT time.Duration
	// The state integrals, count × nanoseconds from the warmup on: of the
	// pool's size, of the workers by state (the Running, IdleTimed and
	// IdleUntimed slots of area) and of the queue. Lazily, each is
	// integrated when its count changes, up to that instant from its since
	// (integrate), and the running workers' is the pool's less the idle
	// ones'; once eager, all at every event (advanceSlow). areas reads
	// them up to lastT either way.
	area                  [stateSlots]float64
	since                 [stateSlots]time.Duration
	areaPool, areaQueue   float64
	poolSince, queueSince time.Duration
	lazy                  uint          // counts below it keep the lazy integrals exact (lazyBound)
	eager                 bool          // the integrals are eager
	slowUntil             time.Duration // advance takes its slow path while lastT is below it
	// The largest pool and queue of the steady state, after each event
	// and at the warmup; until the warmup, notYet (maxima).
	poolSizeMax, queueLenMax int
	wait, response           *durHist
	waitSum, responseSum     float64 // nanoseconds
	waitMax, responseMax     time.Duration
	nWait, nResponse         int64
	submitDelaySum           float64 // nanoseconds
	submitDelayMax           time.Duration
	nSubmitSteady            int64
	callerBusy               time.Duration // time the submitter spent running rejected tasks
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
// ~580 KB (of which a run touches some tens), and a sweep or a diagnosis
// runs thousands of simulations in one process.
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
	r.lazy = lazyBound(sc.Duration - sc.Warmup)
	w := sc.Warmup
	r.since = [stateSlots]time.Duration{model.Starting: noSince, model.Running: noSince, model.IdleTimed: w, model.IdleUntimed: w, model.Exited: noSince}
	r.poolSince, r.queueSince = w, w
	r.slowUntil = max(w, 1) // the first event after 0 takes the slow path
	if w > 0 {
		r.poolSizeMax, r.queueLenMax = notYet, notYet
	}
	return r
}

// notYet is the maxima's value before the warmup: no count is above it,
// so that settle need not ask whether the steady state has begun.
const notYet = math.MaxInt

// maxima returns the steady state's largest pool and queue (0 before the
// warmup).
func (r *recorder) maxima() (pool, queue int) {
	if r.poolSizeMax == notYet {
		return 0, 0
	}
	return r.poolSizeMax, r.queueLenMax
}

// stateSlots is the length of the recorder's arrays by worker state: a
// power of two above model.Exited, so that a state masked by stateSlots−1
// (which changes none) indexes them without a bounds check, on every
// worker's change of state. The slots past Exited are unused.
const stateSlots = 8

var _ = [stateSlots]struct{}{model.Exited: {}} // does not compile if Exited has no slot

// noSince is the since of an integral not kept lazily (the slots of the
// running workers, derived, and of Starting and Exited, unused; every one
// once eager): integrate never adds to it.
const noSince = time.Duration(math.MaxInt64)

// lazyBound is the bound below which every count keeps the lazy integrals
// over a steady state of span nanoseconds exact: a power of two 2^m, the
// largest with (2^m − 1)·span < 2^52 (1 when even a count of 1 might not).
//
// Why exact: an integral is a float64 sum of terms count × nanoseconds,
// each an integer. With every count at most 2^m − 1 — the pool's size
// bounds the counts by state — each term, each partial sum, the integral
// of the pool's size (the sum of those by state) and the eager sums stay
// at most 2^52, where float64 holds every integer: the lazy sums c·(d1+d2)
// and the eager ones c·d1 + c·d2 are the same exact integer, bit for bit
// (recorder.mergeExact and TestQuietTimersSameBits make the same argument).
// Counts come from advance, the first to see a state that holds over a
// span, before any integral covers it: a larger count switches the
// recorder to the eager integrals at that instant, where both agree.
func lazyBound(span time.Duration) uint {
	if span <= 0 {
		return 1 << 62 // no steady state: nothing is ever integrated
	}
	b := uint(1) // counts below 1: nothing to integrate, trivially exact
	for b < 1<<62 && float64(2*b-1)*float64(span) < 1<<52 {
		b *= 2
	}
	return b
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

// advance moves the recorder to the instant t of the next event. The lazy
// integrals need nothing of it but the instant; the slow path, before the
// warmup and for eager integrals or resources, does the rest.
func (r *recorder) advance(t time.Duration) {
	if t > r.lastT {
		if r.lastT < r.slowUntil {
			r.advanceSlow(t)
		}
		r.lastT = t
	}
}

// advanceSlow is advance's work besides the instant: the maxima take the
// state that holds at the warmup boundary; the state that holds since the
// last event — the one before the first event too, which no settle saw —
// must keep the lazy integrals exact (checkLazy); the eager integrals and
// the resources' integrate it. Kept out of line: once past the warmup,
// the common run never comes here.
//
//go:noinline
func (r *recorder) advanceSlow(t time.Duration) {
	if r.lastT < r.warmup && t >= r.warmup {
		// The steady state begins, with the state that holds at its
		// boundary.
		r.poolSizeMax, r.queueLenMax = r.poolSize, r.queueLen
	}
	r.checkLazy()
	if from := max(r.lastT, r.warmup); t > from {
		dt := float64(t - from) // nanoseconds; scaled to seconds once, at the end
		if r.eager {
			r.areaPool += float64(r.poolSize) * dt
			r.area[model.Running] += float64(r.count[model.Running]) * dt
			r.area[model.IdleTimed] += float64(r.count[model.IdleTimed]) * dt
			r.area[model.IdleUntimed] += float64(r.count[model.IdleUntimed]) * dt
			r.areaQueue += float64(r.queueLen) * dt
		}
		if r.res != nil {
			r.advanceResources(dt)
		}
	}
	if r.eager || r.res != nil {
		r.slowUntil = noSince // at every event from now on
	}
}

// checkLazy switches the state integrals to eager ones, at lastT, if the
// state that holds from then on could make the lazy ones inexact
// (lazyBound): up to lastT, they are exact and equal the eager ones.
func (r *recorder) checkLazy() {
	if uint(r.poolSize|r.queueLen) >= r.lazy {
		r.toEager()
	}
}

// lazyHolds: a count has changed to n at the current instant (the queue's
// length, the pool's size; the other counts are at most the pool's size);
// if n could make the lazy integrals inexact, the next advance switches
// them to eager ones (checkLazy) before it integrates any span of it.
func (r *recorder) lazyHolds(n int) {
	if uint(n) >= r.lazy {
		r.slowUntil = noSince
	}
}

// toEager switches the state integrals to eager ones at lastT.
//
//go:noinline
func (r *recorder) toEager() {
	r.areaPool, r.area[model.Running], r.area[model.IdleTimed], r.area[model.IdleUntimed], r.areaQueue = r.areas()
	r.eager, r.lazy, r.slowUntil = true, math.MaxUint, noSince
	for s := range r.since {
		r.since[s] = noSince
	}
	r.poolSince, r.queueSince = noSince, noSince
}

// integrate brings the lazy integral of the workers in state s up to the
// current instant, before their count changes (a no-op for the running
// workers, once eager, before the warmup and at an instant already
// integrated).
func (r *recorder) integrate(s model.State) {
	s &= stateSlots - 1
	if d := r.lastT - r.since[s]; d > 0 {
		r.area[s] += float64(r.count[s]) * float64(d)
		r.since[s] = r.lastT
	}
}

// moved counts a worker's change of state (the model's setState, R56–R60)
// at the current instant; a new thread (from Starting) joins the pool, an
// exited one leaves it.
func (r *recorder) moved(from, to model.State) {
	if from == model.Starting || to == model.Exited {
		r.resized(from, to)
	}
	r.integrate(from)
	r.count[from&(stateSlots-1)]--
	r.integrate(to)
	r.count[to&(stateSlots-1)]++
}

// resized integrates the pool's size up to the current instant and
// changes it: a thread started (from Starting), one ended (to Exited).
func (r *recorder) resized(from, to model.State) {
	if d := r.lastT - r.poolSince; d > 0 {
		r.areaPool += float64(r.poolSize) * float64(d)
		r.poolSince = r.lastT
	}
	if from == model.Starting {
		r.poolSize++
		r.lazyHolds(r.poolSize)
	}
	if to == model.Exited {
		r.poolSize--
	}
}

// areas returns the state integrals up to lastT — of the pool's size, the
// workers running, idle in a timed wait, idle in an untimed one, and the
// queue — without changing them. The lazy integral of the running workers
// is the pool's less the idle ones' (exact, lazyBound).
func (r *recorder) areas() (pool, busy, timed, untimed, queue float64) {
	at := func(area float64, count int, since time.Duration) float64 {
		if d := r.lastT - since; d > 0 {
			return area + float64(count)*float64(d)
		}
		return area
	}
	timed = at(r.area[model.IdleTimed], r.count[model.IdleTimed], r.since[model.IdleTimed])
	untimed = at(r.area[model.IdleUntimed], r.count[model.IdleUntimed], r.since[model.IdleUntimed])
	queue = at(r.areaQueue, r.queueLen, r.queueSince)
	if r.eager {
		return r.areaPool, r.area[model.Running], timed, untimed, queue
	}
	pool = at(r.areaPool, r.poolSize, r.poolSince)
	return pool, pool - timed - untimed, timed, untimed, queue
}

// mergeExact reports whether advance may skip an instant at which nothing
// changes, up to end, and leave every state integral the same to the last
// bit. The lazy integrals do not depend on the instants advance sees, as
// long as the state that holds keeps them exact (lazyBound) — it holds on
// across the skipped instant. An eager integral is a float64 sum of
// count × nanoseconds, every term and partial sum an integer; below 2^53
// each of them is exact, so the terms c·d1 + c·d2 of two segments sum to
// exactly c·(d1+d2), the one term of the merged segment. It holds when
// every integral would stay below 2^52 (a margin for the rounding of this
// check) even if its count held to end.
// The resources' integrals are not checked: a run with resources does not
// skip (skipQuietTimers).
func (r *recorder) mergeExact(end time.Duration) bool {
	if !r.eager {
		return uint(r.poolSize|r.queueLen) < r.lazy
	}
	const exact = 1 << 52
	rem := float64(end - r.lastT)
	return r.areaPool+float64(r.poolSize)*rem < exact && r.area[model.Running]+float64(r.count[model.Running])*rem < exact &&
		r.area[model.IdleTimed]+float64(r.count[model.IdleTimed])*rem < exact && r.area[model.IdleUntimed]+float64(r.count[model.IdleUntimed])*rem < exact &&
		r.areaQueue+float64(r.queueLen)*rem < exact
}

// settle records the state after an event at now: the queue's length
// (queued) and the pool's largest size in the steady state (notYet before
// it).
func (r *recorder) settle(now time.Duration, queueLen int) {
	if queueLen != r.queueLen {
		r.queued(queueLen)
	}
	if r.poolSize > r.poolSizeMax {
		r.poolSizeMax = r.poolSize
	}
}

// queued records the queue's new length q after an event: its integral up
// to now, its steady-state maximum (notYet before).
func (r *recorder) queued(q int) {
	if d := r.lastT - r.queueSince; d > 0 { // the queue's integrate
		r.areaQueue += float64(r.queueLen) * float64(d)
		r.queueSince = r.lastT
	}
	r.queueLen = q
	r.lazyHolds(q)
	if q > r.queueLenMax {
		r.queueLenMax = q
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
	if r.poolSize != p.PoolSize() || r.poolSize != busy+timed+untimed || busy != p.ActiveCount() ||
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
	if rec.steady(now) {
		rec.serviceSum += float64(t.Service)
		rec.nWait++
		rec.waitSum += float64(wait) // nanoseconds
		if wait > rec.waitMax {
			rec.waitMax = wait
		}
		rec.wait.record(wait)
	}
	if rec.ivWait != nil { // last: nothing is live across the call
		rec.ivWait.record(wait)
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

// onSubmit counts a submission. A task submitted when it arrives (every
// one, unless the submitter was held) adds nothing to the delays: adding 0
// leaves their sum the same, bit for bit (it is never −0), and their
// maximum is at least 0.
func (rec *recorder) onSubmit(now time.Duration, t *model.Task) {
	rec.submitted++
	if rec.steady(now) {
		rec.nSubmitSteady++
		if d := t.Submit - t.Arrival; d != 0 {
			rec.submitDelaySum += float64(d) // nanoseconds
			if d > rec.submitDelayMax {
				rec.submitDelayMax = d
			}
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
	if rec.steady(now) {
		rec.nResponse++
		rec.responseSum += float64(resp) // nanoseconds
		if resp > rec.responseMax {
			rec.responseMax = resp
		}
		rec.response.record(resp)
	}
	if rec.ivResponse != nil { // last: nothing is live across the call
		rec.ivResponse.record(resp)
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
	ps, vals := make([]float64, len(CDFQuantiles)), make([]int64, len(CDFQuantiles))
	for i, q := range CDFQuantiles {
		ps[i] = q * 100
	}
	h.valuesAtPercentiles(ps, vals) // one pass: CDFQuantiles ascend
	out := make([]Quantile, len(CDFQuantiles))
	for i, q := range CDFQuantiles {
		out[i] = Quantile{q, capped(vals[i], max)}
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
	return capped(h.valueAtPercentile(q*100), max)
}

// capped is an HDR value in seconds, never above the exact maximum.
func capped(v int64, max time.Duration) float64 {
	return min(time.Duration(v), max).Seconds()
}
