package sim

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// next takes the earliest event of h as nextEvent does: the heap's
// earliest, unless the timer queue's front comes first (queueFirst).
func next(h *eventHeap) (entry, bool) {
	top := h.earliest()
	at := never
	if top != nil {
		at = top.at
	}
	if h.queueFirst(top, at) {
		x := h.tq.buf[h.tq.head]
		h.tq.pop()
		return x, true
	}
	if top == nil {
		return entry{}, false
	}
	x := *top
	h.take()
	return x, true
}

func show(x entry) string { return fmt.Sprintf("(%v, %v, #%d)", x.at, x.phase(), x.key&(1<<56-1)) }

// TestEventHeapOrder: whatever mix of completions and timers is pushed —
// timers in time order (the timer queue) or not (the heap), pushes that
// replace a taken top — events come out in (time, phase, sequence) order,
// the order of the table of phases (doc.go) with ties broken by the order
// of arming: the same order as one heap holding everything.
func TestEventHeapOrder(t *testing.T) {
	var queued, heaped int // timers that went to the queue, to the heap
	for seed := uint64(1); seed <= 200; seed++ {
		rng := rand.New(rand.NewPCG(seed, 0))
		h := eventHeap{tq: timerQueue{at: never}}
		var want []entry        // every entry pushed and not yet taken
		now := time.Duration(0) // every time on a 1 ms grid: ties are common
		keepAlive := time.Duration(1+rng.IntN(5)) * time.Millisecond
		for step := 0; step < 400; step++ {
			// A step's pushes, as an event's processing makes them:
			// a task's end, a timer at now+keepAlive (sometimes a
			// shorter one, out of order), both or none.
			for k := rng.IntN(3); k > 0; k-- {
				var x entry
				if rng.IntN(2) == 0 {
					x = entry{at: now + time.Duration(rng.IntN(8))*time.Millisecond, key: uint64(phaseCompletion) << 56}
					h.push(x.at, phaseCompletion, nil)
				} else {
					ka := keepAlive
					if rng.IntN(5) == 0 {
						ka = time.Duration(rng.IntN(int(keepAlive/time.Millisecond))) * time.Millisecond
					}
					x = entry{at: now + ka, key: uint64(phaseKeepAlive) << 56}
					n := h.tq.n
					h.pushTimer(x.at, nil)
					if h.tq.n > n {
						queued++
					} else {
						heaped++
					}
				}
				x.key |= h.seq
				want = append(want, x)
			}
			if rng.IntN(4) == 0 {
				continue // no event taken this step: the heap grows
			}
			got, ok := next(&h)
			if !ok {
				if len(want) != 0 {
					t.Fatalf("seed %d step %d: heap empty with %d entries pending (go test -run TestEventHeapOrder ./sim)", seed, step, len(want))
				}
				continue
			}
			i := slices.IndexFunc(want, func(e entry) bool { return e.less(&got) })
			if i >= 0 {
				t.Fatalf("seed %d step %d: took %s before %s (go test -run TestEventHeapOrder ./sim)", seed, step, show(got), show(want[i]))
			}
			want = slices.DeleteFunc(want, func(e entry) bool { return e.key == got.key })
			now = got.at
		}
		for len(want) > 0 {
			got, ok := next(&h)
			if !ok {
				t.Fatalf("seed %d: heap empty with %d entries pending", seed, len(want))
			}
			if i := slices.IndexFunc(want, func(e entry) bool { return e.less(&got) }); i >= 0 {
				t.Fatalf("seed %d: took %s before %s (go test -run TestEventHeapOrder ./sim)", seed, show(got), show(want[i]))
			}
			want = slices.DeleteFunc(want, func(e entry) bool { return e.key == got.key })
		}
		if _, ok := next(&h); ok {
			t.Fatalf("seed %d: an entry came out twice", seed)
		}
	}
	if queued == 0 || heaped == 0 {
		t.Fatalf("%d timers queued, %d in the heap: the test misses a path", queued, heaped)
	}
}

// TestTimerQueueSameBytes: the timer queue changes no output — a run
// whose timers all wait in the heap (tq.last held at never, so no timer
// joins the queue) gives the same bytes — on pools whose timers are armed
// in time order, and one whose keepAlive is lowered and raised at runtime
// (R24), so that some timers are earlier than the queue's last and go to
// the heap; and one on a grid of times (constant arrivals and services),
// where timers, task ends and arrivals fall on the same nanosecond and the
// order of phases decides.
func TestTimerQueueSameBytes(t *testing.T) {
	for _, y := range []string{`
name: elastic
seed: 5
duration: 30m
sample: 10s
pool: {preset: tomcat, core: 4, max: 16, keepAlive: 1s}
workload: {arrivals: {process: poisson, rate: 6.4}, service: {dist: exponential, mean: 1s}}
`, `
name: keepalive-changes
seed: 6
duration: 30m
sample: 10s
pool: {preset: jdk, core: 2, max: 20, keepAlive: 5s, queue: {type: synchronous}, rejection: caller-runs}
workload: {arrivals: {process: onoff, rate: 40, on: 20s, off: 30s}, service: {dist: lognormal, mean: 200ms, cv: 1.5}}
events:
  - {at: 5m, set: {keepAlive: 500ms}}
  - {at: 12m, set: {keepAlive: 20s}}
  - {at: 20m, set: {keepAlive: 2s}}
`, `
name: ties
seed: 7
duration: 2m
sample: 1s
pool: {preset: jdk, core: 1, max: 12, keepAlive: 1s, queue: {type: synchronous}, rejection: discard}
workload:
  phases:
    - {duration: 7s, arrivals: {process: constant, rate: 8}, service: {dist: constant, value: 1s}}
    - {duration: 3s, arrivals: {process: constant, rate: 2}, service: {dist: constant, value: 500ms}}
    - {duration: 7s, arrivals: {process: constant, rate: 6}, service: {dist: constant, value: 1500ms}}
    - {duration: 3s, arrivals: {process: constant, rate: 1}, service: {dist: constant, value: 250ms}}
    - {arrivals: {process: constant, rate: 4}, service: {dist: constant, value: 750ms}}
events:
  - {at: 40s, set: {keepAlive: 250ms}}
  - {at: 80s, set: {keepAlive: 2s}}
snapshots: [9s, 10s, 19s, 20s, 29s, 30s, 39s, 41s, 50s, 61s, 70s, 81s, 90s, 100s, 110s]
`} {
		run := func(heapOnly bool) (string, int64) {
			sc := parse(t, y)
			var tl, sn, sum bytes.Buffer
			e, err := NewEngine(sc, Options{Timeline: &tl, Snapshots: &sn})
			if err != nil {
				t.Fatal(err)
			}
			if heapOnly {
				e.h.tq.last = never
			}
			res, err := e.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if err := WriteJSON(&sum, res.Summary); err != nil {
				t.Fatal(err)
			}
			return tl.String() + sn.String() + sum.String(), res.Summary.Events
		}
		queued, events := run(false)
		heaped, _ := run(true)
		if queued != heaped {
			t.Errorf("%s: outputs differ with every timer in the heap", parse(t, y).Name)
		}
		if events == 0 {
			t.Fatalf("%s: no event: the test tests nothing", parse(t, y).Name)
		}
	}
}
