package conformance

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Unbounded is what "unbounded" means for Pool.Max and Pool.Capacity: Integer.MAX_VALUE, the
// value the JDK itself uses for an unbounded LinkedBlockingQueue and for newCachedThreadPool's
// maximum (R83).
const Unbounded = math.MaxInt32

// Kind names a real pool implementation.
type Kind string

// The pools the harness can run.
const (
	// KindJDK is java.util.concurrent.ThreadPoolExecutor (spec §1).
	KindJDK Kind = "jdk"
	// KindTomcat is org.apache.tomcat.util.threads.ThreadPoolExecutor with a TaskQueue (spec §4).
	KindTomcat Kind = "tomcat"
	// KindJetty is Jetty 9.4's QueuedThreadPool with reservedThreads=0 (spec §7).
	KindJetty Kind = "jetty"
	// KindScheduled is java.util.concurrent.ScheduledThreadPoolExecutor (spec §6): Core is
	// corePoolSize; max (Integer.MAX_VALUE), keepAlive (10 ms) and the DelayedWorkQueue are
	// fixed by its constructor (R88), so Max and KeepAliveMs must stay zero.
	KindScheduled Kind = "scheduled"
)

// Queue names the work queue of a JDK pool. Tomcat always uses TaskQueue, Jetty its
// BlockingArrayQueue; leave Queue empty for them.
type Queue string

// JDK work queues.
const (
	QueueLinked      Queue = "linked"      // LinkedBlockingQueue(capacity), FIFO hand-off (R44–R47)
	QueueArray       Queue = "array"       // ArrayBlockingQueue(capacity, fair) (R48)
	QueueSynchronous Queue = "synchronous" // SynchronousQueue(fair): LIFO unless fair (R49–R52)
	QueuePriority    Queue = "priority"    // PriorityBlockingQueue, unbounded (R53)
)

// Rejection names a rejection policy (R32–R36). Jetty accepts only RejectAbort: its execute
// throws RejectedExecutionException itself.
type Rejection string

// Rejection policies.
const (
	RejectAbort         Rejection = "abort" // AbortPolicy; Tomcat: its default RejectPolicy (R66)
	RejectCallerRuns    Rejection = "caller-runs"
	RejectDiscard       Rejection = "discard"
	RejectDiscardOldest Rejection = "discard-oldest"
)

// Pool is the pool directive: which pool and how it is built.
//
// Zero values mean "leave the key out" and the harness's default applies (Queue linked,
// Capacity unbounded, Rejection abort), except KeepAliveMs, which is always written: 0 is a
// real keep-alive time. Fields that do not apply to a Kind must stay zero; the harness rejects
// them (for example Queue or Fair for Jetty).
type Pool struct {
	Kind Kind
	// Core is corePoolSize (Tomcat: minSpareThreads; Jetty: minThreads).
	Core int
	// Max is maximumPoolSize (Tomcat: maxThreads; Jetty: maxThreads); Unbounded prints "unbounded".
	Max int
	// KeepAliveMs is keepAliveTime (Jetty: idleTimeout) in milliseconds.
	KeepAliveMs int64
	Queue       Queue
	// Capacity bounds a linked or array queue, or Tomcat's TaskQueue; 0 leaves it out
	// (unbounded where that is allowed); Unbounded prints "unbounded".
	Capacity               int
	Fair                   bool // SynchronousQueue and ArrayBlockingQueue only
	Rejection              Rejection
	AllowCoreThreadTimeOut bool
	// Prestart calls prestartAllCoreThreads() after construction (JDK; Tomcat always does, R65).
	Prestart bool
	// ContinuePeriodic and DropDelayed are a ScheduledThreadPoolExecutor's shutdown policies
	// (R98): setContinueExistingPeriodicTasksAfterShutdownPolicy(ContinuePeriodic) and
	// setExecuteExistingDelayedTasksAfterShutdownPolicy(!DropDelayed). Zero values are the
	// JDK's defaults.
	ContinuePeriodic bool
	DropDelayed      bool
	// RemoveOnCancel is a ScheduledThreadPoolExecutor's setRemoveOnCancelPolicy(true) (R97):
	// a cancelled task leaves the queue at once instead of staying until due.
	RemoveOnCancel bool
}

// Submit is one task handed to execute at AtMs by the single submitter thread. The task sleeps
// ServiceMs; with Fail it then throws a RuntimeException, which ends its JDK or Tomcat worker
// (R14, R17) and is logged and survived by Jetty (R108).
type Submit struct {
	AtMs      int64
	ID        int // unique, >= 1
	ServiceMs int64
	Priority  int // priority queue only: lower runs earlier
	Fail      bool
}

