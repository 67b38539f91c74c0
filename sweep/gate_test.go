package sweep

import (
	"bytes"
	"encoding/xml"
	"errors"
	"image/png"
	"math"
	"strings"
	"testing"

	"github.com/poolsim/poolsim/internal/inputerr"
)

// synthetic builds results over the given parameters whose metric values
// are set by fn(point, metric) (mean) with half-width 1; other metrics 0.
func synthetic(t *testing.T, reps int, fn func(point int, metric string) float64, flags ...string) *Results {
	t.Helper()
	ps := mustParams(t, flags...)
	g, err := NewGrid(ps)
	if err != nil {
		t.Fatal(err)
	}
	d := Definition{Format: Format, Scenario: "syn", Metrics: Metrics(), Points: g.Len(), Replications: reps, Confidence: Confidence}
	for _, p := range ps {
		d.Params = append(d.Params, ParamDef{Key: p.Key, Spec: p.Spec, Kind: p.Kind.String(), Values: p.Values})
	}
	r := &Results{Definition: d, grid: g}
	for i := 0; i < g.Len(); i++ {
		row := Row{Point: i, Values: g.Values(i), Replications: reps, Mean: make([]float64, len(d.Metrics)), HalfWidth: make([]float64, len(d.Metrics))}
		for j, m := range d.Metrics {
			row.Mean[j], row.HalfWidth[j] = fn(i, m), 1
			if reps == 1 {
				row.HalfWidth[j] = math.NaN()
			}
		}
		row.Seeds = []uint64{uint64(i) + 1}
		r.Rows = append(r.Rows, row)
	}
	return r
}

// gateResults: 4 points over pool.max × queue type; rejections at max 4,
// wait_p99_s undefined at point 3.
func gateResults(t *testing.T) *Results {
	return synthetic(t, 3, func(i int, m string) float64 {
		switch {
		case m == "rejected" && i < 2:
			return 5
		case m == "wait_p99_s" && i == 3:
			return math.NaN()
		case m == "wait_p99_s":
			return 0.1 * float64(i+1) // 0.1, 0.2, 0.3
		}
		return 0
	}, "pool.max=4,8", "pool.queue.type=linked,array")
}

func failing(t *testing.T, r *Results, expr string) []int {
	t.Helper()
	g, err := CompileGate(expr, &r.Definition)
	if err != nil {
		t.Fatalf("CompileGate(%q): %v", expr, err)
	}
	vs, err := Evaluate(r, []*Gate{g})
	if err != nil {
		t.Fatalf("Evaluate(%q): %v", expr, err)
	}
	var out []int
	for _, v := range vs {
		if len(v.Failed) > 0 {
			out = append(out, v.Row.Point)
		}
	}
	return out
}

func TestGates(t *testing.T) {
	r := gateResults(t)
	tests := []struct {
		expr string
		fail []int
	}{
		{"rejected == 0", []int{0, 1}},                            // a count
		{"wait_p99_s < 0.25", []int{2, 3}},                        // 0.3 fails; undefined (NaN) fails
		{"rejected == 0 && wait_p99_s < 0.25", []int{0, 1, 2, 3}}, // both
		{"wait_p99_s + hw.wait_p99_s < 1.25", []int{2, 3}},        // the interval's top: 0.1+1 and 0.2+1 pass
		{`param["pool.max"] < 8 || rejected == 0`, nil},           // a numeric parameter: the rejections are at max 4
		{`param["pool.queue.type"] == "array"`, []int{0, 2}},      // a text parameter
		{"replications >= 3", nil},                                // the replication count
		{"point != 2", []int{2}},                                  // the point's index
		{"wait_p99_s == wait_p99_s", []int{3}},                    // NaN is never equal, even to itself
	}
	for _, tc := range tests {
		got := failing(t, r, tc.expr)
		if listInts(got, 100) != listInts(tc.fail, 100) {
			t.Errorf("--assert %q fails points %v; want %v", tc.expr, got, tc.fail)
		}
	}
}

