package sim

import (
	"context"
	"fmt"
	"io"
	"math"
	"testing"
	"time"

	"github.com/poolsim/poolsim/workloads"
)

// Closed-form checks of the CPU model (host.cpus, processor sharing), in the
// manner of queueing_test.go: R replications, the theory inside the 99.9%
// Student-t interval of their mean, the interval a few percent wide.
//
// Why the formulas hold. With c CPUs shared by processor sharing, n
// runnable tasks are served at a total rate min(n, c) split equally among
// them: Kelly's symmetric queue with service-rate function φ(n) = min(n, c).
// With exponential CPU demands the number of runnable tasks is then the same
// birth–death process as the FCFS M/M/c queue (total rate min(n, c)·μ in
// both), so the mean number, and by Little's law the mean response time,
// are M/M/c's: S + C(c, a)/(cμ − λ); with c = 1, S/(1 − ρ). Symmetric queues
// are insensitive: the stationary distribution of n depends on the demand
// law only through its mean, so the same holds for lognormal demands. A
// task that computes and then blocks visits a symmetric queue and then an
// infinite-server one: a Kelly network, product-form and insensitive, whose
// mean response time is the sum of the stations' (the first one's
// departures are Poisson again). A pool of N ≥ 1 threads on one CPU serves
// at total rate μ whenever a task is present, so it too is M/M/1 in the
// mean, whatever N.

// mmcResponse is the mean response time of M/M/c with arrival rate lambda
// and mean service s (seconds).
func mmcResponse(c int, lambda, s float64) float64 {
	a := lambda * s
	return s + erlangC(c, a)/(float64(c)/s-lambda)
}

func TestProcessorSharingClosedForm(t *testing.T) {
	if testing.Short() {
		t.Skip("long statistical replications (-short)")
	}
	tests := []struct {
		name       string
		pool, host string
		service    string
		rate       float64
		theory     float64 // mean response time, seconds
		maxRelHalf float64 // the widest interval that still makes a strict check
		duration   string
	}{
		// M/M/1-PS: unbounded threads (a cached pool hands each task to a
		// thread at once) on one CPU, exponential demand 10 ms, ρ = 0.7.
		{"M/M/1-PS", "{preset: cached}", "{cpus: 1}", "{cpu: {dist: exponential, mean: 10ms}}", 70, 0.010 / 0.3, 0.05, "2h"},
		// M/G/1-PS is insensitive: lognormal demand cv 2, same mean, same answer.
		{"M/G/1-PS lognormal cv 2", "{preset: cached}", "{cpus: 1}", "{cpu: {dist: lognormal, mean: 10ms, cv: 2}}", 70, 0.010 / 0.3, 0.08, "2h"},
		// c = 4 CPUs, ρ = 0.8: M/M/4's mean response.
		{"M/M/4-PS", "{preset: cached}", "{cpus: 4}", "{cpu: {dist: exponential, mean: 10ms}}", 320, mmcResponse(4, 320, 0.010), 0.05, "1h"},
		// ... insensitive too (gamma cv 1.5).
		{"M/G/4-PS gamma cv 1.5", "{preset: cached}", "{cpus: 4}", "{cpu: {dist: gamma, mean: 10ms, cv: 1.5}}", 320, mmcResponse(4, 320, 0.010), 0.06, "1h"},
		// Compute, then block: M/M/2-PS (ρ = 0.75) plus the mean blocking time.
		{"M/M/2-PS then blocking", "{preset: cached}", "{cpus: 2}", "{cpu: {dist: exponential, mean: 5ms}, blocking: {dist: lognormal, mean: 20ms, cv: 1}}", 300,
			mmcResponse(2, 300, 0.005) + 0.020, 0.05, "1h"},
		// Four threads on one CPU, ρ = 0.7: still M/M/1 in the mean (the
		// queue in front of the threads included).
		{"4 threads on 1 CPU", "{preset: fixed, core: 4}", "{cpus: 1}", "{cpu: {dist: exponential, mean: 10ms}}", 70, 0.010 / 0.3, 0.05, "2h"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			y := fmt.Sprintf("duration: %s\nwarmup: 2m\nsample: 1m\npool: %s\nhost: %s\nworkload: {arrivals: {process: poisson, rate: %v}, service: %s}\n",
				tt.duration, tt.pool, tt.host, tt.rate, tt.service)
			mean, half := replicate(t, y, func(s Summary) float64 { return float64(s.ResponseMean) })
			checkAgainst(t, tt.name+" mean response", tt.theory, mean, half, tt.maxRelHalf)
		})
	}
}

