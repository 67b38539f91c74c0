package plots

import (
	"fmt"
	"io"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// NamedXYs is one drawn line with its legend name.
type NamedXYs struct {
	Name string
	XYs  plotter.XYs
}

// QueueSeries is what the queue and rejections chart draws, in axis units.
type QueueSeries struct {
	Time Unit
	// Queue is queue_len over time.
	Queue plotter.XYs
	// Outcomes are the cumulative counts of tasks the pool did not run
	// itself: rejected, and discarded and caller_ran when the timeline has
	// them and they are ever non-zero (CONTRACT.md §2). The first is always
	// rejected.
	Outcomes []NamedXYs
	Events   []EventMark
}

// ComputeQueueSeries computes the queue and rejection series, downsampled
// to about `buckets` runs of samples keeping each run's minimum and maximum
// (so a one-sample queue spike and every rejection burst survive).
func ComputeQueueSeries(tl *Timeline, events []Event, buckets int) (*QueueSeries, error) {
	if err := tl.check(); err != nil {
		return nil, fmt.Errorf("plots: queue chart: %w", err)
	}
	n := tl.Len()
	u := TimeUnit(tl.T[n-1] - tl.T[0])
	cols := [][]float64{tl.Rejected}
	names := []string{"rejected"}
	for _, c := range []string{"discarded", "caller_ran"} {
		if v, ok := tl.Extra[c]; ok {
			if m, ok := finiteMax(v); ok && m > 0 {
				cols = append(cols, v)
				names = append(names, c)
			}
		}
	}
	s := &QueueSeries{
		Time:   u,
		Queue:  pick(tl.T, tl.QueueLen, DownsampleIndices(n, buckets, tl.QueueLen), u.Scale),
		Events: eventMarks(events, tl.T[0], tl.T[n-1], u),
	}
	idx := DownsampleIndices(n, buckets, cols...)
	for i, c := range cols {
		s.Outcomes = append(s.Outcomes, NamedXYs{Name: names[i], XYs: pick(tl.T, c, idx, u.Scale)})
	}
	return s, nil
}

// QueueRejections draws queue length (top panel) and cumulative rejections
// (bottom panel) over a shared time axis, and writes it as PNG.
func QueueRejections(w io.Writer, tl *Timeline, o Options) error {
	wd, ht, err := o.size()
	if err != nil {
		return fmt.Errorf("plots: queue chart: %w", err)
	}
	s, err := ComputeQueueSeries(tl, o.Events, wd)
	if err != nil {
		return err
	}
	x0, x1 := timeRange(tl, s.Time)
	xLabel := "time (" + s.Time.Name + ")"

	top := newPlot("", "", "queued tasks")
	tp := newPanel(top)
	ql, err := plotter.NewLine(s.Queue)
	if err != nil {
		return fmt.Errorf("plots: queue chart: %w", err)
	}
	ql.LineStyle = lineStyle(colBlue, 1.5, nil)
	ql.FillColor = withAlpha(colSkyBlue, 140)
	top.Add(ql)
	tp.add("queue length", ql)
	qmax, _ := finiteMax(tl.QueueLen)
	top.Y.Min, top.Y.Max = 0, niceTop(qmax)

	bot := newPlot("", xLabel, "tasks (cumulative)")
	bp := newPanel(bot)
	outCols := []lineSpec{{colVermillion, nil}, {colPurple, []vg.Length{vg.Points(6), vg.Points(3)}}, {colGreen, []vg.Length{vg.Points(2), vg.Points(2)}}}
	omax := 0.0
	for i, oc := range s.Outcomes {
		th, err := addLines(bot, []plotter.XYs{oc.XYs}, lineStyle(outCols[i].c, 2, outCols[i].dash))
		if err != nil {
			return fmt.Errorf("plots: queue chart: %w", err)
		}
		last := oc.XYs[len(oc.XYs)-1].Y
		omax = max(omax, last)
		bp.add(fmt.Sprintf("%s (total %s)", oc.Name, fmtCount(last)), th)
	}
	bot.Y.Min, bot.Y.Max = 0, niceTop(omax)

	for _, p := range []struct {
		pn     *panel
		labels bool
	}{{tp, true}, {bp, false}} {
		p.pn.plot.X.Min, p.pn.plot.X.Max = x0, x1
		p.pn.plot.X.Tick.Marker, p.pn.plot.Y.Tick.Marker = timeTicks(s.Time), countTicks
		if len(s.Events) > 0 {
			p.pn.plot.Add(eventPlotter{marks: s.Events, labels: p.labels})
		}
	}
	if len(s.Events) > 0 {
		tp.add("runtime event", eventThumb{})
	}
	title := "Queue and rejections"
	if o.Title != "" {
		title += " · " + o.Title
	}
	if err := render(w, wd, ht, title, []column{{1, []*panel{tp, bp}}}); err != nil {
		return fmt.Errorf("plots: queue chart: %w", err)
	}
	return nil
}