func TestGateErrors(t *testing.T) {
	r := gateResults(t)
	tests := []struct {
		expr, want string
	}{
		{"", "empty expression"},                                                                         // nothing
		{"rejected ==", "--assert rejected ==: "},                                                        // a syntax error
		{"rejectd == 0", `did you mean "rejected"?`},                                                     // a typo
		{"wait_p99_s + 1", "bool"},                                                                       // not a condition
		{"hw.wait_p99 < 1", `hw.wait_p99: unknown metric; did you mean "wait_p99_s"?`},                   // a typo in a half-width (a map: expr would read 0)
		{`param["pool.mx"] > 1`, `param["pool.mx"]: not a swept key (swept: pool.max, pool.queue.type)`}, // a typo in a key (expr would read nil)
	}
	for _, tc := range tests {
		_, err := CompileGate(tc.expr, &r.Definition)
		if err == nil || !inputerr.Is(err) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("CompileGate(%q) = %v; want a one-line input error with %q", tc.expr, err, tc.want)
		}
	}
}

func TestFailureReport(t *testing.T) {
	r := gateResults(t)
	g1, _ := CompileGate("rejected == 0 && wait_p99_s < 0.25", &r.Definition)
	vs, _ := Evaluate(r, []*Gate{g1})
	got := FailureReport(r, vs)
	want := `4 of 4 points fail --assert 'rejected == 0 && wait_p99_s < 0.25':
  point 0  pool.max=4 pool.queue.type=linked  (3 replications): rejected = 5 ± 1, wait_p99_s = 0.1 ± 1
  point 1  pool.max=4 pool.queue.type=array  (3 replications): rejected = 5 ± 1, wait_p99_s = 0.2 ± 1
  point 2  pool.max=8 pool.queue.type=linked  (3 replications): rejected = 0 ± 1, wait_p99_s = 0.3 ± 1
  point 3  pool.max=8 pool.queue.type=array  (3 replications): rejected = 0 ± 1, wait_p99_s = null`
	if got != want {
		t.Errorf("report:\n%s\nwant\n%s", got, want)
	}
	pass, _ := CompileGate("submitted >= 0", &r.Definition)
	vs, _ = Evaluate(r, []*Gate{pass})
	if rep := FailureReport(r, vs); rep != "" {
		t.Errorf("all pass, yet: %q", rep)
	}
}

