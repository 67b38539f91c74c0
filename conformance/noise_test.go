package conformance

import (
	"math"
	"testing"
)

// TestRunToRunNoise runs the script of TestIdleWorkersTimeOutToCore (keepAlive shortened to
// 600 ms) five times on the real JDK pool, sampling every 50 ms, and measures how much the runs
// differ (go test -v prints the figures). Away from the script's transitions — the submissions
// at 20 ms, the task ends at ≈ 120 ms and the keep-alive deadlines at ≈ 720 ms — every sampled
// count must be the same
// in all runs: that is the premise on which comparison tests hold the simulator to the real
// pool's samples. Near a transition, the spread is reported, not judged.
func TestRunToRunNoise(t *testing.T) {
	const (
		runs        = 5
		submitMs    = 20
		serviceMs   = 100
		keepAliveMs = 600
	)
	s := Script{
		Pool:    Pool{Kind: KindJDK, Core: 2, Max: 10, KeepAliveMs: keepAliveMs, Queue: QueueSynchronous},
		Submits: submits(5, submitMs, 1, serviceMs),
		Samples: Samples{EveryMs: 50, FromMs: 25, UntilMs: 1075},
		EndMs:   1100,
	}
	transitions := []float64{submitMs, submitMs + serviceMs, submitMs + serviceMs + keepAliveMs}
	results := make([]*Result, 0, runs)
	for i := 0; i < runs; i++ {
		results = append(results, runValid(t, Runner{}, s))
	}
	noise, err := MeasureNoise(results)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("run-to-run noise of the real pool:\n%s", noise)
	env, err := Envelope(results)
	if err != nil {
		t.Fatal(err)
	}
	away := 0
	for _, e := range env {
		near := false
		for _, tr := range transitions {
			if math.Abs(float64(e.TMs)-tr) < scheduleMarginMs {
				near = true
			}
		}
		for _, f := range sampleFields {
			lo, hi := f.get(e.Min), f.get(e.Max)
			if lo == hi {
				continue
			}
			if near {
				t.Logf("near a transition, at %d ms: %s ranges over [%g, %g]", e.TMs, f.name, lo, hi)
			} else {
				t.Errorf("at %d ms, %d ms or more from any transition: %s ranges over [%g, %g] across %d runs",
					e.TMs, scheduleMarginMs, f.name, lo, hi, runs)
			}
		}
		if !near {
			away++
		}
	}
	if away < len(env)/2 {
		t.Fatalf("only %d of %d samples away from transitions: the script no longer tests the premise", away, len(env))
	}
	if noise.WorkerMismatches != 0 {
		// Which of five simultaneously submitted tasks a new thread gets is fixed by execute's
		// order (R4, R6): task k always makes thread k.
		t.Errorf("worker indexes differ between runs for %d task-runs (R4: each execute makes its own thread)", noise.WorkerMismatches)
	}
}
