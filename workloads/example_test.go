package workloads_test

import (
	"fmt"
	"time"

	"github.com/poolsim/poolsim/workloads"
)

// A source yields arrivals with their service times already drawn. The
// same spec and seed give the same traffic on every machine; times are
// rounded to the microsecond here only to keep the output short.
func ExampleNew() {
	spec := workloads.Spec{Phases: []workloads.Phase{{
		Arrivals: workloads.ArrivalSpec{Process: "poisson", Rate: 50}, // tasks per second
		Service:  workloads.ServiceSpec{Dist: "exponential", Mean: 20 * time.Millisecond},
	}}}
	src, err := workloads.New(spec, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer src.Close()
	for range 4 {
		a, _ := src.Next()
		fmt.Println("at", a.At.Round(time.Microsecond), "runs", a.Service.Round(time.Microsecond))
	}

	// Another service law on the same seed: the arrival times do not move,
	// because arrivals and service times draw from separate streams.
	spec.Phases[0].Service = workloads.ServiceSpec{Dist: "constant", Mean: 5 * time.Millisecond}
	src2, _ := workloads.New(spec, 1)
	a, _ := src2.Next()
	fmt.Println("at", a.At.Round(time.Microsecond), "runs", a.Service)
	// Output:
	// at 11.707ms runs 10.451ms
	// at 28.201ms runs 6.757ms
	// at 46.091ms runs 11.137ms
	// at 79.711ms runs 6.618ms
	// at 11.707ms runs 5ms
}

// A service-time distribution on its own, drawing from the seeded stream
// a scenario with seed 7 would use for service times.
func ExampleNewDistribution() {
	spec := workloads.ServiceSpec{Dist: "lognormal", Mean: 100 * time.Millisecond, CV: 2}
	d, err := workloads.NewDistribution(spec, workloads.NewStream(7, workloads.StreamService))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%v: mean %.3gs, variance %.3gs²\n", d, d.Mean(), d.Variance())
	for range 3 {
		fmt.Println(d.Sample().Round(time.Microsecond))
	}

	// Parameters that define no distribution are an error, not a panic.
	_, err = workloads.NewDistribution(workloads.ServiceSpec{Dist: "gamma", Mean: time.Second}, workloads.NewStream(7, workloads.StreamService))
	fmt.Println(err)
	// Output:
	// lognormal(mean=100ms, cv=2): mean 0.1s, variance 0.04s²
	// 79.895ms
	// 45.809ms
	// 21.664ms
	// workloads: cv: must be > 0, got 0 (cv = stddev/mean > 0; use exponential for cv 1 or constant for cv 0)
}
