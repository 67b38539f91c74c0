package sim

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// machineRepairman returns the throughput and the mean response time of
// the finite-source queue M/M/c//N: N callers thinking for an exponential
// time of mean z between an answer and their next request, c servers of
// exponential service of mean s. Its stationary law is a birth–death
// chain: births (N−k)/z, deaths min(k, c)/s at k requests in the system;
// the response time follows from Little's law on the closed loop,
// R = N/X − z.
func machineRepairman(n, c int, z, s float64) (x, r float64) {
	p := []float64{1}
	for k := 1; k <= n; k++ {
		p = append(p, p[k-1]*float64(n-k+1)/z*s/float64(min(k, c)))
	}
	sum, served := 0.0, 0.0
	for k, v := range p {
		sum += v
		served += v * float64(min(k, c)) / s
	}
	x = served / sum
	return x, float64(n)/x - z
}

// TestUsersMachineRepairman: closed-loop users on a fixed pool are the
// machine-repairman queue M/M/c//N: the callers' goodput and mean response
// time (from sending to the answer) match its closed form.
func TestUsersMachineRepairman(t *testing.T) {
	if testing.Short() {
		t.Skip("replicated long runs")
	}
	const n, c, z, s = 40, 4, 1.0, 0.1
	x, r := machineRepairman(n, c, z, s)
	y := fmt.Sprintf(`duration: 2h
warmup: 5m
sample: 1m
pool: {preset: fixed, core: %d}
workload:
  users: {count: %d, think: {dist: exponential, mean: %vs}}
  service: {dist: exponential, mean: %vms}
`, c, n, z, s*1000)
	mean, half := replicate(t, y, func(s Summary) float64 { return float64(s.Client.Goodput) })
	checkAgainst(t, "40 users on 4 threads, M/M/4//40 throughput", x, mean, half, 0.02)
	mean, half = replicate(t, y, func(s Summary) float64 { return float64(s.Client.ResponseMean) })
	checkAgainst(t, "40 users on 4 threads, M/M/4//40 response time", r, mean, half, 0.05)
}

// TestClientTimeoutMM1: a caller that gives up after a fixed D leaves its
// task to the pool, which runs it anyway: the pool is still M/M/1, whose
// response time is exponential of rate μ − λ, so the share of requests
// that time out is exp(−(μ−λ)D), and as many tasks end after their caller
// left (wasted work).
func TestClientTimeoutMM1(t *testing.T) {
	if testing.Short() {
		t.Skip("replicated long runs")
	}
	const lambda, mu, d = 8.0, 10.0, 0.3
	theory := math.Exp(-(mu - lambda) * d)
	y := fmt.Sprintf(`duration: 2h
warmup: 5m
sample: 1m
pool: {preset: fixed, core: 1}
workload:
  arrivals: {process: poisson, rate: %v}
  service: {dist: exponential, mean: %vms}
  client: {timeout: %vms, retries: 0}
`, lambda, 1000/mu, d*1000)
	mean, half := replicate(t, y, func(s Summary) float64 { return float64(s.Client.Timeouts) / float64(s.Client.Requests) })
	checkAgainst(t, "M/M/1, share of callers giving up after 300ms", theory, mean, half, 0.05)
	mean, half = replicate(t, y, func(s Summary) float64 { return float64(s.Client.WastedTasks) / float64(s.Client.Requests) })
	checkAgainst(t, "M/M/1, share of tasks answering nobody", theory, mean, half, 0.05)
}

// checkClientBooks checks the identities every client summary keeps.
func checkClientBooks(t *testing.T, c *ClientSummary) {
	t.Helper()
	if c.Attempts != c.Requests+c.Retries {
		t.Errorf("attempts %d != requests %d + retries %d", c.Attempts, c.Requests, c.Retries)
	}
	if c.Timeouts+c.Rejected+c.Errors < c.Retries+c.Failed {
		t.Errorf("%d timeouts, %d rejected, %d errors: fewer than the %d retries and %d failures they caused", c.Timeouts, c.Rejected, c.Errors, c.Retries, c.Failed)
	}
	if c.Succeeded+c.Failed+c.Unfinished != c.Requests || c.Unfinished < 0 {
		t.Errorf("succeeded %d + failed %d + unfinished %d != requests %d", c.Succeeded, c.Failed, c.Unfinished, c.Requests)
	}
	if got := float64(c.Amplification); math.Abs(got-float64(c.Attempts)/float64(c.Requests)) > 1e-12 {
		t.Errorf("amplification %v, want attempts/requests", got)
	}
}

