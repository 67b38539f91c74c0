package plots

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// chart is one chart drawn for the image tests.
type chart struct {
	name string
	draw func(*bytes.Buffer, Options) error
	must []color.RGBA // series colours that must appear in the image
}

func seedCharts(t *testing.T) []chart {
	tl, ev := seedTimeline(t)
	cfg := seedIncident
	cfg.keepAliveS, cfg.max = 20, Unbounded
	txt, _ := synthTimeline(t, cfg)
	tl2, err := ReadTimeline(strings.NewReader(txt))
	if err != nil {
		t.Fatal(err)
	}
	title := "tomcat-idle-workers · core 10, max 200, keepAlive 60s, 2.02 tasks/s + burst"
	ss := SteadyState{
		Wait:     []Quantile{{0.5, 0}, {0.9, 0}, {0.99, 12.5}, {1, 71}},
		Response: []Quantile{{0.5, 0.005}, {0.9, 0.005}, {0.99, 32}, {1, 91}},
	}
	grid := Grid{XName: "keepAlive (s)", YName: "background rate (tasks/s)", X: []float64{5, 10, 30, 60, 120}, Y: []float64{0.5, 1, 2, 4}, Metric: "pool size after 1 h (threads)"}
	for _, y := range grid.Y {
		var row []float64
		for _, x := range grid.X {
			row = append(row, math.Min(200, math.Max(10, math.Ceil(x*y)))) // R78 plateau, capped
		}
		grid.Z = append(grid.Z, row)
	}
	grid.Z[3][4] = math.NaN()
	sweep := Sweep{XName: "keepAlive (s)", Metric: "pool size after 1 h (threads)", ErrNote: "bars: ±2 standard errors, 10 seeds",
		Series: []SweepSeries{
			{"FIFO handoff (LinkedBlockingQueue)", []float64{5, 10, 30, 60, 120}, []float64{10, 18, 58, 115, 200}, []float64{1, 2, 4, 6, 0}},
			{"LIFO handoff (SynchronousQueue)", []float64{5, 10, 30, 60, 120}, []float64{3, 3.5, 4, 4.2, math.NaN()}, []float64{0.5, 0.5, 0.7, 0.8, 1}},
		}}
	withEvents := func(o Options) Options { o.Title, o.Events = title, ev; return o }
	return []chart{
		{"thread", func(b *bytes.Buffer, o Options) error { return ThreadTimeline(b, tl, withEvents(o)) },
			[]color.RGBA{colBlue, colOrange, colGreen, colPurple}},
		{"queue", func(b *bytes.Buffer, o Options) error { return QueueRejections(b, tl, withEvents(o)) },
			[]color.RGBA{colBlue, colVermillion}},
		{"wait", func(b *bytes.Buffer, o Options) error { return WaitResponse(b, tl, ss, withEvents(o)) },
			// wait p50 (green) lies under the other lines wherever all are 0: not required.
			[]color.RGBA{colOrange, colBlue}},
		{"compare", func(b *bytes.Buffer, o Options) error {
			return Comparison(b, []Run{{"keepAlive 60s, max 200", tl}, {"keepAlive 20s, max unbounded", tl2}}, "pool_size", withEvents(o))
		}, []color.RGBA{colBlue, colVermillion}},
		{"heatmap", func(b *bytes.Buffer, o Options) error { o.Title = "tomcat preset"; return Heatmap(b, grid, o) },
			[]color.RGBA{viridis[0], viridis[8], colMissing}},
		{"sweep", func(b *bytes.Buffer, o Options) error {
			o.Title = "tomcat preset, 2 tasks/s"
			return SweepLines(b, sweep, o)
		},
			[]color.RGBA{colBlue, colVermillion}},
	}
}

