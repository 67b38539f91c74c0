package plots

import (
	"fmt"
	"image/color"
	"io"
	"math"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Names of the thread timeline's layers, bottom to top (spec R56–R58: what a
// thread dump shows for busy, poll(keepAlive) and take() workers).
const (
	LayerBusy        = "busy"
	LayerIdleTimed   = "idle TIMED_WAITING (poll keepAlive)"
	LayerIdleUntimed = "idle WAITING (take)"
)

// ThreadSeries is what the thread timeline draws, in axis units.
type ThreadSeries struct {
	Time Unit
	// Bands are busy, idle TIMED_WAITING, idle WAITING, stacked bottom to
	// top; the top of the last band is the pool size.
	Bands []Band
	// Core and Max are the configuration as step lines; Max leaves out the
	// samples where max is unbounded. Either is empty when the timeline has
	// no such column.
	Core, Max []plotter.XYs
	// MaxLabel is the legend text for Max: "max", "max unbounded",
	// "max (unbounded part not drawn)" or, when max is far above every
	// thread count, "max = N (above the scale)". Empty without a max column.
	MaxLabel string
	// MaxDrawn reports whether Max is drawn within the y range.
	MaxDrawn bool
	// YMax is the top of the y axis (threads).
	YMax   float64
	Events []EventMark
}

// maxAboveScale: a bounded max more than this many times the largest thread
// count would squash the data into the bottom of the chart; it is then
// named in the legend instead of drawn.
const maxAboveScale = 2.5

// ComputeThreadSeries computes the thread timeline's series, downsampled to
// about `buckets` runs of samples (the plot width in pixels).
func ComputeThreadSeries(tl *Timeline, events []Event, buckets int) (*ThreadSeries, error) {
	if err := tl.check(); err != nil {
		return nil, fmt.Errorf("plots: thread timeline: %w", err)
	}
	n := tl.Len()
	u := TimeUnit(tl.T[n-1] - tl.T[0])
	layers := [][]float64{tl.Busy, tl.IdleTimed, tl.IdleUntimed}
	idx := DownsampleIndices(n, buckets, cumulative(layers)...)
	s := &ThreadSeries{
		Time:   u,
		Bands:  StackBands(tl.T, layers, []string{LayerBusy, LayerIdleTimed, LayerIdleUntimed}, idx, u.Scale),
		Events: eventMarks(events, tl.T[0], tl.T[n-1], u),
	}
	top, _ := finiteMax(cumulative(layers)[2], tl.PoolSize)
	if core, ok := tl.Extra["core"]; ok {
		s.Core = StepLine(tl.T, core, u.Scale, nil)
		if m, ok := finiteMax(core); ok {
			top = math.Max(top, m)
		}
	}
	if mx, ok := tl.Extra["max"]; ok {
		unbounded := func(v float64) bool { return v >= Unbounded }
		s.Max = StepLine(tl.T, mx, u.Scale, unbounded)
		bounded, partly := 0, false
		for _, v := range mx {
			if unbounded(v) {
				partly = true
			} else if !math.IsNaN(v) {
				bounded++
			}
		}
		mmax, _ := finiteMax(boundedOnly(mx))
		switch {
		case bounded == 0:
			s.MaxLabel = "max unbounded"
		case mmax > maxAboveScale*math.Max(top, 1):
			s.MaxLabel = fmt.Sprintf("max = %s (above the scale)", fmtCount(mmax))
			if mmin := -negMax(boundedOnly(mx)); mmin != mmax {
				s.MaxLabel = fmt.Sprintf("max %s–%s (above the scale)", fmtCount(mmin), fmtCount(mmax))
			}
		case partly:
			s.MaxLabel, s.MaxDrawn = "max (unbounded part not drawn)", true
			top = math.Max(top, mmax)
		default:
			s.MaxLabel, s.MaxDrawn = "max", true
			top = math.Max(top, mmax)
		}
	}
	s.YMax = niceTop(top)
	return s, nil
}

// negMax is the largest of -v (so -negMax is the smallest finite value).
func negMax(v []float64) float64 {
	neg := make([]float64, len(v))
	for i, x := range v {
		neg[i] = -x
	}
	m, _ := finiteMax(neg)
	return m
}

func boundedOnly(v []float64) []float64 {
	out := make([]float64, 0, len(v))
	for _, x := range v {
		if x < Unbounded {
			out = append(out, x)
		}
	}
	return out
}

// niceTop leaves headroom above the data for event labels.
func niceTop(top float64) float64 {
	if top <= 0 || math.IsNaN(top) {
		return 1
	}
	return top * 1.15
}

func fmtCount(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprintf("%d", int64(v))
	}
	return fmt.Sprintf("%.3g", v)
}

