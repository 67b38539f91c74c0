package plots

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"sort"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Grid is a metric over two swept parameters, for a heatmap.
type Grid struct {
	XName, YName string    // parameter names with units, e.g. "keepAlive (s)"
	X, Y         []float64 // parameter values: columns and rows, as swept
	// Z[j][i] is the metric at (X[i], Y[j]); NaN marks a missing result.
	Z [][]float64
	// Metric names the value with its unit, e.g. "pool size after 1 h (threads)".
	Metric string
}

// Cell is one drawn heatmap cell: column and row index, value, fill
// colour and the text written in it ("" for NaN cells).
type Cell struct {
	Col, Row int
	Value    float64
	Fill     color.Color
	Label    string
	// Dark reports whether the fill is dark, so the label is drawn white.
	Dark bool
}

// HeatmapSeries is what the heatmap draws: cells on an index grid whose
// ticks are labelled with the parameter values, and the colour scale.
type HeatmapSeries struct {
	XTicks, YTicks []string
	Cells          []Cell
	Min, Max       float64 // colour scale range
}

// viridis anchors (van der Walt & Smith's perceptually uniform, colour-blind
// safe map), sampled at 0, 1/8, ..., 1; colours in between are interpolated.
var viridis = []color.RGBA{
	{0x44, 0x01, 0x54, 255}, {0x47, 0x2d, 0x7b, 255}, {0x3b, 0x52, 0x8b, 255},
	{0x2c, 0x72, 0x8e, 255}, {0x21, 0x91, 0x8c, 255}, {0x28, 0xae, 0x80, 255},
	{0x5e, 0xc9, 0x62, 255}, {0xad, 0xdc, 0x30, 255}, {0xfd, 0xe7, 0x25, 255},
}

var colMissing = color.RGBA{235, 235, 235, 255}

// Viridis maps f in [0, 1] (clamped) to a colour of the viridis map.
func Viridis(f float64) color.RGBA {
	if math.IsNaN(f) {
		return colMissing
	}
	f = math.Max(0, math.Min(1, f))
	pos := f * float64(len(viridis)-1)
	i := int(math.Floor(pos))
	if i >= len(viridis)-1 {
		return viridis[len(viridis)-1]
	}
	a, b, t := viridis[i], viridis[i+1], pos-float64(i)
	mix := func(x, y uint8) uint8 { return uint8(math.Round(float64(x) + t*(float64(y)-float64(x)))) }
	return color.RGBA{mix(a.R, b.R), mix(a.G, b.G), mix(a.B, b.B), 255}
}

