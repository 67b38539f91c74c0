package sweep

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"
)

func TestNewDesign(t *testing.T) {
	ps := mustParams(t, "pool.max=2,4,8", "pool.queue.type=linked,array")
	g, err := NewDesign(ps, [][]int{{2, 1}, {0, 0}})
	if err != nil {
		t.Fatal(err)
	}
	if g.Len() != 2 || g.Label(0) != "pool.max=8 pool.queue.type=array" || g.Label(1) != "pool.max=2 pool.queue.type=linked" {
		t.Errorf("design points: %d, %q, %q", g.Len(), g.Label(0), g.Label(1))
	}
	full, _ := NewGrid(ps)
	// A design point has the key (so the seeds) of the same point in a grid.
	if g.Key(0) != full.Key(5) {
		t.Errorf("design key %q, grid key %q", g.Key(0), full.Key(5))
	}
	for _, tc := range []struct {
		rows [][]int
		want string
	}{
		{[][]int{}, "1 to"},                                  // no point
		{[][]int{{0}}, "1 values for 2 parameters"},          // a short row
		{[][]int{{3, 0}}, "out of range"},                    // no fourth value
		{[][]int{{1, 1}, {1, 1}}, "are the same point"},      // twice
		{[][]int{{0, 0}, {1, -1}}, "value -1 of pool.queue"}, // negative
	} {
		if _, err := NewDesign(ps, tc.rows); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewDesign(%v) = %v; want an error with %q", tc.rows, err, tc.want)
		}
	}
}

func TestMidpoint(t *testing.T) {
	tests := []struct {
		param, a, b string
		want        string // "" for none
	}{
		{"pool.max=1:64:4", "1", "64", "32"},                                   // integers round down
		{"pool.max=1:64:4", "7", "8", ""},                                      // adjacent integers: no value between
		{"pool.max=1:64:4", "8", "6", "7"},                                     // either order
		{"pool.keepAlive=1s:100s:3", "1s", "2s", "1.5s"},                       // durations in their unit
		{"pool.keepAlive=1s:100s:3:log", "1s", "100s", "10s"},                  // a log range bisects geometrically
		{"pool.keepAlive=10ms:1s:3", "10ms", "20ms", "15ms"},                   // small durations in ms
		{"workload.arrivals.rate=1/min:60/min:3", "1/min", "2/min", "1.5/min"}, // rates keep their unit
		{"workload.failure=0:1:3", "0", "0.5", "0.25"},                         // plain numbers
		{"workload.failure=0:1:3", "0.1", "0.10001", ""},                       // 4 digits: none strictly between
		{"pool.queue.type=linked,array", "linked", "array", ""},                // text has no midpoint
	}
	for _, tc := range tests {
		p := mustParams(t, tc.param)[0]
		a, _, err := ParseValue(p.Key, tc.a)
		if err != nil {
			t.Fatal(err)
		}
		b, _, _ := ParseValue(p.Key, tc.b)
		v, ok := p.Midpoint(a, b)
		if tc.want == "" {
			if ok {
				t.Errorf("%s: Midpoint(%s, %s) = %q; want none", tc.param, tc.a, tc.b, v.Text)
			}
			continue
		}
		if !ok || v.Text != tc.want {
			t.Errorf("%s: Midpoint(%s, %s) = %q, %v; want %q", tc.param, tc.a, tc.b, v.Text, ok, tc.want)
		}
	}
}

// rowWith is a row of d with the given means and half-widths (others 0).
func rowWith(d *Definition, vals []Value, mean, hw map[string]float64) *Row {
	r := &Row{Values: vals, Replications: 5, Mean: make([]float64, len(d.Metrics)), HalfWidth: make([]float64, len(d.Metrics))}
	for j, m := range d.Metrics {
		r.Mean[j], r.HalfWidth[j] = mean[m], hw[m]
	}
	return r
}

