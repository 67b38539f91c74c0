package plots

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// FrontierPoint is one configuration a search evaluated (poolsim tune):
// its threads, wait and rejected share, whether it meets the constraints,
// and whether it is on the Pareto frontier.
type FrontierPoint struct {
	Threads, Wait, Rejected float64
	Feasible, Pareto        bool
}

// FrontierCurve is a closed form over pool sizes (Erlang B or C): wait and
// rejected share at each size; NaN or ±Inf where it has no finite value.
type FrontierCurve struct {
	Name                    string
	Threads, Wait, Rejected []float64
}

// Frontier is the trade-off a search found: threads against wait (top
// panel) and against rejected share (bottom panel).
type Frontier struct {
	ThreadsName, WaitName, RejectedName string // axis names with units
	Points                              []FrontierPoint
	// Current and Recommended index Points (-1: none); their labels name
	// them in the title (configurations are too long for a legend).
	Current, Recommended           int
	CurrentLabel, RecommendedLabel string
	// WaitLimit and RejectedLimit draw a constraint's bound (NaN: none),
	// named in the legend by WaitLimitLabel and RejectedLimitLabel.
	WaitLimit, RejectedLimit           float64
	WaitLimitLabel, RejectedLimitLabel string
	Closed                             *FrontierCurve
}

// FrontierPanel is what one panel of the frontier chart draws.
type FrontierPanel struct {
	Feasible, Infeasible plotter.XYs
	Pareto               plotter.XYs // by increasing threads
	Current, Recommended plotter.XYs // one point, or none
	Closed               []plotter.XYs
	Limit                float64 // NaN: none
	// YMax is the top of the axis. Points above it (an unstable pool's
	// wait of minutes beside a bound of 50 ms) would flatten the rest: they
	// are drawn at the top as Above, their values in AboveLabels.
	YMax        float64
	Above       plotter.XYs
	AboveLabels []string
}

// FrontierSeries are both panels (wait, rejections) on a shared x range.
type FrontierSeries struct {
	Wait, Rejected FrontierPanel
	XMin, XMax     float64
}

// ComputeFrontier validates f and computes its panels. Points missing a
// figure are left out of the panel that needs it.
func ComputeFrontier(f Frontier) (*FrontierSeries, error) {
	if len(f.Points) == 0 {
		return nil, fmt.Errorf("plots: frontier: %w: no points", errNoData)
	}
	for _, i := range []int{f.Current, f.Recommended} {
		if i < -1 || i >= len(f.Points) {
			return nil, fmt.Errorf("plots: frontier: point index %d out of range (%d points)", i, len(f.Points))
		}
	}
	s := &FrontierSeries{XMin: math.Inf(1), XMax: math.Inf(-1)}
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	for k, pn := range []*FrontierPanel{&s.Wait, &s.Rejected} {
		y := func(p FrontierPoint) float64 { return []float64{p.Wait, p.Rejected}[k] }
		pn.Limit = []float64{f.WaitLimit, f.RejectedLimit}[k]
		for i, p := range f.Points {
			if !finite(p.Threads) || !finite(y(p)) {
				continue
			}
			xy := plotter.XY{X: p.Threads, Y: y(p)}
			s.XMin, s.XMax = math.Min(s.XMin, xy.X), math.Max(s.XMax, xy.X)
			pn.YMax = math.Max(pn.YMax, xy.Y)
			if p.Feasible {
				pn.Feasible = append(pn.Feasible, xy)
			} else {
				pn.Infeasible = append(pn.Infeasible, xy)
			}
			if p.Pareto {
				pn.Pareto = append(pn.Pareto, xy)
			}
			if i == f.Current {
				pn.Current = plotter.XYs{xy}
			}
			if i == f.Recommended {
				pn.Recommended = plotter.XYs{xy}
			}
		}
		// By threads, and among equal threads from the highest value down, so
		// the line steps down where a queue trades wait for rejections.
		sort.SliceStable(pn.Pareto, func(a, b int) bool {
			if pn.Pareto[a].X != pn.Pareto[b].X {
				return pn.Pareto[a].X < pn.Pareto[b].X
			}
			return pn.Pareto[a].Y > pn.Pareto[b].Y
		})
		pn.clip(f, y)
	}
	if math.IsInf(s.XMin, 1) {
		return nil, fmt.Errorf("plots: frontier: %w: no point has both threads and wait or rejections", errNoData)
	}
	if c := f.Closed; c != nil {
		if len(c.Wait) != len(c.Threads) || len(c.Rejected) != len(c.Threads) {
			return nil, fmt.Errorf("plots: frontier: closed form %q: %d sizes, %d waits, %d rejected shares (must match)", c.Name, len(c.Threads), len(c.Wait), len(c.Rejected))
		}
		for k, pn := range []*FrontierPanel{&s.Wait, &s.Rejected} {
			var xys plotter.XYs
			for i, x := range c.Threads {
				// Keep the curve within the points' range and the panel's
				// height.
				yv := []float64{c.Wait[i], c.Rejected[i]}[k]
				if x < s.XMin || x > s.XMax || yv > pn.YMax {
					yv = math.NaN()
				}
				xys = append(xys, plotter.XY{X: x, Y: yv})
			}
			pn.Closed = SplitNaN(xys)
		}
	}
	return s, nil
}

