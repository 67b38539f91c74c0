package explain

import (
	"fmt"
	"math"

	"github.com/poolsim/poolsim/sim"
	"github.com/poolsim/poolsim/workloads"
)

// This file explains a run whose tasks hold resources (spec §14): which
// stage saturates — the thread pool, or a connection pool or bulkhead
// behind it — where requests wait, and what to change together.

// holdTime is the mean time the steady phase's tasks hold resource name
// (the sum of its hold steps' means), 0 if they do not hold it.
func (e *Explanation) holdTime(name string) float64 {
	ph := e.Scenario.Workload.Phases
	if len(ph) == 0 {
		return 0
	}
	h := 0.0
	for _, st := range ph[e.steadyPhase()].Steps {
		if st.Kind == workloads.Compute || st.Kind == workloads.Block || st.Resource != name {
			continue
		}
		if d, err := workloads.NewDistribution(st.Time, workloads.NewStream(0, "explain")); err == nil {
			h += d.Mean()
		}
	}
	return h
}

// unitWords names a resource's units: connections, permits.
func unitWords(r sim.ResourceSummary) (one, many string) {
	switch r.Type {
	case "hikari":
		return "connection", "connections"
	case "executor":
		return "thread", "threads"
	}
	return "permit", "permits"
}

// resourceDesc says what kind of resource r is.
func resourceDesc(r sim.ResourceSummary) string {
	switch r.Type {
	case "hikari":
		return "the HikariCP pool " + r.Name
	case "bulkhead":
		return "the bulkhead " + r.Name
	case "executor":
		return "the called executor " + r.Name
	}
	return "the semaphore " + r.Name
}

// bottleneck adds, for a run with resources, the finding that names the
// stage that saturates, or says that none does.
func (e *Explanation) bottleneck() {
	s := e.Result.Summary
	if len(s.Resources) == 0 {
		return
	}
	lambda := float64(s.ArrivalRate)
	busy, blocked := float64(s.BusyMean), float64(*s.BlockedMean)
	var worst *sim.ResourceSummary
	for i := range s.Resources {
		r := &s.Resources[i]
		if worst == nil || float64(r.WaitersMean) > float64(worst.WaitersMean) {
			worst = r
		}
	}
	r := *worst
	one, many := unitWords(r)
	h := e.holdTime(r.Name)
	saturated := float64(r.Utilization) > 0.95 || float64(r.WaitersMean) >= 1
	// On virtual threads the "busy threads" are every live virtual thread,
	// mounted or not: many may be waiting for a carrier, not working
	// (R132, R145).
	vt := s.Virtual
	if !saturated {
		if vt != nil {
			e.add("Resources", "no resource limits the virtual threads: %s has %s of its %d %s in use on average (%s), %s of acquisitions had to wait; of the %s live virtual threads on average, %s are waiting for a resource, %s for a carrier.",
				resourceDesc(r), f1(float64(r.InUseMean)), r.Size, many, pct(float64(r.Utilization)), pct(nan0(float64(r.WaitedShare))), f1(busy), f1(blocked), f1(nan0(float64(vt.RunnableMean))))
			return
		}
		e.add("Resources", "no resource limits the pool: %s has %s of its %d %s in use on average (%s), %s of acquisitions had to wait; the busy threads (%s on average) are working, %s of them waiting for a resource.",
			resourceDesc(r), f1(float64(r.InUseMean)), r.Size, many, pct(float64(r.Utilization)), pct(nan0(float64(r.WaitedShare))), f1(busy), f1(blocked))
		return
	}
	text := fmt.Sprintf("%s is the bottleneck: its %d %s are in use %s of the time",
		capitalize(resourceDesc(r)), r.Size, many, pct(float64(r.Utilization)))
	if h > 0 && lambda > 0 {
		need := lambda * h
		holds := fmt.Sprintf("tasks hold a %s for %s on average", one, dur(h))
		if r.Type == "executor" {
			holds = fmt.Sprintf("each call's sub-task runs for %s on average", dur(h))
		}
		text += fmt.Sprintf("; %s, so %s requests/s need λ·h = %s %s at once, and %d %s serve at most %s requests/s",
			holds, f1(lambda), f1(need), many, r.Size, many, f1(float64(r.Size)/h))
	}
	text += "."
	if busy > 0 && vt != nil {
		text += fmt.Sprintf(" Of the %s live virtual threads, %s on average (%s) are parked waiting for a %s (%s), each for %s on average (p99 %s).",
			f1(busy), f1(blocked), pct(blocked/busy), one, waitState(r), dur(float64(r.WaitMean)), dur(float64(r.WaitP99)))
	} else if busy > 0 {
		text += fmt.Sprintf(" Of the %s busy threads, %s on average (%s) are not working but waiting for a %s (%s), each for %s on average (p99 %s).",
			f1(busy), f1(blocked), pct(blocked/busy), one, waitState(r), dur(float64(r.WaitMean)), dur(float64(r.WaitP99)))
	}
	if r.Timeouts > 0 {
		text += fmt.Sprintf(" %d acquisitions gave up (%s), ending their requests with an error.", r.Timeouts, timeoutWords(r))
	}
	if h > 0 && lambda > 0 {
		if n := int(math.Ceil(lambda*h*1.2)) + 1; n > r.Size {
			if r.Type == "executor" {
				text += fmt.Sprintf(" More request threads would only lengthen the queue of waiters; more threads in %s (about %d for 1.2 × the demand), or shorter sub-tasks, raise the ceiling.", r.Name, n)
			} else if vt != nil {
				text += fmt.Sprintf(" Nothing limits the virtual threads, so every request beyond the ceiling only lengthens the queue of waiters; more %s (about %d for 1.2 × the demand), or shorter holds, raise the ceiling.", many, n)
			} else {
				text += fmt.Sprintf(" More threads would only lengthen the queue of waiters; more %s (about %d for 1.2 × the demand), or shorter holds, raise the ceiling.", many, n)
			}
		}
	}
	e.add("Bottleneck", "%s", text)
}

