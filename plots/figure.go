package plots

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Default image size in pixels.
const (
	DefaultWidth  = 1200
	DefaultHeight = 700
)

// Options are what every chart takes besides its data.
type Options struct {
	// Title names the scenario and its key parameters, e.g.
	// "tomcat-idle-workers · core 10, max 800, keepAlive 60s"; each chart
	// puts what it shows in front of it.
	Title string
	// Width and Height of the PNG in pixels; 0 means 1200×700. Text and
	// lines scale with the image, so a 2400×1400 chart looks like a 1200×700
	// one at twice the resolution.
	Width, Height int
	// Events are the runtime events of the run (reconfigurations,
	// shutdown), drawn on time charts as dashed vertical lines with labels.
	Events []Event
}

func (o Options) size() (int, int, error) {
	w, h := o.Width, o.Height
	if w == 0 && h == 0 {
		w, h = DefaultWidth, DefaultHeight
	}
	if w < 400 || h < 250 || w > 10000 || h > 10000 {
		return 0, 0, fmt.Errorf("image size %d×%d out of range (400×250 to 10000×10000 pixels)", w, h)
	}
	return w, h, nil
}

// Okabe–Ito colours: distinguishable with every common colour-vision
// deficiency (Okabe & Ito, "Color Universal Design", 2008).
var (
	colBlack      = color.RGBA{0, 0, 0, 255}
	colOrange     = color.RGBA{230, 159, 0, 255}
	colSkyBlue    = color.RGBA{86, 180, 233, 255}
	colGreen      = color.RGBA{0, 158, 115, 255}
	colYellow     = color.RGBA{240, 228, 66, 255}
	colBlue       = color.RGBA{0, 114, 178, 255}
	colVermillion = color.RGBA{213, 94, 0, 255}
	colPurple     = color.RGBA{204, 121, 167, 255}
	colGrid       = color.RGBA{225, 225, 225, 255}
	colEvent      = color.RGBA{90, 90, 90, 255}
)

// cycle is the order in which comparison lines take colours; after it runs
// out, lines also change dash pattern.
var cycle = []color.RGBA{colBlue, colVermillion, colGreen, colOrange, colPurple, colSkyBlue, colBlack, colYellow}

var dashes = [][]vg.Length{nil, {vg.Points(6), vg.Points(3)}, {vg.Points(2), vg.Points(2)}, {vg.Points(8), vg.Points(3), vg.Points(2), vg.Points(3)}}

// Font sizes in points at 96 dpi on a 1200×700 image.
const (
	sizeTitle    = 17
	sizeSubtitle = 13
	sizeLabel    = 14
	sizeTick     = 12
	sizeLegend   = 13
	sizeEvent    = 11
	sizeCell     = 13
)

func sans(size vg.Length, bold bool) font.Font {
	f := font.Font{Typeface: "Liberation", Variant: "Sans", Size: size}
	if bold {
		f.Weight = 700
	}
	return f
}

func textStyle(size vg.Length, bold bool) text.Style {
	return text.Style{Color: colBlack, Font: sans(size, bold), Handler: plot.DefaultTextHandler}
}

// newPlot returns a plot with poolsim's fonts, a light grid and axis labels.
func newPlot(subtitle, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = subtitle
	p.Title.TextStyle.Font = sans(sizeSubtitle, true)
	p.Title.Padding = vg.Points(6)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = sans(sizeLabel, false)
		a.Tick.Label.Font = sans(sizeTick, false)
		a.Label.Padding = vg.Points(4)
	}
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	g := plotter.NewGrid()
	g.Vertical.Color, g.Horizontal.Color = colGrid, colGrid
	g.Vertical.Width, g.Horizontal.Width = vg.Points(0.7), vg.Points(0.7)
	p.Add(g)
	return p
}

// lineStyle is a solid or dashed line of width w points.
func lineStyle(c color.Color, w float64, dash []vg.Length) draw.LineStyle {
	return draw.LineStyle{Color: c, Width: vg.Points(w), Dashes: dash}
}

