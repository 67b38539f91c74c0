package sim

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/poolsim/poolsim/model"
)

// TimelineHeader is timeline.csv's header. The first nine columns are fixed
// by CONTRACT.md §2; the rest extend it.
const TimelineHeader = "t_s,pool_size,busy,idle_timed,idle_untimed,queue_len,submitted,completed,rejected," +
	"discarded,caller_ran,failed,threads_created,threads_exited,core,max," +
	"wait_mean_s,wait_p50_s,wait_p99_s,wait_max_s,response_p99_s,run_state,cpu_runnable"

type timelineWriter struct {
	w   *bufio.Writer
	buf []byte
}

func newTimelineWriter(w io.Writer) *timelineWriter {
	t := &timelineWriter{w: bufio.NewWriterSize(w, 64<<10)}
	t.w.WriteString(TimelineHeader + "\n")
	return t
}

// FormatFloat is the one float format of every output: the shortest
// decimal that reads back to the same float64, so outputs are byte-stable.
func FormatFloat(x float64) string { return string(appendFloat(nil, x)) }

func appendFloat(b []byte, x float64) []byte {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return b // an empty cell: no value
	}
	return strconv.AppendFloat(b, x, 'f', -1, 64)
}

// appendSeconds formats a duration as seconds, exactly.
// appendSeconds formats a duration as decimal seconds, exactly: the
// nanoseconds are printed as digits, never through a float (1360ms is
// "1.36", not "1.3599999999999999").
func appendSeconds(b []byte, d time.Duration) []byte {
	if d < 0 {
		b = append(b, '-')
		d = -d
	}
	b = strconv.AppendInt(b, int64(d/time.Second), 10)
	ns := int64(d % time.Second)
	if ns == 0 {
		return b
	}
	var frac [9]byte
	for i := 8; i >= 0; i-- {
		frac[i] = byte('0' + ns%10)
		ns /= 10
	}
	n := 9
	for frac[n-1] == '0' {
		n--
	}
	b = append(b, '.')
	return append(b, frac[:n]...)
}

func (t *timelineWriter) row(now time.Duration, rec *recorder, p *model.Pool) error {
	b := t.buf[:0]
	b = appendSeconds(b, now)
	for _, v := range [...]int64{int64(rec.poolSize), int64(rec.busy), int64(rec.idleTimed), int64(rec.idleUntimed),
		int64(rec.queueLen), rec.submitted, rec.completed, rec.rejected, rec.discarded, rec.callerRan, rec.failed,
		rec.threadsCreated, rec.threadsExited, int64(p.Config().Core), int64(p.Config().Max)} {
		b = append(b, ',')
		b = strconv.AppendInt(b, v, 10)
	}
	for _, v := range [...]float64{rec.ivWait.mean(), rec.ivWait.quantile(0.5), rec.ivWait.quantile(0.99),
		maxSeconds(rec.ivWait), rec.ivResponse.quantile(0.99)} {
		b = append(b, ',')
		b = appendFloat(b, v)
	}
	b = append(b, ',')
	b = append(b, p.RunState().String()...)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(rec.cpuRunnable), 10)
	b = append(b, '\n')
	t.buf = b
	_, err := t.w.Write(b)
	return err
}

func maxSeconds(h *intervalHist) float64 {
	if h.n == 0 {
		return math.NaN()
	}
	return h.max.Seconds()
}

func (t *timelineWriter) flush() error { return t.w.Flush() }

// Stat is a statistic that may be undefined (no task in the steady state):
// it encodes as JSON null then, never as NaN.
type Stat float64

// MarshalJSON encodes NaN and infinities as null.
func (s Stat) MarshalJSON() ([]byte, error) {
	x := float64(s)
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return []byte("null"), nil
	}
	return appendFloat(nil, x), nil
}

