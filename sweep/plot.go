package sweep

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/poolsim/poolsim/internal/atomicfile"
	"github.com/poolsim/poolsim/plots"
)

// DefaultPlotMetrics returns the metrics plotted when none are named.
func DefaultPlotMetrics() []string { return []string{"wait_p99_s", "rejected", "pool_size_mean"} }

// ErrNoPlot says why a sweep's shape has no chart.
var ErrNoPlot = errors.New("no chart for this sweep")

// axisName names a parameter with its unit, for an axis.
func axisName(p ParamDef) string {
	switch p.Kind {
	case Duration.String():
		return p.Key + " (s)"
	case Rate.String():
		return p.Key + " (tasks/s)"
	}
	return p.Key
}

// metricName names a metric with its unit, for an axis or title.
func metricName(m string) string {
	if strings.HasSuffix(m, "_s") {
		return m + " (s)"
	}
	return m
}

// PlotFile is a chart to write: its file name and how to draw it.
type PlotFile struct {
	Name string
	Draw func(w io.Writer) error
}

// Plots returns the charts of metric over the sweep:
//
//   - one numeric parameter: the metric's mean against it, with 95%
//     confidence bars (plots.SweepLines);
//   - two numeric parameters: a heatmap of the mean, the first parameter
//     across, the second up (plots.Heatmap);
//   - a numeric and a text parameter (a queue type, a rejection policy):
//     one line with bars per text value.
//
// Other shapes (no parameter, three or more, only text, a shard's partial
// results) return an error wrapping ErrNoPlot saying so.
func Plots(r *Results, metric string) ([]PlotFile, error) {
	heat, lines, err := chartData(r, metric)
	if err != nil {
		return nil, err
	}
	d := &r.Definition
	title := fmt.Sprintf("%s · %d replications per point", d.Scenario, d.Replications)
	if d.Precision > 0 {
		title = fmt.Sprintf("%s · %s to ±%g%% (%d–%d replications)", d.Scenario, d.PrecisionMetric, d.Precision*100, d.Replications, d.MaxReplications)
	}
	name := metric + ".png"
	if heat != nil {
		return []PlotFile{{name, func(w io.Writer) error { return plots.Heatmap(w, *heat, plots.Options{Title: title}) }}}, nil
	}
	return []PlotFile{{name, func(w io.Writer) error { return plots.SweepLines(w, *lines, plots.Options{Title: title}) }}}, nil
}

// chartData computes what Plots draws: a heatmap's grid or a sweep's
// lines.
func chartData(r *Results, metric string) (*plots.Grid, *plots.Sweep, error) {
	j, ok := r.MetricIndex(metric)
	if !ok {
		return nil, nil, unknownMetric("--plot-metric", metric, r.Definition.Metrics)
	}
	d := &r.Definition
	g := r.grid
	if len(r.Rows) != g.Len() {
		return nil, nil, fmt.Errorf("%w: charts need every point of the sweep (merge the shards first)", ErrNoPlot)
	}
	numeric := make([]bool, len(g.Params))
	for k, p := range g.Params {
		numeric[k] = p.numeric()
	}
	errNote := "bars: 95% confidence (Student t) over the replications"
	mean := func(i int) float64 { return r.Rows[rowOf(r, i)].Mean[j] }
	hw := func(i int) float64 { return r.Rows[rowOf(r, i)].HalfWidth[j] }
	switch {
	case len(g.Params) == 1 && numeric[0]:
		p := g.Params[0]
		s := plots.SweepSeries{Name: metric, X: p.numbers()}
		for i := range p.Values {
			s.Y = append(s.Y, mean(i))
			s.Err = append(s.Err, hw(i))
		}
		return nil, &plots.Sweep{XName: axisName(d.Params[0]), Metric: metricName(metric), ErrNote: errNote, Series: []plots.SweepSeries{s}}, nil
	case len(g.Params) == 2 && numeric[0] && numeric[1]:
		px, py := g.Params[0], g.Params[1]
		grid := &plots.Grid{XName: axisName(d.Params[0]), YName: axisName(d.Params[1]), X: px.numbers(), Y: py.numbers(), Metric: metricName(metric)}
		for y := range py.Values {
			row := make([]float64, len(px.Values))
			for x := range px.Values {
				row[x] = mean(x*len(py.Values) + y) // grid order: the first parameter slowest
			}
			grid.Z = append(grid.Z, row)
		}
		return grid, nil, nil
	case len(g.Params) == 2 && numeric[0] != numeric[1]:
		xi, si := 0, 1
		if !numeric[0] {
			xi, si = 1, 0
		}
		px, ps := g.Params[xi], g.Params[si]
		sw := &plots.Sweep{XName: axisName(d.Params[xi]), Metric: metricName(metric), ErrNote: errNote}
		for s, sv := range ps.Values {
			ser := plots.SweepSeries{Name: ps.Key + "=" + sv.Text, X: px.numbers()}
			for x := range px.Values {
				i := x*len(ps.Values) + s
				if xi == 1 {
					i = s*len(px.Values) + x
				}
				ser.Y = append(ser.Y, mean(i))
				ser.Err = append(ser.Err, hw(i))
			}
			sw.Series = append(sw.Series, ser)
		}
		return nil, sw, nil
	case len(g.Params) == 0:
		return nil, nil, fmt.Errorf("%w: nothing is swept", ErrNoPlot)
	case len(g.Params) > 2:
		return nil, nil, fmt.Errorf("%w: charts show one or two swept parameters, this sweep has %d", ErrNoPlot, len(g.Params))
	}
	return nil, nil, fmt.Errorf("%w: charts need a parameter with numeric values", ErrNoPlot)
}

// rowOf finds point i's row (rows are in grid order; a full sweep's row i
// is point i).
func rowOf(r *Results, i int) int {
	if i < len(r.Rows) && r.Rows[i].Point == i {
		return i
	}
	for k := range r.Rows {
		if r.Rows[k].Point == i {
			return k
		}
	}
	panic(fmt.Sprintf("sweep: no row for point %d", i))
}

// WritePlots writes the charts of each metric into dir/plots and returns
// the files written. A NaN mean draws as a missing cell or a gap.
func WritePlots(r *Results, dir string, metrics []string) ([]string, error) {
	var files []PlotFile
	for _, m := range metrics {
		fs, err := Plots(r, m)
		if err != nil {
			return nil, err
		}
		files = append(files, fs...)
	}
	out := filepath.Join(dir, "plots")
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, fmt.Errorf("sweep: plots: %w", err)
	}
	var written []string
	for _, f := range files {
		p := filepath.Join(out, f.Name)
		if err := atomicfile.Write(p, f.Draw); err != nil {
			return written, fmt.Errorf("sweep: plot %s: %w", p, err)
		}
		written = append(written, p)
	}
	return written, nil
}