// TestClientRetryStorm: callers that retry after their timeout add load
// exactly when the pool is slow; a budget caps the retries at its share of
// the requests, and the books balance either way.
func TestClientRetryStorm(t *testing.T) {
	base := `duration: 10m
warmup: 1m
sample: 10s
pool: {preset: fixed, core: 4}
workload:
  arrivals: {process: poisson, rate: 30}
  service: {dist: exponential, mean: 100ms}
  client: {timeout: 300ms, retries: 3, backoff: 50ms%s}
`
	storm := runAll(t, parse(t, fmt.Sprintf(base, "")), true).res.Summary
	capped := runAll(t, parse(t, fmt.Sprintf(base, ", retryBudget: 0.1")), true).res.Summary
	plain := runAll(t, parse(t, strings.Split(base, "  client:")[0]), true).res.Summary
	for _, s := range []Summary{storm, capped} {
		checkClientBooks(t, s.Client)
	}
	if plain.Client != nil {
		t.Fatalf("no client block, but a client summary: %+v", plain.Client)
	}
	t.Logf("storm: amplification %.2f, goodput %.1f/s, failed %d of %d; budget 0.1: amplification %.2f, goodput %.1f/s; no client: wait p99 %.3fs",
		float64(storm.Client.Amplification), float64(storm.Client.Goodput), storm.Client.Failed, storm.Client.Requests,
		float64(capped.Client.Amplification), float64(capped.Client.Goodput), float64(plain.WaitP99))
	// At ρ = 0.75 some callers wait past 300ms; their retries push the
	// offered load past the 40/s the threads can do: the queue grows, and
	// nearly every request ends in failure, while a budget of 10 % keeps
	// the pool below saturation.
	if a := float64(storm.Client.Amplification); a < 2 {
		t.Errorf("retry storm: amplification %.2f, want > 2 (retries at ρ 0.9 overload the pool)", a)
	}
	if storm.Client.WastedTasks == 0 {
		t.Error("retry storm: no wasted work")
	}
	if c := capped.Client; float64(c.Retries) > 0.1*float64(c.Requests)+1 {
		t.Errorf("budget 0.1: %d retries for %d requests", c.Retries, c.Requests)
	}
	if capped.Client.Goodput <= storm.Client.Goodput {
		t.Errorf("the budget should keep goodput up: %v with it, %v without", capped.Client.Goodput, storm.Client.Goodput)
	}
}

// TestClientHearsRejections: RejectedExecutionException reaches the caller,
// who retries after its back-off; a DiscardPolicy drop reaches nobody, and
// the caller waits until its timeout.
func TestClientHearsRejections(t *testing.T) {
	base := `duration: 5m
warmup: 30s
sample: 10s
pool: {core: 2, max: 2, queue: {type: synchronous}, rejection: %s}
workload:
  arrivals: {process: poisson, rate: 20}
  service: {dist: exponential, mean: 100ms}
  client: {timeout: 2s, retries: 2, backoff: 200ms, retryOn: [rejected]}
`
	abort := runAll(t, parse(t, fmt.Sprintf(base, "abort")), true).res.Summary.Client
	discard := runAll(t, parse(t, fmt.Sprintf(base, "discard")), true).res.Summary.Client
	checkClientBooks(t, abort)
	checkClientBooks(t, discard)
	if abort.Rejected == 0 || abort.Retries == 0 || abort.Dropped != 0 || abort.Timeouts != 0 {
		t.Errorf("abort: want rejections retried, none dropped or timed out: %+v", abort)
	}
	if discard.Rejected != 0 || discard.Retries != 0 || discard.Dropped == 0 || discard.Timeouts > discard.Dropped || discard.Dropped-discard.Timeouts > discard.Unfinished {
		t.Errorf("discard: want drops, each ending in a timeout not retried (retryOn: rejected): %+v", discard)
	}
	// Erlang B: with a = 2 on 2 threads, 2/5 of the first attempts
	// would be refused; the retries double the load, to about a = 4 and
	// B(2, 4) = 8/13.
	if r := float64(abort.Rejected) / float64(abort.Attempts); r < 0.4 || r > 0.7 {
		t.Errorf("abort: %.3f of attempts rejected, Erlang B says 0.4", r)
	}
}

// TestUsersSameSeedSameBytes: closed-loop users draw from their own
// streams, so a run repeats byte for byte.
func TestUsersSameSeedSameBytes(t *testing.T) {
	y := `duration: 2m
warmup: 10s
sample: 5s
pool: {preset: tomcat, core: 2, max: 8}
workload:
  users: {count: 30, think: {dist: exponential, mean: 500ms}}
  service: {dist: lognormal, mean: 80ms, cv: 1.5}
  client: {timeout: 1s, retries: 1}
`
	a, b := runAll(t, parse(t, y), true), runAll(t, parse(t, y), true)
	if a.summary != b.summary || a.timeline != b.timeline {
		t.Fatal("same scenario and seed, different outputs")
	}
	checkClientBooks(t, a.res.Summary.Client)
	if a.res.Summary.Client.Users != 30 {
		t.Errorf("users %d, want 30", a.res.Summary.Client.Users)
	}
}
