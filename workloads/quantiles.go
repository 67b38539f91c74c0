package workloads

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"
)

// QuantilePoint is one point of a law given by its quantiles: the fraction
// Q of draws that are at most Value.
type QuantilePoint struct {
	Q     float64
	Value time.Duration
}

// quantileDist draws by inverse transform from a piecewise-linear quantile
// function through the given points — the form a calibration's measured
// quantiles take (host.wakeup; scenarios/examples/calibration/HandOff.java).
// Between two points the law is uniform, so its moments are exact sums over
// the segments.
type quantileDist struct {
	pts      []QuantilePoint
	rng      *rand.Rand
	mean     float64
	variance float64
}

// newQuantiles checks the points — from Q = 0 to Q = 1, increasing, with
// non-decreasing values >= 0 — and builds the law.
func newQuantiles(pts []QuantilePoint, src rand.Source) (Distribution, error) {
	const allowed = "points from [0, MIN] to [1, MAX], increasing, e.g. [[0, 5us], [0.5, 30us], [0.99, 150us], [1, 3ms]]"
	switch {
	case len(pts) < 2:
		return nil, &ParamError{"points", fmt.Sprintf("need at least 2 points, got %d", len(pts)), allowed}
	case pts[0].Q != 0 || pts[len(pts)-1].Q != 1:
		return nil, &ParamError{"points", fmt.Sprintf("must run from quantile 0 to quantile 1, got %v to %v", pts[0].Q, pts[len(pts)-1].Q), allowed}
	}
	for i, p := range pts {
		if p.Value < 0 {
			return nil, &ParamError{"points", fmt.Sprintf("point %d: a negative value %v", i, p.Value), allowed}
		}
		if i > 0 && (p.Q <= pts[i-1].Q || p.Value < pts[i-1].Value) {
			return nil, &ParamError{"points", fmt.Sprintf("point %d: quantiles must increase and values must not decrease (%v: %v after %v: %v)", i, p.Q, p.Value, pts[i-1].Q, pts[i-1].Value), allowed}
		}
	}
	d := &quantileDist{pts: append([]QuantilePoint(nil), pts...), rng: rand.New(src)}
	m2 := 0.0
	for i := 1; i < len(pts); i++ {
		w := pts[i].Q - pts[i-1].Q
		a, b := pts[i-1].Value.Seconds(), pts[i].Value.Seconds()
		d.mean += w * (a + b) / 2
		m2 += w * (a*a + a*b + b*b) / 3
	}
	d.variance = math.Max(m2-d.mean*d.mean, 0)
	return d, nil
}

func (d *quantileDist) Sample() time.Duration { return d.Quantile(d.rng.Float64()) }

// Quantile is the piecewise-linear quantile function at u in [0, 1].
func (d *quantileDist) Quantile(u float64) time.Duration {
	p := d.pts
	i := 1
	for i < len(p)-1 && p[i].Q <= u {
		i++
	}
	lo, hi := p[i-1], p[i]
	f := (u - lo.Q) / (hi.Q - lo.Q)
	return lo.Value + time.Duration(math.Round(f*float64(hi.Value-lo.Value)))
}

func (d *quantileDist) Mean() float64     { return d.mean }
func (d *quantileDist) Variance() float64 { return d.variance }

func (d *quantileDist) String() string {
	var b strings.Builder
	b.WriteString("quantiles(")
	for i, p := range d.pts {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%g: %v", p.Q, p.Value)
	}
	return b.String() + ")"
}