// fmtValue prints a metric value compactly (3 significant digits).
func fmtValue(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e6 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// ComputeHeatmap validates g and computes its cells.
func ComputeHeatmap(g Grid) (*HeatmapSeries, error) {
	if len(g.X) == 0 || len(g.Y) == 0 {
		return nil, fmt.Errorf("plots: heatmap: %w: no parameter values", errNoData)
	}
	if len(g.Z) != len(g.Y) {
		return nil, fmt.Errorf("plots: heatmap: %d rows of values for %d %s values", len(g.Z), len(g.Y), g.YName)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for j, row := range g.Z {
		if len(row) != len(g.X) {
			return nil, fmt.Errorf("plots: heatmap: row %d has %d values for %d %s values", j, len(row), len(g.X), g.XName)
		}
		for i, v := range row {
			if math.IsInf(v, 0) {
				return nil, fmt.Errorf("plots: heatmap: value at %s=%g, %s=%g is infinite", g.XName, g.X[i], g.YName, g.Y[j])
			}
			if !math.IsNaN(v) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if math.IsInf(lo, 1) {
		return nil, fmt.Errorf("plots: heatmap: %w: every value is missing (NaN)", errNoData)
	}
	s := &HeatmapSeries{Min: lo, Max: hi}
	for _, x := range g.X {
		s.XTicks = append(s.XTicks, fmtValue(x))
	}
	for _, y := range g.Y {
		s.YTicks = append(s.YTicks, fmtValue(y))
	}
	for j, row := range g.Z {
		for i, v := range row {
			c := Cell{Col: i, Row: j, Value: v, Fill: colMissing}
			if !math.IsNaN(v) {
				f := 0.5
				if hi > lo {
					f = (v - lo) / (hi - lo)
				}
				rgb := Viridis(f)
				c.Fill, c.Label = rgb, fmtValue(v)
				c.Dark = 0.2126*float64(rgb.R)+0.7152*float64(rgb.G)+0.0722*float64(rgb.B) < 140
			}
			s.Cells = append(s.Cells, c)
		}
	}
	return s, nil
}

// cellPlotter draws heatmap cells centred on integer coordinates, with
// their value written in when it fits.
type cellPlotter struct{ cells []Cell }

func (cp cellPlotter) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	ts := textStyle(sizeCell, false)
	ts.XAlign, ts.YAlign = draw.XCenter, draw.YCenter
	for _, cl := range cp.cells {
		x0, x1 := trX(float64(cl.Col)-0.5), trX(float64(cl.Col)+0.5)
		y0, y1 := trY(float64(cl.Row)-0.5), trY(float64(cl.Row)+0.5)
		r := vg.Rectangle{Min: vg.Point{X: x0, Y: y0}, Max: vg.Point{X: x1, Y: y1}}
		c.SetColor(cl.Fill)
		c.Fill(r.Path())
		c.StrokeLines(lineStyle(color.White, 1, nil), []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}, r.Min})
		label := cl.Label
		if label == "" {
			label = "n/a"
		}
		if ts.Width(label)+vg.Points(4) > x1-x0 || ts.Height(label)+vg.Points(2) > y1-y0 {
			continue
		}
		ts.Color = colBlack
		if cl.Dark {
			ts.Color = color.White
		}
		c.FillText(ts, vg.Point{X: (x0 + x1) / 2, Y: (y0 + y1) / 2}, label)
	}
}

func (cp cellPlotter) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	for _, cl := range cp.cells {
		xmin, xmax = math.Min(xmin, float64(cl.Col)-0.5), math.Max(xmax, float64(cl.Col)+0.5)
		ymin, ymax = math.Min(ymin, float64(cl.Row)-0.5), math.Max(ymax, float64(cl.Row)+0.5)
	}
	return
}

// gradient draws the colour scale as a vertical strip filling its data
// area; its y axis carries the metric values.
type gradient struct{ lo, hi float64 }

func (g gradient) Plot(c draw.Canvas, plt *plot.Plot) {
	_, trY := plt.Transforms(&c)
	const steps = 128
	for k := range steps {
		a := g.lo + (g.hi-g.lo)*float64(k)/steps
		b := g.lo + (g.hi-g.lo)*float64(k+1)/steps
		r := vg.Rectangle{Min: vg.Point{X: c.Min.X, Y: trY(a)}, Max: vg.Point{X: c.Max.X, Y: trY(b) + 0.5}}
		c.SetColor(Viridis((float64(k) + 0.5) / steps))
		c.Fill(r.Path())
	}
}

// indexTicks labels integer positions 0..n-1 with the given strings.
func indexTicks(labels []string) plot.ConstantTicks {
	t := make(plot.ConstantTicks, len(labels))
	for i, l := range labels {
		t[i] = plot.Tick{Value: float64(i), Label: l}
	}
	return t
}

