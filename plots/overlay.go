package plots

import (
	"fmt"
	"io"
	"math"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Overlay is what diagnose --metrics compares: observed gauges and the
// re-simulation sampled at the same instants, one panel per gauge.
type Overlay struct {
	T      []float64 // seconds since the first sample
	Panels []OverlayPanel
}

// OverlayPanel is one gauge: the observed values (NaN where not exported)
// and the simulated mean with a band (mean ± 2 SD, say) around it.
type OverlayPanel struct {
	Name               string // e.g. "pool size (threads)"
	Observed           []float64
	SimMean            []float64
	SimLow, SimHigh    []float64
	ObservedLabel      string // legend of the observed line, e.g. "observed (executor_pool_size_threads)"
	SimLabel, BandName string
}

// DrawOverlay draws one panel per gauge, stacked, the simulated band filled
// behind the simulated mean and the observed values as points joined by a
// line, and writes a PNG.
func DrawOverlay(w io.Writer, ov Overlay, o Options) error {
	wd, ht, err := o.size()
	if err != nil {
		return fmt.Errorf("plots: overlay: %w", err)
	}
	if len(ov.T) == 0 || len(ov.Panels) == 0 {
		return fmt.Errorf("plots: overlay: %w", errNoData)
	}
	span := ov.T[len(ov.T)-1] - ov.T[0]
	u := TimeUnit(span)
	var panels []*panel
	for i, pnl := range ov.Panels {
		xl := ""
		if i == len(ov.Panels)-1 {
			xl = "time (" + u.Name + ")"
		}
		p := newPlot("", xl, pnl.Name)
		pn := newPanel(p)
		xy := func(ys []float64) plotter.XYs {
			out := make(plotter.XYs, len(ov.T))
			for k, t := range ov.T {
				out[k] = plotter.XY{X: t / u.Scale, Y: ys[k]}
			}
			return out
		}
		top := 1.0
		for _, ys := range [][]float64{pnl.Observed, pnl.SimHigh} {
			if m, ok := finiteMax(ys); ok {
				top = math.Max(top, m)
			}
		}
		band := Band{Name: pnl.BandName, Lower: xy(pnl.SimLow), Upper: xy(pnl.SimHigh)}
		for _, piece := range bandPieces(band) {
			pg, err := bandPolygon(piece, withAlpha(colSkyBlue, 90))
			if err != nil {
				return fmt.Errorf("plots: overlay: %w", err)
			}
			p.Add(pg)
		}
		pn.add(pnl.BandName, &plotter.Polygon{Color: withAlpha(colSkyBlue, 90)})
		th, err := addLines(p, SplitNaN(xy(pnl.SimMean)), lineStyle(colBlue, 2, nil))
		if err != nil {
			return fmt.Errorf("plots: overlay: %w", err)
		}
		pn.add(pnl.SimLabel, th)
		obs := SplitNaN(xy(pnl.Observed))
		th, err = addLines(p, obs, lineStyle(colVermillion, 1.5, []vg.Length{vg.Points(4), vg.Points(2)}))
		if err != nil {
			return fmt.Errorf("plots: overlay: %w", err)
		}
		for _, seg := range obs {
			sc, err := plotter.NewScatter(seg)
			if err != nil {
				return fmt.Errorf("plots: overlay: %w", err)
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: colVermillion, Radius: vg.Points(2.2), Shape: draw.CircleGlyph{}}
			p.Add(sc)
		}
		pn.add(pnl.ObservedLabel, th)
		p.X.Min, p.X.Max = ov.T[0]/u.Scale, ov.T[len(ov.T)-1]/u.Scale
		p.Y.Min, p.Y.Max = 0, niceTop(top)
		p.X.Tick.Marker, p.Y.Tick.Marker = timeTicks(u), countTicks
		panels = append(panels, pn)
	}
	title := "Observed vs simulated at the scrape times"
	if o.Title != "" {
		title += " · " + o.Title
	}
	if err := render(w, wd, ht, title, []column{{1, panels}}); err != nil {
		return fmt.Errorf("plots: overlay: %w", err)
	}
	return nil
}