// ScheduleMode says how a Schedule calls the ScheduledThreadPoolExecutor.
type ScheduleMode string

// Schedule modes.
const (
	ScheduleOnce       ScheduleMode = "once"        // schedule(task, DelayMs) (R89)
	ScheduleFixedRate  ScheduleMode = "fixed-rate"  // scheduleAtFixedRate(task, DelayMs, PeriodMs) (R94)
	ScheduleFixedDelay ScheduleMode = "fixed-delay" // scheduleWithFixedDelay(task, DelayMs, PeriodMs) (R95)
)

// Schedule is one schedule directive (KindScheduled only), made at AtMs by the submitter
// thread, in order with the submits. Run k of the task sleeps ServiceMs[k-1] (the last value
// repeats; at least one is needed); run FailRun (from 1; 0 = none) then throws, which its
// future keeps: a periodic series stops there (R96). Result.Scheduled and Result.Runs report it.
type Schedule struct {
	AtMs      int64
	ID        int // unique among submits and schedules, >= 1
	Mode      ScheduleMode
	DelayMs   int64 // the delay, or the initial delay of a periodic task
	PeriodMs  int64 // the period or delay between runs; 0 for ScheduleOnce
	ServiceMs []int64
	FailRun   int
}

// Cancel calls cancel(false) at AtMs on the future of the schedule directive ID (KindScheduled
// only), from the harness's controller thread (R97).
type Cancel struct {
	AtMs int64
	ID   int
}

// Change is one key of a set directive; build it with SetCore, SetMax, SetKeepAliveMs or
// SetAllowCoreThreadTimeOut.
type Change struct {
	Key   string
	Value string
}

// SetCore is setCorePoolSize(n) (R21); Jetty: setMinThreads.
func SetCore(n int) Change { return Change{Key: "core", Value: strconv.Itoa(n)} }

// SetMax is setMaximumPoolSize(n) (R22); Jetty: setMaxThreads. Unbounded prints "unbounded".
func SetMax(n int) Change { return Change{Key: "max", Value: intOrUnbounded(n)} }

// SetKeepAliveMs is setKeepAliveTime(ms, MILLISECONDS) (R23); Jetty: setIdleTimeout.
func SetKeepAliveMs(ms int64) Change {
	return Change{Key: "keepAliveMs", Value: strconv.FormatInt(ms, 10)}
}

// SetAllowCoreThreadTimeOut is allowCoreThreadTimeOut(v) (R24); not for Jetty.
func SetAllowCoreThreadTimeOut(v bool) Change {
	return Change{Key: "allowCoreThreadTimeOut", Value: strconv.FormatBool(v)}
}

// Set applies its changes at AtMs, one setter call per change, in slice order; a setter that
// would throw IllegalArgumentException at any step (core above max, …) is a script error.
type Set struct {
	AtMs    int64
	Changes []Change
}

// String is the set directive as the script writes it.
func (e Set) String() string { return fmt.Sprintf("set at=%d %s", e.AtMs, changesText(e.Changes)) }

// changesText is key=value for each change, space-separated, as a set line and the harness's
// set events write them.
func changesText(cs []Change) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = c.Key + "=" + c.Value
	}
	return strings.Join(parts, " ")
}

// Shutdown calls shutdown() at AtMs (R27), or shutdownNow() (R28) when Now is set. Not for Jetty.
type Shutdown struct {
	AtMs int64
	Now  bool
}

// Samples says when the harness takes a snapshot of the pool: every EveryMs from FromMs to
// UntilMs inclusive (when EveryMs > 0), and at each of AtMs. All must be at or before the end.
type Samples struct {
	EveryMs, FromMs, UntilMs int64
	AtMs                     []int64
}

// Script is one scripted run of a real pool, in milliseconds from t=0 (taken just before the
// pool is built, after the JVM has warmed up). Its String method is the harness's input.
//
// Directives are written in time order. Directives with the same time run in the order String
// writes them: submits, then schedules, then cancels, then sets, then shutdowns, each in slice
// order — the order of the simulator's modelling note M3 (arrivals before configuration
// changes) and of its event phases (a schedule call before a cancel).
type Script struct {
	Pool      Pool
	Submits   []Submit
	Schedules []Schedule
	Cancels   []Cancel
	Sets      []Set
	Shutdowns []Shutdown
	Samples   Samples
	// EndMs stops the run: the last samples are taken, then shutdownNow (Jetty: its queue is
	// drained and its threads interrupted) and the harness prints its results.
	EndMs int64
}

