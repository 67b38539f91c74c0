package workloads

import (
	"fmt"
	"math"
	"testing"
	"time"
)

// unbatched makes src draw every phase one arrival at a time, as Next did
// before batches: the reference the batched path must equal.
func unbatched(src Source) Source {
	ps := src.(*phaseSource)
	for i := range ps.phases {
		ps.phases[i].batch = false
	}
	return src
}

// batchCases are workloads whose phases end in the middle of a batch, at
// its edge or never, in every shape: the batched fast path (Poisson with an
// exponential or lognormal law), the batched general path (other processes
// and laws), and the unbatched phases (a split law, steps) between them.
func batchCases() map[string]Spec {
	exp := func(mean time.Duration) ServiceSpec { return ServiceSpec{Dist: "exponential", Mean: mean} }
	logn := ServiceSpec{Dist: "lognormal", Mean: 40 * time.Millisecond, CV: 1.5}
	poisson := func(rate float64) ArrivalSpec { return ArrivalSpec{Process: "poisson", Rate: rate} }
	prio := PrioritySpec{Min: -2, Max: 5}
	mixed := []Phase{
		{Duration: 1300 * time.Millisecond, Arrivals: poisson(1000), Service: exp(time.Millisecond)},              // ends mid-batch
		{Duration: 2 * time.Second, Arrivals: poisson(64), Service: logn, Priority: prio},                         // under one batch
		{Duration: time.Second, Arrivals: poisson(0), Service: exp(time.Millisecond)},                             // no traffic
		{Duration: time.Second, Arrivals: ArrivalSpec{Process: "constant", Rate: 128}, Service: exp(time.Second)}, // exactly one batch
		{Duration: 3 * time.Second, Arrivals: poisson(500), Split: &ServiceSplit{
			CPU: &ServiceSpec{Dist: "exponential", Mean: time.Millisecond}, Blocking: &logn, Slices: 2}}, // unbatched
		{Duration: 2 * time.Second, Arrivals: ArrivalSpec{Process: "onoff", Rate: 800, On: 300 * time.Millisecond, Off: 200 * time.Millisecond},
			Service: ServiceSpec{Dist: "gamma", Mean: 10 * time.Millisecond, CV: 0.5}},
		{Duration: 2 * time.Second, Arrivals: poisson(300), Steps: []Step{
			{Kind: Compute, Time: exp(time.Millisecond)}, {Kind: Hold, Resource: "db", Time: logn}}}, // unbatched
		{Duration: 2 * time.Second, Arrivals: ArrivalSpec{Process: "burst", Count: 300, At: 100 * time.Millisecond, Every: 700 * time.Millisecond},
			Service: ServiceSpec{Dist: "uniform", Min: time.Millisecond, Max: 3 * time.Millisecond}},
		{Duration: 5 * time.Second, Arrivals: poisson(2000), Service: exp(time.Millisecond), Priority: prio},
	}
	withLast := func(last Phase) []Phase { return append(append([]Phase(nil), mixed...), last) }
	return map[string]Spec{
		"one endless phase": {Phases: []Phase{{Arrivals: poisson(1000), Service: exp(time.Millisecond)}}},
		"lognormal, failures, priorities": {Phases: []Phase{{Arrivals: poisson(1000), Service: logn, Priority: prio}},
			Failure: 0.1},
		"mixed, last phase ends":    {Phases: withLast(Phase{Duration: 40 * time.Second, Arrivals: poisson(1000), Service: logn}), Failure: 0.25},
		"mixed, last phase endless": {Phases: withLast(Phase{Arrivals: poisson(1000), Service: exp(time.Millisecond)})},
		// Gaps of ~1e12 s saturate at the end of the clock: the last phase
		// then ends with a time of never, as the batch must too.
		"saturating": {Phases: []Phase{
			{Duration: time.Second, Arrivals: poisson(100), Service: exp(time.Millisecond)},
			{Arrivals: poisson(1e-12), Service: exp(1000 * time.Hour)},
		}},
		"saturating constant": {Phases: []Phase{{Arrivals: ArrivalSpec{Process: "constant", Rate: 1e-9}, Service: logn}}},
		// The slowest rates fillPoisson draws at, gaps of up to 100 years
		// the moment before they saturate.
		"slowest fast rate": {Phases: []Phase{{Arrivals: poisson(minFastRate),
			Service: exp(time.Duration(0.99 * float64(time.Second) / minFastRate))}}},
	}
}

