package output

import (
	"fmt"
	"io"
	"strings"

	"github.com/poolsim/poolsim/scenarios"
	"github.com/poolsim/poolsim/sim"
)

// WriteText writes the short human summary of a run of sc that wrote the
// files named written into dir (as WriteRun returns them): what was
// simulated and how fast, the pool, the tasks' fates, the threads, the
// steady state, waits and responses, periodic jobs, runtime events, the
// run's findings, and what was written. Everything but the wall time on the
// first line is the same for the same scenario and seed.
func WriteText(w io.Writer, sc *scenarios.Scenario, res *sim.Result, dir string, written []string) error {
	ew := &errWriter{w: w}
	w = ew
	s := res.Summary
	span := fmt.Sprint(sc.Duration)
	if !res.Complete {
		span = fmt.Sprintf("%v of %v", Simulated(res), sc.Duration)
	}
	fmt.Fprintf(w, "%s: %s simulated (seed %d) in %.3fs, %d events\n", sc.Name, span, s.Seed, res.Perf.WallS, s.Events)
	fmt.Fprintf(w, "  pool      %s: %s\n", sc.Pool.Preset, scenarios.Describe(sc.Pool.Config))
	fmt.Fprintf(w, "  tasks     %d submitted: %d completed, %d rejected", s.Submitted, s.Completed, s.Rejected)
	if s.RejectedAfterShutdown > 0 {
		fmt.Fprintf(w, " (%d after shutdown)", s.RejectedAfterShutdown)
	}
	if s.CallerRan > 0 {
		fmt.Fprintf(w, " (%d ran on the caller)", s.CallerRan)
	}
	if s.Discarded > 0 {
		fmt.Fprintf(w, ", %d lost", s.Discarded)
	}
	fmt.Fprintf(w, "; %d queued and %d running at the end\n", s.QueuedEnd, s.RunningEnd)
	if s.Virtual != nil {
		// A VT per task: none idles; their states are the virtual line's (R137).
		fmt.Fprintf(w, "  threads   virtual: largest %d; at the end %d live, each running its task; %d created, %d exited\n",
			s.LargestPoolSize, s.FinalPoolSize, s.ThreadsCreated, s.ThreadsExited)
	} else {
		fmt.Fprintf(w, "  threads   largest %d; at the end %d (%d busy, %d TIMED_WAITING, %d WAITING); %d created, %d exited\n",
			s.LargestPoolSize, s.FinalPoolSize, s.FinalBusy, s.FinalIdleTimed, s.FinalIdleUntime, s.ThreadsCreated, s.ThreadsExited)
	}
	if sc.Host.ThreadStart > 0 {
		fmt.Fprintf(w, "  costs     Thread.start() %v each: %s in all, %s of it on the submitter; peak reserved stack %s (%d × %s); the last task ended at %s\n",
			sc.Host.ThreadStart, secs(s.ThreadStart), secs(s.ThreadStartSubmitter), mib(s.PeakReservedStack), s.LargestPoolSize, mib(sc.Host.StackSize), secs(s.LastTaskEnd))
	}
	if wk := s.Wakeup; wk != nil {
		writeWakeup(w, wk)
	}
	from := "whole run"
	if sc.Warmup > 0 {
		from = fmt.Sprintf("after warmup %v", sc.Warmup)
	}
	fmt.Fprintf(w, "  steady    (%s) pool size mean %s (max %d), busy %s, idle timed %s, idle untimed %s, queue %s (max %d)\n",
		from, num(s.PoolSizeMean), s.PoolSizeMax, num(s.BusyMean), num(s.IdleTimedMean), num(s.IdleUntimedMean), num(s.QueueLenMean), s.QueueLenMax)
	if s.CPUs > 0 {
		fmt.Fprintf(w, "  cpus      %d: busy %s (%s%%), runnable threads mean %s (max %d), CPU delay per task mean %s; throughput %s/s\n",
			s.CPUs, num(s.CPUBusyMean), num(s.CPUUtilization*100), num(s.CPURunnableMean), s.CPURunnableMax, secs(s.CPUDelayMean), num(s.Throughput))
	}
	if v := s.Virtual; v != nil {
		writeVirtual(w, v)
	}
	for _, r := range s.Resources {
		fmt.Fprintf(w, "  resource  %s (%s, %d): in use %s (%s%%), waiters %s (max %d); wait mean %s, p99 %s; %d of %d acquisitions failed",
			r.Name, r.Type, r.Size, num(r.InUseMean), num(r.Utilization*100), num(r.WaitersMean), r.WaitersMax,
			secs(r.WaitMean), secs(r.WaitP99), r.Timeouts, r.Acquisitions)
		if r.Type == "hikari" {
			fmt.Fprintf(w, "; %d connections opened, %d closed", r.Opened, r.Closed)
		}
		fmt.Fprintln(w)
	}
	if s.BlockedMean != nil {
		fmt.Fprintf(w, "  blocked   threads waiting for a resource: mean %s of %s busy (max %d); %d requests ended by a failed acquisition\n",
			num(*s.BlockedMean), num(s.BusyMean), *s.BlockedMax, *s.ResourceErrors)
	}
	fmt.Fprintf(w, "  wait      mean %s  p50 %s  p90 %s  p99 %s  max %s\n", secs(s.WaitMean), secs(s.WaitP50), secs(s.WaitP90), secs(s.WaitP99), secs(s.WaitMax))
	fmt.Fprintf(w, "  response  mean %s  p99 %s  max %s\n", secs(s.ResponseMean), secs(s.ResponseP99), secs(s.ResponseMax))
	if c := s.Client; c != nil {
		writeClient(w, c)
	}
	for _, p := range s.Periodic {
		writePeriodic(w, p)
	}
	if s.CancelledByShutdown > 0 {
		fmt.Fprintf(w, "  shutdown  cancelled %d queued scheduled tasks (R98)\n", s.CancelledByShutdown)
	}
	if s.SkippedCancelled+s.RemovedAfterCancel > 0 {
		fmt.Fprintf(w, "  cancel    %d cancelled tasks skipped when due (counted as completed), %d removed from the queue unrun (R97)\n", s.SkippedCancelled, s.RemovedAfterCancel)
	}
	for _, e := range res.Applied {
		fmt.Fprintf(w, "  event     at %v: %s\n", e.At, e.What)
	}
	for _, f := range res.Findings {
		fmt.Fprintf(w, "  finding   %s\n", f)
	}
	fmt.Fprintf(w, "  wrote     %s/{%s}\n", dir, strings.Join(written, ","))
	return ew.err
}

