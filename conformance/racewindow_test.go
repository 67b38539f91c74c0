package conformance

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/poolsim/poolsim/workloads"
)

// TestRaceLaw: the race window's estimate from current-status observations (RaceWindow).
func TestRaceLaw(t *testing.T) {
	us := time.Microsecond
	at := func(spec workloads.ServiceSpec, u float64) time.Duration {
		for _, p := range spec.Points {
			if p.Q == u {
				return p.Value
			}
		}
		t.Fatalf("no point at %v in %v", u, spec.Points)
		return 0
	}
	// One barged task among the ten whose next end came within 10 µs, none after 20 µs: P(R > δ)
	// is 0.1 up to 20 µs (the first block pools the ten), then 0. The quantile at 0.9 is 0 — not
	// 20 µs, which a comparison with 1 − 0.9 in floating point (0.0999…) gave — and above 0.9 it
	// is 20 µs.
	var xs []raceObs
	for i := 1; i <= 9; i++ {
		xs = append(xs, raceObs{time.Duration(i) * us, false})
	}
	xs = append(xs, raceObs{10 * us, true})
	for i := 20; i < 30; i++ {
		xs = append(xs, raceObs{time.Duration(i) * us, false})
	}
	law := raceLaw(xs)
	if got := at(law, 0.9); got != 0 {
		t.Errorf("quantile 0.9 = %v, want 0 (P(R > 0) = 0.1)", got)
	}
	if got := at(law, 0.93); got != 20*us {
		t.Errorf("quantile 0.93 = %v, want 20µs", got)
	}
	if _, err := workloads.NewDistribution(law, workloads.NewStream(1, "t")); err != nil {
		t.Errorf("not a law: %v", err)
	}
	// A known window: R uniform on [0, 100 µs) with probability 0.3, else 0 (a waiter that
	// wins at once). δ drawn uniform on [0, 200 µs), barged when R > δ: P(R > δ) = 0.3·(1 −
	// δ/100 µs) below 100 µs. The fitted quantile at u ≥ 0.7 is 100 µs·(u − 0.7)/0.3 within the
	// estimate's noise. That estimate converges as n^(−1/3) (Groeneboom): its error in F(t) has
	// a standard deviation of about 0.52·(4F(1−F)·f/g)^(1/3)·n^(−1/3), f and g the densities of R
	// and of δ at t — at most 0.35·n^(−1/3) here, 0.006 at n = 200,000, 2 µs of the quantile
	// where f = 0.3 per 100 µs: ±8 µs is four of them.
	r := rand.New(rand.NewPCG(1, 2))
	xs = xs[:0]
	for i := 0; i < 200000; i++ {
		d := time.Duration(r.Float64() * float64(200*us))
		var R time.Duration
		if r.Float64() < 0.3 {
			R = time.Duration(r.Float64() * float64(100*us))
		}
		xs = append(xs, raceObs{d, R > d})
	}
	law = raceLaw(xs)
	for _, u := range []float64{0.8, 0.85, 0.9, 0.95} {
		want := time.Duration((u - 0.7) / 0.3 * float64(100*us))
		if got := at(law, u); got < want-8*us || got > want+8*us {
			t.Errorf("quantile %v = %v, want %v ± 8µs", u, got, want)
		}
	}
	// 70 % of waiters win at once: the quantile at 0.5 is 0, but for the first few observations,
	// where a barged one or two make a block of their own (the estimate's boundary).
	if got := at(law, 0.5); got > 2*us {
		t.Errorf("quantile 0.5 = %v, want 0 (within 2µs): 70 %% of waiters win at once", got)
	}
}