// Heatmap draws a metric over two swept parameters as coloured cells (the
// viridis map, missing results grey), with each value written in its cell
// when it fits and a colour scale on the right; it writes a PNG.
func Heatmap(w io.Writer, g Grid, o Options) error {
	wd, ht, err := o.size()
	if err != nil {
		return fmt.Errorf("plots: heatmap: %w", err)
	}
	s, err := ComputeHeatmap(g)
	if err != nil {
		return err
	}
	p := newPlot("", g.XName, g.YName)
	p.Add(cellPlotter{s.Cells})
	p.X.Tick.Marker, p.Y.Tick.Marker = indexTicks(s.XTicks), indexTicks(s.YTicks)
	p.X.Min, p.X.Max = -0.5, float64(len(s.XTicks))-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(len(s.YTicks))-0.5
	pn := newPanel(p)
	missing := false
	for _, c := range s.Cells {
		missing = missing || c.Label == ""
	}
	if missing {
		pn.add("no result", swatch{colMissing})
	}

	lo, hi := s.Min, s.Max
	if hi == lo {
		lo, hi = lo-0.5, hi+0.5
	}
	cb := newPlot("", "", g.Metric)
	cb.Add(gradient{lo, hi})
	cb.Y.Min, cb.Y.Max = lo, hi
	cb.Y.Tick.Marker = valueTicks
	cb.HideX()
	cb.X.Min, cb.X.Max = 0, 1
	cbn := newPanel(cb)

	title := "Sweep: " + g.Metric
	if o.Title != "" {
		title += " · " + o.Title
	}
	if err := render(w, wd, ht, title, []column{{1, []*panel{pn}}, {0.14, []*panel{cbn}}}); err != nil {
		return fmt.Errorf("plots: heatmap: %w", err)
	}
	return nil
}

// swatch is a legend thumbnail filled with one colour.
type swatch struct{ c color.Color }

func (s swatch) Thumbnail(c *draw.Canvas) {
	c.SetColor(s.c)
	c.Fill(c.Rectangle.Path())
}

// SweepSeries is one line of a one-parameter sweep: Y (the metric) at each
// X (the parameter), with error-bar half-widths Err (NaN or 0: no bar).
type SweepSeries struct {
	Name      string
	X, Y, Err []float64
}

// Sweep is a metric over one swept parameter, one line per series (e.g. per
// queue type or rejection policy).
type Sweep struct {
	XName  string // parameter name with unit
	Metric string // metric name with unit
	// ErrNote says what the bars are, e.g. "bars: ±2 standard errors over 10 seeds".
	ErrNote string
	Series  []SweepSeries
}

// SweepLine is a computed line of a sweep: points, and the error bars to draw.
type SweepLine struct {
	Name     string
	Segments []plotter.XYs
	Bars     []ErrorBar
}

// ErrorBar is a vertical bar from Low to High at X.
type ErrorBar struct{ X, Low, High float64 }

// ComputeSweep validates s and computes its lines, sorted by X, split where
// Y is missing (NaN), with a bar for every point whose Err is positive.
func ComputeSweep(s Sweep) ([]SweepLine, error) {
	if len(s.Series) == 0 {
		return nil, fmt.Errorf("plots: sweep: %w: no series", errNoData)
	}
	var out []SweepLine
	found := false
	for _, sr := range s.Series {
		if len(sr.Y) != len(sr.X) || (sr.Err != nil && len(sr.Err) != len(sr.X)) {
			return nil, fmt.Errorf("plots: sweep: series %q: %d x, %d y, %d error values (must match)", sr.Name, len(sr.X), len(sr.Y), len(sr.Err))
		}
		ord := make([]int, len(sr.X))
		for i := range ord {
			ord[i] = i
			if math.IsNaN(sr.X[i]) || math.IsInf(sr.X[i], 0) {
				return nil, fmt.Errorf("plots: sweep: series %q: parameter value %d is %v", sr.Name, i, sr.X[i])
			}
		}
		sort.SliceStable(ord, func(a, b int) bool { return sr.X[ord[a]] < sr.X[ord[b]] })
		xys := make(plotter.XYs, len(ord))
		line := SweepLine{Name: sr.Name}
		for k, i := range ord {
			xys[k] = plotter.XY{X: sr.X[i], Y: sr.Y[i]}
			if sr.Err != nil && sr.Err[i] > 0 && !math.IsNaN(sr.Y[i]) {
				if math.IsInf(sr.Err[i], 0) {
					return nil, fmt.Errorf("plots: sweep: series %q: error bar %d is infinite", sr.Name, i)
				}
				line.Bars = append(line.Bars, ErrorBar{sr.X[i], sr.Y[i] - sr.Err[i], sr.Y[i] + sr.Err[i]})
			}
		}
		line.Segments = SplitNaN(xys)
		found = found || len(line.Segments) > 0
		out = append(out, line)
	}
	if !found {
		return nil, fmt.Errorf("plots: sweep: %w: every value is missing (NaN)", errNoData)
	}
	return out, nil
}

