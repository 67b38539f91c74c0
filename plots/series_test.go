package plots

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"gonum.org/v1/plot/plotter"
)

func TestDownsampleIndices(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name    string
		col     []float64
		buckets int
		want    []int
	}{
		// Few samples: everything is drawn.
		{"short", []float64{1, 2, 3, 4}, 2, []int{0, 1, 2, 3}},
		// 8 samples, 2 buckets of 4: each keeps its min and max, plus first and last.
		{"minmax", []float64{5, 1, 9, 5, 5, 7, 5, 2}, 2, []int{0, 1, 2, 5, 7}},
		// A flat run keeps its first sample (argmin = argmax = first).
		{"flat", []float64{3, 3, 3, 3, 3, 3, 3, 3, 3, 3}, 2, []int{0, 5, 9}},
		// A gap (NaN) keeps its first NaN so the drawn line breaks there.
		{"gap", []float64{1, 1, nan, nan, 1, 1, 1, 1, 1, 1}, 2, []int{0, 2, 5, 9}},
		// Zero buckets is treated as one.
		{"zero buckets", []float64{1, 9, 1, 1, 1}, 0, []int{0, 1, 4}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := DownsampleIndices(len(tc.col), tc.buckets, tc.col)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
	if got := DownsampleIndices(0, 10); got != nil {
		t.Errorf("n=0: got %v, want nil", got)
	}
}

// TestDownsampleKeepsSpikes: a 24-hour run at 1 s samples is 86,400 rows;
// drawn at 1200 buckets, a spike or dip lasting one sample must survive, at
// any position, in any of several columns drawn together.
func TestDownsampleKeepsSpikes(t *testing.T) {
	const n, buckets = 86400, 1200
	seed := uint64(20240601)
	rng := rand.New(rand.NewPCG(seed, 1))
	for trial := range 50 {
		a, b := make([]float64, n), make([]float64, n)
		for i := range a {
			a[i] = 120 + float64(rng.IntN(3)) // noisy plateau
			b[i] = 5
		}
		ia, ib, id := rng.IntN(n), rng.IntN(n), rng.IntN(n)
		a[ia] = 800 // spike in a
		b[ib] = 60  // spike in b
		a[id] = 0   // dip in a (unless it lands on the spike)
		idx := DownsampleIndices(n, buckets, a, b)
		for _, want := range []int{ia, ib, id} {
			if _, found := slices.BinarySearch(idx, want); !found {
				t.Fatalf("trial %d (seed %d): sample %d (a=%g b=%g) was dropped", trial, seed, want, a[want], b[want])
			}
		}
		// At most min+max per column per bucket, plus first and last.
		if len(idx) > buckets*2*2+2 {
			t.Fatalf("trial %d: kept %d points, more than %d", trial, len(idx), buckets*4+2)
		}
		if !slices.IsSorted(idx) {
			t.Fatalf("trial %d: indices not ascending", trial)
		}
	}
}

// TestSpikeSurvivesInDrawnSeries follows a one-sample spike from a 24-hour
// timeline into the series handed to the plotters of every time chart.
func TestSpikeSurvivesInDrawnSeries(t *testing.T) {
	tl := flatDay(t, 53001, 950, 40)
	ts, err := ComputeThreadSeries(tl, nil, DefaultWidth)
	if err != nil {
		t.Fatal(err)
	}
	top := ts.Bands[len(ts.Bands)-1].Upper
	if len(top) > 4*DefaultWidth*3 {
		t.Errorf("thread series has %d points for 86400 samples; not downsampled", len(top))
	}
	if !hasPoint(top, 53001/3600.0, 950) {
		t.Errorf("pool spike of 950 at t=53001 s missing from the thread series (%d points)", len(top))
	}
	qs, err := ComputeQueueSeries(tl, nil, DefaultWidth)
	if err != nil {
		t.Fatal(err)
	}
	if !hasPoint(qs.Queue, 53001/3600.0, 40) {
		t.Errorf("queue spike of 40 at t=53001 s missing from the queue series")
	}
	cs, err := ComputeComparison([]Run{{"day", tl}}, "pool_size", DefaultWidth)
	if err != nil {
		t.Fatal(err)
	}
	if !hasPoint(cs.Lines[0].Segments[0], 53001/3600.0, 950) {
		t.Errorf("pool spike missing from the comparison series")
	}
	ws, err := ComputeWaitSeries(tl, SteadyState{}, nil, DefaultWidth)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, l := range ws.Lines {
		if l.Column == "wait_max_s" {
			for _, sg := range l.Segments {
				found = found || hasPoint(sg, 53001/3600.0, 12/ws.Value.Scale)
			}
		}
	}
	if !found {
		t.Errorf("wait_max spike of 12 s missing from the wait series")
	}
}

// flatDay is a 24-hour, 1 s timeline: 121 idle workers, one sample at tSpike
// with pool_size = spike (all busy), queue_len = q and a 12 s wait.
func flatDay(t testing.TB, tSpike int, spike, q float64) *Timeline {
	t.Helper()
	const n = 86400
	tl := &Timeline{Extra: map[string][]float64{}}
	cols := tl.required()
	for _, c := range cols {
		*c = make([]float64, n)
	}
	wmax := make([]float64, n)
	for i := range n {
		tl.T[i] = float64(i + 1)
		tl.PoolSize[i], tl.IdleTimed[i] = 121, 121
		tl.Submitted[i], tl.Completed[i] = float64(2*i), float64(2*i)
		wmax[i] = 0.001
		if i%7 == 0 {
			wmax[i] = math.NaN() // no task started in this interval
		}
	}
	i := tSpike - 1
	tl.PoolSize[i], tl.Busy[i], tl.IdleTimed[i], tl.QueueLen[i], wmax[i] = spike, spike, 0, q, 12
	tl.Extra["wait_max_s"], tl.ExtraNames = wmax, []string{"wait_max_s"}
	return tl
}

func hasPoint(xys plotter.XYs, x, y float64) bool {
	for _, p := range xys {
		if math.Abs(p.X-x) < 1e-9 && p.Y == y {
			return true
		}
	}
	return false
}

func TestStackBands(t *testing.T) {
	tt := []float64{0, 60, 120}
	busy := []float64{1, 5, 0}
	timed := []float64{2, 0, 3}
	untimed := []float64{4, 4, 4}
	bands := StackBands(tt, [][]float64{busy, timed, untimed}, []string{"b", "t", "u"}, []int{0, 1, 2}, 60)
	want := []Band{
		// busy sits on zero.
		{"b", pts(0, 0, 1, 0, 2, 0), pts(0, 1, 1, 5, 2, 0)},
		// idle timed sits on busy.
		{"t", pts(0, 1, 1, 5, 2, 0), pts(0, 3, 1, 5, 2, 3)},
		// idle untimed on both; its top is the pool size.
		{"u", pts(0, 3, 1, 5, 2, 3), pts(0, 7, 1, 9, 2, 7)},
	}
	if !reflect.DeepEqual(bands, want) {
		t.Errorf("got  %v\nwant %v", bands, want)
	}
}

func TestStepLine(t *testing.T) {
	unb := func(v float64) bool { return v >= Unbounded }
	tests := []struct {
		name string
		v    []float64
		skip func(float64) bool
		want []plotter.XYs
	}{
		// Constant: one horizontal line over the whole run.
		{"constant", []float64{10, 10, 10, 10}, nil, []plotter.XYs{pts(1, 10, 4, 10)}},
		// Raised at sample 3: horizontal to t=3, vertical, horizontal.
		{"raise", []float64{10, 10, 20, 20}, nil, []plotter.XYs{pts(1, 10, 3, 10, 3, 20, 4, 20)}},
		// Change seen at the last sample only.
		{"last", []float64{10, 10, 10, 5}, nil, []plotter.XYs{pts(1, 10, 4, 10, 4, 5)}},
		// Unbounded throughout: nothing drawn.
		{"unbounded", []float64{Unbounded, Unbounded, Unbounded, Unbounded}, unb, nil},
		// Unbounded, then set to 400 at t=3.
		{"becomes bounded", []float64{Unbounded, Unbounded, 400, 400}, unb, []plotter.XYs{pts(3, 400, 4, 400)}},
		// Bounded, unbounded in the middle, bounded again: two pieces.
		{"gap", []float64{200, Unbounded, 300, 300}, unb, []plotter.XYs{pts(1, 200, 2, 200), pts(3, 300, 4, 300)}},
	}
	tt := []float64{1, 2, 3, 4}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := StepLine(tt, tc.v, 1, tc.skip)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
			// Every segment is horizontal or vertical.
			for _, seg := range got {
				for i := 1; i < len(seg); i++ {
					if seg[i].X != seg[i-1].X && seg[i].Y != seg[i-1].Y {
						t.Errorf("diagonal segment %v→%v", seg[i-1], seg[i])
					}
				}
			}
		})
	}
}

