package sim

import (
	"fmt"
	"math"
	"time"

	"github.com/poolsim/poolsim/model"
	"github.com/poolsim/poolsim/scenarios"
)

// Default limits, applied when a scenario sets none (README, "limits").
// They keep a run that explodes — a cached pool under overload creating
// millions of threads, an unbounded queue growing by thousands of tasks a
// second — inside a laptop's memory: the model holds about 200 bytes per
// thread and 48 per queued task, so the defaults cost at most ~20 MB of
// workers and ~200 MB of queue.
const (
	// DefaultMaxThreads is limits.maxThreads when unset: the OS grants the
	// pool this many threads, and addWorker fails beyond (R11). Real Linux
	// machines usually refuse far earlier unless tuned (ulimit -u,
	// kernel.threads-max, vm.max_map_count: each thread stack costs the
	// JVM at least two of the default 65 530 memory mappings).
	DefaultMaxThreads = 100_000
	// DefaultMaxQueued is limits.maxQueued when unset: the run stops when
	// the queue holds this many tasks.
	DefaultMaxQueued = 4_000_000
)

// Limits are the limits a run applies.
type Limits struct {
	MaxThreads, MaxQueued int
	// ThreadsDefault and QueuedDefault report a limit the scenario left
	// unset.
	ThreadsDefault, QueuedDefault bool
}

// EffectiveLimits returns the limits a run of sc applies: the scenario's
// own (limits.maxThreads, limits.maxQueued; "unbounded" lifts them), or the
// defaults.
func EffectiveLimits(sc *scenarios.Scenario) Limits {
	l := Limits{MaxThreads: sc.Pool.ThreadLimit, MaxQueued: sc.Limits.MaxQueued}
	if l.MaxThreads <= 0 {
		l.MaxThreads, l.ThreadsDefault = DefaultMaxThreads, true
	}
	if l.MaxQueued <= 0 {
		l.MaxQueued, l.QueuedDefault = DefaultMaxQueued, true
	}
	return l
}

// endBuckets is how many time buckets count the refused tasks by when they
// would have ended (2 MB, allocated at the first refusal).
const endBuckets = 1 << 18

// limiter watches a run for explosions and estimates what would have
// happened without the limits. Its memory is fixed whatever the run does.
type limiter struct {
	Limits

	// Threads the OS refused (limits.maxThreads). Each refused task would
	// have run on a thread of its own: ends counts them by the bucket of
	// width `width` in which their service would have ended, so the number
	// still running at any time is refused minus those whose bucket began.
	refused       int64
	firstRefusal  time.Duration
	ends          []int64
	beyond        int64 // refused tasks that would still run at the end
	width         time.Duration
	cursor        int   // buckets before it are counted in ended
	ended         int64 // refused tasks counted as ended
	peak          int64 // estimated largest pool without the limit
	peakAt        time.Duration
	prestartShort int // core threads prestartAllCoreThreads could not start

	// The queue (limits.maxQueued): when it last rose to half the limit,
	// and the growth rate from there to the limit.
	half          int
	aboveHalf     bool
	halfAt        time.Duration
	halfQ         int
	queueCapped   bool
	queueAt       time.Duration
	queueLen      int
	growthPerS    float64 // +Inf when the queue filled in one instant
	queueEstimate float64 // estimated queue length at the end
}

func newLimiter(sc *scenarios.Scenario) *limiter {
	l := &limiter{Limits: EffectiveLimits(sc)}
	l.half = max(1, l.MaxQueued/2)
	return l
}

// refuse records a task the OS refused a thread for (OutOfMemoryError:
// unable to create native thread, R11): the pool held MaxThreads workers.
func (l *limiter) refuse(now, service, duration time.Duration) {
	if l.ends == nil {
		l.firstRefusal = now
		l.width = max(1, time.Duration(math.Ceil(float64(duration)/endBuckets)))
		l.ends = make([]int64, endBuckets)
	}
	l.refused++
	end := now + service
	switch b := int(end / l.width); {
	case service > duration-now || b >= len(l.ends):
		l.beyond++
	case b < l.cursor:
		l.ended++ // its bucket has begun: it counts as ended at once
	default:
		l.ends[b]++
	}
	// Count as ended the tasks of every bucket that has begun: the estimate
	// errs low by the tasks ending within one bucket.
	for cur := int(now / l.width); l.cursor <= cur && l.cursor < len(l.ends); l.cursor++ {
		l.ended += l.ends[l.cursor]
	}
	if est := int64(l.MaxThreads) + l.refused - l.ended; est > l.peak {
		l.peak, l.peakAt = est, now
	}
}

// queueFull reports whether the queue has reached limits.maxQueued after
// an event at now, and when it has, estimates its growth.
func (l *limiter) queueFull(now time.Duration, q int, end time.Duration) bool {
	if q < l.half { // every event of a run whose queue stays short: kept inlinable
		l.aboveHalf = false
		return false
	}
	return l.queueAboveHalf(now, q, end)
}