// barPlotter draws error bars with caps.
type barPlotter struct {
	bars []ErrorBar
	sty  draw.LineStyle
}

func (bp barPlotter) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	capW := vg.Points(5)
	for _, b := range bp.bars {
		x, lo, hi := trX(b.X), trY(b.Low), trY(b.High)
		c.StrokeLine2(bp.sty, x, lo, x, hi)
		c.StrokeLine2(bp.sty, x-capW, lo, x+capW, lo)
		c.StrokeLine2(bp.sty, x-capW, hi, x+capW, hi)
	}
}

func (bp barPlotter) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	for _, b := range bp.bars {
		xmin, xmax = math.Min(xmin, b.X), math.Max(xmax, b.X)
		ymin, ymax = math.Min(ymin, b.Low), math.Max(ymax, b.High)
	}
	return
}

// SweepLines draws a metric over one swept parameter, one line with points
// and error bars per series, and writes a PNG. The x axis is logarithmic
// when the parameter values are positive and span a factor of 50 or more.
func SweepLines(w io.Writer, s Sweep, o Options) error {
	wd, ht, err := o.size()
	if err != nil {
		return fmt.Errorf("plots: sweep: %w", err)
	}
	lines, err := ComputeSweep(s)
	if err != nil {
		return err
	}
	p := newPlot("", s.XName, s.Metric)
	pn := newPanel(p)
	xlo, xhi := math.Inf(1), math.Inf(-1)
	for i, l := range lines {
		sty := styleFor(i)
		bars := sty
		bars.Dashes = nil
		bars.Width = vg.Points(1.5)
		if len(l.Bars) > 0 {
			p.Add(barPlotter{l.Bars, bars})
		}
		th, err := addLines(p, l.Segments, sty)
		if err != nil {
			return fmt.Errorf("plots: sweep: %w", err)
		}
		glyph := draw.GlyphStyle{Color: sty.Color, Radius: vg.Points(4), Shape: glyphs[i%len(glyphs)]}
		for _, sg := range l.Segments {
			sc, err := plotter.NewScatter(sg)
			if err != nil {
				return fmt.Errorf("plots: sweep: %w", err)
			}
			sc.GlyphStyle = glyph
			p.Add(sc)
			for _, pt := range sg {
				xlo, xhi = math.Min(xlo, pt.X), math.Max(xhi, pt.X)
			}
		}
		pn.add(l.Name, th, &plotter.Scatter{GlyphStyle: glyph})
	}
	if s.ErrNote != "" {
		pn.add(s.ErrNote, noThumb{})
	}
	p.Y.Tick.Marker = valueTicks
	if ylo, _ := finiteMin(s); ylo >= 0 {
		p.Y.Min = 0 // a count or time read against zero
	}
	if xlo > 0 && xhi/xlo >= 50 {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	} else {
		p.X.Tick.Marker = valueTicks
	}
	title := "Sweep: " + s.Metric
	if o.Title != "" {
		title += " · " + o.Title
	}
	if err := render(w, wd, ht, title, []column{{1, []*panel{pn}}}); err != nil {
		return fmt.Errorf("plots: sweep: %w", err)
	}
	return nil
}

// finiteMin is the smallest finite Y (minus its error bar) of the sweep.
func finiteMin(s Sweep) (float64, bool) {
	m, ok := math.Inf(1), false
	for _, sr := range s.Series {
		for i, y := range sr.Y {
			if math.IsNaN(y) {
				continue
			}
			if sr.Err != nil && sr.Err[i] > 0 {
				y -= sr.Err[i]
			}
			m, ok = math.Min(m, y), true
		}
	}
	return m, ok
}

// glyphs vary the point shape per series so lines differ without colour.
var glyphs = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}}
