package plots

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"gonum.org/v1/plot/vg/draw"
)

// Run is one named timeline of a comparison: a scenario, or one policy or
// configuration of the same scenario.
type Run struct {
	Name     string
	Timeline *Timeline
}

// metricNames describes the known timeline columns for axis labels.
var metricNames = map[string]string{
	"pool_size":       "pool size (threads)",
	"busy":            "busy threads",
	"idle_timed":      "idle TIMED_WAITING threads",
	"idle_untimed":    "idle WAITING threads",
	"queue_len":       "queued tasks",
	"submitted":       "submitted tasks (cumulative)",
	"completed":       "completed tasks (cumulative)",
	"rejected":        "rejected tasks (cumulative)",
	"discarded":       "discarded tasks (cumulative)",
	"caller_ran":      "tasks run by the caller (cumulative)",
	"failed":          "failed tasks (cumulative)",
	"threads_created": "threads created (cumulative)",
	"threads_exited":  "threads exited (cumulative)",
	"core":            "core pool size (threads)",
	"max":             "maximum pool size (threads)",
	"wait_mean_s":     "mean wait",
	"wait_p50_s":      "wait p50",
	"wait_p99_s":      "wait p99",
	"wait_max_s":      "wait max",
	"response_p99_s":  "response p99",
}

// MetricLabel is the axis label of a timeline column; seconds columns get
// their display unit appended by the caller.
func MetricLabel(col string) string {
	if s, ok := metricNames[col]; ok {
		return s
	}
	return col
}

// ComparisonSeries is what the comparison chart draws: one line per run.
type ComparisonSeries struct {
	Time Unit
	// Value is the y unit for seconds metrics (names ending in _s); for
	// other metrics Scale is 1 and Name empty.
	Value  Unit
	Metric string
	YLabel string
	// Lines has one entry per run, in the order given, split at gaps.
	Lines []NamedSegments
}

// ComputeComparison computes one downsampled line per run for the metric (a
// timeline column name such as "pool_size" or "wait_p99_s").
func ComputeComparison(runs []Run, metric string, buckets int) (*ComparisonSeries, error) {
	if len(runs) == 0 {
		return nil, fmt.Errorf("plots: comparison: %w: no runs", errNoData)
	}
	seen := map[string]bool{}
	span, top, anyValue := 0.0, 0.0, false
	for _, r := range runs {
		if r.Name == "" {
			return nil, errors.New("plots: comparison: a run has no name")
		}
		if seen[r.Name] {
			return nil, fmt.Errorf("plots: comparison: two runs named %q", r.Name)
		}
		seen[r.Name] = true
		if err := r.Timeline.check(); err != nil {
			return nil, fmt.Errorf("plots: comparison: run %s: %w", r.Name, err)
		}
		c, ok := r.Timeline.Column(metric)
		if !ok || metric == "t_s" {
			return nil, fmt.Errorf("plots: comparison: run %s has no column %q", r.Name, metric)
		}
		if m, ok := finiteMax(c); ok {
			top, anyValue = math.Max(top, m), true
		}
		span = math.Max(span, r.Timeline.T[r.Timeline.Len()-1]-math.Min(0, r.Timeline.T[0]))
	}
	if !anyValue {
		return nil, fmt.Errorf("plots: comparison: %w: column %q has no value in any run", errNoData, metric)
	}
	s := &ComparisonSeries{Time: TimeUnit(span), Value: Unit{"", 1}, Metric: metric, YLabel: MetricLabel(metric)}
	if strings.HasSuffix(metric, "_s") {
		s.Value = DurationUnit(top)
		s.YLabel += " (" + s.Value.Name + ")"
	}
	for _, r := range runs {
		tl := r.Timeline
		c, _ := tl.Column(metric)
		idx := DownsampleIndices(tl.Len(), buckets, c)
		xys := scaleY(pick(tl.T, c, idx, s.Time.Scale), s.Value.Scale)
		s.Lines = append(s.Lines, NamedSegments{Name: r.Name, Column: metric, Segments: SplitNaN(xys)})
	}
	return s, nil
}

// styleFor is the line style of the i-th of several compared lines: the
// colour cycle first, then the same colours dashed.
func styleFor(i int) draw.LineStyle {
	c := cycle[i%len(cycle)]
	d := dashes[(i/len(cycle))%len(dashes)]
	return lineStyle(c, 2, d)
}

// Comparison draws one line per run for a timeline column (e.g.
// "pool_size", "queue_len", "wait_p99_s") and writes a PNG. Every event in o
// is marked; the caller names the run an event belongs to in its label when
// it is not common to all (see report's overlays).
func Comparison(w io.Writer, runs []Run, metric string, o Options) error {
	wd, ht, err := o.size()
	if err != nil {
		return fmt.Errorf("plots: comparison: %w", err)
	}
	s, err := ComputeComparison(runs, metric, wd)
	if err != nil {
		return err
	}
	p := newPlot("", "time ("+s.Time.Name+")", s.YLabel)
	pn := newPanel(p)
	ymax, ymin := 0.0, 0.0
	for i, l := range s.Lines {
		th, err := addLines(p, l.Segments, styleFor(i))
		if err != nil {
			return fmt.Errorf("plots: comparison: %w", err)
		}
		pn.add(l.Name, th)
		for _, sg := range l.Segments {
			for _, pt := range sg {
				ymax, ymin = math.Max(ymax, pt.Y), math.Min(ymin, pt.Y)
			}
		}
	}
	t0, t1 := math.Inf(1), math.Inf(-1)
	for _, r := range runs {
		a, b := timeRange(r.Timeline, s.Time)
		t0, t1 = math.Min(t0, a), math.Max(t1, b)
	}
	if ev := eventMarks(o.Events, t0*s.Time.Scale, t1*s.Time.Scale, s.Time); len(ev) > 0 {
		p.Add(eventPlotter{marks: ev, labels: true})
		pn.add("runtime event", eventThumb{})
	}
	p.X.Min, p.X.Max = t0, t1
	p.Y.Min, p.Y.Max = ymin, niceTop(ymax)
	p.X.Tick.Marker, p.Y.Tick.Marker = timeTicks(s.Time), valueTicks
	if _, known := metricNames[metric]; known && !strings.HasSuffix(metric, "_s") {
		p.Y.Tick.Marker = countTicks
	}
	title := "Comparison: " + s.YLabel
	if o.Title != "" {
		title += " · " + o.Title
	}
	if err := render(w, wd, ht, title, []column{{1, []*panel{pn}}}); err != nil {
		return fmt.Errorf("plots: comparison: %w", err)
	}
	return nil
}
