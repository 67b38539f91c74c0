package sim_test

import (
	"context"
	"fmt"

	"github.com/poolsim/poolsim/model"
	"github.com/poolsim/poolsim/scenarios"
	"github.com/poolsim/poolsim/sim"
)

// Run simulates a scenario to its end. Here newFixedThreadPool(8) at 80 %
// load for a simulated hour: Erlang C puts the mean wait of this M/M/8
// queue at 0.0280 s; one hour of one seed lands within a few percent.
func ExampleRun() {
	sc, err := scenarios.Parse([]byte(`
name: mmc
duration: 1h
warmup: 5m
pool: {preset: fixed, core: 8}
workload: {arrivals: {process: poisson, rate: 64/s}, service: {dist: exponential, mean: 100ms}}
`), "mmc.yaml", nil)
	if err != nil {
		panic(err)
	}
	res, err := sim.Run(context.Background(), sc, sim.Options{})
	if err != nil {
		panic(err)
	}
	s := res.Summary
	fmt.Printf("%d tasks, pool %d threads, %.2f busy on average, mean wait %.4fs\n",
		s.Submitted, s.FinalPoolSize, float64(s.BusyMean), float64(s.WaitMean))
	// Output:
	// 230359 tasks, pool 8 threads, 6.40 busy on average, mean wait 0.0293s
}

// An Engine steps one event at a time, and every model event reaches the
// observers subscribed to its stream. Here a SynchronousQueue pool
// (core 1, max 2, keepAlive 500 ms) meets four tasks at once: two start
// threads, two are rejected by AbortPolicy (R6, R32, R49); half a second
// after the burst the thread above core times out (R16). Which task went
// where, and why, comes from the stream.
func ExampleEngine() {
	sc, err := scenarios.Parse([]byte(`
name: burst
duration: 1s
pool: {core: 1, max: 2, keepAlive: 500ms, queue: {type: synchronous}}
workload:
  arrivals: {process: burst, count: 4}
  service: {dist: constant, value: 100ms}
`), "burst.yaml", nil)
	if err != nil {
		panic(err)
	}
	e, err := sim.NewEngine(sc, sim.Options{})
	if err != nil {
		panic(err)
	}
	defer e.Close()
	e.Subscribe(model.ObserverFunc(func(ev *model.Event) {
		switch ev.Kind {
		case model.Started:
			fmt.Printf("%v: task %d starts on worker %d\n", ev.At, ev.Task.ID, ev.Worker.ID)
		case model.Lost:
			fmt.Printf("%v: task %d lost: %v\n", ev.At, ev.Task.ID, ev.Outcome)
		case model.WorkerChanged:
			if ev.To == model.Exited {
				fmt.Printf("%v: worker %d exits\n", ev.At, ev.Worker.ID)
			}
		}
	}))
	for {
		more, err := e.Step()
		if err != nil {
			panic(err)
		}
		if !more {
			break
		}
	}
	res := e.Result()
	fmt.Printf("at %v: pool size %d, %d completed, %d rejected\n", e.Now(), e.Pool().PoolSize(), res.Summary.Completed, res.Summary.Rejected)
	// Output:
	// 0s: task 1 starts on worker 1
	// 0s: task 2 starts on worker 2
	// 0s: task 3 lost: aborted
	// 0s: task 4 lost: aborted
	// 600ms: worker 1 exits
	// at 1s: pool size 1, 2 completed, 2 rejected
}