// Summary is summary.json: a flat object in a fixed field order. Counts cover
// the whole run; *_mean, *_max of pool and queue, and wait/response
// statistics cover the steady state (from warmup on).
type Summary struct {
	Name string `json:"name"`
	Seed uint64 `json:"seed"`

	Submitted int64 `json:"submitted"`
	Completed int64 `json:"completed"`
	Rejected  int64 `json:"rejected"`
	// RejectedAfterShutdown counts the rejections that came from the pool
	// being shut down (R27, R28) rather than from a full pool.
	RejectedAfterShutdown int64 `json:"rejected_after_shutdown"`
	Discarded             int64 `json:"discarded"`
	CallerRan             int64 `json:"caller_ran"`
	QueuedEnd             int64 `json:"queued_end"`
	RunningEnd            int64 `json:"running_end"`
	Failed                int64 `json:"failed"`

	LargestPoolSize int   `json:"largest_pool_size"`
	FinalPoolSize   int   `json:"final_pool_size"`
	PoolSizeMean    Stat  `json:"pool_size_mean"`
	PoolSizeMax     int   `json:"pool_size_max"`
	BusyMean        Stat  `json:"busy_mean"`
	IdleTimedMean   Stat  `json:"idle_timed_mean"`
	IdleUntimedMean Stat  `json:"idle_untimed_mean"`
	QueueLenMean    Stat  `json:"queue_len_mean"`
	QueueLenMax     int   `json:"queue_len_max"`
	FinalIdleTimed  int   `json:"final_idle_timed"`
	FinalIdleUntime int   `json:"final_idle_untimed"`
	FinalBusy       int   `json:"final_busy"`
	Utilization     Stat  `json:"utilization"`
	SteadyTasks     int64 `json:"steady_tasks"`

	WaitMean     Stat `json:"wait_mean_s"`
	WaitP50      Stat `json:"wait_p50_s"`
	WaitP90      Stat `json:"wait_p90_s"`
	WaitP99      Stat `json:"wait_p99_s"`
	WaitMax      Stat `json:"wait_max_s"`
	ResponseMean Stat `json:"response_mean_s"`
	ResponseP50  Stat `json:"response_p50_s"`
	ResponseP99  Stat `json:"response_p99_s"`
	ResponseMax  Stat `json:"response_max_s"`

	SubmitDelayMean Stat `json:"submit_delay_mean_s"`
	SubmitDelayMax  Stat `json:"submit_delay_max_s"`
	CallerBusy      Stat `json:"caller_busy_s"`

	ThreadsCreated int64 `json:"threads_created"`
	ThreadsExited  int64 `json:"threads_exited"`

	// What threads cost (host.threadStart, host.stackSize): the time spent
	// in Thread.start() by every caller and by the submitter alone, and the
	// stack reserved by the most threads alive at once.
	ThreadStart          Stat  `json:"thread_start_s"`
	ThreadStartSubmitter Stat  `json:"thread_start_submitter_s"`
	PeakReservedStack    int64 `json:"peak_reserved_stack_bytes"`

	// Steady-state load and idle gaps (explain uses them).
	ArrivalRate Stat  `json:"arrival_rate_per_s"`
	ServiceMean Stat  `json:"service_mean_s"`
	IdleGapMean Stat  `json:"idle_gap_mean_s"`
	IdleGapMax  Stat  `json:"idle_gap_max_s"`
	IdleGaps    int64 `json:"idle_gaps"`
	IdleExits   int64 `json:"idle_exits"`

	// Throughput: tasks ended on pool workers per second in the steady
	// state; when the last task ended (caller-run ones too).
	Throughput  Stat `json:"throughput_per_s"`
	LastTaskEnd Stat `json:"last_task_end_s"`

	// The CPUs (host.cpus; 0 = unlimited, and the CPU statistics are
	// null): mean processors busy, that over cpus, mean and largest number
	// of tasks in a CPU part (runnable threads), and the mean time a task
	// was runnable but not running (its CPU parts' wall time minus its CPU
	// demand), all in the steady state.
	CPUs            int  `json:"cpus"`
	CPUBusyMean     Stat `json:"cpu_busy_mean"`
	CPUUtilization  Stat `json:"cpu_utilization"`
	CPURunnableMean Stat `json:"cpu_runnable_mean"`
	CPURunnableMax  int  `json:"cpu_runnable_max"`
	CPUDelayMean    Stat `json:"cpu_delay_mean_s"`

	Aborted              int64 `json:"aborted"`
	DiscardedByPolicy    int64 `json:"discarded_by_policy"`
	DiscardedOldest      int64 `json:"discarded_oldest"`
	DroppedAfterShutdown int64 `json:"dropped_after_shutdown"`
	Drained              int64 `json:"drained_by_shutdown_now"`
	ThreadStartFailures  int64 `json:"thread_start_failures"`
	RetryExhausted       int64 `json:"retry_exhausted"`
	// CancelledByShutdown counts queued tasks a ScheduledThreadPoolExecutor's
	// shutdown cancelled by its policies (R98).
	CancelledByShutdown int64 `json:"cancelled_by_shutdown"`
	// Cancelled tasks (future.cancel(false), R97): those a worker took from
	// the queue when due and returned from at once (counted in completed,
	// as getCompletedTaskCount counts them), and those removed from the
	// queue unrun (removeOnCancelPolicy, or shutdown's sweep, R98; counted
	// in discarded).
	SkippedCancelled   int64 `json:"skipped_cancelled"`
	RemovedAfterCancel int64 `json:"removed_after_cancel"`

	// Periodic jobs of a ScheduledThreadPoolExecutor (workload.periodic):
	// runs started, those that started after their due time and by how
	// much at most, series an exception stopped (R94–R96), and each job.
	PeriodicRuns               int64             `json:"periodic_runs"`
	PeriodicLateRuns           int64             `json:"periodic_late_runs"`
	PeriodicMaxLateness        Stat              `json:"periodic_max_lateness_s"`
	PeriodicStoppedByException int64             `json:"periodic_stopped_by_exception"`
	PeriodicCancelled          int64             `json:"periodic_cancelled"` // jobs whose cancelAt ended them (R97)
	Periodic                   []PeriodicSummary `json:"periodic,omitempty"`

	RunState     string `json:"run_state"`
	ShutdownAt   Stat   `json:"shutdown_at_s"`
	TerminatedAt Stat   `json:"terminated_at_s"`

	Events   int64   `json:"events"`
	SimTime  float64 `json:"sim_time_s"`
	Warmup   float64 `json:"warmup_s"`
	Complete bool    `json:"complete"`

	// What the limits did (sim/limits.go): capped is true when a limit
	// changed the run; the estimates of what would have happened without
	// them are null otherwise.
	Capped           bool   `json:"capped"`
	Interrupted      bool   `json:"interrupted"`
	StopReason       string `json:"stop_reason"`
	MaxThreadsLimit  int    `json:"max_threads_limit"`
	MaxQueuedLimit   int    `json:"max_queued_limit"`
	EstPeakThreads   Stat   `json:"est_peak_threads"`
	EstPeakThreadsAt Stat   `json:"est_peak_threads_at_s"`
	QueueGrowthPerS  Stat   `json:"queue_growth_per_s"`
	EstQueueEnd      Stat   `json:"est_queue_end"`
}