func TestGateLanguageAdditions(t *testing.T) {
	r := gateResults(t)
	d := &r.Definition
	vals := r.Rows[2].Values // pool.max=8 pool.queue.type=linked
	row := rowWith(d, vals, map[string]float64{"rejected": 30, "submitted": 10000, "wait_p99_s": 0.04}, map[string]float64{"rejected": 5, "wait_p99_s": 0.01})
	tests := []struct {
		expr string
		want bool
	}{
		{"rejected_ratio < 0.004", true},                       // 30 / 10000
		{"rejected_ratio + hw.rejected_ratio < 0.0034", false}, // (30 + 5) / 10000
		{"pool.max == 8 && pool.queue.type == 'linked'", true}, // bare keys
		{`pool.max == param["pool.max"]`, true},                // the same value
	}
	for _, tc := range tests {
		g, err := CompileGate(tc.expr, d)
		if err != nil {
			t.Fatalf("CompileGate(%q): %v", tc.expr, err)
		}
		if got, err := g.Check(d, row); err != nil || got != tc.want {
			t.Errorf("%q = %v, %v; want %v", tc.expr, got, err, tc.want)
		}
	}
	c, err := CompileExpr("--minimize", "pool.max + 100 * wait_p99_s", d, true)
	if err != nil {
		t.Fatal(err)
	}
	if x, err := c.Number(d, row); err != nil || math.Abs(x-12) > 1e-9 {
		t.Errorf("cost = %v, %v; want 12", x, err)
	}
	for _, tc := range []struct{ expr, want string }{
		{"pool.mx > 1", "pool.mx: not a swept key"},               // a typo in a bare key
		{"pool.queue > 1", "pool.queue: not a swept key"},         // a prefix of a key is no key
		{"rejected_ration < 1", `did you mean "rejected_ratio"?`}, // a typo in a derived name
	} {
		if _, err := CompileGate(tc.expr, d); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CompileGate(%q) = %v; want an error with %q", tc.expr, err, tc.want)
		}
	}
	if _, err := CompileExpr("--minimize", "wait_p99_s < 1", d, true); err == nil || !strings.Contains(err.Error(), "--minimize wait_p99_s < 1") {
		t.Errorf("a condition as a cost: %v", err)
	}
}

func TestDecided(t *testing.T) {
	r := gateResults(t)
	d := &r.Definition
	vals := r.Rows[0].Values
	tests := []struct {
		expr        string
		mean, hw    float64 // of wait_p99_s
		verdict, ok bool
	}{
		{"wait_p99_s < 0.05", 0.03, 0.01, true, true},                  // the whole interval below
		{"wait_p99_s < 0.05", 0.045, 0.01, true, false},                // the interval straddles the bound
		{"wait_p99_s < 0.05", 0.07, 0.01, false, true},                 // the whole interval above
		{"wait_p99_s < 0.05", 0.03, math.NaN(), true, false},           // one replication: no interval
		{"wait_p99_s < 0.05", math.NaN(), math.NaN(), false, true},     // undefined: false at every corner
		{"wait_p99_s < 0.05 || rejected == 0", 0.07, 0.01, true, true}, // the other term holds
	}
	for _, tc := range tests {
		g, err := CompileGate(tc.expr, d)
		if err != nil {
			t.Fatal(err)
		}
		row := rowWith(d, vals, map[string]float64{"wait_p99_s": tc.mean}, map[string]float64{"wait_p99_s": tc.hw})
		v, ok, err := g.Decided(d, row)
		if err != nil || v != tc.verdict || ok != tc.ok {
			t.Errorf("%q at %v ± %v: verdict %v, decided %v, %v; want %v, %v", tc.expr, tc.mean, tc.hw, v, ok, err, tc.verdict, tc.ok)
		}
	}
}

