package output

import (
	"fmt"
	"math"
	"strings"

	"github.com/poolsim/poolsim/explain"
	"github.com/poolsim/poolsim/model"
	"github.com/poolsim/poolsim/report"
	"github.com/poolsim/poolsim/scenarios"
	"github.com/poolsim/poolsim/sim"
)

// Answer is what a run says, as a report and poolsim serve open with it: a
// verdict in one sentence and the headline figures — the pool size, busy
// and idle workers by thread state in the steady state, the p99 wait, the
// rejections and the threads created — in human units.
func Answer(sc *scenarios.Scenario, res *sim.Result) *report.Answer {
	s := res.Summary
	a := &report.Answer{}
	a.Verdict, a.Tone = verdict(sc, res)
	c := sc.Pool.Config
	steady := "steady state"
	if sc.Warmup > 0 {
		steady = "after the warmup (" + report.Seconds(sc.Warmup.Seconds()) + ")"
	}
	fig := func(key, raw, label, value, note string) {
		a.Figures = append(a.Figures, report.Figure{Key: key, Raw: raw, Label: label, Value: value, Note: note})
	}
	stat := func(x sim.Stat) string { return jsonNumber(float64(x)) }
	fig("pool_size_mean", stat(s.PoolSizeMean), "pool size", report.Number(float64(s.PoolSizeMean)),
		fmt.Sprintf("%s; core %d, max %s", steady, c.Core, model.SizeString(c.Max)))
	fig("busy_mean", stat(s.BusyMean), "busy", report.Number(float64(s.BusyMean)), "RUNNABLE, on average")
	fig("idle_timed_mean", stat(s.IdleTimedMean), "idle TIMED_WAITING", report.Number(float64(s.IdleTimedMean)), "in poll(keepAlive): may time out")
	fig("idle_untimed_mean", stat(s.IdleUntimedMean), "idle WAITING", report.Number(float64(s.IdleUntimedMean)), "in take(): never time out")
	if s.QueueLenMax > 0 || s.QueuedEnd > 0 {
		fig("queue_len_mean", stat(s.QueueLenMean), "queue", report.Number(float64(s.QueueLenMean)),
			fmt.Sprintf("mean; max %s, %s at the end", report.Count(int64(s.QueueLenMax)), report.Count(s.QueuedEnd)))
	}
	fig("wait_p99_s", stat(s.WaitP99), "p99 wait", report.Seconds(float64(s.WaitP99)), "max "+report.Seconds(float64(s.WaitMax)))
	rejNote := "of " + report.Count(s.Submitted) + " submitted"
	if s.Rejected > 0 && s.Submitted > 0 {
		rejNote = report.Percent(float64(s.Rejected)/float64(s.Submitted)) + " " + rejNote
	}
	fig("rejected", fmt.Sprint(s.Rejected), "rejected", report.Count(s.Rejected), rejNote)
	fig("threads_created", fmt.Sprint(s.ThreadsCreated), "threads created", report.Count(s.ThreadsCreated),
		fmt.Sprintf("%s exited; largest pool %s", report.Count(s.ThreadsExited), report.Count(int64(s.LargestPoolSize))))
	if s.BlockedMean != nil {
		fig("blocked_mean", stat(*s.BlockedMean), "blocked on resources", report.Number(float64(*s.BlockedMean)),
			fmt.Sprintf("of the busy, on average; max %s", report.Count(int64(*s.BlockedMax))))
	}
	if cl := s.Client; cl != nil {
		fig("client.goodput_per_s", stat(cl.Goodput), "goodput", report.Number(float64(cl.Goodput))+"/s",
			fmt.Sprintf("answers in time; %s attempts per request", report.Number(float64(cl.Amplification))))
	}
	return a
}

// jsonNumber is a float as summary.json prints it ("null" when undefined).
func jsonNumber(x float64) string {
	b, _ := sim.Stat(x).MarshalJSON()
	return string(b)
}