// TestChartsPNG draws every chart at the default and a custom size and
// checks that the PNG decodes at that size, is not blank, and shows its
// series' colours. With PLOTS_OUT=dir the images are also written there
// for a person to look at.
func TestChartsPNG(t *testing.T) {
	out := os.Getenv("PLOTS_OUT")
	for _, c := range seedCharts(t) {
		for _, sz := range []struct{ w, h int }{{0, 0}, {1800, 1050}} {
			t.Run(c.name, func(t *testing.T) {
				var buf bytes.Buffer
				if err := c.draw(&buf, Options{Width: sz.w, Height: sz.h}); err != nil {
					t.Fatalf("draw: %v", err)
				}
				img, err := png.Decode(bytes.NewReader(buf.Bytes()))
				if err != nil {
					t.Fatalf("png.Decode: %v", err)
				}
				w, h := sz.w, sz.h
				if w == 0 {
					w, h = DefaultWidth, DefaultHeight
				}
				if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
					t.Fatalf("image is %d×%d, want %d×%d", b.Dx(), b.Dy(), w, h)
				}
				checkNotBlank(t, img)
				for _, col := range c.must {
					// A 2 pt line is ≥2 px wide at 96 dpi: hundreds of pixels in its colour.
					if n := countNear(img, col, 24); n < 150 {
						t.Errorf("colour %v: %d pixels, want ≥ 150 (series not drawn?)", col, n)
					}
				}
				if out != "" && sz.w == 0 {
					if err := os.WriteFile(filepath.Join(out, c.name+".png"), buf.Bytes(), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			})
		}
	}
}

// checkNotBlank: the central region (where the data area lies) has many
// colours and a fair share of non-white pixels.
func checkNotBlank(t *testing.T, img image.Image) {
	t.Helper()
	b := img.Bounds()
	inner := image.Rect(b.Min.X+b.Dx()/10, b.Min.Y+b.Dy()/10, b.Max.X-b.Dx()/4, b.Max.Y-b.Dy()/10)
	colours := map[color.RGBA]bool{}
	nonWhite := 0
	for y := inner.Min.Y; y < inner.Max.Y; y++ {
		for x := inner.Min.X; x < inner.Max.X; x++ {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			colours[c] = true
			if c.R < 245 || c.G < 245 || c.B < 245 {
				nonWhite++
			}
		}
	}
	if len(colours) < 20 {
		t.Errorf("only %d distinct colours in the plot area", len(colours))
	}
	if frac := float64(nonWhite) / float64(inner.Dx()*inner.Dy()); frac < 0.02 {
		t.Errorf("only %.1f%% of the plot area is not white", 100*frac)
	}
}

func countNear(img image.Image, want color.RGBA, tol int) int {
	n := 0
	b := img.Bounds()
	abs := func(a int) int { return max(a, -a) }
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			if abs(int(c.R)-int(want.R))+abs(int(c.G)-int(want.G))+abs(int(c.B)-int(want.B)) <= tol {
				n++
			}
		}
	}
	return n
}

// TestSpikeDrawn draws a 24-hour, 86,400-sample pool_size line whose only
// excursion is a single sample at 950 threads (plateau 121) and checks that
// the line's colour reaches the top part of the image. The control without
// the spike shows the check can fail.
func TestSpikeDrawn(t *testing.T) {
	tests := []struct {
		name  string
		spike float64
		high  bool // line colour expected in the top third
	}{
		// One sample at 950 among 86,399 at 121: drawn.
		{"spike", 950, true},
		// No spike (the spike sample equals the plateau): nothing up there.
		{"control", 121, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spiky := flatDay(t, 53001, tc.spike, 0)
			var buf bytes.Buffer
			// Two runs so the y range is the same in both rows: the first
			// (blue) carries the spike or not; the second (vermillion) is a
			// reference line at 1000 threads fixing the scale.
			ref := flatDay(t, 1, 121, 0)
			for i := range ref.PoolSize {
				ref.PoolSize[i] = 1000
			}
			if err := Comparison(&buf, []Run{{"day", spiky}, {"reference", ref}}, "pool_size", Options{Title: "24 h, one-sample spike"}); err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(&buf)
			if err != nil {
				t.Fatal(err)
			}
			topBlue := img.Bounds().Max.Y
			for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y && topBlue == img.Bounds().Max.Y; y++ {
				for x := 100; x < 850; x++ {
					if near(img.At(x, y), colBlue, 24) {
						topBlue = y
						break
					}
				}
			}
			if high := topBlue < img.Bounds().Dy()/3; high != tc.high {
				t.Errorf("topmost line pixel at row %d of %d: in top third = %v, want %v", topBlue, img.Bounds().Dy(), high, tc.high)
			}
		})
	}
}

