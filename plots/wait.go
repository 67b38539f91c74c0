package plots

import (
	"fmt"
	"io"
	"math"
	"sort"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Quantile is one point of a distribution: the fraction Q (0..1) of tasks
// whose time was at most Seconds.
type Quantile struct {
	Q       float64
	Seconds float64
}

// SteadyState holds the steady-state (after warmup) wait and response time
// quantiles of a run, e.g. from summary.json's wait_p50_s, wait_p90_s,
// wait_p99_s, wait_max_s (Q = 1). Either may be empty.
type SteadyState struct {
	Wait, Response []Quantile
}

// waitColumn is a per-interval column of the wait chart and its style.
type waitColumn struct {
	col, name string
	spec      lineSpec
	width     float64
}

// waitColumns are the per-interval columns the wait chart draws, with
// their legend names and styles.
var waitColumns = []waitColumn{
	{"wait_p50_s", "wait p50", lineSpec{colGreen, nil}, 2},
	{"wait_p99_s", "wait p99", lineSpec{colOrange, nil}, 2},
	{"wait_max_s", "wait max", lineSpec{colVermillion, []vg.Length{vg.Points(2), vg.Points(2)}}, 1.5},
	{"response_p99_s", "response p99", lineSpec{colBlue, []vg.Length{vg.Points(7), vg.Points(3)}}, 2},
}

// NamedSegments is one drawn series split at gaps (intervals in which no
// task started or completed).
type NamedSegments struct {
	Name     string
	Column   string
	Segments []plotter.XYs
}

// WaitSeries is what the wait and response chart draws.
type WaitSeries struct {
	Time Unit
	// Value is the unit of the per-interval panel's y axis.
	Value Unit
	// Lines are the per-interval statistics present in the timeline with at
	// least one value, Y in Value units.
	Lines []NamedSegments
	// CDFUnit is the unit of the CDF panel's x axis; CDF its curves (X in
	// CDFUnit, Y the quantile), empty when no steady-state quantiles were
	// given.
	CDFUnit Unit
	CDF     []NamedXYs
	Events  []EventMark
}

// ComputeWaitSeries computes the per-interval wait/response lines
// (downsampled keeping each run's minimum, maximum and gaps) and the
// steady-state CDF curves. It fails when the timeline has no wait or
// response value at all.
func ComputeWaitSeries(tl *Timeline, ss SteadyState, events []Event, buckets int) (*WaitSeries, error) {
	if err := tl.check(); err != nil {
		return nil, fmt.Errorf("plots: wait chart: %w", err)
	}
	n := tl.Len()
	u := TimeUnit(tl.T[n-1] - tl.T[0])
	var cols [][]float64
	var present []int
	for i, wc := range waitColumns {
		c, ok := tl.Extra[wc.col]
		if !ok {
			continue
		}
		if _, any := finiteMax(c); any {
			cols = append(cols, c)
			present = append(present, i)
		}
	}
	if len(cols) == 0 {
		return nil, fmt.Errorf("plots: wait chart: %w: no wait or response value in the timeline (columns wait_p50_s, wait_p99_s, wait_max_s, response_p99_s absent or all empty)", errNoData)
	}
	top, _ := finiteMax(cols...)
	vu := DurationUnit(top)
	idx := DownsampleIndices(n, buckets, cols...)
	s := &WaitSeries{Time: u, Value: vu, Events: eventMarks(events, tl.T[0], tl.T[n-1], u)}
	for k, c := range cols {
		wc := waitColumns[present[k]]
		xys := scaleY(pick(tl.T, c, idx, u.Scale), vu.Scale)
		s.Lines = append(s.Lines, NamedSegments{Name: wc.name, Column: wc.col, Segments: SplitNaN(xys)})
	}

	cdfMax := 0.0
	for _, d := range []struct {
		name string
		qs   []Quantile
	}{{"wait", ss.Wait}, {"response", ss.Response}} {
		if len(d.qs) == 0 {
			continue
		}
		xys, err := cdfPoints(d.qs)
		if err != nil {
			return nil, fmt.Errorf("plots: wait chart: %s quantiles: %w", d.name, err)
		}
		s.CDF = append(s.CDF, NamedXYs{Name: d.name, XYs: xys})
		cdfMax = math.Max(cdfMax, xys[len(xys)-1].X)
	}
	s.CDFUnit = DurationUnit(cdfMax)
	for i := range s.CDF {
		for j := range s.CDF[i].XYs {
			s.CDF[i].XYs[j].X /= s.CDFUnit.Scale
		}
	}
	return s, nil
}

// cdfPoints validates quantiles and returns them as (seconds, Q) points in
// Q order. Seconds must not decrease as Q grows: otherwise it is not a
// distribution.
func cdfPoints(qs []Quantile) (plotter.XYs, error) {
	s := append([]Quantile(nil), qs...)
	sort.SliceStable(s, func(i, j int) bool { return s[i].Q < s[j].Q })
	out := make(plotter.XYs, len(s))
	for i, q := range s {
		if !(q.Q >= 0 && q.Q <= 1) {
			return nil, fmt.Errorf("quantile %v outside [0, 1]", q.Q)
		}
		if !(q.Seconds >= 0) || math.IsInf(q.Seconds, 0) {
			return nil, fmt.Errorf("quantile %v: %v s is not a non-negative finite time", q.Q, q.Seconds)
		}
		if i > 0 && q.Seconds < s[i-1].Seconds {
			return nil, fmt.Errorf("quantile %v is %v s, below quantile %v at %v s: not a distribution", q.Q, q.Seconds, s[i-1].Q, s[i-1].Seconds)
		}
		out[i] = plotter.XY{X: q.Seconds, Y: q.Q}
	}
	return out, nil
}

// WaitResponse draws the wait and response times: per-interval p50, p99 and
// max over time (left), and the steady-state distribution as a CDF (right,
// when ss has quantiles). It writes a PNG.
func WaitResponse(w io.Writer, tl *Timeline, ss SteadyState, o Options) error {
	wd, ht, err := o.size()
	if err != nil {
		return fmt.Errorf("plots: wait chart: %w", err)
	}
	s, err := ComputeWaitSeries(tl, ss, o.Events, wd)
	if err != nil {
		return err
	}
	lp := newPlot("per sample interval (gaps: no task)", "time ("+s.Time.Name+")", "time ("+s.Value.Name+")")
	lpn := newPanel(lp)
	ymax := 0.0
	for _, l := range s.Lines {
		wc := waitColumnByName(l.Column)
		th, err := addLines(lp, l.Segments, lineStyle(wc.spec.c, wc.width, wc.spec.dash))
		if err != nil {
			return fmt.Errorf("plots: wait chart: %w", err)
		}
		lpn.add(l.Name, th)
		for _, sg := range l.Segments {
			for _, p := range sg {
				ymax = math.Max(ymax, p.Y)
			}
		}
	}
	if len(s.Events) > 0 {
		lp.Add(eventPlotter{marks: s.Events, labels: true})
		lpn.add("runtime event", eventThumb{})
	}
	lp.X.Min, lp.X.Max = timeRange(tl, s.Time)
	lp.Y.Min, lp.Y.Max = 0, niceTop(ymax)
	lp.X.Tick.Marker, lp.Y.Tick.Marker = timeTicks(s.Time), valueTicks
	cols := []column{{1.9, []*panel{lpn}}}

	if len(s.CDF) > 0 {
		rp := newPlot("steady state (after warmup)", "time ("+s.CDFUnit.Name+")", "fraction of tasks ≤ time")
		rpn := newPanel(rp)
		rpn.inside = true
		specs := map[string]lineSpec{"wait": {colOrange, nil}, "response": {colBlue, []vg.Length{vg.Points(7), vg.Points(3)}}}
		xmax := 0.0
		for _, c := range s.CDF {
			sp := specs[c.Name]
			l, err := plotter.NewLine(c.XYs)
			if err != nil {
				return fmt.Errorf("plots: wait chart: %w", err)
			}
			l.LineStyle = lineStyle(sp.c, 2, sp.dash)
			sc, err := plotter.NewScatter(c.XYs)
			if err != nil {
				return fmt.Errorf("plots: wait chart: %w", err)
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: sp.c, Radius: vg.Points(3.5), Shape: draw.CircleGlyph{}}
			rp.Add(l, sc)
			rpn.add(c.Name, l, sc)
			xmax = math.Max(xmax, c.XYs[len(c.XYs)-1].X)
		}
		rp.X.Min, rp.X.Max = 0, niceTop(xmax)
		rp.Y.Min, rp.Y.Max = 0, 1
		rp.X.Tick.Marker, rp.Y.Tick.Marker = valueTicks, valueTicks
		cols = append(cols, column{1, []*panel{rpn}})
	}
	title := "Wait and response times"
	if o.Title != "" {
		title += " · " + o.Title
	}
	if err := render(w, wd, ht, title, cols); err != nil {
		return fmt.Errorf("plots: wait chart: %w", err)
	}
	return nil
}

func waitColumnByName(col string) waitColumn {
	for _, c := range waitColumns {
		if c.col == col {
			return c
		}
	}
	return waitColumn{}
}
