package plots

import (
	"math"
	"sort"

	"gonum.org/v1/plot/plotter"
)

// Unit is a display unit: values in seconds (or any base unit) are divided
// by Scale before drawing and the axis label says Name.
type Unit struct {
	Name  string  // "s", "min", "h", "ms", "µs"
	Scale float64 // size of one Unit in base units
}

// TimeUnit picks the time axis unit for a run spanning spanS seconds:
// seconds up to 3 minutes, minutes up to 3 hours, hours beyond, so tick
// labels stay short numbers.
func TimeUnit(spanS float64) Unit {
	switch {
	case spanS <= 180:
		return Unit{"s", 1}
	case spanS <= 3*3600:
		return Unit{"min", 60}
	default:
		return Unit{"h", 3600}
	}
}

// DurationUnit picks the unit for a wait or response time axis whose
// largest value is maxS seconds.
func DurationUnit(maxS float64) Unit {
	switch {
	case maxS < 2e-3:
		return Unit{"µs", 1e-6}
	case maxS < 2:
		return Unit{"ms", 1e-3}
	case maxS <= 600:
		return Unit{"s", 1}
	default:
		return Unit{"min", 60}
	}
}

// EventMark is a runtime event placed on a time axis (X in the axis unit).
type EventMark struct {
	X     float64
	Label string
}

// Event is a runtime event of the run: a reconfiguration ("set core=20
// max=400") or a shutdown, at AtS seconds of virtual time.
type Event struct {
	AtS   float64
	Label string
}

// eventMarks converts events to marks in unit u, dropping those outside
// [t0, t1] and merging events at the same instant into one label, in time
// order (stable for equal times).
func eventMarks(events []Event, t0, t1 float64, u Unit) []EventMark {
	ev := make([]Event, 0, len(events))
	for _, e := range events {
		if e.AtS >= t0 && e.AtS <= t1 && !math.IsNaN(e.AtS) {
			ev = append(ev, e)
		}
	}
	sort.SliceStable(ev, func(i, j int) bool { return ev[i].AtS < ev[j].AtS })
	var out []EventMark
	for i, e := range ev {
		if i > 0 && e.AtS == ev[i-1].AtS {
			out[len(out)-1].Label += "; " + e.Label
			continue
		}
		out = append(out, EventMark{X: e.AtS / u.Scale, Label: e.Label})
	}
	return out
}

// DownsampleIndices chooses the samples to draw when n samples are more
// than about 2 per pixel. The n samples are cut into `buckets` runs of
// consecutive indices; from each run it keeps, for every column, the sample
// holding that column's minimum and the one holding its maximum (ignoring
// NaN), plus the first NaN sample when the run has one (so gaps stay gaps).
// The first and last samples are always kept. Every kept index is a real
// sample, so columns drawn together (stacked areas) stay consistent, and a
// one-sample spike of any column survives: it is its run's maximum.
// When n <= 2*buckets every index is returned. The result is ascending.
func DownsampleIndices(n, buckets int, cols ...[]float64) []int {
	if n <= 0 {
		return nil
	}
	if buckets < 1 {
		buckets = 1
	}
	if n <= 2*buckets {
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		return idx
	}
	keep := make([]bool, n)
	keep[0], keep[n-1] = true, true
	for b := range buckets {
		lo, hi := b*n/buckets, (b+1)*n/buckets
		for _, c := range cols {
			iMin, iMax, iNaN := -1, -1, -1
			for i := lo; i < hi; i++ {
				v := c[i]
				if math.IsNaN(v) {
					if iNaN < 0 {
						iNaN = i
					}
					continue
				}
				if iMin < 0 || v < c[iMin] {
					iMin = i
				}
				if iMax < 0 || v > c[iMax] {
					iMax = i
				}
			}
			for _, i := range []int{iMin, iMax, iNaN} {
				if i >= 0 {
					keep[i] = true
				}
			}
		}
	}
	var idx []int
	for i, k := range keep {
		if k {
			idx = append(idx, i)
		}
	}
	return idx
}

// pick returns xs/scale and ys at the given indices.
func pick(t, v []float64, idx []int, scale float64) plotter.XYs {
	out := make(plotter.XYs, len(idx))
	for k, i := range idx {
		out[k] = plotter.XY{X: t[i] / scale, Y: v[i]}
	}
	return out
}