func near(c color.Color, want color.RGBA, tol int) bool {
	r := color.RGBAModel.Convert(c).(color.RGBA)
	abs := func(a int) int { return max(a, -a) }
	return abs(int(r.R)-int(want.R))+abs(int(r.G)-int(want.G))+abs(int(r.B)-int(want.B)) <= tol
}

// TestChartsDeterministic: the same input gives the same bytes.
func TestChartsDeterministic(t *testing.T) {
	for _, c := range seedCharts(t) {
		var a, b bytes.Buffer
		if err := c.draw(&a, Options{}); err != nil {
			t.Fatal(err)
		}
		if err := c.draw(&b, Options{}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("%s: two renders differ", c.name)
		}
	}
}

func TestThreadSeriesMax(t *testing.T) {
	mk := func(pool float64, max ...float64) *Timeline {
		n := len(max)
		tl := &Timeline{Extra: map[string][]float64{}}
		for _, c := range tl.required() {
			*c = make([]float64, n)
		}
		for i := range n {
			tl.T[i], tl.PoolSize[i], tl.IdleTimed[i] = float64(i), pool, pool
		}
		if n > 0 && max[0] >= 0 {
			tl.Extra["max"], tl.ExtraNames = max, []string{"max"}
		}
		return tl
	}
	tests := []struct {
		name  string
		tl    *Timeline
		label string
		drawn bool
		ymax  float64
	}{
		// max within reach of the data: drawn, the axis includes it.
		{"drawn", mk(121, 200, 200), "max", true, 200 * 1.15},
		// max 800 with 121 threads: named, not drawn, axis fits the data.
		{"above", mk(121, 800, 800), "max = 800 (above the scale)", false, 121 * 1.15},
		// unbounded throughout.
		{"unbounded", mk(121, Unbounded, Unbounded), "max unbounded", false, 121 * 1.15},
		// unbounded, then bounded by a reconfiguration.
		{"partly", mk(121, Unbounded, 150), "max (unbounded part not drawn)", true, 150 * 1.15},
		// reconfigured from 800 to 900, both far above: the range is named.
		{"above, changed", mk(121, 800, 900), "max 800–900 (above the scale)", false, 121 * 1.15},
		// no max column at all.
		{"absent", mk(121, -1, -1), "", false, 121 * 1.15},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ComputeThreadSeries(tc.tl, nil, 100)
			if err != nil {
				t.Fatal(err)
			}
			if s.MaxLabel != tc.label || s.MaxDrawn != tc.drawn || math.Abs(s.YMax-tc.ymax) > 1e-9 {
				t.Errorf("label %q drawn %v ymax %g; want %q %v %g", s.MaxLabel, s.MaxDrawn, s.YMax, tc.label, tc.drawn, tc.ymax)
			}
		})
	}
}

// TestThreadSeriesSeed checks the seed timeline's drawn series: the top of
// the stack equals pool_size at every drawn point, and core is a step line
// that rises from 10 to 20 at the reconfiguration (60 min).
func TestThreadSeriesSeed(t *testing.T) {
	tl, ev := seedTimeline(t)
	s, err := ComputeThreadSeries(tl, ev, 1200)
	if err != nil {
		t.Fatal(err)
	}
	if s.Time.Name != "min" {
		t.Errorf("time unit %s, want min for a 2 h run", s.Time.Name)
	}
	top := s.Bands[2].Upper
	for _, p := range top {
		i := int(math.Round(p.X*60)) - 1
		if tl.PoolSize[i] != p.Y {
			t.Fatalf("stack top at %g min is %g, pool_size is %g", p.X, p.Y, tl.PoolSize[i])
		}
	}
	want := "[[{0.016666666666666666 10} {60 10} {60 20} {120 20}]]"
	if got := fmt.Sprint(s.Core); got != want {
		t.Errorf("core step line %s, want %s", got, want)
	}
	if len(s.Events) != 2 || s.Events[0].X != 60 || s.Events[1].Label != "shutdown" {
		t.Errorf("events %v", s.Events)
	}
}