// writeVirtual writes the virtual threads' lines (§13): the carriers and
// the VTs by state (R137), the wait for a carrier, pinning and
// compensation (R134–R136), the heap (R140), and SimpleAsyncTaskExecutor's
// waiting caller (R143).
func writeVirtual(w io.Writer, v *sim.VirtualSummary) {
	fmt.Fprintf(w, "  virtual   JDK %d, parallelism %d (maxPoolSize %d, minRunnable %d): peak %d carriers, %d live VTs, %d runnable; steady: mounted %s, runnable %s, parked %s, pinned %s; heap of unmounted VTs peak %s\n",
		v.JDK, v.Parallelism, v.MaxPoolSize, v.MinRunnable, v.CarriersPeak, v.VTPeak, v.RunnablePeak,
		num(v.MountedMean), num(v.RunnableMean), num(v.ParkedMean), num(v.PinnedMean), mib(v.HeapPeak))
	fmt.Fprintf(w, "  carriers  wait for a carrier mean %s, p50 %s, p99 %s, max %s (%d mounts); pinned %s carrier-seconds; %d compensations, %d carriers started by them\n",
		secs(v.CarrierWaitAvg), secs(v.CarrierWaitP50), secs(v.CarrierWaitP99), secs(v.CarrierWaitMax), v.Mounts,
		num(v.PinnedCarrierSeconds), v.Compensations, v.CarriersStarted)
	if v.CallerWaits > 0 {
		fmt.Fprintf(w, "  throttle  the caller waited for a concurrencyLimit permit %d times (R143): its wait is the tasks' queue wait\n", v.CallerWaits)
	}
}

// writeWakeup writes the hand-off timing's line (host.wakeup).
func writeWakeup(w io.Writer, k *sim.WakeupSummary) {
	how := "given"
	if k.Calibrated {
		how = "calibrated"
	}
	fmt.Fprintf(w, "  wake-up   latency mean %s (%s)", secs(k.LatencyMean), how)
	if k.Race != "" {
		fmt.Fprintf(w, ", race window mean %s", secs(k.RaceMean))
	}
	if k.Overrun != "" {
		fmt.Fprintf(w, ", task overrun mean %s", secs(k.OverrunMean))
	}
	fmt.Fprintf(w, ": %d signals, %d hand-offs missed (a returning worker took the task first), %d SynchronousQueue hand-offs, %d rejections while a worker was idle",
		k.Signals, k.Missed, k.Handoffs, k.IdleRejections)
	if k.Pauses > 0 {
		fmt.Fprintf(w, "; %d pauses, %s in all", k.Pauses, secs(k.Paused))
	}
	fmt.Fprintln(w)
}