// clip chooses the panel's top (see FrontierPanel.YMax) and moves the
// points above it there: the top is 3 times the constraint's bound (or,
// without one, 3 times the upper quartile when the largest value is over
// 20 times it), raised to show the current and recommended points, never
// above the largest value.
func (pn *FrontierPanel) clip(f Frontier, y func(FrontierPoint) float64) {
	var vals []float64
	for _, xys := range []plotter.XYs{pn.Feasible, pn.Infeasible} {
		for _, xy := range xys {
			vals = append(vals, xy.Y)
		}
	}
	if len(vals) == 0 {
		pn.YMax = 0.01 // nothing to show: a readable empty scale
		return
	}
	sort.Float64s(vals)
	top := vals[len(vals)-1]
	focus := math.Inf(1)
	if q := vals[len(vals)*3/4]; q > 0 && top > 20*q {
		focus = 3 * q
	}
	if !math.IsNaN(pn.Limit) && !math.IsInf(pn.Limit, 0) && pn.Limit > 0 {
		focus = 3 * pn.Limit
	}
	for _, xys := range []plotter.XYs{pn.Current, pn.Recommended} {
		for _, xy := range xys {
			focus = math.Max(focus, 1.1*xy.Y)
		}
	}
	if focus < top {
		top = focus
	}
	if !math.IsNaN(pn.Limit) && !math.IsInf(pn.Limit, 0) {
		top = math.Max(top, 1.2*pn.Limit)
	}
	if top <= 0 {
		top = 0.01 // nothing above zero: a readable empty scale
	}
	pn.YMax = top
	for _, xys := range []*plotter.XYs{&pn.Feasible, &pn.Infeasible, &pn.Pareto, &pn.Current, &pn.Recommended} {
		for i, xy := range *xys {
			if xy.Y > top {
				if xys != &pn.Pareto && !containsXY(pn.Above, plotter.XY{X: xy.X, Y: top}) {
					pn.Above = append(pn.Above, plotter.XY{X: xy.X, Y: top})
					pn.AboveLabels = append(pn.AboveLabels, offScale(xy.Y))
				}
				(*xys)[i].Y = top
			}
		}
	}
}

// offScale writes an off-scale value: whole above 1000 (2671, not
// 2.67e+03), else as cells are.
func offScale(v float64) string {
	if math.Abs(v) >= 1000 && math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return fmtValue(v)
}

func containsXY(xys plotter.XYs, p plotter.XY) bool {
	for _, q := range xys {
		if q == p {
			return true
		}
	}
	return false
}

// Frontier colours and glyphs.
var (
	frontierFeasible   = draw.GlyphStyle{Color: colBlue, Radius: vg.Points(4), Shape: draw.CircleGlyph{}}
	frontierInfeasible = draw.GlyphStyle{Color: colOrange, Radius: vg.Points(4), Shape: draw.RingGlyph{}}
	frontierCurrent    = draw.GlyphStyle{Color: colBlack, Radius: vg.Points(8), Shape: draw.CrossGlyph{}}
	frontierRecommend  = draw.GlyphStyle{Color: colVermillion, Radius: vg.Points(9), Shape: draw.RingGlyph{}}
	frontierAbove      = draw.GlyphStyle{Color: colBlack, Radius: vg.Points(5), Shape: draw.TriangleGlyph{}}
)

