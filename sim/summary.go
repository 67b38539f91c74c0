package sim

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"runtime/metrics"
	"syscall"
	"time"

	"github.com/poolsim/poolsim/model"
	"github.com/poolsim/poolsim/workloads"
)

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

	// Resources (resources:, spec §14): in the steady state, the workers
	// blocked waiting for one (busy for the pool, parked for a thread dump),
	// on average and at most; over the run, the tasks a failed acquisition
	// ended with an error; and each resource. Absent without resources.
	BlockedMean    *Stat             `json:"blocked_mean,omitempty"`
	BlockedMax     *int              `json:"blocked_max,omitempty"`
	ResourceErrors *int64            `json:"resource_errors,omitempty"`
	Resources      []ResourceSummary `json:"resources,omitempty"`

	// Client is what the callers saw (workload.client, workload.users):
	// absent when callers wait for every answer and never retry.
	Client *ClientSummary `json:"client,omitempty"`

	// Wakeup is what the host's hand-off timing did (host.wakeup): absent
	// with the ideal, zero-latency model.
	Wakeup *WakeupSummary `json:"wakeup,omitempty"`

	// Virtual is what the virtual threads and their carriers did (§13):
	// absent for a pool of platform threads.
	Virtual *VirtualSummary `json:"virtual,omitempty"`

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
	// VTDumps are a virtual-thread run's snapshots in the JSON shape of
	// jcmd Thread.dump_to_file (vtdump.go), one per snapshot time.
	VTDumps []VTDump
	// WaitCDF and ResponseCDF are steady-state quantiles at CDFQuantiles
	// (empty without steady-state tasks).
	WaitCDF, ResponseCDF []Quantile
}

// Result is what the run found: after the last Step, the whole run; before
// it, the run so far (Complete false). Take it before Close.
func (e *Engine) Result() *Result {
	res := e.result()
	if n, ok := e.src.(workloads.Noter); ok {
		res.Findings = append(res.Findings, n.Notes()...)
	}
	res.Perf = measurePerf(time.Since(e.start), res.Summary.Events, res.Summary.Submitted)
	return res
}

func (e *Engine) result() *Result {
	rec := e.rec
	s := e.summary()
	res := &Result{Summary: s, Complete: e.finished && !e.stopped, StopReason: e.stopReason, Applied: rec.applied, VTDumps: e.vtDumps,
		WaitCDF:     cdf(rec.wait, rec.nWait, rec.waitMax),
		ResponseCDF: cdf(rec.response, rec.nResponse, rec.responseMax)}
	e.lim.summarize(&res.Summary, e.interrupted, e.stopReason)
	res.Findings = append(res.Findings, e.lim.findings(e.sc, rec.lost[model.ThreadStartFailed])...)
	res.Findings = append(res.Findings, periodicFindings(s.Periodic)...)
	if e.stopped {
		res.Findings = append(res.Findings, fmt.Sprintf("the run stopped early at t=%v: %s", e.now, e.stopReason))
	}
	return res
}

// steady turns the recorder's running sums into statistics of the steady
// state, from the warmup to now; each is NaN (JSON null) when undefined.
type steady struct{ span float64 } // nanoseconds, as the areas

func (st steady) mean(area float64) Stat {
	if st.span <= 0 {
		return Stat(math.NaN())
	}
	return Stat(area / st.span)
}

// rate is a count per second of the steady state.
func (st steady) rate(n int64) Stat {
	if st.span <= 0 {
		return Stat(math.NaN())
	}
	return Stat(float64(n) / (st.span / 1e9))
}

// avg is a mean of n durations summed in nanoseconds, in seconds.
func avg(sumNanos float64, n int64) Stat {
	if n == 0 {
		return Stat(math.NaN())
	}
	return Stat(sumNanos / float64(n) / 1e9)
}

// maxOf is the largest of n durations, in seconds.
func maxOf(d time.Duration, n int64) Stat {
	if n == 0 {
		return Stat(math.NaN())
	}
	return Stat(d.Seconds())
}

// at is when something happened, in seconds, if it did.
func at(ok bool, d time.Duration) Stat {
	if !ok {
		return Stat(math.NaN())
	}
	return Stat(d.Seconds())
}

