package tune_test

import (
	"context"
	"fmt"

	"github.com/poolsim/poolsim/sweep"
	"github.com/poolsim/poolsim/tune"
)

// A fixed pool of 8 threads under 64 tasks/s of 100 ms: how many threads
// keep the wait p99 under 60 ms? The search's answer and Erlang C's.
func Example() {
	scenario := []byte(`name: example
seed: 1
duration: 5m
warmup: 30s
sample: 10s
pool: {preset: fixed, core: 8}
workload:
  arrivals: {process: poisson, rate: 64/s}
  service: {dist: exponential, mean: 100ms}
`)
	size, _ := tune.ParseVary("pool.core=6:30:5")
	tn, err := tune.New(tune.Config{Data: scenario, Path: "example.yaml", Vary: []sweep.Param{size},
		Constraints: []string{"wait_p99_s < 0.06"}, Minimize: "pool.core"})
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := tn.Run(context.Background(), tune.Options{Jobs: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("recommended:", r.Recommended.Label(r.Keys))
	fmt.Println("current fails:", !r.Current.Feasible)
	fmt.Printf("%s: %d threads\n", r.Closed.Model, r.Closed.Size)
	// Output:
	// recommended: pool.core=11
	// current fails: true
	// M/M/c (Erlang C): 11 threads
}