// Perf is perf.json: how fast the run went on this machine. It is the only
// output that differs between identical runs.
type Perf struct {
	WallS        float64 `json:"wall_s"`
	EventsPerS   float64 `json:"events_per_s"`
	TasksPerS    float64 `json:"tasks_per_s"`
	PeakRSSBytes int64   `json:"peak_rss_bytes"`
	HeapSysBytes uint64  `json:"go_heap_sys_bytes"`
}

// Result is what a run found.
type Result struct {
	Summary  Summary
	Perf     Perf
	Complete bool
	// StopReason says why an incomplete run stopped.
	StopReason string
	// Findings are notable facts in plain words ("the OS refused a thread at
	// t=…").
	Findings []string
	// Applied lists the runtime events as applied, in order.
	Applied []AppliedEvent
	// WaitCDF and ResponseCDF are steady-state quantiles at CDFQuantiles
	// (empty without steady-state tasks).
	WaitCDF, ResponseCDF []Quantile
}

func (r *runner) result() *Result {
	rec, p := r.rec, r.pool
	span := float64(r.now - r.sc.Warmup) // nanoseconds, as the areas
	mean := func(area float64) Stat {
		if span <= 0 {
			return Stat(math.NaN())
		}
		return Stat(area / span)
	}
	avg := func(sumNanos float64, n int64) Stat {
		if n == 0 {
			return Stat(math.NaN())
		}
		return Stat(sumNanos / float64(n) / 1e9)
	}
	maxOf := func(d time.Duration, n int64) Stat {
		if n == 0 {
			return Stat(math.NaN())
		}
		return Stat(d.Seconds())
	}
	at := func(ok bool, d time.Duration) Stat {
		if !ok {
			return Stat(math.NaN())
		}
		return Stat(d.Seconds())
	}
	s := Summary{
		Name:                  r.sc.Name,
		Seed:                  r.sc.Seed,
		Submitted:             rec.submitted,
		Completed:             rec.completed,
		Rejected:              rec.rejected,
		RejectedAfterShutdown: rec.rejectedAfterShutdown,
		Discarded:             rec.discarded,
		CallerRan:             rec.callerRan,
		QueuedEnd:             int64(p.QueueLen()),
		RunningEnd:            int64(p.ActiveCount()),
		Failed:                rec.failed,
		LargestPoolSize:       p.LargestPoolSize(),
		FinalPoolSize:         p.PoolSize(),
		PoolSizeMean:          mean(rec.areaPool),
		PoolSizeMax:           rec.poolSizeMax,
		BusyMean:              mean(rec.areaBusy),
		IdleTimedMean:         mean(rec.areaTimed),
		IdleUntimedMean:       mean(rec.areaUntimed),
		QueueLenMean:          mean(rec.areaQueue),
		QueueLenMax:           rec.queueLenMax,
		FinalIdleTimed:        p.Count(model.IdleTimed),
		FinalIdleUntime:       p.Count(model.IdleUntimed),
		FinalBusy:             p.ActiveCount(),
		SteadyTasks:           rec.nWait,
		WaitMean:              avg(rec.waitSum, rec.nWait),
		WaitP50:               Stat(quantile(rec.wait, rec.nWait, 0.50, rec.waitMax)),
		WaitP90:               Stat(quantile(rec.wait, rec.nWait, 0.90, rec.waitMax)),
		WaitP99:               Stat(quantile(rec.wait, rec.nWait, 0.99, rec.waitMax)),
		WaitMax:               maxOf(rec.waitMax, rec.nWait),
		ResponseMean:          avg(rec.responseSum, rec.nResponse),
		ResponseP50:           Stat(quantile(rec.response, rec.nResponse, 0.50, rec.responseMax)),
		ResponseP99:           Stat(quantile(rec.response, rec.nResponse, 0.99, rec.responseMax)),
		ResponseMax:           maxOf(rec.responseMax, rec.nResponse),
		SubmitDelayMean:       avg(rec.submitDelaySum, rec.nSubmitSteady),
		SubmitDelayMax:        maxOf(rec.submitDelayMax, rec.nSubmitSteady),
		CallerBusy:            Stat(rec.callerBusy.Seconds()),
		ThreadsCreated:        rec.threadsCreated,
		ThreadsExited:         rec.threadsExited,

		Aborted:              rec.lost[model.Aborted],
		DiscardedByPolicy:    rec.lost[model.Discarded],
		DiscardedOldest:      rec.lost[model.DiscardedOldest],
		DroppedAfterShutdown: rec.lost[model.DroppedAfterShutdown],
		Drained:              rec.lost[model.Drained],
		ThreadStartFailures:  rec.lost[model.ThreadStartFailed],
		RetryExhausted:       rec.lost[model.RetryExhausted],
		CancelledByShutdown:  rec.lost[model.Cancelled],
		SkippedCancelled:     rec.skippedCancelled,
		RemovedAfterCancel:   rec.lost[model.RemovedAfterCancel],
		PeriodicMaxLateness:  Stat(math.NaN()),

		RunState:     p.RunState().String(),
		ShutdownAt:   at(rec.haveShutdown, rec.shutdownAt),
		TerminatedAt: at(rec.haveTerminated, rec.terminatedAt),

		Events:   r.events,
		SimTime:  r.now.Seconds(),
		Warmup:   r.sc.Warmup.Seconds(),
		Complete: !r.stopped,
	}
	s.ArrivalRate = Stat(math.NaN())
	if span > 0 {
		s.ArrivalRate = Stat(float64(rec.nSubmitSteady) / (span / 1e9))
	}
	s.ServiceMean = avg(rec.serviceSum, rec.nWait)
	s.IdleGapMean = avg(rec.gapSum, rec.nGap)
	s.IdleGapMax = maxOf(rec.gapMax, rec.nGap)
	s.IdleGaps = rec.nGap
	s.IdleExits = rec.nIdleExit
	s.Periodic = r.periodicSummaries(&s)
	s.ThreadStart = Stat(rec.threadStartTotal.Seconds())
	s.ThreadStartSubmitter = Stat(rec.threadStartSubmitter.Seconds())
	s.PeakReservedStack = int64(p.LargestPoolSize()) * r.sc.Host.StackSize
	s.Throughput = Stat(math.NaN())
	if span > 0 {
		s.Throughput = Stat(float64(rec.nResponse) / (span / 1e9))
	}
	s.LastTaskEnd = at(rec.completed+rec.callerRan > 0, max(rec.lastEnd, rec.callerLastEnd))
	s.CPUs = rec.cpus
	s.CPUBusyMean, s.CPUUtilization, s.CPURunnableMean, s.CPUDelayMean = Stat(math.NaN()), Stat(math.NaN()), Stat(math.NaN()), Stat(math.NaN())
	if rec.cpus > 0 {
		r.cpuAccount(r.now) // the integrals up to the end of the run
		s.CPUBusyMean = mean(rec.areaCPUBusy)
		s.CPUUtilization = Stat(float64(s.CPUBusyMean) / float64(rec.cpus))
		s.CPURunnableMean = mean(rec.areaRunnable)
		s.CPURunnableMax = rec.cpuRunnableMax
		s.CPUDelayMean = avg(rec.cpuDelaySum, rec.nCPUDelay)
	}
	if pm := float64(s.PoolSizeMean); pm > 0 {
		s.Utilization = Stat(float64(s.BusyMean) / pm)
	} else {
		s.Utilization = Stat(math.NaN())
	}
	res := &Result{Summary: s, Complete: !r.stopped, StopReason: r.stopReason, Applied: rec.applied,
		WaitCDF:     cdf(rec.wait, rec.nWait, rec.waitMax),
		ResponseCDF: cdf(rec.response, rec.nResponse, rec.responseMax)}
	r.lim.summarize(&res.Summary, r.interrupted, r.stopReason)
	res.Findings = append(res.Findings, r.lim.findings(r.sc, rec.lost[model.ThreadStartFailed])...)
	res.Findings = append(res.Findings, periodicFindings(s.Periodic)...)
	if r.stopped {
		res.Findings = append(res.Findings, fmt.Sprintf("the run stopped early at t=%v: %s", r.now, r.stopReason))
	}
	return res
}