// summary is summary.json's figures: the counts, the pool's state at the
// end, the steady state's statistics, then the load and the host's.
func (e *Engine) summary() Summary {
	rec, p := e.rec, e.pool
	st := steady{float64(e.now - e.sc.Warmup)}
	areaPool, areaBusy, areaTimed, areaUntimed, areaQueue := rec.areas()
	poolSizeMax, queueLenMax := rec.maxima()
	s := Summary{
		Name:                  e.sc.Name,
		Seed:                  e.sc.Seed,
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
		PoolSizeMean:          st.mean(areaPool),
		PoolSizeMax:           poolSizeMax,
		BusyMean:              st.mean(areaBusy),
		IdleTimedMean:         st.mean(areaTimed),
		IdleUntimedMean:       st.mean(areaUntimed),
		QueueLenMean:          st.mean(areaQueue),
		QueueLenMax:           queueLenMax,
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

		Events:   e.events,
		SimTime:  e.now.Seconds(),
		Warmup:   e.sc.Warmup.Seconds(),
		Complete: e.finished && !e.stopped,
	}
	e.summarizeLoad(&s, st)
	return s
}

// summarizeLoad fills the load, idle-gap, periodic, thread-cost and CPU
// figures, and the utilization.
func (e *Engine) summarizeLoad(s *Summary, st steady) {
	rec, p := e.rec, e.pool
	s.ArrivalRate = st.rate(rec.nSubmitSteady)
	s.ServiceMean = avg(rec.serviceSum, rec.nWait)
	s.IdleGapMean = avg(rec.gapSum, rec.nGap)
	s.IdleGapMax = maxOf(rec.gapMax, rec.nGap)
	s.IdleGaps = rec.nGap
	s.IdleExits = rec.nIdleExit
	s.Periodic = e.periodicSummaries(s)
	s.ThreadStart = Stat(rec.threadStartTotal.Seconds())
	s.ThreadStartSubmitter = Stat(rec.threadStartSubmitter.Seconds())
	s.PeakReservedStack = int64(p.LargestPoolSize()) * e.sc.Host.StackSize
	if e.vt != nil {
		// Virtual threads reserve no thread stack (their frames live on
		// the heap, R140): the platform threads are the carriers.
		s.PeakReservedStack = int64(e.vt.carriers.Largest()) * e.sc.Host.StackSize
	}
	s.Throughput = st.rate(rec.nResponse)
	s.LastTaskEnd = at(rec.completed+rec.callerRan > 0, max(rec.lastEnd, rec.callerLastEnd))
	s.CPUs = rec.cpus
	s.CPUBusyMean, s.CPUUtilization, s.CPURunnableMean, s.CPUDelayMean = Stat(math.NaN()), Stat(math.NaN()), Stat(math.NaN()), Stat(math.NaN())
	if rec.cpus > 0 {
		e.cpuAccount(e.now) // the integrals up to the end of the run
		s.CPUBusyMean = st.mean(rec.areaCPUBusy)
		s.CPUUtilization = Stat(float64(s.CPUBusyMean) / float64(rec.cpus))
		s.CPURunnableMean = st.mean(rec.areaRunnable)
		s.CPURunnableMax = rec.cpuRunnableMax
		s.CPUDelayMean = avg(rec.cpuDelaySum, rec.nCPUDelay)
	}
	s.Utilization = Stat(math.NaN())
	if pm := float64(s.PoolSizeMean); pm > 0 {
		s.Utilization = Stat(float64(s.BusyMean) / pm)
	}
	if len(e.res) > 0 {
		bm, bmax, errs := st.mean(rec.areaBlocked), rec.blockedMax, rec.resourceErrors
		s.BlockedMean, s.BlockedMax, s.ResourceErrors = &bm, &bmax, &errs
		s.Resources = e.resourceSummaries(st)
	}
	if e.cl != nil {
		s.Client = e.clientSummary(st)
	}
	if e.wk != nil {
		s.Wakeup = e.wakeupSummary()
	}
	if e.vt != nil {
		s.Virtual = e.virtualSummary(st)
	}
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
	p.HeapSysBytes = heapSys()
	return p
}

// heapSysMetrics are the classes of heap memory that make up
// runtime.MemStats's HeapSys (mapped for the heap, less stacks and GC work
// buffers): objects, the unused rest of their spans, free and released
// pages. Stacks, also carved from the heap, are not part of it.
var heapSysMetrics = [...]string{
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/unused:bytes",
	"/memory/classes/heap/free:bytes",
	"/memory/classes/heap/released:bytes",
}

// heapSys is runtime.MemStats.HeapSys read through runtime/metrics, which,
// unlike runtime.ReadMemStats, neither stops the world nor flushes every
// P's span cache: on a one-second run of fixed-pool-mmc that flush alone
// faulted in some 130 pages, about a millisecond of the whole process.
// TestHeapSysIsMemStats holds the two readings together.
func heapSys() uint64 {
	var samples [len(heapSysMetrics)]metrics.Sample
	for i, name := range heapSysMetrics {
		samples[i].Name = name
	}
	metrics.Read(samples[:])
	var sum uint64
	for _, s := range samples {
		if s.Value.Kind() == metrics.KindUint64 {
			sum += s.Value.Uint64()
		}
	}
	return sum
}
