package explain

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	scraped "github.com/poolsim/poolsim/metrics"
	"github.com/poolsim/poolsim/scenarios"
	"github.com/poolsim/poolsim/sim"
)

// countRuns replaces runSim for the test with a wrapper that counts the
// calls, and returns the counter.
func countRuns(t *testing.T) *atomic.Int64 {
	var n atomic.Int64
	saved := runSim
	runSim = func(ctx context.Context, sc *scenarios.Scenario, opt sim.Options) (*sim.Result, error) {
		n.Add(1)
		return saved(ctx, sc, opt)
	}
	t.Cleanup(func() { runSim = saved })
	return &n
}

// scaleCase is a diagnosis input of the package's tests: the recovered
// Poisson rate (TestDiagnoseRecoversSimulatedRate), the real Tomcat's
// periodic step (TestDiagnoseRealTomcat: ⌈2 × 6.255⌉ − 1 = 12 workers, R78),
// a pool at core (every low rate fits), and an impossible count
// (TestDiagnoseFlagsImpossible: no rate fits, so the full grid runs).
type scaleCase struct {
	name string
	pool scenarios.Pool
	obs  Observation
	opt  DiagnoseOptions
}

func scaleCases() []scaleCase {
	return []scaleCase{
		{"poisson-4-workers", tomcatPool(2, 60, 5*time.Second), Observation{Total: 4, IdleTimed: 4},
			DiagnoseOptions{Since: 5 * time.Minute, Peak: 60, Service: 5 * time.Millisecond}},
		{"periodic-step-12", tomcatPool(10, 50, 6250*time.Millisecond), Observation{Total: 12, IdleTimed: 12},
			DiagnoseOptions{Since: 2 * time.Minute, Peak: 50, Service: 5 * time.Millisecond, Replications: 4}},
		{"at-core", tomcatPool(10, 50, time.Minute), Observation{Total: 10, IdleUntimed: 10},
			DiagnoseOptions{Since: 10 * time.Minute, Replications: 2}},
		{"impossible", tomcatPool(10, 50, time.Minute), Observation{Total: 80, IdleTimed: 80},
			DiagnoseOptions{Since: 10 * time.Minute, Replications: 2}},
	}
}