// addLines adds every polyline with one style, and returns a legend
// thumbnail for it. Single points are drawn as a small dot so they do not
// vanish.
func addLines(p *plot.Plot, segs []plotter.XYs, sty draw.LineStyle) (plot.Thumbnailer, error) {
	thumb := &plotter.Line{LineStyle: sty}
	for _, s := range segs {
		if len(s) == 1 {
			sc, err := plotter.NewScatter(s)
			if err != nil {
				return nil, err
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: sty.Color, Radius: sty.Width * 1.2, Shape: draw.CircleGlyph{}}
			p.Add(sc)
			continue
		}
		for _, c := range strokeChunks(s) {
			l, err := plotter.NewLine(c)
			if err != nil {
				return nil, err
			}
			l.LineStyle = sty
			p.Add(l)
		}
	}
	return thumb, nil
}

// strokeChunk is how many points one stroke draws at most.
const strokeChunk = 64

// strokeChunks cuts a long polyline into pieces of strokeChunk points that
// share their end points, so it draws as the same line. The rasterizer
// (freetype's, under vgimg) searches a list of cells per scanline that
// grows with the path: one stroke of a noisy 2,400-point series cost about
// a second, the pieces a small fraction of it.
func strokeChunks(xys plotter.XYs) []plotter.XYs {
	if len(xys) <= strokeChunk {
		return []plotter.XYs{xys}
	}
	var out []plotter.XYs
	for i := 0; i < len(xys)-1; i += strokeChunk - 1 {
		out = append(out, xys[i:min(i+strokeChunk, len(xys))])
	}
	return out
}

// noThumb is a legend entry with text only (e.g. "max unbounded").
type noThumb struct{}

func (noThumb) Thumbnail(*draw.Canvas) {}

// panel is one plot of a figure with its legend, drawn in a column to the
// right of the plot so it never hides data.
type panel struct {
	plot    *plot.Plot
	legend  plot.Legend
	entries int
	// inside puts the legend in the bottom-right corner of the data area,
	// on a white box, for charts whose data leave that corner empty (CDFs).
	inside bool
}

func newPanel(p *plot.Plot) *panel {
	l := plot.NewLegend()
	l.TextStyle = textStyle(sizeLegend, false)
	l.Top, l.Left = true, true
	l.ThumbnailWidth = vg.Points(26)
	l.Padding = vg.Points(5)
	return &panel{plot: p, legend: l}
}

func (pn *panel) add(name string, th ...plot.Thumbnailer) {
	pn.legend.Add(name, th...)
	pn.entries++
}

// column is a vertical stack of panels whose data areas are aligned; weight
// is its share of the figure width.
type column struct {
	weight float64
	panels []*panel
}

// render draws title and columns on a w×h image and writes it as PNG.
func render(out io.Writer, w, h int, title string, cols []column) (err error) {
	defer func() { // gonum/plot panics on some degenerate inputs; never pass that on
		if r := recover(); r != nil {
			err = fmt.Errorf("drawing failed: %v", r)
		}
	}()
	dpi := int(math.Round(96 * math.Min(float64(w)/DefaultWidth, float64(h)/DefaultHeight)))
	dpi = max(dpi, 24)
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	cv := vgimg.NewWith(vgimg.UseImage(img), vgimg.UseDPI(dpi))
	dc := draw.New(cv)
	pad := vg.Points(10)
	area := draw.Crop(dc, pad, -pad, pad/2, -pad/2)

	// Title, wrapped to the width.
	ts := textStyle(sizeTitle, true)
	ts.XAlign, ts.YAlign = draw.XCenter, draw.YTop
	lines := wrap(title, ts, area.Max.X-area.Min.X)
	if lines != "" {
		area.FillText(ts, vg.Point{X: (area.Min.X + area.Max.X) / 2, Y: area.Max.Y}, lines)
		area.Max.Y -= ts.Height(lines) + vg.Points(8)
	}

	total := 0.0
	for _, c := range cols {
		total += c.weight
	}
	x := area.Min.X
	full := area.Max.X - area.Min.X
	for _, col := range cols {
		cw := full * vg.Length(col.weight/total)
		cc := area
		cc.Min.X, cc.Max.X = x, x+cw
		x += cw
		drawColumn(cc, col)
	}
	if err := png.Encode(out, cv.Image()); err != nil {
		return fmt.Errorf("encode png: %w", err)
	}
	return nil
}