// closedThroughput is the throughput of a closed product-form network of n
// tasks cycling through c CPUs shared by processor sharing (mean demand s)
// and an infinite-server delay (mean z): the pool of n threads under an
// endless backlog, where each thread computes, blocks, and takes the next
// task. With j tasks at the CPUs, π(j) ∝ f(j)·z^(n−j)/(n−j)!, f(j) =
// s^j / Π_{i≤j} min(i, c); throughput = Σ π(j)·min(j, c)/s. Logarithms keep
// the terms finite for large n.
func closedThroughput(n, c int, s, z float64) float64 {
	logf := 0.0 // log f(j)
	logw := make([]float64, n+1)
	for j := 0; j <= n; j++ {
		if j > 0 {
			logf += math.Log(s) - math.Log(float64(min(j, c)))
		}
		lg, _ := math.Lgamma(float64(n-j) + 1)
		logw[j] = logf + float64(n-j)*math.Log(z) - lg
	}
	top := logw[0]
	for _, w := range logw {
		top = math.Max(top, w)
	}
	var sum, x float64
	for j, w := range logw {
		p := math.Exp(w - top)
		sum += p
		x += p * float64(min(j, c)) / s
	}
	return x / sum
}

// TestSaturatedPoolThroughput: a fixed pool of N threads with an endless
// backlog (10^6 tasks submitted at once) on 4 CPUs, tasks computing 2 ms
// (exponential) then blocking 20 ms (lognormal cv 1). Its throughput is the
// closed network's, exactly (BCMP: insensitive to the blocking law); it
// grows with N until the CPUs saturate at cpus/S = 2000/s, from about
// N = cpus·(1 + W/C) = 44 threads on, and from there every added thread
// only lengthens each task's wait for a CPU.
func TestSaturatedPoolThroughput(t *testing.T) {
	if testing.Short() {
		t.Skip("long statistical replications (-short)")
	}
	const c, s, z = 4, 0.002, 0.020
	for _, n := range []int{4, 22, 44, 88} {
		t.Run(fmt.Sprintf("N=%d", n), func(t *testing.T) {
			y := fmt.Sprintf(`duration: 3m
warmup: 10s
sample: 10s
pool: {preset: fixed, core: %d}
host: {cpus: %d}
workload: {arrivals: {process: burst, count: 1000000}, service: {cpu: {dist: exponential, mean: 2ms}, blocking: {dist: lognormal, mean: 20ms, cv: 1}}}
`, n, c)
			theory := closedThroughput(n, c, s, z)
			mean, half := replicate(t, y, func(s Summary) float64 {
				if s.QueuedEnd == 0 {
					t.Fatalf("the backlog ran out: the pool was not saturated")
				}
				return float64(s.Throughput)
			})
			checkAgainst(t, fmt.Sprintf("throughput of %d threads on %d CPUs", n, c), theory, mean, half, 0.01)
			if n > 2*c {
				// Latency grows with the threads: by Little's law a thread's
				// cycle lasts N/X, so each task waits N/X − S − Z for a CPU.
				delay := float64(n)/theory - s - z
				mean, half := replicate(t, y, func(s Summary) float64 { return float64(s.CPUDelayMean) })
				checkAgainst(t, fmt.Sprintf("CPU delay per task, %d threads on %d CPUs", n, c), delay, mean, half, 0.05)
			}
		})
	}
	// The formula itself at its limits, exactly: with no more threads than
	// CPUs nobody waits for a CPU (N/(S+Z)); far past the knee the CPUs'
	// rate, cpus/S.
	for _, tt := range []struct {
		n    int
		want float64
	}{
		{1, 1 / (s + z)}, // one thread
		{4, 4 / (s + z)}, // as many threads as CPUs
		{1000, c / s},    // saturated CPUs
	} {
		if got := closedThroughput(tt.n, c, s, z); math.Abs(got-tt.want) > 1e-9*tt.want {
			t.Errorf("closedThroughput(%d) = %v, want %v", tt.n, got, tt.want)
		}
	}
}

// BenchmarkProcessorSharing is the CPU model's reference load: the bundled
// sizing scenario's host and tasks (8 CPUs, 2 ms of CPU then 40 ms of
// blocking, 80% CPU) on a fixed pool of 150. One op is one simulated task:
// allocs/op is allocations per task in steady state.
func BenchmarkProcessorSharing(b *testing.B) {
	sc := parse(b, `
duration: 1h
sample: 1s
pool: {preset: fixed, core: 150}
host: {cpus: 8}
workload: {arrivals: {process: poisson, rate: 3200}, service: {cpu: {dist: exponential, mean: 2ms}, blocking: {dist: lognormal, mean: 40ms, cv: 1}}}
`)
	sc.Duration = time.Duration(float64(b.N)/3200*1.5+10) * time.Second
	src, err := workloads.New(sc.Workload, sc.Seed)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	res, err := Run(context.Background(), sc, Options{Timeline: io.Discard, Workload: &limitedSplit{limited{src, b.N}, src.(workloads.SplitSource)}})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(res.Summary.Submitted)/time.Since(start).Seconds(), "tasks/s")
	if res.Summary.Submitted != int64(b.N) {
		b.Fatalf("simulated %d tasks, want %d", res.Summary.Submitted, b.N)
	}
}

// limitedSplit is limited for a source with split laws.
type limitedSplit struct {
	limited
	split workloads.SplitSource
}

func (l *limitedSplit) HasSplits() bool            { return l.split.HasSplits() }
func (l *limitedSplit) LastSplit() workloads.Split { return l.split.LastSplit() }