// TestChartErrors: empty or all-missing data is a clear error and no image.
func TestChartErrors(t *testing.T) {
	tl, _ := seedTimeline(t)
	noWait := *tl
	noWait.Extra = map[string][]float64{}
	noWait.ExtraNames = nil
	allNaN := *tl
	allNaN.Extra = map[string][]float64{}
	nanCol := make([]float64, tl.Len())
	for i := range nanCol {
		nanCol[i] = math.NaN()
	}
	for _, c := range []string{"wait_p50_s", "wait_p99_s", "wait_max_s", "response_p99_s"} {
		allNaN.Extra[c] = nanCol
	}
	allNaN.ExtraNames = []string{"wait_p50_s", "wait_p99_s", "wait_max_s", "response_p99_s"}
	empty := &Timeline{}
	nan := math.NaN()

	tests := []struct {
		name string
		draw func(*bytes.Buffer) error
		want string
	}{
		// A timeline without samples.
		{"thread empty", func(b *bytes.Buffer) error { return ThreadTimeline(b, empty, Options{}) }, "plots: thread timeline: timeline has no samples"},
		// Nil timeline.
		{"queue nil", func(b *bytes.Buffer) error { return QueueRejections(b, nil, Options{}) }, "plots: queue chart: timeline has no samples"},
		// No wait columns at all.
		{"wait absent", func(b *bytes.Buffer) error { return WaitResponse(b, &noWait, SteadyState{}, Options{}) }, "no data to draw: no wait or response value"},
		// Wait columns present but every cell empty.
		{"wait all NaN", func(b *bytes.Buffer) error { return WaitResponse(b, &allNaN, SteadyState{}, Options{}) }, "no data to draw: no wait or response value"},
		// Quantiles that are not a distribution.
		{"cdf", func(b *bytes.Buffer) error {
			return WaitResponse(b, tl, SteadyState{Wait: []Quantile{{0.5, 2}, {0.99, 1}}}, Options{})
		}, "wait quantiles: quantile 0.99 is 1 s, below quantile 0.5"},
		// Quantile outside [0, 1].
		{"cdf q", func(b *bytes.Buffer) error {
			return WaitResponse(b, tl, SteadyState{Response: []Quantile{{99, 2}}}, Options{})
		}, "response quantiles: quantile 99 outside [0, 1]"},
		// No runs to compare.
		{"compare none", func(b *bytes.Buffer) error { return Comparison(b, nil, "pool_size", Options{}) }, "plots: comparison: no data to draw: no runs"},
		// A metric the timelines lack.
		{"compare metric", func(b *bytes.Buffer) error { return Comparison(b, []Run{{"a", tl}}, "poolsize", Options{}) }, `run a has no column "poolsize"`},
		// A metric with no value anywhere.
		{"compare NaN", func(b *bytes.Buffer) error { return Comparison(b, []Run{{"a", &allNaN}}, "wait_p99_s", Options{}) }, `column "wait_p99_s" has no value in any run`},
		// Two runs with one name: the legend would be ambiguous.
		{"compare dup", func(b *bytes.Buffer) error { return Comparison(b, []Run{{"a", tl}, {"a", tl}}, "busy", Options{}) }, `two runs named "a"`},
		// Empty grid.
		{"heatmap empty", func(b *bytes.Buffer) error { return Heatmap(b, Grid{}, Options{}) }, "plots: heatmap: no data to draw"},
		// Every cell missing.
		{"heatmap NaN", func(b *bytes.Buffer) error {
			return Heatmap(b, Grid{X: []float64{1, 2}, Y: []float64{1}, Z: [][]float64{{nan, nan}}}, Options{})
		}, "every value is missing"},
		// Ragged grid.
		{"heatmap ragged", func(b *bytes.Buffer) error {
			return Heatmap(b, Grid{XName: "core", X: []float64{1, 2}, Y: []float64{1}, Z: [][]float64{{1}}}, Options{})
		}, "row 0 has 1 values for 2 core values"},
		// No sweep series.
		{"sweep empty", func(b *bytes.Buffer) error { return SweepLines(b, Sweep{}, Options{}) }, "plots: sweep: no data to draw"},
		// Every sweep value missing.
		{"sweep NaN", func(b *bytes.Buffer) error {
			return SweepLines(b, Sweep{Series: []SweepSeries{{"a", []float64{1, 2}, []float64{nan, nan}, nil}}}, Options{})
		}, "every value is missing"},
		// Mismatched sweep lengths.
		{"sweep lengths", func(b *bytes.Buffer) error {
			return SweepLines(b, Sweep{Series: []SweepSeries{{"a", []float64{1, 2}, []float64{1}, nil}}}, Options{})
		}, `series "a": 2 x, 1 y`},
		// An image too small to read.
		{"size", func(b *bytes.Buffer) error { return ThreadTimeline(b, tl, Options{Width: 100, Height: 50}) }, "image size 100×50 out of range"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := tc.draw(&buf)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
			if !strings.HasPrefix(err.Error(), "plots: ") {
				t.Errorf("error %q does not start with the package name", err)
			}
			if buf.Len() != 0 {
				t.Errorf("%d bytes written despite the error", buf.Len())
			}
		})
	}
	if _, err := ComputeHeatmap(Grid{}); !errors.Is(err, errNoData) {
		t.Errorf("empty heatmap error does not wrap errNoData")
	}
}