func TestSplitNaN(t *testing.T) {
	nan := math.NaN()
	got := SplitNaN(pts(0, nan, 1, 1, 2, 2, 3, nan, 4, 4, 5, nan))
	want := []plotter.XYs{pts(1, 1, 2, 2), pts(4, 4)}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestLabelRows(t *testing.T) {
	tests := []struct {
		name           string
		starts, widths []float64
		want           []int
	}{
		// Far apart: all on the top row.
		{"apart", []float64{0, 100, 200}, []float64{50, 50, 50}, []int{0, 0, 0}},
		// Overlapping pair: the second drops a row.
		{"overlap", []float64{0, 30}, []float64{50, 50}, []int{0, 1}},
		// Three in a pile, then one that fits back on the top row.
		{"pile", []float64{0, 10, 20, 70}, []float64{60, 60, 60, 20}, []int{0, 1, 2, 0}},
		// The gap counts: touching labels need it.
		{"gap", []float64{0, 52}, []float64{50, 10}, []int{0, 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := LabelRows(tc.starts, tc.widths, 5); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestUnits(t *testing.T) {
	tests := []struct {
		span float64
		time string
	}{
		{60, "s"},         // a minute reads in seconds
		{180, "s"},        // up to 3 minutes
		{181, "min"},      // beyond, minutes
		{7200, "min"},     // 2 h still in minutes
		{10801, "h"},      // beyond 3 h, hours
		{86400, "h"},      // a day in hours
		{0, "s"},          // a single sample
		{1e-3, "s"},       // tiny spans stay in seconds
		{604800, "h"},     // a week in hours
		{10800.5, "h"},    // just over 3 h
		{179.99, "s"},     // just under 3 min
		{3 * 3600, "min"}, // exactly 3 h
	}
	for _, tc := range tests {
		if got := TimeUnit(tc.span).Name; got != tc.time {
			t.Errorf("TimeUnit(%g) = %s, want %s", tc.span, got, tc.time)
		}
	}
	durs := []struct {
		max  float64
		name string
	}{
		{0, "µs"},      // all-zero waits
		{0.0015, "µs"}, // below 2 ms
		{0.5, "ms"},    // half a second in ms
		{1.99, "ms"},   // under 2 s
		{30, "s"},      // seconds
		{3600, "min"},  // an hour's backlog in minutes
	}
	for _, tc := range durs {
		if got := DurationUnit(tc.max).Name; got != tc.name {
			t.Errorf("DurationUnit(%g) = %s, want %s", tc.max, got, tc.name)
		}
	}
}

func TestNiceTicks(t *testing.T) {
	labels := func(nt niceTicks, lo, hi float64) string {
		var s []string
		for _, tk := range nt.Ticks(lo, hi) {
			if tk.Label != "" {
				s = append(s, tk.Label)
			}
		}
		return fmt.Sprint(s)
	}
	tests := []struct {
		name   string
		nt     niceTicks
		lo, hi float64
		want   string
	}{
		// Two hours in minutes: every 10 min.
		{"2h in min", minuteSteps, 0, 120, "[0 10 20 30 40 50 60 70 80 90 100 110 120]"},
		// 24 h in hours: every 2 h.
		{"day in h", hourSteps, 0, 24, "[0 2 4 6 8 10 12 14 16 18 20 22 24]"},
		// A week in hours: every 24 h.
		{"week in h", hourSteps, 0, 168, "[0 24 48 72 96 120 144 168]"},
		// Threads 0..460: every 100.
		{"threads", countTicks, 0, 460, "[0 100 200 300 400]"},
		// Counts never step below 1.
		{"small counts", countTicks, 0, 1.15, "[0 1]"},
		// Fractions use decimals.
		{"quantile", valueTicks, 0, 1, "[0.0 0.2 0.4 0.6 0.8 1.0]"},
		// 2.5 steps keep one decimal.
		{"2.5", valueTicks, 0, 17, "[0.0 2.5 5.0 7.5 10.0 12.5 15.0]"},
		// An axis not starting at 0.
		{"offset", secondSteps, 13, 47, "[15 20 25 30 35 40 45]"},
	}
	for _, tc := range tests {
		if got := labels(tc.nt, tc.lo, tc.hi); got != tc.want {
			t.Errorf("%s: labels %s, want %s", tc.name, got, tc.want)
		}
	}
}

func TestEventMarks(t *testing.T) {
	ev := []Event{{3600, "set core=20 max=400"}, {99999, "after the end"}, {600, "burst"}, {3600, "set keepAlive=30s"}, {-1, "before"}}
	got := eventMarks(ev, 0, 7200, Unit{"min", 60})
	want := []EventMark{{10, "burst"}, {60, "set core=20 max=400; set keepAlive=30s"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// pts builds a polyline from x, y pairs.
func pts(xy ...float64) plotter.XYs {
	out := make(plotter.XYs, len(xy)/2)
	for i := range out {
		out[i] = plotter.XY{X: xy[2*i], Y: xy[2*i+1]}
	}
	return out
}

func TestBandEdge(t *testing.T) {
	tests := []struct {
		name string
		b    Band
		want []plotter.XYs
	}{
		// Thick everywhere: the whole upper boundary.
		{"thick", Band{"", pts(0, 0, 1, 0, 2, 0), pts(0, 5, 1, 6, 2, 5)}, []plotter.XYs{pts(0, 5, 1, 6, 2, 5)}},
		// Zero thickness everywhere: no edge (no stray line along the stack).
		{"empty", Band{"", pts(0, 3, 1, 3, 2, 3), pts(0, 3, 1, 3, 2, 3)}, nil},
		// One-sample spike: its edge includes the neighbours, so both flanks are drawn.
		{"spike", Band{"", pts(0, 0, 1, 0, 2, 0, 3, 0, 4, 0), pts(0, 0, 1, 0, 2, 950, 3, 0, 4, 0)}, []plotter.XYs{pts(1, 0, 2, 950, 3, 0)}},
		// Two thick stretches separated by a thin one: two pieces.
		{"two", Band{"", pts(0, 0, 1, 0, 2, 0, 3, 0, 4, 0), pts(0, 1, 1, 0, 2, 0, 3, 0, 4, 2)}, []plotter.XYs{pts(0, 1, 1, 0), pts(3, 0, 4, 2)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := BandEdge(tc.b); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}