// verdict says in one sentence what the run shows, and how it should be
// read: "ok", "warn" or "bad" (see report.Answer).
func verdict(sc *scenarios.Scenario, res *sim.Result) (string, string) {
	s := res.Summary
	c := sc.Pool.Config
	lambda, svc := float64(s.ArrivalRate), float64(s.ServiceMean)
	pool, busy := float64(s.PoolSizeMean), float64(s.BusyMean)
	idleTimed, idleUntimed := float64(s.IdleTimedMean), float64(s.IdleUntimedMean)
	full := s.Rejected - s.RejectedAfterShutdown
	runnable := c.Max
	if c.Queue != model.Synchronous && c.QueueCapacity == model.Unbounded && c.Flavor != model.Tomcat && c.Flavor != model.Jetty {
		runnable = max(c.Core, 1) // the queue never refuses: the pool stays at core (R7)
	}
	switch {
	case s.Interrupted:
		return fmt.Sprintf("Interrupted at %s of %s: the figures cover the run so far.", report.Seconds(s.SimTime), report.Seconds(sc.Duration.Seconds())), "warn"
	case !res.Complete:
		return "The run stopped early: " + res.StopReason + ". The figures cover the run until then.", "bad"
	case math.IsNaN(pool):
		return "No steady state to judge: no timeline sample falls after the warmup; lengthen the duration or shorten the warmup.", "warn"
	case explain.RetryStorm(s.Client):
		cl := s.Client
		return fmt.Sprintf("Retry storm: each request cost %s attempts and %s of %s requests failed; the callers' retries and abandoned tasks keep the pool overloaded (goodput %s/s).",
			report.Number(float64(cl.Amplification)), report.Count(cl.Failed), report.Count(cl.Requests), report.Number(float64(cl.Goodput))), "bad"
	case len(s.Resources) > 0 && saturated(s):
		_, v, _ := explain.Saturated(s)
		tone := "warn"
		if s.QueuedEnd > 0 || (s.ResourceErrors != nil && *s.ResourceErrors > 0) {
			tone = "bad"
		}
		return v, tone
	case lambda > 0 && svc > 0 && runnable != model.Unbounded && lambda*svc > 0.98*float64(runnable) && s.QueuedEnd > 0:
		return fmt.Sprintf("Overloaded: the traffic keeps λ·S = %s workers busy but the pool runs at most %d, so the queue grows (%s tasks at the end) and so do the waits (p99 %s).",
			report.Number(lambda*svc), runnable, report.Count(s.QueuedEnd), report.Seconds(float64(s.WaitP99))), "bad"
	case full > 0 && c.Rejection == model.CallerRunsPolicy:
		return fmt.Sprintf("Back-pressure: %s of %s tasks (%s) found every worker busy and the queue full, and ran on the submitting thread (caller-runs), delaying later submissions by up to %s.",
			report.Count(full), report.Count(s.Submitted), report.Percent(float64(full)/float64(max(s.Submitted, 1))), report.Seconds(float64(s.SubmitDelayMax))), "warn"
	case full > 0:
		return fmt.Sprintf("Rejects %s of %s tasks (%s): at those instants every worker was busy and the queue could take no more; policy %s.",
			report.Count(full), report.Count(s.Submitted), report.Percent(float64(full)/float64(max(s.Submitted, 1))), c.Rejection), "bad"
	case float64(s.WaitP99) > math.Max(svc, 0.1):
		return fmt.Sprintf("Tasks queue: the p99 wait is %s against a mean service time of %s, with %s of %s workers busy on average.",
			report.Seconds(float64(s.WaitP99)), report.Seconds(svc), report.Number(busy), report.Number(pool)), "warn"
	case idleTimed+idleUntimed >= 3 && idleTimed+idleUntimed > 4*busy && pool > float64(c.Core)+0.5:
		return fmt.Sprintf("Mostly idle: the pool holds %s workers for %s busy on average, %s of them TIMED_WAITING above core (%d); a worker leaves only after keepAlive (%s) without a task.",
			report.Number(pool), report.Number(busy), report.Number(idleTimed), c.Core, report.Seconds(c.KeepAlive.Seconds())), "warn"
	}
	wait := "no wait at p99"
	if float64(s.WaitP99) > 0 {
		wait = "p99 wait " + report.Seconds(float64(s.WaitP99))
	}
	return fmt.Sprintf("Keeps up: %s workers, %s busy on average, %s, nothing rejected.", report.Number(pool), report.Number(busy), wait), "ok"
}

func saturated(s sim.Summary) bool {
	_, _, ok := explain.Saturated(s)
	return ok
}

// Explanation turns an explanation into a report's findings and what-ifs.
func Explanation(e *explain.Explanation) ([]report.Finding, *report.WhatIfs) {
	var fs []report.Finding
	for _, f := range e.Findings {
		fs = append(fs, report.Finding{Title: f.Title, Text: f.Text})
	}
	if len(e.WhatIfs) == 0 {
		return fs, nil
	}
	w := &report.WhatIfs{
		Intro:   fmt.Sprintf("The same traffic (seed %d) re-simulated with one change each; steady-state means, and the worst per-interval p99 wait over the whole run.", e.Scenario.Seed),
		Columns: []string{"pool", "idle TIMED_WAITING", "idle WAITING", "busy", "p99 wait", "peak p99 wait", "rejected", "threads created"},
	}
	response, goodput := len(e.Scenario.Resources) > 0, !math.IsNaN(e.Base.Goodput)
	if response {
		w.Columns = append(w.Columns, "p99 response")
	}
	if goodput {
		w.Columns = append(w.Columns, "goodput")
	}
	cells := func(m explain.Metrics, rel bool) []string {
		c := whatIfCells(m, e.Base, rel)
		if response {
			c = append(c, report.Seconds(m.ResponseP99))
		}
		if goodput {
			c = append(c, report.Number(m.Goodput)+"/s")
		}
		return c
	}
	w.Rows = append(w.Rows, report.WhatIfRow{Name: "as configured", Cells: cells(e.Base, false)})
	for _, wi := range e.WhatIfs {
		row := report.WhatIfRow{Name: wi.Name, Why: wi.Why, Sets: wi.Sets, Error: wi.Error}
		if wi.Error == "" {
			row.Cells = cells(wi.Alt, true)
		}
		w.Rows = append(w.Rows, row)
	}
	return fs, w
}

// whatIfCells are a what-if's figures, the counts of workers with their
// change against the base when it is at least 1 %.
func whatIfCells(m, base explain.Metrics, rel bool) []string {
	with := func(v, b float64) string {
		s := report.Number(v)
		if r := 100 * (v - b) / b; rel && b >= 1 && math.Abs(r) >= 0.5 {
			s += fmt.Sprintf(" (%+.0f %%)", r)
		}
		return strings.Replace(s, "-", "−", 1)
	}
	return []string{with(m.PoolMean, base.PoolMean), with(m.IdleTimed, base.IdleTimed), with(m.IdleUntimed, base.IdleUntimed),
		report.Number(m.Busy), report.Seconds(m.WaitP99), report.Seconds(m.PeakWaitP99), report.Count(m.Rejected), report.Count(m.ThreadsCreated)}
}