// queueAboveHalf is queueFull with the queue at half the limit or more.
func (l *limiter) queueAboveHalf(now time.Duration, q int, end time.Duration) bool {
	if !l.aboveHalf {
		l.aboveHalf, l.halfAt, l.halfQ = true, now, q
	}
	if q < l.MaxQueued {
		return false
	}
	l.queueCapped, l.queueAt, l.queueLen = true, now, q
	if dt := (now - l.halfAt).Seconds(); dt > 0 {
		l.growthPerS = float64(q-l.halfQ) / dt
		l.queueEstimate = float64(q) + l.growthPerS*(end-now).Seconds()
	} else {
		l.growthPerS, l.queueEstimate = math.Inf(1), math.Inf(1)
	}
	return true
}

// constructed notes the core threads prestartAllCoreThreads() could not
// start because the OS refused them (Tomcat always prestarts, R65).
func (l *limiter) constructed(cfg model.Config, poolSize int) {
	if (cfg.Prestart || cfg.Flavor == model.Tomcat) && poolSize >= l.MaxThreads && poolSize < cfg.Core {
		l.prestartShort = cfg.Core - poolSize
	}
}

// capped reports whether a limit changed the run.
func (l *limiter) capped() bool { return l.refused > 0 || l.queueCapped || l.prestartShort > 0 }

// findings says in words what the limits did and what would have happened
// without them.
func (l *limiter) findings(sc *scenarios.Scenario, lost int64) []string {
	var out []string
	if l.prestartShort > 0 {
		out = append(out, fmt.Sprintf("prestartAllCoreThreads() started %d of the %d core threads: the OS refused the other %d (limits.maxThreads = %s)",
			l.MaxThreads, l.MaxThreads+l.prestartShort, l.prestartShort, limitText(l.MaxThreads, l.ThreadsDefault)))
	}
	if l.refused > 0 {
		out = append(out, fmt.Sprintf(
			"the pool would reach about %s threads at t=%v without limits.maxThreads (estimate: each task refused a thread counted on a thread of its own for its service time); "+
				"the OS refused a new thread from t=%v (limits.maxThreads = %s): %d tasks were lost with OutOfMemoryError: unable to create native thread (R11, P3)",
			countText(float64(l.peak)), l.peakAt, l.firstRefusal, limitText(l.MaxThreads, l.ThreadsDefault), lost))
	}
	if l.queueCapped {
		if math.IsInf(l.growthPerS, 1) {
			out = append(out, fmt.Sprintf("the queue grew from %d to %d tasks within one instant at t=%v: the run stopped at limits.maxQueued = %s",
				l.halfQ, l.queueLen, l.queueAt, limitText(l.MaxQueued, l.QueuedDefault)))
		} else {
			out = append(out, fmt.Sprintf(
				"the queue grows by ~%s tasks/s (from %d at t=%v to %d at t=%v): it would hold about %s tasks at the end (t=%v; estimate: that growth continued); the run stopped at limits.maxQueued = %s",
				rateText(l.growthPerS), l.halfQ, l.halfAt, l.queueLen, l.queueAt, countText(l.queueEstimate), sc.Duration, limitText(l.MaxQueued, l.QueuedDefault)))
		}
	}
	return out
}

// summarize fills summary.json's limit fields.
func (l *limiter) summarize(s *Summary, interrupted bool, stopReason string) {
	s.Capped = l.capped()
	s.Interrupted = interrupted
	s.StopReason = stopReason
	s.MaxThreadsLimit = l.MaxThreads
	s.MaxQueuedLimit = l.MaxQueued
	s.EstPeakThreads, s.EstPeakThreadsAt = Stat(math.NaN()), Stat(math.NaN())
	if l.refused > 0 {
		s.EstPeakThreads, s.EstPeakThreadsAt = Stat(l.peak), Stat(l.peakAt.Seconds())
	}
	s.QueueGrowthPerS, s.EstQueueEnd = Stat(math.NaN()), Stat(math.NaN())
	if l.queueCapped {
		s.QueueGrowthPerS, s.EstQueueEnd = Stat(l.growthPerS), Stat(l.queueEstimate)
	}
}

func limitText(n int, isDefault bool) string {
	if isDefault {
		return fmt.Sprintf("%d, the default", n)
	}
	return fmt.Sprint(n)
}

// countText prints a large count for people: 123456, 1.23 million.
func countText(x float64) string {
	switch {
	case math.IsInf(x, 1):
		return "unboundedly many"
	case x < 1e6:
		return fmt.Sprintf("%.0f", x)
	case x < 1e9:
		return fmt.Sprintf("%.3g million", x/1e6)
	case x < 1e12:
		return fmt.Sprintf("%.3g billion", x/1e9)
	}
	return fmt.Sprintf("%.3g", x)
}

func rateText(x float64) string {
	if x >= 10 {
		return fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprintf("%.2g", x)
}