func drawColumn(c draw.Canvas, col column) {
	lw := vg.Length(0)
	for _, pn := range col.panels {
		if pn.entries == 0 || pn.inside {
			continue
		}
		r := pn.legend.Rectangle(c)
		lw = max(lw, r.Max.X-r.Min.X)
	}
	if lw > 0 {
		lw += vg.Points(12)
	}
	plotArea := c
	plotArea.Max.X -= lw
	plots := make([][]*plot.Plot, len(col.panels))
	for i, pn := range col.panels {
		plots[i] = []*plot.Plot{pn.plot}
	}
	tiles := draw.Tiles{Rows: len(col.panels), Cols: 1, PadY: vg.Points(8), PadX: vg.Points(4)}
	canvases := plot.Align(plots, tiles, plotArea)
	for i, pn := range col.panels {
		pc := canvases[i][0]
		pn.plot.Draw(pc)
		data := pn.plot.DataCanvas(pc)
		if pn.inside && pn.entries > 0 {
			m := vg.Points(8)
			lc := draw.Crop(data, 0, -m, m, 0)
			pn.legend.Top, pn.legend.Left = false, false
			r := pn.legend.Rectangle(lc)
			bg := vg.Rectangle{Min: vg.Point{X: lc.Max.X - (r.Max.X - r.Min.X) - m/2, Y: lc.Min.Y - m/2}, Max: vg.Point{X: lc.Max.X + m/2, Y: lc.Min.Y + (r.Max.Y - r.Min.Y) + m/2}}
			data.SetColor(color.NRGBA{255, 255, 255, 230})
			data.Fill(bg.Path())
			pn.legend.Draw(lc)
			continue
		}
		if lw == 0 || pn.entries == 0 {
			continue
		}
		lc := c
		lc.Min.X = plotArea.Max.X + vg.Points(10)
		lc.Max.Y = data.Max.Y
		lc.Min.Y = data.Min.Y
		pn.legend.Draw(lc)
	}
}

// wrap breaks s into lines no wider than width in style sty, at spaces.
func wrap(s string, sty text.Style, width vg.Length) string {
	words := strings.Fields(s)
	var lines []string
	cur := ""
	for _, wd := range words {
		try := wd
		if cur != "" {
			try = cur + " " + wd
		}
		if cur != "" && sty.Width(try) > width {
			lines = append(lines, cur)
			cur = wd
			continue
		}
		cur = try
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return strings.Join(lines, "\n")
}

// eventPlotter draws runtime events as dashed vertical lines, with labels
// at the top of the data area when labels is set. It has no DataRange, so
// it never changes the axes.
type eventPlotter struct {
	marks  []EventMark
	labels bool
}

func (ep eventPlotter) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, _ := plt.Transforms(&c)
	sty := lineStyle(colEvent, 1.3, []vg.Length{vg.Points(5), vg.Points(3)})
	ts := textStyle(sizeEvent, false)
	ts.Color = colEvent
	ts.YAlign = draw.YBottom
	type lab struct {
		x, start, w vg.Length
		text        string
	}
	var labs []lab
	for _, m := range ep.marks {
		if m.X < plt.X.Min || m.X > plt.X.Max {
			continue
		}
		x := trX(m.X)
		c.StrokeLine2(sty, x, c.Min.Y, x, c.Max.Y)
		if !ep.labels || m.Label == "" {
			continue
		}
		w := ts.Width(m.Label)
		start := x + vg.Points(3)
		if start+w > c.Max.X {
			start = x - vg.Points(3) - w
		}
		labs = append(labs, lab{x, start, w, m.Label})
	}
	if len(labs) == 0 {
		return
	}
	sort.SliceStable(labs, func(i, j int) bool { return labs[i].start < labs[j].start })
	starts := make([]float64, len(labs))
	widths := make([]float64, len(labs))
	for i, l := range labs {
		starts[i], widths[i] = float64(l.start), float64(l.w)
	}
	rows := LabelRows(starts, widths, float64(vg.Points(6)))
	lh := ts.Height("Mg") + vg.Points(3)
	for i, l := range labs {
		y := c.Max.Y - vg.Length(rows[i]+1)*lh
		box := vg.Rectangle{Min: vg.Point{X: l.start - vg.Points(2), Y: y - vg.Points(1)}, Max: vg.Point{X: l.start + l.w + vg.Points(2), Y: y + lh - vg.Points(2)}}
		c.SetColor(color.NRGBA{255, 255, 255, 215})
		c.Fill(box.Path())
		c.FillText(ts, vg.Point{X: l.start, Y: y}, l.text)
	}
}

