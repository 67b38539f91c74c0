package conformance_test

import (
	"context"
	"fmt"

	"github.com/poolsim/poolsim/conformance"
)

// A script is what the harness feeds the real pool (Run, with a JDK);
// Simulate plays the same script on poolsim's model, with no JVM, and
// reports in the harness's shape, so the two can be compared task by task.
// Here two core workers take tasks 1 and 2, tasks 3 and 4 queue, two extra
// workers take 5 and 6, and 7 finds the pool full (R6); the extra workers
// find the queue empty after their task and exit when poll(300ms) times
// out with the pool above core (R15).
func ExampleSimulate() {
	s := conformance.Script{
		// new ThreadPoolExecutor(2, 4, 300ms, new LinkedBlockingQueue(2))
		Pool: conformance.Pool{Kind: conformance.KindJDK, Core: 2, Max: 4, KeepAliveMs: 300,
			Queue: conformance.QueueLinked, Capacity: 2},
		Samples: conformance.Samples{AtMs: []int64{250, 1250}},
		EndMs:   2000,
	}
	for id := 1; id <= 7; id++ {
		s.Submits = append(s.Submits, conformance.Submit{AtMs: 0, ID: id, ServiceMs: 500 + 100*int64(id)})
	}
	fmt.Print(s) // the harness's input
	sim, err := conformance.Simulate(context.Background(), s)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range sim.Result.Tasks {
		if t.Outcome != conformance.OutcomePool {
			fmt.Printf("task %d: %s\n", t.ID, t.Outcome)
			continue
		}
		fmt.Printf("task %d: worker %d from %v to %v ms\n", t.ID, t.Worker, t.StartMs, t.EndMs)
	}
	for _, w := range sim.Result.Workers {
		if w.Alive() {
			fmt.Printf("%s: alive at the end\n", w.Name)
		} else {
			fmt.Printf("%s: exited at %v ms (keepAlive)\n", w.Name, w.ExitedMs)
		}
	}
	for _, p := range sim.Result.Samples {
		fmt.Printf("at %d ms: %d workers, %d busy, %d TIMED_WAITING, %d queued\n", p.TMs, p.PoolSize, p.Busy, p.IdleTimed, p.QueueLen)
	}
	// Output:
	// pool kind=jdk core=2 max=4 keepAliveMs=300 queue=linked capacity=2
	// submit at=0 id=1 serviceMs=600
	// submit at=0 id=2 serviceMs=700
	// submit at=0 id=3 serviceMs=800
	// submit at=0 id=4 serviceMs=900
	// submit at=0 id=5 serviceMs=1000
	// submit at=0 id=6 serviceMs=1100
	// submit at=0 id=7 serviceMs=1200
	// sample at=250,1250
	// end at=2000
	// task 1: worker 1 from 0 to 600 ms
	// task 2: worker 2 from 0 to 700 ms
	// task 3: worker 1 from 600 to 1400 ms
	// task 4: worker 2 from 700 to 1600 ms
	// task 5: worker 3 from 0 to 1000 ms
	// task 6: worker 4 from 0 to 1100 ms
	// task 7: rejected
	// pool-1-thread-1: alive at the end
	// pool-1-thread-2: alive at the end
	// pool-1-thread-3: exited at 1300 ms (keepAlive)
	// pool-1-thread-4: exited at 1400 ms (keepAlive)
	// at 250 ms: 4 workers, 4 busy, 0 TIMED_WAITING, 2 queued
	// at 1250 ms: 4 workers, 2 busy, 2 TIMED_WAITING, 0 queued
}
