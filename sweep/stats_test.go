package sweep

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

func TestMeanHalfWidth(t *testing.T) {
	// t(0.975, 4) = 2.776445 (tables; also R's qt(0.975, 4)); the tolerance
	// is the table's last digit.
	const tol = 1e-6
	nan := math.NaN()
	tests := []struct {
		xs       []float64
		mean, hw float64
	}{
		{[]float64{1, 2, 3, 4, 5}, 3, 2.776445 * math.Sqrt(2.5) / math.Sqrt(5)}, // s = √2.5
		{[]float64{7}, 7, nan},           // one replication: no interval, not 0
		{nil, nan, nan},                  // nothing
		{[]float64{4, 4, 4}, 4, 0},       // no spread: a zero-width interval
		{[]float64{1, nan, 3}, nan, nan}, // undefined in one replication: undefined
		{[]float64{0, 2}, 1, 12.706205 * 1.4142135623730951 / math.Sqrt(2)}, // t(0.975, 1) = 12.706205
	}
	same := func(a, b float64) bool {
		return (math.IsNaN(a) && math.IsNaN(b)) || math.Abs(a-b) <= tol*math.Max(1, math.Abs(b))
	}
	for _, tc := range tests {
		m, hw := MeanHalfWidth(tc.xs)
		if !same(m, tc.mean) || !same(hw, tc.hw) {
			t.Errorf("MeanHalfWidth(%v) = %v ± %v; want %v ± %v", tc.xs, m, hw, tc.mean, tc.hw)
		}
	}
}

// The interval covers the true mean 95% of the time. Over 4000 samples of
// 5 normal values, the coverage's standard error is √(0.95·0.05/4000) =
// 0.0034; the test allows 4 standard errors. Seed fixed.
func TestHalfWidthCoverage(t *testing.T) {
	const seed, trials, n = 5, 4000, 5
	src := rand.New(rand.NewPCG(seed, 0))
	norm := distuv.Normal{Mu: 10, Sigma: 3, Src: src}
	covered := 0
	xs := make([]float64, n)
	for range trials {
		for i := range xs {
			xs[i] = norm.Rand()
		}
		m, hw := MeanHalfWidth(xs)
		if math.Abs(m-10) <= hw {
			covered++
		}
	}
	got := float64(covered) / trials
	se := math.Sqrt(0.95 * 0.05 / trials)
	if math.Abs(got-0.95) > 4*se {
		t.Errorf("coverage %.4f, want 0.95 ± %.4f (seed %d; go test ./sweep -run TestHalfWidthCoverage)", got, 4*se, seed)
	}
}

func TestRelativeHalfWidth(t *testing.T) {
	tests := []struct {
		mean, hw, want float64
	}{
		{10, 1, 0.1},                // the usual case
		{-10, 1, 0.1},               // relative to |mean|
		{0, 0, 0},                   // no spread at 0: met
		{5, 0, 0},                   // no spread
		{0, 1, math.Inf(1)},         // mean 0 with spread: never met
		{math.NaN(), 1, math.NaN()}, // undefined
		{1, math.NaN(), math.NaN()}, // one replication
	}
	for _, tc := range tests {
		got := relativeHalfWidth(tc.mean, tc.hw)
		if !(got == tc.want || (math.IsNaN(got) && math.IsNaN(tc.want))) {
			t.Errorf("relativeHalfWidth(%v, %v) = %v; want %v", tc.mean, tc.hw, got, tc.want)
		}
	}
}

// The metrics are summary.json's numeric fields, in its order, without the
// seed and the non-numeric fields.
func TestMetrics(t *testing.T) {
	ms := Metrics()
	idx := map[string]int{}
	for i, m := range ms {
		idx[m] = i
	}
	for _, want := range []string{"submitted", "rejected", "wait_p99_s", "pool_size_mean", "response_p99_s", "sim_time_s"} {
		if _, ok := idx[want]; !ok {
			t.Errorf("metric %s missing from %v", want, ms)
		}
	}
	for _, not := range []string{"seed", "name", "run_state", "complete"} {
		if _, ok := idx[not]; ok {
			t.Errorf("%s is not a metric", not)
		}
	}
	if idx["submitted"] > idx["wait_p99_s"] {
		t.Errorf("metrics out of summary.json's order: %v", ms)
	}
}