// eventThumb is the legend thumbnail of runtime events: a short dashed
// vertical line.
type eventThumb struct{}

func (eventThumb) Thumbnail(c *draw.Canvas) {
	x := (c.Min.X + c.Max.X) / 2
	c.StrokeLine2(lineStyle(colEvent, 1.3, []vg.Length{vg.Points(3), vg.Points(2)}), x, c.Min.Y, x, c.Max.Y)
}

// bandPieces cuts a band into pieces of at most 4·strokeChunk samples for
// filling, for the rasterizer's sake (see strokeChunks). Neighbouring pieces
// overlap by two samples: the fills are opaque, so the overlap is invisible,
// and no anti-aliased seam shows where two pieces meet.
func bandPieces(b Band) []Band {
	const n = 4 * strokeChunk
	if len(b.Upper) <= n {
		return []Band{b}
	}
	var out []Band
	for i := 0; i < len(b.Upper)-2; i += n - 2 {
		j := min(i+n, len(b.Upper))
		out = append(out, Band{Name: b.Name, Lower: b.Lower[i:j], Upper: b.Upper[i:j]})
	}
	return out
}

// bandPolygon fills the area between Lower and Upper of a Band.
func bandPolygon(b Band, fill color.Color) (*plotter.Polygon, error) {
	ring := make(plotter.XYs, 0, 2*len(b.Upper))
	ring = append(ring, b.Upper...)
	for i := len(b.Lower) - 1; i >= 0; i-- {
		ring = append(ring, b.Lower[i])
	}
	pg, err := plotter.NewPolygon(ring)
	if err != nil {
		return nil, err
	}
	pg.Color = fill
	pg.LineStyle.Width = 0
	return pg, nil
}

var errNoData = errors.New("no data to draw")

// niceTicks puts major ticks at round steps (at most max of them) with
// unlabelled minor ticks between. steps lists the allowed step sizes within
// one decade (1 ≤ s < 10), or, when absolute, the allowed steps themselves
// (time axes in minutes and hours: 15 min, 6 h, ...).
type niceTicks struct {
	max      int
	steps    []float64
	absolute bool
	integer  bool // counts: never a step below 1
	minor    bool // unlabelled minor ticks between the major ones
}

var (
	valueTicks  = niceTicks{max: 8, steps: []float64{1, 2, 2.5, 5}}
	countTicks  = niceTicks{max: 8, steps: []float64{1, 2, 2.5, 5}, integer: true}
	minuteSteps = niceTicks{max: 12, steps: []float64{1, 2, 5, 10, 15, 20, 30, 60, 120, 180, 240, 360, 720}, absolute: true, minor: true}
	hourSteps   = niceTicks{max: 12, steps: []float64{1, 2, 3, 4, 6, 12, 24, 48, 72, 168, 336, 720}, absolute: true, minor: true}
	secondSteps = niceTicks{max: 12, steps: []float64{1, 2, 2.5, 5}, minor: true}
)