// TestDecideLoop: with Decide, each point runs replications until its
// intervals decide the gates, independently of --jobs, and the rows say so.
func TestDecideLoop(t *testing.T) {
	path := writeScenario(t)
	// At pool.max=8 the first 3 replications give wait_p99_s 0.043 ± 0.022:
	// undecided, so that point runs more.
	const gate = "wait_p99_s < 0.06"
	var first []byte
	for _, jobs := range []int{1, 3} {
		s, err := New(Config{Path: path, Params: mustParams(t, "pool.max=2:8:4"), Replications: 3, Decide: []string{gate}, MaxReplications: 12, Version: "test"})
		if err != nil {
			t.Fatal(err)
		}
		o, err := s.Run(context.Background(), RunOptions{Jobs: jobs, Dir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		d := s.Definition()
		g, _ := CompileGate(gate, &d)
		for _, row := range o.Results.Rows {
			_, ok, _ := g.Decided(&d, &row)
			if row.Reached != ok || (!ok && row.Replications != 12) || row.Replications < 3 {
				t.Errorf("point %d (%s): %d replications, reached %v, decided %v", row.Point, s.Grid().Label(row.Point), row.Replications, row.Reached, ok)
			}
		}
		var b bytes.Buffer
		o.Results.WriteCSV(&b)
		if !strings.Contains(strings.SplitN(b.String(), "\n", 2)[0], ",decided,") {
			t.Errorf("sweep.csv has no decided column: %s", strings.SplitN(b.String(), "\n", 2)[0])
		}
		if first == nil {
			first = b.Bytes()
			t.Logf("replications per point: %v", replicationsOf(o.Results))
		} else if !bytes.Equal(first, b.Bytes()) {
			t.Errorf("decide sweeps with 1 and 3 jobs differ")
		}
	}
	if first == nil || bytes.Count(first, []byte(",true,")) == 0 {
		t.Errorf("no point was decided")
	}
	if _, err := New(Config{Path: writeScenario(t), Replications: 3, Decide: []string{"wait_p9 < 1"}, Version: "test"}); err == nil || !strings.Contains(err.Error(), "did you mean") {
		t.Errorf("a bad decide expression: %v", err)
	}
}

func replicationsOf(r *Results) []int {
	var out []int
	for _, row := range r.Rows {
		out = append(out, row.Replications)
	}
	return out
}

// A design with a decide rule shards, merges and resumes into the same
// bytes as one run, and a design point gives the numbers the same point
// gives in a grid.
func TestDesignShardsMergeResume(t *testing.T) {
	path := writeScenario(t)
	ctx := context.Background()
	ps := mustParams(t, "pool.max=2,5,8", "pool.keepAlive=1s,10s")
	cfg := Config{Path: path, Params: ps, Design: [][]int{{2, 0}, {0, 1}, {1, 1}}, Replications: 3, Decide: []string{"wait_p99_s < 0.06"}, MaxReplications: 8, Version: "test"}
	run := func(dir string, sh Shard, resume bool) *Outcome {
		t.Helper()
		s, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		o, err := s.Run(ctx, RunOptions{Dir: dir, Jobs: 2, Shard: sh, Resume: resume})
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	whole := t.TempDir()
	run(whole, Shard{}, false)
	a, b := t.TempDir(), t.TempDir()
	run(a, Shard{1, 2}, false)
	run(b, Shard{2, 2}, false)
	merged := t.TempDir()
	if _, err := Merge([]string{a, b}, merged); err != nil {
		t.Fatal(err)
	}
	sameDirs(t, "design: merge vs unsharded", dirFiles(t, whole), dirFiles(t, merged))
	if o := run(merged, Shard{}, true); o.Simulations != 0 || o.Resumed != 3 {
		t.Errorf("resuming a finished design ran %d simulations, resumed %d points", o.Simulations, o.Resumed)
	}
	grid, err := New(Config{Path: path, Params: mustParams(t, "pool.max=2,8", "pool.keepAlive=1s,10s"), Replications: 3, Decide: cfg.Decide, MaxReplications: 8, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	og, err := grid.Run(ctx, RunOptions{Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	od := run(t.TempDir(), Shard{}, false)
	// Design point 0 (pool.max=8 keepAlive=1s) is grid point 2.
	if fmtSeeds(od.Results.Rows[0].Seeds) != fmtSeeds(og.Results.Rows[2].Seeds) || od.Results.Rows[0].Mean[0] != og.Results.Rows[2].Mean[0] {
		t.Errorf("design point %v differs from grid point %v", od.Results.Rows[0].Seeds, og.Results.Rows[2].Seeds)
	}
}

func fmtSeeds(s []uint64) string { return seedList(s, " ") }
