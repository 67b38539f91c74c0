package explain_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/poolsim/poolsim/explain"
	"github.com/poolsim/poolsim/scenarios"
)

// The Tomcat incident of the README in miniature: a burst grows the pool,
// then 2 requests/s dealt round-robin by the FIFO hand-off keep 12 workers
// alive although core is 2. NoWhatIfs skips the re-simulations.
func ExampleExplain() {
	sc, err := scenarios.Parse([]byte(`
name: mini-121
duration: 10m
warmup: 5m
sample: 1s
pool: {preset: tomcat, core: 2, max: 100, keepAlive: 6s}
workload:
  phases:
    - {duration: 1m, arrivals: {process: poisson, rate: 400}, service: {dist: constant, value: 100ms}}
    - {arrivals: {process: constant, rate: 2}, service: {dist: constant, value: 5ms}}
`), "mini-121.yaml", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	e, err := explain.Explain(context.Background(), sc, explain.Options{NoWhatIfs: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	// The first lines of the report poolsim explain prints.
	lines := strings.Split(e.Text(), "\n")
	fmt.Println(strings.Join(lines[:2], "\n"))
	for _, f := range e.Findings {
		fmt.Println("-", f.Title)
	}
	fmt.Printf("steady pool %.0f workers, %.0f TIMED_WAITING; closed form ⌈λ(K+S)⌉−1 = %d\n",
		e.Steady.Mean, e.Steady.IdleTimed, explain.PlateauPeriodic(2, 6*time.Second, 5*time.Millisecond))
	// Output:
	// mini-121
	// pool tomcat: core 2, max 100, keepAlive 6s, TaskQueue (capacity unbounded), FIFO hand-off, rejection abort
	// - Steady state
	// - Load
	// - Why TIMED_WAITING
	// - Mechanism: FIFO hand-off
	// - How it grew
	// steady pool 12 workers, 12 TIMED_WAITING; closed form ⌈λ(K+S)⌉−1 = 12
}
