package sim

import (
	"fmt"
	"testing"
)

// TestCalledExecutorErlangC: tasks that call a fixed pool of 8 threads
// with exponential sub-tasks, from a pool that never runs short, make the
// called pool M/M/8: a call waits C(8, a)/(8μ − λ) in its queue plus the
// sub-task's own 1/μ (Erlang C).
func TestCalledExecutorErlangC(t *testing.T) {
	if testing.Short() {
		t.Skip("replicated long runs")
	}
	const c, lambda, mu = 8, 200.0, 1000 / 36.0
	theory := erlangC(c, lambda/mu)/(c*mu-lambda) + 1/mu
	y := fmt.Sprintf(`duration: 1h
warmup: 5m
sample: 1m
pool: {preset: fixed, core: 400}
resources:
  async: {type: executor, pool: {preset: fixed, core: %d}}
workload:
  arrivals: {process: poisson, rate: %v}
  service: {steps: [{call: async, for: {dist: exponential, mean: %vms}}]}
`, c, lambda, 1000/mu)
	mean, half := replicate(t, y, func(s Summary) float64 { return float64(s.Resources[0].WaitMean) })
	checkAgainst(t, "a call to a fixed pool of 8, M/M/8 response (Erlang C)", theory, mean, half, 0.05)
}

// TestCalledExecutorFates: a RejectedExecutionException from a full
// called pool reaches its caller at once (an error); a DiscardPolicy drop
// leaves it waiting until get(timeout) throws; under CallerRunsPolicy the
// caller runs the sub-task itself and nothing fails; a timed-out caller
// leaves its sub-task running. The books of both pools balance after
// every event.
func TestCalledExecutorFates(t *testing.T) {
	base := `duration: 2m
warmup: 10s
sample: 1s
pool: {preset: fixed, core: 100}
resources:
  async: {type: executor, pool: {core: 2, max: 2, queue: {type: array, capacity: 4}, rejection: %s}}
workload:
  arrivals: {process: poisson, rate: 60}
  service: {steps: [{call: async, for: {dist: exponential, mean: 40ms}, timeout: 300ms}, {compute: {dist: constant, value: 1ms}}]}
`
	run := func(policy string) Summary { return runAll(t, parse(t, fmt.Sprintf(base, policy)), true).res.Summary }
	abort, discard, callerRuns := run("abort"), run("discard"), run("caller-runs")
	for name, s := range map[string]Summary{"abort": abort, "discard": discard, "caller-runs": callerRuns} {
		t.Logf("%s: %d completed, %d resource errors, %d failed calls of %d, wait mean %.3fs p99 %.3fs", name, s.Completed, *s.ResourceErrors,
			s.Resources[0].Timeouts, s.Resources[0].Acquisitions, float64(s.Resources[0].WaitMean), float64(s.Resources[0].WaitP99))
	}
	// ρ = 60 × 40ms / 2 = 1.2: the called pool is overloaded.
	if *abort.ResourceErrors == 0 || float64(abort.Resources[0].WaitMax) > 0.3 {
		t.Errorf("abort: want rejected calls failing at once, none waiting to the timeout: %d errors, max wait %v", *abort.ResourceErrors, abort.Resources[0].WaitMax)
	}
	if *discard.ResourceErrors == 0 || float64(discard.Resources[0].WaitMax) < 0.3 {
		t.Errorf("discard: want callers waiting until get(300ms) throws: %d errors, max wait %v", *discard.ResourceErrors, discard.Resources[0].WaitMax)
	}
	if *callerRuns.ResourceErrors > *abort.ResourceErrors/10 {
		t.Errorf("caller-runs: the caller runs the rejected sub-task itself, yet %d calls failed (abort: %d)", *callerRuns.ResourceErrors, *abort.ResourceErrors)
	}
}