// WriteJSON writes v as indented JSON with a trailing newline.
func WriteJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}

func measurePerf(wall time.Duration, events, tasks int64) Perf {
	p := Perf{WallS: wall.Seconds()}
	if wall > 0 {
		p.EventsPerS = float64(events) / wall.Seconds()
		p.TasksPerS = float64(tasks) / wall.Seconds()
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		p.PeakRSSBytes = int64(ru.Maxrss) * 1024 // kilobytes on Linux
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	p.HeapSysBytes = ms.HeapSys
	return p
}

// snapshot writes a thread-dump-like view of every worker (snapshots.txt).
func (r *runner) snapshot() error {
	w := r.opt.Snapshots
	if w == nil {
		return nil
	}
	p := r.pool
	cfg := p.Config()
	prefix := r.sc.Pool.ThreadNamePrefix
	rank := map[*model.Worker]int{}
	n := 0
	p.Parked(func(w *model.Worker) { n++; rank[w] = n })
	var b strings.Builder
	fmt.Fprintf(&b, "=== snapshot at %v (t=%ss) ===\n", r.now, appendSeconds(nil, r.now))
	timedIn := fmt.Sprintf("%s.poll(%v)", cfg.Queue.JavaName(), cfg.KeepAlive)
	if cfg.Flavor == model.Scheduled && cfg.Core > 0 && !cfg.CoreTimeOut {
		timedIn = cfg.Queue.JavaName() + ".take as the leader, until the next task is due"
	}
	fmt.Fprintf(&b, "pool %s: %d workers: %d busy (RUNNABLE), %d idle TIMED_WAITING in %s, %d idle WAITING in %s.take(); queue %d; core %d, max %s, keepAlive %v, allowCoreThreadTimeOut %v; hand-off %v\n",
		p.RunState(), p.PoolSize(), p.ActiveCount(), p.Count(model.IdleTimed), timedIn,
		p.Count(model.IdleUntimed), cfg.Queue.JavaName(), p.QueueLen(), cfg.Core, sizeString(cfg.Max), cfg.KeepAlive, cfg.CoreTimeOut, p.HandOff())
	if n := p.CancelledQueued(); n > 0 {
		fmt.Fprintf(&b, "(cancelled but still queued: %d of %d; with removeOnCancelPolicy false a cancelled task keeps its place, and is waited for, until due; then a worker skips it, R97)\n", n, p.QueueLen())
	}
	p.Workers(func(w *model.Worker) {
		fmt.Fprintf(&b, "%q ", fmt.Sprintf("%s%d", prefix, w.ID))
		switch w.State() {
		case model.Running:
			t, _ := w.Task()
			fmt.Fprintf(&b, "RUNNABLE task %d for %v of %v (waited %v in queue)%s", t.ID, r.now-w.Since(), t.Service, w.Since()-t.Arrival, r.hostNote(w))
		case model.IdleTimed:
			switch {
			case cfg.Flavor == model.Scheduled && w == p.Leader():
				if due, ok := p.NextDue(); ok && due == w.Deadline() {
					fmt.Fprintf(&b, "TIMED_WAITING (parking) in %s.take, the leader, for %v: the head is due in %v; signal rank %d",
						cfg.Queue.JavaName(), r.now-w.Since(), w.Deadline()-r.now, rank[w])
					break
				}
				// Its head left the queue (a cancel under removeOnCancelPolicy,
				// or shutdown's sweep): DelayedWorkQueue.remove wakes nobody
				// (R97), so it sleeps on until that head's due time.
				fmt.Fprintf(&b, "TIMED_WAITING (parking) in %s.take, the leader, for %v: its head was removed unrun, and it wakes in %v, when that head was due; signal rank %d",
					cfg.Queue.JavaName(), r.now-w.Since(), w.Deadline()-r.now, rank[w])
			case cfg.Flavor == model.Scheduled:
				fmt.Fprintf(&b, "TIMED_WAITING (parking) in %s (awaitNanos) for %v, wakes in %v; signal rank %d",
					cfg.Queue.JavaName(), r.now-w.Since(), w.Deadline()-r.now, rank[w])
			case cfg.Flavor == model.Jetty:
				fmt.Fprintf(&b, "TIMED_WAITING (parking) in %s.poll(idleTimeout) for %v, times out in %v (then leaves only if no thread started or left for idleTimeout; last at %v); hand-off rank %d",
					cfg.Queue.JavaName(), r.now-w.Since(), w.Deadline()-r.now, p.LastShrink(), rank[w])
			default:
				fmt.Fprintf(&b, "TIMED_WAITING (parking) in %s.poll for %v, times out in %v; hand-off rank %d",
					cfg.Queue.JavaName(), r.now-w.Since(), w.Deadline()-r.now, rank[w])
			}
		case model.IdleUntimed:
			fmt.Fprintf(&b, "WAITING (parking) in %s.take for %v; hand-off rank %d",
				cfg.Queue.JavaName(), r.now-w.Since(), rank[w])
		}
		fmt.Fprintf(&b, "; started at %v, %d tasks done\n", w.Created, w.Completed)
	})
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}
