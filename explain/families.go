package explain

import (
	"fmt"
	"strings"
	"time"

	"github.com/poolsim/poolsim/model"
)

// familyFindings explains the pools whose rules are not ThreadPoolExecutor's
// own: a ScheduledThreadPoolExecutor (spec §6) and Jetty's QueuedThreadPool
// (spec §7). It reports whether it did, in which case the ThreadPoolExecutor
// reasoning of analyse does not apply.
func (e *Explanation) familyFindings() bool {
	s, st := e.Result.Summary, e.Steady
	c := e.Config
	switch c.Flavor {
	case model.Scheduled:
		switch {
		case c.Core == 0 || c.CoreTimeOut:
			e.add("Idle workers", "with %s, idle workers poll the DelayedWorkQueue with keepAlive %v (TIMED_WAITING); a worker that times out while a task is queued, not yet due, and is the last one stays and polls again — it wakes every %v until the task is due (R92).",
				map[bool]string{true: "core 0", false: "allowCoreThreadTimeOut"}[c.Core == 0], c.KeepAlive, c.KeepAlive)
		default:
			e.add("Idle workers", "idle workers wait in DelayedWorkQueue.take(): while tasks are queued but not yet due, one of them — the leader — waits TIMED_WAITING until the first is due, and the others WAITING behind it; with nothing queued all wait WAITING (R61, R93). Here %s TIMED_WAITING and %s WAITING on average. None of them ever times out: the pool has at most core (%d) workers.",
				f1(st.IdleTimed), f1(st.Untimed), c.Core)
		}
		e.add("Why it never grows past core", "the DelayedWorkQueue is unbounded and never refuses a task, so the pool never grows beyond core %d (R88; largest here %d). Each schedule call and each periodic re-run starts a new worker while fewer than core exist, even when one is idle (ensurePrestart, R91).",
			c.Core, s.LargestPoolSize)
		if s.PeriodicRuns > 0 {
			e.add("Periodic jobs", "%s; %d started after their due time (at most %s late). A fixed-rate run is due a period after the previous one was due, so after a late run the missed ones run back to back (R94); a fixed-delay run is due a delay after the previous one ended (R95). A run that throws ends its series for good (R96).",
				plural(s.PeriodicRuns, "run"), s.PeriodicLateRuns, dur(float64(s.PeriodicMaxLateness)))
		}
		if s.PeriodicCancelled > 0 {
			// A cancelled run leaves the queue at its cancel under
			// removeOnCancelPolicy, or later in shutdown's sweep (R98).
			var atCancel, bySweep, drained int64
			for _, p := range s.Periodic {
				switch {
				case p.Cancelled && p.Drained && !p.RemovedAfterCancel && p.SkippedRuns == 0:
					drained++
				case !p.RemovedAfterCancel:
				case p.RemovedAt == p.CancelledAt:
					atCancel++
				default:
					bySweep++
				}
			}
			text := fmt.Sprintf("%s cancelled with future.cancel(false) (R97): %s stayed in the queue until due and were skipped, and %s left it at once (removeOnCancelPolicy %v)",
				plural(s.PeriodicCancelled, "job was", "jobs were"), plural(s.SkippedCancelled, "run"), plural(atCancel, "run"), c.RemoveOnCancel)
			if bySweep > 0 {
				text += fmt.Sprintf("; shutdown swept %s out of the queue (R98)", plural(bySweep, "cancelled run"))
			}
			if drained > 0 {
				text += fmt.Sprintf("; shutdownNow returned %s still queued (R28)", plural(drained, "cancelled run"))
			}
			e.add("Cancelled jobs", "%s. A cancelled task that stays queued counts in the queue length and keeps the leader TIMED_WAITING as if it would run; removing it does not wake the leader either, which waits until the removed task was due.", text)
		}
	case model.Jetty:
		e.add("Idle threads", "every idle QueuedThreadPool thread waits in BlockingArrayQueue.poll(idleTimeout = %v) — TIMED_WAITING whatever the thread count, even at minThreads %d (R103); here %s on average.",
			c.KeepAlive, c.Core, f1(st.IdleTimed))
		if s.LargestPoolSize > c.Core {
			e.add("How it grew", "Jetty starts a thread for a job whenever no thread is idle, up to maxThreads %s (R102): the pool reached %d threads. Beyond maxThreads, jobs queue without limit.",
				model.SizeString(c.Max), s.LargestPoolSize)
			e.add("How it shrinks", "a thread leaves only when it finds no job, the pool is above minThreads, and more than idleTimeout has passed since the last thread started or left (lastShrink): at most one thread per %v, pool-wide, whatever the traffic (R104, R105). %d threads left over the run; from %d to minThreads %d takes at least %v. A ThreadPoolExecutor instead lets each idle worker time out on its own (R16, R110).",
				c.KeepAlive, s.ThreadsExited, s.LargestPoolSize, c.Core, c.KeepAlive*durationOf(s.LargestPoolSize-c.Core))
		}
	default:
		return false
	}
	if len(e.Result.Findings) > 0 {
		e.add("Also in this run", "%s", strings.Join(e.Result.Findings, "; "))
	}
	return true
}

// timedWait names the call an idle TIMED_WAITING worker is in: poll(keepAlive),
// or, on a ScheduledThreadPoolExecutor, the DelayedWorkQueue's timed wait of
// its leader (R61).
func timedWait(c model.Config) string {
	if c.Flavor == model.Scheduled && c.Core > 0 && !c.CoreTimeOut {
		return "DelayedWorkQueue.take as the leader (until the next task is due)"
	}
	return fmt.Sprintf("%s.poll(%v)", c.Queue.JavaName(), c.KeepAlive)
}

// durationOf converts a count for multiplying a duration.
func durationOf(n int) time.Duration { return time.Duration(max(n, 0)) }

// plural is "1 run" or "n runs"; with two words, the singular and plural
// forms of the whole phrase ("1 job was", "3 jobs were").
func plural(n int64, word string, pl ...string) string {
	if n == 1 {
		return "1 " + word
	}
	if len(pl) > 0 {
		return fmt.Sprintf("%d %s", n, pl[0])
	}
	return fmt.Sprintf("%d %ss", n, word)
}