// waitState is the thread state of a waiter, as a thread dump shows it.
func waitState(r sim.ResourceSummary) string {
	switch r.Type {
	case "hikari":
		return "TIMED_WAITING in ConcurrentBag.borrow"
	case "executor":
		return "WAITING in FutureTask.get for the sub-task's queueing and run"
	}
	return "WAITING in Semaphore.acquire"
}

// timeoutWords names a failed acquisition as the Java caller sees it.
func timeoutWords(r sim.ResourceSummary) string {
	switch r.Type {
	case "hikari":
		return "SQLTransientConnectionException after connectionTimeout, R151"
	case "bulkhead":
		return "BulkheadFullException, R162"
	case "executor":
		return "RejectedExecutionException, or TimeoutException from get(timeout)"
	}
	return "tryAcquire returned false, R160"
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

func nan0(x float64) float64 {
	if x != x {
		return 0
	}
	return x
}

// resourceBound reports whether a resource saturates: then the waits are
// the resource's, and sizing threads for λ·S misses the point.
func (e *Explanation) resourceBound() bool {
	for _, r := range e.Result.Summary.Resources {
		if float64(r.Utilization) > 0.95 || float64(r.WaitersMean) >= 1 {
			return true
		}
	}
	return false
}

// resourceWhatIfs proposes changing the saturated resource and the threads
// together: more units raise the ceiling; more threads only move the wait.
func (e *Explanation) resourceWhatIfs(add func(name, why string, sets ...string)) {
	s := e.Result.Summary
	for _, r := range s.Resources {
		if float64(r.Utilization) <= 0.95 && float64(r.WaitersMean) < 1 {
			continue
		}
		_, many := unitWords(r)
		key := "maximumPoolSize"
		switch r.Type {
		case "semaphore":
			key = "permits"
		case "bulkhead":
			key = "maxConcurrentCalls"
		}
		if r.Size == 0 {
			continue // an unbounded executor: no ceiling to raise
		}
		n := 2 * r.Size
		if h, lambda := e.holdTime(r.Name), float64(s.ArrivalRate); h > 0 && lambda > 0 {
			n = max(int(math.Ceil(lambda*h*1.2))+1, r.Size+1)
		}
		sets := []string{fmt.Sprintf("resources.%s.%s=%d", r.Name, key, n)}
		if r.Type == "executor" {
			// Its pool grows past core only with a bounded queue (R7):
			// the threads that run are core's.
			sets = []string{fmt.Sprintf("resources.%s.pool.max=%d", r.Name, n), fmt.Sprintf("resources.%s.pool.core=%d", r.Name, n)}
		}
		add(fmt.Sprintf("%s %s %d → %d", r.Name, many, r.Size, n), "raises the ceiling of the saturated stage", sets...)
		if c := e.Config; c.Max != 0 && c.Max < 1<<20 {
			same := "the same " + many
			if r.Type == "executor" {
				same = "the same " + r.Name + " pool"
			}
			add(fmt.Sprintf("threads (max) %d → %d", c.Max, 2*c.Max), "more threads with "+same+": they only join the waiters",
				fmt.Sprintf("pool.max=%d", 2*c.Max))
		}
	}
}

// Saturated returns the resource that limits the run — the one with the
// most waiters, if it is in use more than 95 % of the time or has a waiter
// on average — and a one-sentence verdict naming it with its figures; ok
// is false when no resource limits the run.
func Saturated(s sim.Summary) (r sim.ResourceSummary, verdict string, ok bool) {
	for _, x := range s.Resources {
		if float64(x.Utilization) > 0.95 || float64(x.WaitersMean) >= 1 {
			if !ok || float64(x.WaitersMean) > float64(r.WaitersMean) {
				r, ok = x, true
			}
		}
	}
	if !ok {
		return r, "", false
	}
	_, many := unitWords(r)
	verdict = fmt.Sprintf("Waits on %s: its %d %s are in use %s of the time", resourceDesc(r), r.Size, many, pct(nan0(float64(r.Utilization))))
	if s.BlockedMean != nil && float64(s.BusyMean) > 0 {
		threads := "busy threads"
		if s.Virtual != nil {
			threads = "live virtual threads" // mounted or not (R132)
		}
		verdict += fmt.Sprintf(", and %s of the %s %s wait for it (%s)", f1(float64(*s.BlockedMean)), f1(float64(s.BusyMean)), threads, waitState(r))
	}
	verdict += fmt.Sprintf(", %s on average", dur(float64(r.WaitMean)))
	if s.QueuedEnd > 0 {
		verdict += fmt.Sprintf("; %d requests queue in front of the pool", s.QueuedEnd)
	}
	return r, verdict + ".", true
}
