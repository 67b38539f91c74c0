package sim

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Closed-form queueing results against the simulator. Each check runs R
// independent replications (seeds 1..R); the replication means are i.i.d.,
// so their average has standard error s/sqrt(R), and the check passes when
// the theory lies inside a Student-t 99.9% confidence interval around the
// simulated average. Runs are long enough that this interval is a few
// percent of the value, so the checks are strict; seeds are fixed, so they
// are deterministic.

const replications = 10

// replicate runs yaml with seeds 1..R and returns the mean and the 99.9%
// confidence half-width of metric.
func replicate(t *testing.T, yaml string, metric func(Summary) float64) (mean, half float64) {
	t.Helper()
	xs := make([]float64, replications)
	for i := range xs {
		sc := parse(t, yaml, fmt.Sprintf("seed=%d", i+1))
		xs[i] = metric(runAll(t, sc, false).res.Summary)
	}
	mean, sd := stat.MeanStdDev(xs, nil)
	tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(replications - 1)}.Quantile(1 - 0.001/2)
	return mean, tq * sd / math.Sqrt(replications)
}

func checkAgainst(t *testing.T, name string, theory, mean, half, maxRelHalf float64) {
	t.Helper()
	t.Logf("%s: theory %.6g, simulated %.6g ± %.3g (99.9%% CI, %d replications), error %+.2f%%",
		name, theory, mean, half, replications, 100*(mean-theory)/theory)
	if math.Abs(mean-theory) > half {
		t.Errorf("%s: theory %.6g outside the simulated %.6g ± %.3g", name, theory, mean, half)
	}
	if half > maxRelHalf*theory {
		t.Errorf("%s: the interval ±%.3g is wider than %.0f%% of the value: the check is too weak", name, half, 100*maxRelHalf)
	}
}

// erlangC is the probability that an arrival waits in M/M/c with offered load a.
func erlangC(c int, a float64) float64 {
	b := erlangB(c, a)
	rho := a / float64(c)
	return b / (1 - rho*(1-b))
}

// erlangB is the blocking probability of M/G/c/c (recursive, stable).
func erlangB(c int, a float64) float64 {
	b := 1.0
	for k := 1; k <= c; k++ {
		b = a * b / (float64(k) + a*b)
	}
	return b
}

// TestErlangC: a fixed pool (FIFO, unbounded queue) is M/M/c; its mean wait
// is C(c, a) / (cμ − λ).
func TestErlangC(t *testing.T) {
	const c, lambda, mu = 4, 28.0, 10.0
	theory := erlangC(c, lambda/mu) / (c*mu - lambda)
	y := fmt.Sprintf(`duration: 2h
warmup: 5m
sample: 1m
pool: {preset: fixed, core: %d}
workload: {arrivals: {process: poisson, rate: %v}, service: {dist: exponential, mean: %vms}}
`, c, lambda, 1000/mu)
	mean, half := replicate(t, y, func(s Summary) float64 { return float64(s.WaitMean) })
	checkAgainst(t, "M/M/4 mean wait (Erlang C)", theory, mean, half, 0.05)
}

// TestErlangB: a pool of c threads on a SynchronousQueue with AbortPolicy
// is the loss system M/G/c/c; its rejected share is B(c, a) whatever the
// service law (insensitivity), checked with exponential and lognormal cv 2.
func TestErlangB(t *testing.T) {
	const c, lambda, mu = 10, 80.0, 10.0
	theory := erlangB(c, lambda/mu)
	for _, svc := range []string{
		"{dist: exponential, mean: 100ms}",
		"{dist: lognormal, mean: 100ms, cv: 2}",
	} {
		y := fmt.Sprintf(`duration: 1h
warmup: 2m
sample: 1m
pool: {core: %d, max: %d, keepAlive: 0s, queue: {type: synchronous}, rejection: abort}
workload: {arrivals: {process: poisson, rate: %v}, service: %s}
`, c, c, lambda, svc)
		mean, half := replicate(t, y, func(s Summary) float64 { return float64(s.Rejected) / float64(s.Submitted) })
		checkAgainst(t, "M/G/10/10 rejected share (Erlang B), service "+svc, theory, mean, half, 0.05)
	}
}

// TestMMcK: core = max = c with an ArrayBlockingQueue of K−c is M/M/c/K:
// blocking probability p_K and mean wait L_q / (λ(1 − p_K)).
func TestMMcK(t *testing.T) {
	const c, k, lambda, mu = 3, 8, 30.0, 10.0
	a := lambda / mu
	p := make([]float64, k+1)
	p[0] = 1
	for n := 1; n <= k; n++ {
		if n <= c {
			p[n] = p[n-1] * a / float64(n)
		} else {
			p[n] = p[n-1] * a / c
		}
	}
	sum := 0.0
	for _, v := range p {
		sum += v
	}
	lq := 0.0
	for n := range p {
		p[n] /= sum
		if n > c {
			lq += float64(n-c) * p[n]
		}
	}
	block := p[k]
	wq := lq / (lambda * (1 - block))
	y := fmt.Sprintf(`duration: 2h
warmup: 5m
sample: 1m
pool: {core: %d, max: %d, keepAlive: 0s, queue: {type: array, capacity: %d}, rejection: discard}
workload: {arrivals: {process: poisson, rate: %v}, service: {dist: exponential, mean: 100ms}}
`, c, c, k-c, lambda)
	mean, half := replicate(t, y, func(s Summary) float64 { return float64(s.Rejected) / float64(s.Submitted) })
	checkAgainst(t, "M/M/3/8 blocking probability", block, mean, half, 0.05)
	mean, half = replicate(t, y, func(s Summary) float64 { return float64(s.WaitMean) })
	checkAgainst(t, "M/M/3/8 mean wait", wq, mean, half, 0.05)
}

// TestPollaczekKhinchine: a single thread is M/G/1; its mean wait is
// λE[S²] / (2(1 − ρ)) (lognormal service, cv 1.5, ρ = 0.6).
func TestPollaczekKhinchine(t *testing.T) {
	const lambda, m, cv = 12.0, 0.05, 1.5
	rho := lambda * m
	es2 := m * m * (1 + cv*cv)
	theory := lambda * es2 / (2 * (1 - rho))
	y := fmt.Sprintf(`duration: 4h
warmup: 10m
sample: 1m
pool: {preset: single}
workload: {arrivals: {process: poisson, rate: %v}, service: {dist: lognormal, mean: 50ms, cv: %v}}
`, lambda, cv)
	mean, half := replicate(t, y, func(s Summary) float64 { return float64(s.WaitMean) })
	checkAgainst(t, "M/G/1 mean wait (Pollaczek–Khinchine)", theory, mean, half, 0.08)
}