// TestThreadSpikeDrawn: in the stacked-area chart a one-sample burst of busy
// threads in a 24-hour run (far narrower than a pixel) must still show as a
// blue line reaching up to its 950 threads, not a faint smear.
func TestThreadSpikeDrawn(t *testing.T) {
	var buf bytes.Buffer
	if err := ThreadTimeline(&buf, flatDay(t, 53001, 950, 0), Options{}); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	// Data area: y from about 40 to 630 px; 950 of 1092 threads is ~110 px
	// from its top, 121 threads ~565 px. Count busy-blue pixels in the
	// upper part, between those rows.
	n := 0
	for y := 120; y < 450; y++ {
		for x := 100; x < 850; x++ {
			if near(img.At(x, y), colBlue, 24) {
				n++
			}
		}
	}
	if n < 300 {
		t.Errorf("%d busy-blue pixels above the plateau; the one-sample spike is not visible", n)
	}
}

// TestDegenerateTimelines: odd but valid data draws a valid image (or a
// clear error), never a panic.
func TestDegenerateTimelines(t *testing.T) {
	const h = "t_s,pool_size,busy,idle_timed,idle_untimed,queue_len,submitted,completed,rejected,core,max,wait_p99_s\n"
	tests := []struct {
		name, csv string
	}{
		// A single sample.
		{"one sample", h + "5,3,1,2,0,0,1,1,0,3,3,0.5\n"},
		// Everything zero (an idle pool with core 0).
		{"all zero", h + "1,0,0,0,0,0,0,0,0,0,1,0\n2,0,0,0,0,0,0,0,0,0,1,0\n"},
		// Two samples at the same instant.
		{"same time", h + "1,1,1,0,0,0,1,0,0,1,1,0\n1,1,0,1,0,0,1,1,0,1,1,0\n"},
		// Huge counts.
		{"huge", h + "1,2000000000,2000000000,0,0,900000000,1,0,0,1,2147483647,100000\n2,1,0,1,0,0,1,1,0,1,2147483647,0\n"},
		// A week at a 1 h sample.
		{"week", h + "0,1,1,0,0,0,1,0,0,1,1,1\n604800,1,0,1,0,0,1,1,0,1,1,1\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tl, err := ReadTimeline(strings.NewReader(tc.csv))
			if err != nil {
				t.Fatal(err)
			}
			ev := []Event{{AtS: 1, Label: "a"}, {AtS: 1, Label: "b"}}
			draws := map[string]func(*bytes.Buffer) error{
				"thread": func(b *bytes.Buffer) error { return ThreadTimeline(b, tl, Options{Events: ev}) },
				"queue":  func(b *bytes.Buffer) error { return QueueRejections(b, tl, Options{Events: ev}) },
				"wait": func(b *bytes.Buffer) error {
					return WaitResponse(b, tl, SteadyState{Wait: []Quantile{{1, 0}}}, Options{Events: ev})
				},
				"compare": func(b *bytes.Buffer) error {
					return Comparison(b, []Run{{"x", tl}}, "queue_len", Options{Events: ev})
				},
			}
			for _, name := range []string{"thread", "queue", "wait", "compare"} {
				var buf bytes.Buffer
				if err := draws[name](&buf); err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				if _, err := png.Decode(&buf); err != nil {
					t.Errorf("%s: %v", name, err)
				}
			}
		})
	}
}
