package metrics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// counterPool is a pool whose completed-tasks counter grows by Poisson
// counts at rate[i] during each scrape interval i, scraped every 15 s.
func counterPool(seed uint64, rates []float64, busy float64) (*Pool, *Observed) {
	rng := rand.New(rand.NewPCG(seed, 1))
	lb := map[string]string{"name": "app"}
	size := &Series{Name: "executor_pool_size_threads", Labels: lb}
	act := &Series{Name: "executor_active_threads", Labels: lb}
	done := &Series{Name: "executor_completed_tasks_total", Labels: lb}
	total := 0.0
	for i := 0; i <= len(rates); i++ {
		at := t0.Add(time.Duration(i) * 15 * time.Second)
		size.Points = append(size.Points, Point{at, 20})
		act.Points = append(act.Points, Point{at, busy})
		done.Points = append(done.Points, Point{at, total})
		if i < len(rates) {
			total += poisson(rng, rates[i]*15)
		}
	}
	p := &Pool{Family: Executor, Labels: lb, Series: map[Role]*Series{Size: size, Busy: act, Completed: done}}
	return p, p.Timeline()
}

// poisson draws by counting exponential gaps (small means only).
func poisson(rng *rand.Rand, mean float64) float64 {
	n, t := 0.0, rng.ExpFloat64()
	for t < mean {
		n++
		t += rng.ExpFloat64()
	}
	return n
}

// TestInferSegments: two steady stretches (20/s for 40 scrapes, then 2/s
// for 40) become two segments whose Poisson bands hold the true rates. Over
// 200 seeds the bands' coverage must be near Confidence: each band misses
// with probability 5 %, so 400 bands miss 20 ± 4.4 (binomial SD); more than
// 20 + 4·4.4 ≈ 38 misses would mean the bands are too narrow.
func TestInferSegments(t *testing.T) {
	rates := make([]float64, 80)
	for i := range rates {
		rates[i] = 20
		if i >= 40 {
			rates[i] = 2
		}
	}
	misses, wrongCut := 0, 0
	for seed := uint64(1); seed <= 200; seed++ {
		p, o := counterPool(seed, rates, 0)
		tr, err := Infer(p, o, TrafficOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(tr.Segments) != 2 || tr.Segments[0].To != 600*time.Second {
			wrongCut++
			continue
		}
		for i, want := range []float64{20, 2} {
			if !tr.Segments[i].Poisson.Contains(want) {
				misses++
			}
		}
	}
	t.Logf("%d of 400 bands missed the true rate; %d of 200 runs cut elsewhere", misses, wrongCut)
	if misses > 38 || wrongCut > 0 {
		t.Errorf("%d of 400 bands missed (want <= 38), %d runs cut wrongly (want 0); reproduce: go test ./metrics -run TestInferSegments", misses, wrongCut)
	}
}

// TestInferSteady: steady traffic stays one segment in (nearly) every seed:
// the threshold 2·LLR > 10.83 is the χ² 0.999 quantile, so a false cut is
// rare even across the ~75 candidate split points.
func TestInferSteady(t *testing.T) {
	rates := make([]float64, 80)
	for i := range rates {
		rates[i] = 5
	}
	cuts := 0
	for seed := uint64(1); seed <= 200; seed++ {
		p, o := counterPool(seed, rates, 0)
		tr, err := Infer(p, o, TrafficOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(tr.Segments) > 1 {
			cuts++
		}
	}
	t.Logf("%d of 200 steady runs cut", cuts)
	// Measured: 3 of 200 seeds cut steady traffic (the maximum over split
	// points is not χ²(1)); 15 is five times that.
	if cuts > 15 {
		t.Errorf("%d of 200 steady runs were cut; reproduce: go test ./metrics -run TestInferSteady", cuts)
	}
}

// TestInferService: busy / rate gives the service time (Little, R180).
func TestInferService(t *testing.T) {
	rates := make([]float64, 40)
	for i := range rates {
		rates[i] = 10
	}
	p, o := counterPool(7, rates, 2) // 2 busy at 10/s: 200 ms
	tr, err := Infer(p, o, TrafficOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := tr.Segments[0]
	if s.ServiceFrom != "segment" || math.Abs(s.Service.Seconds()-0.2) > 0.02 {
		t.Errorf("service %v from %s, want about 200ms from the segment", s.Service, s.ServiceFrom)
	}
}

// TestPoissonBand: the Garwood interval for 10 events in 1 s is
// 4.795–18.39 (tables of the exact Poisson interval).
func TestPoissonBand(t *testing.T) {
	b := poissonBand(10, 1)
	if got := fmt.Sprintf("%.3f %.2f %.0f", b.Low, b.High, b.Best); got != "4.795 18.39 10" {
		t.Errorf("band %s", got)
	}
}
