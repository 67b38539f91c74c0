package sim

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/poolsim/poolsim/workloads"
)

// limited ends a source after n arrivals.
type limited struct {
	workloads.Source
	n int
}

func (l *limited) Next() (workloads.Arrival, bool) {
	if l.n <= 0 {
		return workloads.Arrival{}, false
	}
	l.n--
	return l.Source.Next()
}

// BenchmarkFixedPoolMMc is the reference load: an 8-worker fixed
// pool at utilisation 0.8 with Poisson arrivals and exponential service,
// with the timeline sampled every simulated second. One op is one simulated
// task, so allocs/op is allocations per task in steady state (the run's
// fixed setup amortises to zero).
func BenchmarkFixedPoolMMc(b *testing.B) {
	sc := parse(b, `
duration: 1h
sample: 1s
pool: {preset: fixed, core: 8}
workload: {arrivals: {process: poisson, rate: 64}, service: {dist: exponential, mean: 100ms}}
`)
	// Long enough for b.N arrivals at 64/s; the run ends when they have.
	sc.Duration = time.Duration(float64(b.N)/64*1.5+10) * time.Second
	src, err := workloads.New(sc.Workload, sc.Seed)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	res, err := Run(context.Background(), sc, Options{Timeline: io.Discard, Workload: &limited{src, b.N}})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(res.Summary.Submitted)/time.Since(start).Seconds(), "tasks/s")
	if res.Summary.Submitted != int64(b.N) {
		// The last arrivals fall after the duration only with vanishing
		// probability (Poisson tail at 1.5× the mean).
		b.Fatalf("simulated %d tasks, want %d", res.Summary.Submitted, b.N)
	}
}

// BenchmarkElasticTomcat is the elastic pool: a Tomcat executor
// (core 4, max 16, keepAlive 1 s) at 6.4 requests/s of 1 s exponential
// service, which grows and shrinks all the time — a thread's start, its
// keepAlive timers and its exit are on the common path. One op is one task.
func BenchmarkElasticTomcat(b *testing.B) {
	sc := parse(b, `
duration: 1h
sample: 10s
pool: {preset: tomcat, core: 4, max: 16, keepAlive: 1s}
workload: {arrivals: {process: poisson, rate: 6.4}, service: {dist: exponential, mean: 1s}}
`)
	sc.Duration = time.Duration(float64(b.N)/6.4*1.5+10) * time.Second
	src, err := workloads.New(sc.Workload, sc.Seed)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	res, err := Run(context.Background(), sc, Options{Timeline: io.Discard, Workload: &limited{src, b.N}})
	if err != nil {
		b.Fatal(err)
	}
	if res.Summary.Submitted != int64(b.N) {
		b.Fatalf("simulated %d tasks, want %d", res.Summary.Submitted, b.N)
	}
}