// writeClient writes the callers' lines: what became of their requests,
// the attempts they cost, and the answers as the callers saw them.
func writeClient(w io.Writer, c *sim.ClientSummary) {
	who := "callers"
	if c.Users > 0 {
		who = fmt.Sprintf("%d users", c.Users)
	}
	fmt.Fprintf(w, "  callers   %s sent %d requests in %d attempts (×%s): %d answered, %d failed, %d unfinished; %d timeouts, %d rejected, %d errors",
		who, c.Requests, c.Attempts, num(c.Amplification), c.Succeeded, c.Failed, c.Unfinished, c.Timeouts, c.Rejected, c.Errors)
	if c.Dropped > 0 {
		fmt.Fprintf(w, ", %d dropped unheard", c.Dropped)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  answers   goodput %s/s; response from the first attempt mean %s  p99 %s  max %s; %d tasks (%s of work) ran for callers that had given up\n",
		num(c.Goodput), secs(c.ResponseMean), secs(c.ResponseP99), secs(c.ResponseMax), c.WastedTasks, secs(c.WastedWork))
}

// writePeriodic writes the summary line of one periodic job.
func writePeriodic(w io.Writer, p sim.PeriodicSummary) {
	fmt.Fprintf(w, "  periodic  %s (%s", p.Name, p.Mode)
	if p.Every > 0 {
		fmt.Fprintf(w, " every %s", secs(sim.Stat(p.Every)))
	}
	fmt.Fprintf(w, "): %d run%s, %d late", p.Runs, map[bool]string{true: "", false: "s"}[p.Runs == 1], p.LateRuns)
	if p.LateRuns > 0 {
		fmt.Fprintf(w, " (max %s late)", secs(sim.Stat(p.MaxLateness)))
	}
	switch {
	case p.StoppedByException:
		fmt.Fprintf(w, "; STOPPED by an exception in run %d at %s", p.LastRun, secs(p.StoppedAt))
	case p.CancelledByShutdown:
		fmt.Fprintf(w, "; ended by shutdown at %s", secs(p.StoppedAt))
	case p.Cancelled:
		fmt.Fprintf(w, "; CANCELLED at %s", secs(p.CancelledAt))
		switch {
		case p.CancelledRunning:
			fmt.Fprintf(w, " during run %d, which finished; no run followed", p.CancelledRun)
		case p.SkippedRuns > 0:
			fmt.Fprintf(w, ": its queued run %d stayed queued until due, then was skipped at %s", p.CancelledRun, secs(p.SkippedAt))
		case p.RemovedAfterCancel:
			fmt.Fprintf(w, ": its queued run %d was removed at %s", p.CancelledRun, secs(p.RemovedAt))
		case p.Drained:
			fmt.Fprintf(w, ": its queued run %d was drained by shutdownNow", p.CancelledRun)
		default:
			fmt.Fprintf(w, ": its queued run %d was still queued at the end", p.CancelledRun)
		}
	}
	fmt.Fprintln(w)
}

// errWriter remembers the first write error and writes nothing after it.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

// mib formats a byte count in MiB.
func mib(b int64) string { return fmt.Sprintf("%.4g MiB", float64(b)/(1<<20)) }

// num formats a statistic with three significant digits; "n/a" when it is
// undefined.
func num(s sim.Stat) string {
	x := float64(s)
	if x != x {
		return "n/a"
	}
	return fmt.Sprintf("%.3g", x)
}

// secs formats a time in seconds with three significant digits in µs, ms
// or s; "n/a" when it is undefined.
func secs(s sim.Stat) string {
	x := float64(s)
	if x != x {
		return "n/a"
	}
	switch {
	case x == 0:
		return "0"
	case x < 1e-3:
		return fmt.Sprintf("%.3gµs", x*1e6)
	case x < 1:
		return fmt.Sprintf("%.3gms", x*1e3)
	}
	return fmt.Sprintf("%.3gs", x)
}