// SplitNaN cuts a polyline at points whose Y is NaN: the result holds the
// runs of consecutive finite points, so a gap in the data stays a gap.
func SplitNaN(xys plotter.XYs) []plotter.XYs {
	var out []plotter.XYs
	var cur plotter.XYs
	for _, p := range xys {
		if math.IsNaN(p.Y) || math.IsInf(p.Y, 0) {
			if len(cur) > 0 {
				out = append(out, cur)
				cur = nil
			}
			continue
		}
		cur = append(cur, p)
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// Band is one layer of a stacked area chart: the area between Lower and
// Upper, which share their X values point by point.
type Band struct {
	Name         string
	Lower, Upper plotter.XYs
}

// StackBands stacks layers bottom to top at the chosen indices: band k lies
// between the sum of layers 0..k-1 and the sum of layers 0..k.
func StackBands(t []float64, layers [][]float64, names []string, idx []int, scale float64) []Band {
	bands := make([]Band, len(layers))
	lower := make([]float64, len(idx))
	for k, layer := range layers {
		b := Band{Name: names[k], Lower: make(plotter.XYs, len(idx)), Upper: make(plotter.XYs, len(idx))}
		for j, i := range idx {
			x := t[i] / scale
			b.Lower[j] = plotter.XY{X: x, Y: lower[j]}
			lower[j] += layer[i]
			b.Upper[j] = plotter.XY{X: x, Y: lower[j]}
		}
		bands[k] = b
	}
	return bands
}

// BandEdge is the upper boundary of a band where the band has thickness,
// as polylines. Stroked over the filled areas, it keeps a layer's
// one-sample spike visible when it is far narrower than a pixel.
func BandEdge(b Band) []plotter.XYs {
	thick := func(i int) bool { return i >= 0 && i < len(b.Upper) && b.Upper[i].Y > b.Lower[i].Y }
	var out []plotter.XYs
	var cur plotter.XYs
	for i, p := range b.Upper {
		if thick(i-1) || thick(i) || thick(i+1) {
			cur = append(cur, p)
			continue
		}
		if len(cur) > 0 {
			out = append(out, cur)
			cur = nil
		}
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// cumulative returns the running sums of layers, bottom to top: out[k][i] =
// layers[0][i] + ... + layers[k][i]. Downsampling uses these so that every
// boundary drawn in a stacked chart keeps its spikes.
func cumulative(layers [][]float64) [][]float64 {
	out := make([][]float64, len(layers))
	for k := range layers {
		out[k] = make([]float64, len(layers[k]))
		for i, v := range layers[k] {
			if k > 0 {
				v += out[k-1][i]
			}
			out[k][i] = v
		}
	}
	return out
}

// StepLine draws a configuration value that changes at run time (core, max)
// as explicit horizontal and vertical segments: the value shown by sample i
// holds until sample i+1, and a change first seen at sample i is drawn as a
// vertical step at t[i] (a sample shows the state after every event at or
// before its time, CONTRACT.md §2). Samples where skip(v) is true (e.g. an
// unbounded max) are left out, splitting the line into several polylines.
// X values are t/scale. Only the first min(len(t), len(v)) samples count.
func StepLine(t, v []float64, scale float64, skip func(float64) bool) []plotter.XYs {
	var out []plotter.XYs
	var cur plotter.XYs
	t = t[:min(len(t), len(v))]
	for i := range t {
		x := t[i] / scale
		if skip != nil && skip(v[i]) || math.IsNaN(v[i]) {
			if len(cur) > 0 {
				cur = append(cur, plotter.XY{X: x, Y: cur[len(cur)-1].Y})
				out = append(out, cur)
				cur = nil
			}
			continue
		}
		switch {
		case len(cur) == 0:
			cur = plotter.XYs{{X: x, Y: v[i]}}
		case v[i] != cur[len(cur)-1].Y:
			cur = append(cur, plotter.XY{X: x, Y: cur[len(cur)-1].Y}, plotter.XY{X: x, Y: v[i]})
		}
	}
	if len(cur) > 0 {
		last := t[len(t)-1] / scale
		if cur[len(cur)-1].X != last {
			cur = append(cur, plotter.XY{X: last, Y: cur[len(cur)-1].Y})
		}
		out = append(out, cur)
	}
	return out
}

// LabelRows places event labels at the top of a chart without overlap.
// Label k spans [starts[k], starts[k]+widths[k]] (any unit, starts sorted
// ascending); it goes on the first row whose previous label ends at least
// gap before it. It returns each label's row (0 = top).
func LabelRows(starts, widths []float64, gap float64) []int {
	rows := make([]int, len(starts))
	var ends []float64 // right end of the last label on each row
	for k := range starts {
		r := 0
		for r < len(ends) && ends[r]+gap > starts[k] {
			r++
		}
		if r == len(ends) {
			ends = append(ends, 0)
		}
		ends[r] = starts[k] + widths[k]
		rows[k] = r
	}
	return rows
}

// finiteMax is the largest finite value of the columns, and whether there
// is one.
func finiteMax(cols ...[]float64) (float64, bool) {
	m, ok := math.Inf(-1), false
	for _, c := range cols {
		for _, v := range c {
			if !math.IsNaN(v) && !math.IsInf(v, 0) && v > m {
				m, ok = v, true
			}
		}
	}
	return m, ok
}

// scaleY returns a copy of xys with Y divided by s.
func scaleY(xys plotter.XYs, s float64) plotter.XYs {
	out := make(plotter.XYs, len(xys))
	for i, p := range xys {
		out[i] = plotter.XY{X: p.X, Y: p.Y / s}
	}
	return out
}