// FrontierChart draws the trade-off a search found, as a PNG: threads
// across, the wait above and the rejected share below, every evaluated
// configuration as a point (filled blue: meets the constraints; orange
// ring: does not), the Pareto frontier joined by a line, the current
// configuration as a black cross, the recommendation ringed in
// vermillion, the constraints' bounds as dashed lines and a closed form
// (Erlang B or C over pool sizes) as a dashed green curve.
func FrontierChart(w io.Writer, f Frontier, o Options) error {
	wd, ht, err := o.size()
	if err != nil {
		return fmt.Errorf("plots: frontier: %w", err)
	}
	s, err := ComputeFrontier(f)
	if err != nil {
		return err
	}
	var panels []*panel
	for k, pn := range []FrontierPanel{s.Wait, s.Rejected} {
		name := []string{f.WaitName, f.RejectedName}[k]
		xName := ""
		if k == 1 {
			xName = f.ThreadsName
		}
		p := newPlot("", xName, name)
		pan := newPanel(p)
		limit := []string{f.WaitLimitLabel, f.RejectedLimitLabel}[k]
		if err := drawFrontierPanel(p, pan, pn, f, limit, k == 0); err != nil {
			return fmt.Errorf("plots: frontier: %w", err)
		}
		pad := math.Max((s.XMax-s.XMin)*0.05, 0.5)
		p.X.Min, p.X.Max = s.XMin-pad, s.XMax+pad
		p.X.Tick.Marker = valueTicks
		p.Y.Min = 0
		p.Y.Max = pn.YMax * 1.08
		p.Y.Tick.Marker = valueTicks
		panels = append(panels, pan)
	}
	title := "Trade-off: threads vs wait vs rejections"
	if o.Title != "" {
		title += " · " + o.Title
	}
	if f.Recommended >= 0 && f.RecommendedLabel != "" {
		title += " · recommended " + f.RecommendedLabel
	}
	if f.Current >= 0 && f.CurrentLabel != "" {
		title += " · current " + f.CurrentLabel
	}
	if err := render(w, wd, ht, title, []column{{1, panels}}); err != nil {
		return fmt.Errorf("plots: frontier: %w", err)
	}
	return nil
}

// drawFrontierPanel adds one panel's series and legend entries (the
// configurations' markers only in the top panel's legend).
func drawFrontierPanel(p *plot.Plot, pan *panel, pn FrontierPanel, f Frontier, limit string, top bool) error {
	if len(pn.Pareto) > 0 {
		th, err := addLines(p, []plotter.XYs{pn.Pareto}, lineStyle(colBlack, 1.2, nil))
		if err != nil {
			return err
		}
		if top {
			pan.add("Pareto frontier", th)
		}
	}
	if len(pn.Closed) > 0 && f.Closed != nil {
		th, err := addLines(p, pn.Closed, lineStyle(colGreen, 2, []vg.Length{vg.Points(6), vg.Points(3)}))
		if err != nil {
			return err
		}
		pan.add(f.Closed.Name, th)
	}
	if !math.IsNaN(pn.Limit) && !math.IsInf(pn.Limit, 0) {
		sty := lineStyle(colVermillion, 1.3, []vg.Length{vg.Points(4), vg.Points(3)})
		p.Add(limitLine{y: pn.Limit, sty: sty})
		pan.add(limit, &plotter.Line{LineStyle: sty})
	}
	for _, m := range []struct {
		xys   plotter.XYs
		style draw.GlyphStyle
		name  string
	}{
		{pn.Infeasible, frontierInfeasible, "fails a constraint"},
		{pn.Feasible, frontierFeasible, "meets the constraints"},
		{pn.Current, frontierCurrent, "current configuration"},
		{pn.Recommended, frontierRecommend, "recommendation"},
	} {
		if len(m.xys) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(m.xys)
		if err != nil {
			return err
		}
		sc.GlyphStyle = m.style
		p.Add(sc)
		if top {
			pan.add(m.name, &plotter.Scatter{GlyphStyle: m.style})
		}
	}
	if len(pn.Above) > 0 {
		sc, err := plotter.NewScatter(pn.Above)
		if err != nil {
			return err
		}
		sc.GlyphStyle = frontierAbove
		p.Add(sc)
		lab, err := plotter.NewLabels(plotter.XYLabels{XYs: pn.Above, Labels: pn.AboveLabels})
		if err != nil {
			return err
		}
		for i := range lab.TextStyle {
			lab.TextStyle[i] = textStyle(sizeEvent, false)
			lab.TextStyle[i].YAlign = draw.YTop
		}
		lab.Offset = vg.Point{X: vg.Points(7), Y: -vg.Points(2)}
		p.Add(lab)
		pan.add("off the scale (value written)", &plotter.Scatter{GlyphStyle: frontierAbove})
	}
	return nil
}

// limitLine is a horizontal line across the whole panel; it has no data
// range, so it never widens the axes.
type limitLine struct {
	y   float64
	sty draw.LineStyle
}

func (l limitLine) Plot(c draw.Canvas, plt *plot.Plot) {
	_, trY := plt.Transforms(&c)
	y := trY(l.y)
	c.StrokeLine2(l.sty, c.Min.X, y, c.Max.X, y)
}