func TestJUnit(t *testing.T) {
	r := gateResults(t)
	g1, _ := CompileGate("rejected == 0", &r.Definition)
	g2, _ := CompileGate("wait_p99_s < 0.25", &r.Definition)
	gates := []*Gate{g1, g2}
	vs, _ := Evaluate(r, gates)
	var b bytes.Buffer
	if err := WriteJUnit(&b, r, vs, gates); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		XMLName  xml.Name `xml:"testsuites"`
		Tests    int      `xml:"tests,attr"`
		Failures int      `xml:"failures,attr"`
		Suite    struct {
			Cases []struct {
				Name      string `xml:"name,attr"`
				Classname string `xml:"classname,attr"`
				Failures  []struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("not XML: %v\n%s", err, b.String())
	}
	if doc.Tests != 4 || doc.Failures != 4 || len(doc.Suite.Cases) != 4 {
		t.Fatalf("%d tests, %d failures:\n%s", doc.Tests, doc.Failures, b.String())
	}
	// Point 0 fails the first gate only; point 3 the second only.
	c0, c3 := doc.Suite.Cases[0], doc.Suite.Cases[3]
	if len(c0.Failures) != 1 || c0.Failures[0].Message != "assert failed: rejected == 0" || c0.Classname != "poolsim.sweep.syn" {
		t.Errorf("point 0: %+v", c0)
	}
	if len(c3.Failures) != 1 || c3.Failures[0].Message != "assert failed: wait_p99_s < 0.25" || c3.Name != "point 3: pool.max=8 pool.queue.type=array" {
		t.Errorf("point 3: %+v", c3)
	}
	if !strings.Contains(b.String(), `value="wait_p99_s &lt; 0.25"`) {
		t.Errorf("the gate is not escaped in the properties:\n%s", b.String())
	}
}

func TestChartData(t *testing.T) {
	// The mean is the point's index: the heatmap must put point
	// x·len(Y)+y at column x, row y.
	idx := func(i int, m string) float64 { return float64(i) }
	r := synthetic(t, 3, idx, "pool.max=4,8,16", "workload.arrivals.rate=10/s,20/s")
	heat, lines, err := chartData(r, "rejected")
	if err != nil || heat == nil || lines != nil {
		t.Fatalf("two numeric parameters: %v %v %v", heat, lines, err)
	}
	for y := range heat.Y {
		for x := range heat.X {
			if heat.Z[y][x] != float64(x*2+y) {
				t.Errorf("heatmap cell (%d, %d) = %v; want point %d", x, y, heat.Z[y][x], x*2+y)
			}
		}
	}
	if heat.XName != "pool.max" || heat.YName != "workload.arrivals.rate (tasks/s)" || heat.Y[1] != 20 {
		t.Errorf("axes %q %q %v", heat.XName, heat.YName, heat.Y)
	}

	// A text parameter first: one line per text value, x the numbers.
	r = synthetic(t, 3, idx, "pool.rejection=abort,discard", "pool.keepAlive=1s,1m,2m")
	_, lines, err = chartData(r, "wait_p99_s")
	if err != nil || len(lines.Series) != 2 {
		t.Fatalf("text × numeric: %v %v", lines, err)
	}
	if s := lines.Series[1]; s.Name != "pool.rejection=discard" || s.X[1] != 60 || s.Y[2] != 5 || lines.XName != "pool.keepAlive (s)" || lines.Metric != "wait_p99_s (s)" {
		t.Errorf("series %+v, axes %q %q", s, lines.XName, lines.Metric)
	}

	// Shapes without a chart.
	for _, flags := range [][]string{
		{}, // nothing swept
		{"pool.max=4,8", "pool.core=1,2", "seed=1,2"}, // three parameters
		{"pool.queue.type=linked,array"},              // text only
		{"pool.max=4,unbounded"},                      // unbounded is not a number to plot
	} {
		r := synthetic(t, 3, idx, flags...)
		if _, _, err := chartData(r, "rejected"); !errors.Is(err, ErrNoPlot) {
			t.Errorf("%v: %v; want ErrNoPlot", flags, err)
		}
	}
	// A shard's rows are not a chart.
	r = synthetic(t, 3, idx, "pool.max=4,8")
	r.Rows = r.Rows[:1]
	if _, _, err := chartData(r, "rejected"); !errors.Is(err, ErrNoPlot) {
		t.Errorf("partial results: %v", err)
	}
}

// The charts draw: a PNG for lines (with NaN gaps) and for a heatmap.
func TestPlotsDraw(t *testing.T) {
	f := func(i int, m string) float64 {
		if i == 1 {
			return math.NaN()
		}
		return float64(i * i)
	}
	for _, flags := range [][]string{{"pool.max=4,8,16"}, {"pool.max=4,8", "pool.keepAlive=1s,2s"}} {
		r := synthetic(t, 3, f, flags...)
		files, err := Plots(r, "wait_p99_s")
		if err != nil || len(files) != 1 || files[0].Name != "wait_p99_s.png" {
			t.Fatalf("%v: %v %v", flags, files, err)
		}
		var b bytes.Buffer
		if err := files[0].Draw(&b); err != nil {
			t.Fatalf("%v: %v", flags, err)
		}
		if cfg, err := png.DecodeConfig(&b); err != nil || cfg.Width != 1200 || cfg.Height != 700 {
			t.Errorf("%v: %v %v", flags, cfg, err)
		}
	}
}