// ThreadTimeline draws the pool's threads over time as stacked areas (busy,
// idle TIMED_WAITING, idle WAITING), with core and max as step lines and
// runtime events marked, and writes it as PNG.
func ThreadTimeline(w io.Writer, tl *Timeline, o Options) error {
	wd, ht, err := o.size()
	if err != nil {
		return fmt.Errorf("plots: thread timeline: %w", err)
	}
	s, err := ComputeThreadSeries(tl, o.Events, wd)
	if err != nil {
		return err
	}
	p := newPlot("", "time ("+s.Time.Name+")", "threads")
	pn := newPanel(p)
	fills := []color.Color{colBlue, colOrange, colGreen}
	for i, b := range s.Bands {
		for _, piece := range bandPieces(b) {
			pg, err := bandPolygon(piece, fills[i])
			if err != nil {
				return fmt.Errorf("plots: thread timeline: %w", err)
			}
			p.Add(pg)
		}
	}
	// Edges top band first, so where layers coincide (a spike of busy
	// threads) the lower layer's colour shows.
	for i := len(s.Bands) - 1; i >= 0; i-- {
		if _, err := addLines(p, BandEdge(s.Bands[i]), lineStyle(fills[i], 1, nil)); err != nil {
			return fmt.Errorf("plots: thread timeline: %w", err)
		}
	}
	// Legend top to bottom in the order the layers appear top to bottom.
	for i := len(s.Bands) - 1; i >= 0; i-- {
		pg, _ := bandPolygon(s.Bands[i], fills[i])
		pn.add(s.Bands[i].Name, pg)
	}
	if len(s.Core) > 0 {
		th, err := addLines(p, s.Core, lineStyle(colBlack, 2, []vg.Length{vg.Points(7), vg.Points(4)}))
		if err != nil {
			return fmt.Errorf("plots: thread timeline: %w", err)
		}
		pn.add("core", th)
	}
	if s.MaxLabel != "" {
		if s.MaxDrawn {
			th, err := addLines(p, s.Max, lineStyle(colPurple, 2.5, []vg.Length{vg.Points(10), vg.Points(3), vg.Points(2), vg.Points(3)}))
			if err != nil {
				return fmt.Errorf("plots: thread timeline: %w", err)
			}
			pn.add(s.MaxLabel, th)
		} else {
			pn.add(s.MaxLabel, noThumb{})
		}
	}
	if len(s.Events) > 0 {
		p.Add(eventPlotter{marks: s.Events, labels: true})
		pn.add("runtime event", eventThumb{})
	}
	p.X.Min, p.X.Max = timeRange(tl, s.Time)
	p.Y.Min, p.Y.Max = 0, s.YMax
	p.X.Tick.Marker, p.Y.Tick.Marker = timeTicks(s.Time), countTicks
	title := "Threads over time"
	if o.Title != "" {
		title += " · " + o.Title
	}
	if err := render(w, wd, ht, title, []column{{1, []*panel{pn}}}); err != nil {
		return fmt.Errorf("plots: thread timeline: %w", err)
	}
	return nil
}
