package workloads

import (
	"fmt"
	"testing"
	"time"
)

// TestDrawAheadSameArrivals: drawn ahead on a goroutine, a workload hands
// out the arrivals Next gives, in the same order, to its end (or 300,000
// arrivals), through Next and NextBatch alike; a workload with split laws
// or steps is not drawn ahead (DrawAhead returns it as it is).
func TestDrawAheadSameArrivals(t *testing.T) {
	const n = 300000
	drawnAhead := 0
	for name, spec := range batchCases() {
		for seed := uint64(1); seed <= 2; seed++ {
			t.Run(fmt.Sprintf("%s/seed=%d", name, seed), func(t *testing.T) {
				src, err := New(spec, seed)
				if err != nil {
					t.Fatal(err)
				}
				ahead := DrawAhead(src)
				defer ahead.Close()
				ps := src.(*phaseSource)
				if _, ok := ahead.(*aheadSource); !ok {
					if !ps.splits && !ps.hasSteps {
						t.Fatal("phases without split laws or steps were not drawn ahead")
					}
					return
				} else if ps.splits || ps.hasSteps {
					t.Fatal("phases with split laws or steps were drawn ahead")
				}
				drawnAhead++
				want, _ := New(spec, seed)
				bs := ahead.(BatchSource)
				for got := 0; got < n; {
					var b []Arrival
					if got%3 == 0 { // Next and NextBatch in turn
						if a, ok := ahead.Next(); ok {
							b = []Arrival{a}
						}
					} else {
						b = bs.NextBatch()
					}
					for _, a := range b {
						w, ok := want.Next()
						if !ok || a != w {
							t.Fatalf("arrival %d: drawn ahead %+v, Next %+v %v", got, a, w, ok)
						}
						got++
					}
					if len(b) == 0 {
						if w, ok := want.Next(); ok {
							t.Fatalf("drawn ahead ended after %d arrivals, Next goes on with %+v", got, w)
						}
						break
					}
				}
			})
		}
	}
	if drawnAhead == 0 {
		t.Fatal("no workload was drawn ahead: the test tests nothing")
	}
}

// TestDrawAheadCloseStops: Close stops the goroutine, whether it is
// blocked with chunks drawn ahead of the reader, in the middle of an
// endless workload, or already done with an ended one; Close may be called
// again, and the closed source hands out nothing.
func TestDrawAheadCloseStops(t *testing.T) {
	endless := Spec{Phases: []Phase{{Arrivals: ArrivalSpec{Process: "poisson", Rate: 1000},
		Service: ServiceSpec{Dist: "exponential", Mean: time.Millisecond}}}}
	short := Spec{Phases: []Phase{{Duration: time.Second, Arrivals: ArrivalSpec{Process: "poisson", Rate: 1000},
		Service: ServiceSpec{Dist: "exponential", Mean: time.Millisecond}}}}
	for _, tc := range []struct {
		name string
		spec Spec
		read int
	}{{"unread", endless, 0}, {"read", endless, 20000}, {"ended", short, 1 << 30}} {
		t.Run(tc.name, func(t *testing.T) {
			src, _ := New(tc.spec, 1)
			a := DrawAhead(src).(*aheadSource)
			for i := 0; i < tc.read; i++ {
				if _, ok := a.Next(); !ok {
					break
				}
			}
			a.Close()
			a.Close()
			select {
			case <-a.exited:
			case <-time.After(10 * time.Second):
				t.Fatal("the goroutine still runs 10 s after Close")
			}
			if x, ok := a.Next(); ok || a.NextBatch() != nil {
				t.Fatalf("a closed source handed out %+v", x)
			}
		})
	}
}
