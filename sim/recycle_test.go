package sim

import (
	"bytes"
	"context"
	"testing"

	"github.com/poolsim/poolsim/model"
)

// TestRecycledWorkersSameBytes: handing exited workers back to the pool for reuse
// (Executor.Recycle) changes no output. An elastic Tomcat pool (thousands of threads
// come and go in two hours) and a cached pool with a runtime shrink and a shutdown (exits
// from a task and from a wait whose timer is still pending, which are not recycled) run with
// recycling, and again with a subscribed observer, which turns it off (an observer may hold
// a worker): the same timeline and summary; the first run reused most of its exited threads.
// The runs check the model's invariants after every event.
func TestRecycledWorkersSameBytes(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		most       bool // most exits recycled: those at a keepAlive expiry
	}{
		{"elastic", elasticTwoHours, true},
		{"cached, resized, shut down", `
seed: 5
duration: 20m
sample: 10s
pool: {preset: cached, keepAlive: 2s}
workload:
  arrivals: {process: poisson, rate: 40/s}
  service: {dist: exponential, mean: 100ms}
events:
  - {at: 5m, set: {core: 8, max: 8}}
  - {at: 10m, set: {max: 3, core: 3}}
  - {at: 15m, shutdown: graceful}
`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := func(watch bool) (outputs, *Engine) {
				sc := parse(t, tc.yaml)
				var tl, sum bytes.Buffer
				e, err := NewEngine(sc, Options{Timeline: &tl, CheckInvariants: true})
				if err != nil {
					t.Fatal(err)
				}
				if watch {
					e.Subscribe(model.ObserverFunc(func(*model.Event) {}))
				}
				res, err := e.Run(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				if err := WriteJSON(&sum, res.Summary); err != nil {
					t.Fatal(err)
				}
				return outputs{timeline: tl.String(), summary: sum.String(), res: res}, e
			}
			a, ea := run(false)
			b, eb := run(true)
			exited := a.res.Summary.ThreadsExited
			t.Logf("recycled %d of %d", ea.recycled, exited)
			if eb.recycled != 0 || ea.recycled == 0 || (tc.most && 2*ea.recycled < int64(exited)) {
				t.Fatalf("recycled %d of %d exited threads (with an observer: %d)", ea.recycled, exited, eb.recycled)
			}
			if a.summary != b.summary || a.timeline != b.timeline {
				t.Errorf("recycling %d of %d exited threads changed the outputs:\n%s\nwithout:\n%s", ea.recycled, exited, a.summary, b.summary)
			}
		})
	}
}
