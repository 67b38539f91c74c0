package plots

import (
	"bytes"
	"image/png"
	"math"
	"strings"
	"testing"
)

// frontierData: six pool sizes, an unstable one whose wait (40 s) is far
// above a 0.06 s bound, a closed form over sizes 6 to 14.
func frontierData() Frontier {
	f := Frontier{
		ThreadsName: "threads", WaitName: "wait p99 (s)", RejectedName: "rejected share",
		Current: 1, Recommended: 3, CurrentLabel: "core=8", RecommendedLabel: "core=11",
		WaitLimit: 0.06, RejectedLimit: math.NaN(), WaitLimitLabel: "wait_p99_s < 0.06",
	}
	for _, p := range []struct {
		th, wait float64
		ok       bool
	}{{6, 40, false}, {8, 0.23, false}, {10, 0.072, false}, {11, 0.041, true}, {12, 0.02, true}, {18, 0, true}} {
		f.Points = append(f.Points, FrontierPoint{Threads: p.th, Wait: p.wait, Feasible: p.ok, Pareto: p.th != 18})
	}
	c := &FrontierCurve{Name: "Erlang C"}
	for size := 6.0; size <= 14; size++ {
		w := math.Inf(1)
		if size > 6.4 {
			w = 0.25 * math.Pow(0.5, size-8)
		}
		c.Threads, c.Wait, c.Rejected = append(c.Threads, size), append(c.Wait, w), append(c.Rejected, 0)
	}
	f.Closed = c
	return f
}

func TestComputeFrontier(t *testing.T) {
	s, err := ComputeFrontier(frontierData())
	if err != nil {
		t.Fatal(err)
	}
	w := s.Wait
	// The top is 3 × the bound, raised to show the current point (0.23):
	// the unstable size's 40 s is drawn at the top, its value written.
	if math.Abs(w.YMax-0.253) > 1e-9 || len(w.Above) != 1 || w.Above[0].X != 6 || w.AboveLabels[0] != "40" {
		t.Errorf("wait panel top %v, above %v %v; want 0.253 with the 40 s point at x=6", w.YMax, w.Above, w.AboveLabels)
	}
	if len(w.Feasible) != 3 || len(w.Infeasible) != 3 || len(w.Current) != 1 || w.Current[0].Y != 0.23 || w.Recommended[0].X != 11 {
		t.Errorf("wait panel: %d feasible, %d infeasible, current %v, recommended %v", len(w.Feasible), len(w.Infeasible), w.Current, w.Recommended)
	}
	for i := 1; i < len(w.Pareto); i++ {
		if w.Pareto[i].X < w.Pareto[i-1].X {
			t.Errorf("the Pareto line is not by increasing threads: %v", w.Pareto)
		}
	}
	// The closed form is cut where it is infinite (size 6) or above the top.
	for _, seg := range w.Closed {
		for _, p := range seg {
			if p.X < 7 || p.Y > w.YMax {
				t.Errorf("closed form point %v drawn (top %v)", p, w.YMax)
			}
		}
	}
	// Nothing is rejected: a readable empty scale, no bound.
	if r := s.Rejected; r.YMax != 0.01 || len(r.Above) != 0 || !math.IsNaN(r.Limit) {
		t.Errorf("rejected panel: top %v, above %v, limit %v", r.YMax, r.Above, r.Limit)
	}
	if s.XMin != 6 || s.XMax != 18 {
		t.Errorf("x range %v..%v; want 6..18", s.XMin, s.XMax)
	}
}

func TestFrontierChart(t *testing.T) {
	var a, b bytes.Buffer
	if err := FrontierChart(&a, frontierData(), Options{Title: "test"}); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(a.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	checkNotBlank(t, img)
	// The recommendation's vermillion ring and the bound's dashes are there.
	if n := countNear(img, colVermillion, 40); n < 200 {
		t.Errorf("%d vermillion pixels: the recommendation or the bound is missing", n)
	}
	if err := FrontierChart(&b, frontierData(), Options{Title: "test"}); err != nil || !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Errorf("two drawings of the same frontier differ (%v)", err)
	}
	for _, tc := range []struct {
		edit func(*Frontier)
		want string
	}{
		{func(f *Frontier) { f.Points = nil }, "no points"},
		{func(f *Frontier) { f.Current = 9 }, "out of range"},
		{func(f *Frontier) { f.Closed.Wait = f.Closed.Wait[:2] }, "must match"},
		{func(f *Frontier) {
			for i := range f.Points {
				f.Points[i].Threads = math.NaN()
			}
		}, "no point has"},
	} {
		f := frontierData()
		tc.edit(&f)
		if err := FrontierChart(&a, f, Options{}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("FrontierChart: %v; want an error with %q", err, tc.want)
		}
	}
}
