package explain

import (
	"fmt"

	"github.com/poolsim/poolsim/sim"
)

// This file explains what the callers saw (workload.client, users): how
// many attempts their requests cost, what timed out, the work done for
// callers that had given up, and — when retries multiply the load — the
// retry storm that can outlive its cause.

// RetryStorm reports whether the callers' retries multiplied the load:
// at least 1.5 attempts per request, most of them retries after a timeout
// or a rejection.
func RetryStorm(c *sim.ClientSummary) bool { return retryStorm(c) }

func retryStorm(c *sim.ClientSummary) bool {
	return c != nil && c.Requests > 0 && float64(c.Amplification) >= 1.5 && c.Retries > c.Requests/3
}

// callers adds the finding on the callers, for a run that has some.
func (e *Explanation) callers() {
	s := e.Result.Summary
	c := s.Client
	if c == nil || c.Requests == 0 {
		return
	}
	share := func(n int64) string { return pct(float64(n) / float64(c.Requests)) }
	who := "The callers"
	if c.Users > 0 {
		who = fmt.Sprintf("The %d closed-loop users", c.Users)
	}
	text := fmt.Sprintf("%s sent %d requests in %d attempts (%s per request); %s were answered, %s failed for good (%d timeouts, %d rejections, %d errors over all attempts)",
		who, c.Requests, c.Attempts, f2(float64(c.Amplification)), share(c.Succeeded), share(c.Failed), c.Timeouts, c.Rejected, c.Errors)
	if c.Dropped > 0 {
		text += fmt.Sprintf("; %d attempts were discarded without a word to their caller, who waited until its timeout", c.Dropped)
	}
	text += fmt.Sprintf(". In the steady state %s answers/s reached a caller in time (goodput), in %s on average from the first attempt (p99 %s).",
		f1(float64(c.Goodput)), dur(float64(c.ResponseMean)), dur(float64(c.ResponseP99)))
	if c.WastedTasks > 0 {
		text += fmt.Sprintf(" A pool cannot know that a caller left: %d tasks (%ss of work, %s of the tasks run) ran to their end for callers that had given up.",
			c.WastedTasks, f1(float64(c.WastedWork)), pct(float64(c.WastedTasks)/float64(max(s.Completed, 1))))
	}
	if c.Users > 0 && c.Succeeded > 0 {
		text += fmt.Sprintf(" A closed loop regulates itself: each user waits for its answer before thinking and sending again, so a slower pool means fewer requests, not a longer queue (%d users cannot have more than %d requests in flight).",
			c.Users, c.Users)
	}
	e.add("Callers", "%s", text)
	if retryStorm(c) {
		e.add("Retry storm", "the retries multiply the load: each request cost %s attempts, so the pool received %s tasks/s for %s answered in time. Every attempt a caller abandons still runs, and every retry adds one more task exactly when the pool is slowest; once the queue is long enough that most attempts time out, the load stays above what the threads can do even after the cause is gone (a metastable failure). A retry budget (retries at most a share of requests), fewer retries or a longer back-off break the loop; more threads only help if the work behind them scales.",
			f2(float64(c.Amplification)), f1(float64(s.ArrivalRate)), f1(float64(c.Goodput)))
	}
}

// clientWhatIfs proposes bounding the retries when they multiplied the
// load.
func (e *Explanation) clientWhatIfs(add func(name, why string, sets ...string)) {
	c := e.Result.Summary.Client
	if !retryStorm(c) || e.Scenario.Client == nil {
		return
	}
	if e.Scenario.Client.RetryBudget == 0 || e.Scenario.Client.RetryBudget > 0.1 {
		add("retry budget 10 %", "retries at most a tenth of the requests: the load stays near the callers' own",
			"workload.client.retryBudget=0.1")
	}
	add("no retries", "each request is one attempt: what the pool does without the callers' amplification",
		"workload.client.retries=0")
}

// retryShare says, for the Load finding, how much of the traffic the
// callers' retries are.
func retryShare(c *sim.ClientSummary) string {
	if c == nil || c.Retries == 0 || c.Attempts == 0 {
		return ""
	}
	return fmt.Sprintf(", %s of them the callers' retries", pct(float64(c.Retries)/float64(c.Attempts)))
}
