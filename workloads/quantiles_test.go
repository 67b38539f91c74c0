package workloads

import (
	"math"
	"testing"
	"time"
)

// TestQuantiles: a law given by quantile points draws each point's share
// below its value (within 4 standard errors of a binomial proportion), and
// its sample mean matches the exact mean of the piecewise-uniform law.
func TestQuantiles(t *testing.T) {
	pts := []QuantilePoint{{0, 5 * time.Microsecond}, {0.5, 30 * time.Microsecond}, {0.9, 50 * time.Microsecond}, {0.99, 150 * time.Microsecond}, {1, 3 * time.Millisecond}}
	d, err := NewDistribution(ServiceSpec{Dist: "quantiles", Points: pts}, NewStream(1, "q"))
	if err != nil {
		t.Fatal(err)
	}
	const n = 200000
	below := make([]int, len(pts))
	sum := 0.0
	for i := 0; i < n; i++ {
		x := d.Sample()
		sum += x.Seconds()
		for k, p := range pts {
			if x <= p.Value {
				below[k]++
			}
		}
	}
	if below[len(pts)-1] != n {
		t.Errorf("%d draws above the last point", n-below[len(pts)-1])
	}
	for k, p := range pts[1 : len(pts)-1] {
		got, se := float64(below[k+1])/n, math.Sqrt(p.Q*(1-p.Q)/n)
		if math.Abs(got-p.Q) > 4*se {
			t.Errorf("P(X <= %v) = %.4f, want %.4f ± %.4f", p.Value, got, p.Q, 4*se)
		}
	}
	mean, sd := d.Mean(), math.Sqrt(d.Variance())
	if got := sum / n; math.Abs(got-mean) > 4*sd/math.Sqrt(n) {
		t.Errorf("sample mean %.3gs, exact %.3gs (sd %.3g)", got, mean, sd)
	}
	for _, bad := range [][]QuantilePoint{
		{{0, time.Millisecond}},
		{{0.1, time.Millisecond}, {1, 2 * time.Millisecond}},
		{{0, 2 * time.Millisecond}, {1, time.Millisecond}},
		{{0, time.Millisecond}, {0.5, time.Millisecond}, {0.5, 2 * time.Millisecond}, {1, 3 * time.Millisecond}},
	} {
		if _, err := NewDistribution(ServiceSpec{Dist: "quantiles", Points: bad}, NewStream(1, "q")); err == nil {
			t.Errorf("%v: accepted", bad)
		}
	}
}

// TestEveryLawHasAQuantile: every law NewDistribution builds is a Quantiler whose quantile
// function does not decrease and whose values, at the midpoints of n equal slices of (0, 1),
// average to the law's exact mean: the midpoint rule's error on a law with a finite variance
// is below 1% of the mean at n = 200,000 (the heavy tails' last slice, pareto α = 3 and
// lognormal cv 2, contributes less than that). The same draw of Sample and Quantile at the same
// uniform is checked for the quantiles law, which draws its sample that way.
func TestEveryLawHasAQuantile(t *testing.T) {
	ms := time.Millisecond
	specs := []ServiceSpec{
		{Dist: "constant", Mean: 3 * ms},
		{Dist: "exponential", Mean: 40 * ms},
		{Dist: "uniform", Min: ms, Max: 9 * ms},
		{Dist: "lognormal", Mean: 40 * ms, CV: 2},
		{Dist: "gamma", Mean: 40 * ms, CV: 0.5},
		{Dist: "pareto", Mean: 40 * ms, Alpha: 3},
		{Dist: "weibull", Mean: 40 * ms, CV: 1.5},
		{Dist: "empirical", Samples: []float64{0.001, 0.002, 0.002, 0.010}},
		{Dist: "quantiles", Points: []QuantilePoint{{0, 5 * time.Microsecond}, {0.5, 30 * time.Microsecond}, {0.99, 150 * time.Microsecond}, {1, 3 * ms}}},
	}
	if len(specs) != len(DistNames()) {
		t.Fatalf("%d laws checked, %d named: check the new one", len(specs), len(DistNames()))
	}
	const n = 200000
	for _, spec := range specs {
		d, err := NewDistribution(spec, NewStream(1, "q"))
		if err != nil {
			t.Fatal(err)
		}
		q, ok := d.(Quantiler)
		if !ok {
			t.Errorf("%s: no quantile function", d)
			continue
		}
		sum, prev := 0.0, time.Duration(0)
		for i := 0; i < n; i++ {
			x := q.Quantile((float64(i) + 0.5) / n)
			if x < prev {
				t.Fatalf("%s: Quantile decreases at %d/%d: %v after %v", d, i, n, x, prev)
			}
			prev = x
			sum += x.Seconds()
		}
		if got, want := sum/n, d.Mean(); math.Abs(got-want) > 0.01*want {
			t.Errorf("%s: the quantile function averages %.6g s, the mean is %.6g s", d, got, want)
		}
	}
}
