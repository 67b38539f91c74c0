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