// timeTicks returns the ticker for a time axis in unit u.
func timeTicks(u Unit) niceTicks {
	switch u.Name {
	case "min":
		return minuteSteps
	case "h":
		return hourSteps
	}
	return secondSteps
}

// NiceStep is the smallest allowed step giving at most maxTicks ticks over
// span.
func (nt niceTicks) NiceStep(span float64) float64 {
	if !(span > 0) || math.IsInf(span, 0) {
		return 1
	}
	if nt.integer {
		return math.Max(1, niceTicks{max: nt.max, steps: []float64{1, 2, 5}}.NiceStep(span))
	}
	if nt.absolute {
		for _, s := range nt.steps {
			if span/s <= float64(nt.max) {
				return s
			}
		}
		// Beyond the table: fall back to decimal steps.
	}
	dec := math.Pow(10, math.Floor(math.Log10(span/float64(nt.max))))
	steps := nt.steps
	if nt.absolute || len(steps) == 0 {
		steps = []float64{1, 2, 2.5, 5}
	}
	for {
		for _, s := range steps {
			if span/(s*dec) <= float64(nt.max) {
				return s * dec
			}
		}
		dec *= 10
	}
}

// minorDivisions is how many minor intervals split one major step.
func minorDivisions(step float64) int {
	d := step / math.Pow(10, math.Floor(math.Log10(step)+1e-9))
	switch {
	case math.Abs(d-1.5) < 1e-9, math.Abs(d-3) < 1e-9, math.Abs(d-6) < 1e-9: // 15 min, 30 min, 3 h, 6 h
		return 3
	case math.Abs(d-2) < 1e-9, math.Abs(d-1.2) < 1e-9, math.Abs(d-2.4) < 1e-9, math.Abs(d-4) < 1e-9: // 20, 12 h, 24 h, 4 h
		return 4
	default:
		return 5
	}
}

// Ticks implements plot.Ticker.
func (nt niceTicks) Ticks(lo, hi float64) []plot.Tick {
	step := nt.NiceStep(hi - lo)
	div := 1
	if nt.minor {
		div = minorDivisions(step)
	}
	minor := step / float64(div)
	prec := max(0, -int(math.Floor(math.Log10(step)+1e-9)))
	if p := math.Pow(10, float64(prec)); math.Abs(step*p-math.Round(step*p)) > 1e-9 {
		prec++ // 2.5, 0.25, ...
	}
	var ticks []plot.Tick
	k0 := int64(math.Ceil(lo/minor - 1e-9))
	for k := k0; ; k++ {
		v := float64(k) * minor
		if v > hi+minor*1e-9 {
			break
		}
		t := plot.Tick{Value: v}
		if k%int64(div) == 0 {
			t.Label = strconv.FormatFloat(v, 'f', prec, 64)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// lineSpec is a line colour and dash pattern.
type lineSpec struct {
	c    color.Color
	dash []vg.Length
}

// withAlpha returns c with opacity a (0–255).
func withAlpha(c color.RGBA, a uint8) color.NRGBA {
	return color.NRGBA{c.R, c.G, c.B, a}
}

// timeRange is the x range of a timeline in unit u. A run whose first
// sample lies within the first 5% of its span starts the axis at 0 so the
// ticks read 0, 10, 20 ... rather than starting at the first sample.
func timeRange(tl *Timeline, u Unit) (float64, float64) {
	t0, t1 := tl.T[0], tl.T[tl.Len()-1]
	if t0 >= 0 && t0 <= 0.05*(t1-t0) {
		t0 = 0
	}
	return t0 / u.Scale, t1 / u.Scale
}