// withoutSimulated is a diagnosis's text without the paragraph that counts
// its simulations.
func withoutSimulated(d *Diagnosis) string {
	return strings.Replace(d.Text(), wrap(d.simulatedText(), 100, ""), "", 1)
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestDiagnoseCountsSimulations: Diagnosis.Simulations (and the
// explanation's count inside it) is the number of sim.Run calls the
// diagnosis made, with and without the early stop, and the runs the early
// stop skipped are exactly the difference from the full grid: the bisections
// and the explanation are the same.
func TestDiagnoseCountsSimulations(t *testing.T) {
	for _, c := range scaleCases() {
		t.Run(c.name, func(t *testing.T) {
			runs := countRuns(t)
			opt := c.opt
			opt.FullGrid = true
			full, err := Diagnose(context.Background(), c.pool, c.obs, opt)
			if err != nil {
				t.Fatal(err)
			}
			if got := int(runs.Swap(0)); got != full.Simulations || full.Skipped != 0 {
				t.Errorf("full grid: %d sim.Run calls, Simulations %d, Skipped %d (want equal, 0)", got, full.Simulations, full.Skipped)
			}
			early, err := Diagnose(context.Background(), c.pool, c.obs, c.opt)
			if err != nil {
				t.Fatal(err)
			}
			if got := int(runs.Load()); got != early.Simulations {
				t.Errorf("early stop: %d sim.Run calls, Simulations %d", got, early.Simulations)
			}
			if early.Simulations+early.Skipped != full.Simulations {
				t.Errorf("early stop ran %d and skipped %d; the full grid ran %d", early.Simulations, early.Skipped, full.Simulations)
			}
			if e := early.Explanation; e != nil && e.Simulations != 1+len(e.WhatIfs) {
				t.Errorf("explanation: Simulations %d, want the run and %d what-ifs", e.Simulations, len(e.WhatIfs))
			}
			t.Logf("full grid %d simulations in %v; early stop %d (skipped %d) in %v",
				full.Simulations, full.Wall.Round(time.Millisecond), early.Simulations, early.Skipped, early.Wall.Round(time.Millisecond))
		})
	}
}

// TestDiagnoseEarlyStopSameAnswer: on every test input the early stop
// reports the same bands, best fits, notes, verdict and explanation as the
// full grid — the whole text but the line that counts the runs — and the
// same JSON but the counts; where a rate fits it runs fewer simulations.
func TestDiagnoseEarlyStopSameAnswer(t *testing.T) {
	for _, c := range scaleCases() {
		t.Run(c.name, func(t *testing.T) {
			opt := c.opt
			opt.FullGrid = true
			full, err := Diagnose(context.Background(), c.pool, c.obs, opt)
			if err != nil {
				t.Fatal(err)
			}
			early, err := Diagnose(context.Background(), c.pool, c.obs, c.opt)
			if err != nil {
				t.Fatal(err)
			}
			for _, rr := range [][2]RateRange{{full.Periodic, early.Periodic}, {full.Poisson, early.Poisson}} {
				f, e := rr[0], rr[1]
				f.Curve, e.Curve = nil, nil
				if f.Process != e.Process || f.Low != e.Low || f.High != e.High || f.Best != e.Best || f.Found != e.Found || f.Note != e.Note {
					t.Errorf("%s: full grid %+v, early stop %+v", f.Process, f, e)
				}
			}
			if a, b := withoutSimulated(full), withoutSimulated(early); a != b {
				t.Errorf("texts differ:\nfull grid:\n%s\nearly stop:\n%s", a, b)
			}
			fj, ej := full.JSON(), early.JSON()
			fj.Simulations, fj.SkippedSimulations, ej.Simulations, ej.SkippedSimulations = 0, 0, 0, 0
			if a, b := mustJSON(t, fj), mustJSON(t, ej); a != b {
				t.Errorf("JSON differs:\n%s\n%s", a, b)
			}
			if (full.Periodic.Found || full.Poisson.Found) && early.Skipped == 0 {
				t.Errorf("a rate fits, but the early stop skipped nothing (%d simulations)", early.Simulations)
			}
		})
	}
}

// TestExplainCountsSimulations: Explanation.Simulations is the number of
// sim.Run calls: the scenario's and one per what-if simulated.
func TestExplainCountsSimulations(t *testing.T) {
	runs := countRuns(t)
	d0 := &Diagnosis{Pool: tomcatPool(2, 60, 5*time.Second), Opt: DiagnoseOptions{Since: 5 * time.Minute, Peak: 60, Service: 5 * time.Millisecond}}
	e, err := Explain(context.Background(), d0.scenario("poisson", 3, 1), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := int(runs.Load()); got != e.Simulations || len(e.WhatIfs) == 0 || e.Simulations != 1+len(e.WhatIfs) {
		t.Errorf("%d sim.Run calls, Simulations %d, %d what-ifs", got, e.Simulations, len(e.WhatIfs))
	}
}

// BenchmarkDiagnose is the README's incident (Tomcat's connector: core 10,
// max 800, keepAlive 1m; 120 workers, 119 idle, an hour after a peak of 800,
// the calibrated hand-off timing) with the full grid and with the early
// stop; it reports the simulations per diagnosis.
//
//	go test -run '^$' -bench Diagnose -benchtime 3x ./explain
func BenchmarkDiagnose(b *testing.B) {
	cal := scenarios.CalibratedWakeup()
	obs := Observation{Total: 120, IdleTimed: 119, Busy: 1}
	for _, full := range []bool{true, false} {
		name := map[bool]string{true: "full-grid", false: "early-stop"}[full]
		b.Run(name, func(b *testing.B) {
			var sims int
			for range b.N {
				d, err := Diagnose(context.Background(), tomcatPool(10, 800, time.Minute), obs,
					DiagnoseOptions{Since: time.Hour, Peak: 800, Wakeup: &cal, FullGrid: full})
				if err != nil {
					b.Fatal(err)
				}
				sims = d.Simulations
			}
			b.ReportMetric(float64(sims), "sims/op")
		})
	}
}

// TestDiagnoseMetricsCountsSimulations: a diagnosis from metrics runs one
// simulation per replication, and says so.
func TestDiagnoseMetricsCountsSimulations(t *testing.T) {
	set := simulatedScrapes(t, 3)
	mp, _ := scraped.Select(set, "")
	runs := countRuns(t)
	md, err := DiagnoseMetrics(context.Background(), metricsPool(), set, mp, MetricsOptions{Replications: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got := int(runs.Load()); got != md.Simulations || md.Simulations != 3 || md.JSON().Simulations != 3 {
		t.Errorf("%d sim.Run calls, Simulations %d, JSON %d; want 3 (the replications)", got, md.Simulations, md.JSON().Simulations)
	}
}