// TestBatchesDrawAsOneByOne: drawing arrivals in batches gives every value
// the arrival-at-a-time path gives, in the same order, through phase
// changes, failures, priorities, split laws and steps, to the end of the
// workload (or 300,000 arrivals).
func TestBatchesDrawAsOneByOne(t *testing.T) {
	const n = 300000
	for name, spec := range batchCases() {
		for seed := uint64(1); seed <= 4; seed++ {
			t.Run(fmt.Sprintf("%s/seed=%d", name, seed), func(t *testing.T) {
				batched, err := New(spec, seed)
				if err != nil {
					t.Fatal(err)
				}
				single, _ := New(spec, seed)
				unbatched(single)
				bs, ss := batched.(*phaseSource), single.(*phaseSource)
				for i := 0; i < n; i++ {
					a, aok := batched.Next()
					b, bok := single.Next()
					if a != b || aok != bok || bs.LastSplit() != ss.LastSplit() || fmt.Sprint(bs.LastSteps()) != fmt.Sprint(ss.LastSteps()) {
						t.Fatalf("arrival %d: batched %+v %v (split %+v, steps %v), one by one %+v %v (split %+v, steps %v)\n"+
							"reproduce: go test ./workloads -run 'TestBatchesDrawAsOneByOne/%s/seed=%d'",
							i, a, aok, bs.LastSplit(), bs.LastSteps(), b, bok, ss.LastSplit(), ss.LastSteps(), name, seed)
					}
					if !aok {
						return
					}
				}
			})
		}
	}
}

// TestNextBatchHandsOutWhatNextWould: NextBatch hands out the arrivals Next
// would return, in order and each once, to the end of the workload (or
// 300,000 arrivals), its last arrival's split and steps reported as after
// Next; a batched phase's batches hold several, the others one.
func TestNextBatchHandsOutWhatNextWould(t *testing.T) {
	const n = 300000
	for name, spec := range batchCases() {
		t.Run(name, func(t *testing.T) {
			batches, err := New(spec, 7)
			if err != nil {
				t.Fatal(err)
			}
			single, _ := New(spec, 7)
			bs, ss := batches.(*phaseSource), single.(*phaseSource)
			var bsrc BatchSource = bs
			got, longest := 0, 0
			for got < n {
				b := bsrc.NextBatch()
				longest = max(longest, len(b))
				for i, a := range b {
					want, ok := single.Next()
					if !ok || a != want {
						t.Fatalf("arrival %d: NextBatch gave %+v, Next %+v %v", got, a, want, ok)
					}
					got++
					if last := i == len(b)-1; last && (bs.LastSplit() != ss.LastSplit() || fmt.Sprint(bs.LastSteps()) != fmt.Sprint(ss.LastSteps())) {
						t.Fatalf("arrival %d, last of its batch: split %+v steps %v, after Next %+v %v", got-1, bs.LastSplit(), bs.LastSteps(), ss.LastSplit(), ss.LastSteps())
					}
				}
				if len(b) == 0 {
					if a, ok := single.Next(); ok {
						t.Fatalf("NextBatch ended after %d arrivals, Next goes on with %+v", got, a)
					}
					if bsrc.NextBatch() != nil {
						t.Fatal("NextBatch goes on after it ended")
					}
					break
				}
			}
			if longest < 2 {
				t.Errorf("no batch held more than one arrival (longest %d): the test tests no batch", longest)
			}
		})
	}
}

// TestMinFastRateNeedsNoClamp: at minFastRate and above, the largest value
// of the exponential ziggurat's rectangles gives a time seconds does not
// clamp, so fillPoisson's roundNanos(x/rate*1e9) is seconds(x/rate).
func TestMinFastRateNeedsNoClamp(t *testing.T) {
	x := 0.0 // the largest point expTry accepts: j < zigKe[layer]
	for l, k := range zigKe {
		if k > 0 { // layer 1 accepts none: its every point goes to the wedge test
			x = max(x, float64(k-1)*float64(zigWe[l]))
		}
	}
	if x >= 8 {
		t.Fatalf("the rectangles reach %g, minFastRate assumes below 8", x)
	}
	for _, rate := range []float64{minFastRate, math.Nextafter(minFastRate, 1), 1, 1e9} {
		if got, want := roundNanos(x/rate*1e9), seconds(x/rate); got != want || x/rate > MaxSeconds {
			t.Errorf("rate %g: roundNanos gives %v, seconds %v (x/rate %g s, MaxSeconds %d)", rate, got, want, x/rate, MaxSeconds)
		}
	}
}