func intOrUnbounded(n int) string {
	if n == Unbounded {
		return "unbounded"
	}
	return strconv.Itoa(n)
}

// String renders the script in the harness's text format, one directive per line.
func (s Script) String() string {
	var b strings.Builder
	p := s.Pool
	if p.Kind == KindScheduled && p.Max == 0 && p.KeepAliveMs == 0 {
		fmt.Fprintf(&b, "pool kind=%s core=%d", p.Kind, p.Core) // the constructor fixes the rest (R88)
	} else {
		fmt.Fprintf(&b, "pool kind=%s core=%d max=%s keepAliveMs=%d", p.Kind, p.Core, intOrUnbounded(p.Max), p.KeepAliveMs)
	}
	if p.Queue != "" {
		fmt.Fprintf(&b, " queue=%s", p.Queue)
	}
	if p.Capacity != 0 {
		fmt.Fprintf(&b, " capacity=%s", intOrUnbounded(p.Capacity))
	}
	if p.Fair {
		b.WriteString(" fair=true")
	}
	if p.Rejection != "" {
		fmt.Fprintf(&b, " rejection=%s", p.Rejection)
	}
	if p.AllowCoreThreadTimeOut {
		b.WriteString(" allowCoreThreadTimeOut=true")
	}
	if p.Prestart {
		b.WriteString(" prestart=true")
	}
	if p.ContinuePeriodic {
		b.WriteString(" continuePeriodic=true")
	}
	if p.DropDelayed {
		b.WriteString(" executeDelayed=false")
	}
	if p.RemoveOnCancel {
		b.WriteString(" removeOnCancel=true")
	}
	b.WriteByte('\n')

	var lines []timedLine
	for _, u := range s.Submits {
		t := fmt.Sprintf("submit at=%d id=%d serviceMs=%d", u.AtMs, u.ID, u.ServiceMs)
		if u.Priority != 0 {
			t += fmt.Sprintf(" priority=%d", u.Priority)
		}
		if u.Fail {
			t += " fail=true"
		}
		lines = append(lines, timedLine{u.AtMs, t})
	}
	for _, u := range s.Schedules {
		t := fmt.Sprintf("schedule at=%d id=%d mode=%s delayMs=%d", u.AtMs, u.ID, u.Mode, u.DelayMs)
		if u.Mode != ScheduleOnce || u.PeriodMs != 0 {
			t += fmt.Sprintf(" periodMs=%d", u.PeriodMs)
		}
		sv := make([]string, len(u.ServiceMs))
		for i, v := range u.ServiceMs {
			sv[i] = strconv.FormatInt(v, 10)
		}
		t += " serviceMs=" + strings.Join(sv, ",")
		if u.FailRun != 0 {
			t += fmt.Sprintf(" failRun=%d", u.FailRun)
		}
		lines = append(lines, timedLine{u.AtMs, t})
	}
	for _, c := range s.Cancels {
		lines = append(lines, timedLine{c.AtMs, fmt.Sprintf("cancel at=%d id=%d", c.AtMs, c.ID)})
	}
	for _, e := range s.Sets {
		lines = append(lines, timedLine{e.AtMs, e.String()})
	}
	for _, e := range s.Shutdowns {
		name := "shutdown"
		if e.Now {
			name = "shutdownNow"
		}
		lines = append(lines, timedLine{e.AtMs, fmt.Sprintf("%s at=%d", name, e.AtMs)})
	}
	writeTimed(&b, lines, s.Samples, s.EndMs)
	return b.String()
}

// timedLine is a timed directive as a script writes it.
type timedLine struct {
	at   int64
	text string
}

// writeTimed writes a script's timed directives in time order (stable: lines with the same
// time keep the order given), then its samples and its end.
func writeTimed(b *strings.Builder, lines []timedLine, s Samples, endMs int64) {
	sort.SliceStable(lines, func(i, j int) bool { return lines[i].at < lines[j].at })
	for _, l := range lines {
		b.WriteString(l.text)
		b.WriteByte('\n')
	}
	if s.EveryMs > 0 {
		fmt.Fprintf(b, "sample every=%d from=%d until=%d\n", s.EveryMs, s.FromMs, s.UntilMs)
	}
	if len(s.AtMs) > 0 {
		at := make([]string, len(s.AtMs))
		for i, t := range s.AtMs {
			at[i] = strconv.FormatInt(t, 10)
		}
		fmt.Fprintf(b, "sample at=%s\n", strings.Join(at, ","))
	}
	fmt.Fprintf(b, "end at=%d\n", endMs)
}
