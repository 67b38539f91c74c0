package conformance

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// scheduleMarginMs is how far apart the tests keep a decisive event (a task's end, a
// keep-alive deadline, a submission) from any sample or event whose outcome depends on their
// order, and the tolerance of a time measured on the real pool. The real pools run on a shared
// 2-core machine where other builds keep the load at 2–7: there the harness measured up to
// ≈ 30 ms of lateness and of sleep overrun, a few ms typically.
const scheduleMarginMs = 100

// maxLatenessMs is the delay above which a run is not trusted: half the margin, so that a
// late sample and a late transition together still cannot cross. Three measured delays count:
// the harness's lateness against its own schedule, how much longer than asked the tasks slept
// (the pool threads' wake-up delay), and the largest stall of a canary thread that wakes every
// 5 ms throughout the run (a stall delays every thread, the pool's included). Such a run is
// repeated; it is discarded for its timing alone, before its outcome is looked at.
const maxLatenessMs = scheduleMarginMs / 2

// runAttempts bounds the reruns of a run whose schedule slipped. Under a load of 3–14 on the
// 2-core machine, 13 of about 90 runs had a stall above maxLatenessMs (up to 550 ms): with
// that rate, five stalled runs in a row have a chance of about 1 in 20000.
const runAttempts = 5

// runValid runs s on r and returns the first run that kept its schedule within maxLatenessMs.
// It fails the test if the harness reported a warning, and when no run qualified, skips it —
// or fails it when CI=true.
func runValid(t *testing.T, r Runner, s Script) *Result {
	t.Helper()
	return firstValid(t, s.EndMs, s.String(), func(ctx context.Context) (*Result, error) { return r.Run(ctx, s) })
}

// firstValid is runValid for any script, given as its end, its text (for messages) and how to
// run it once.
func firstValid(t *testing.T, endMs int64, text string, run func(context.Context) (*Result, error)) *Result {
	t.Helper()
	Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(endMs)*time.Millisecond*runAttempts+2*time.Minute)
	defer cancel()
	for i := 1; i <= runAttempts; i++ {
		res, err := run(ctx)
		if err != nil {
			t.Fatalf("run: %v\nscript:\n%s", err, text)
		}
		if len(res.Warnings) > 0 {
			t.Fatalf("harness warnings: %q\n%s", res.Warnings, res.Output)
		}
		delays := map[string]float64{"harness lateness": res.MaxLatenessMs}
		for _, key := range []string{"max_service_overrun_ms", "max_hiccup_ms"} {
			v := res.TimingMs(key)
			if math.IsNaN(v) {
				t.Fatalf("no %s timing\n%s", key, res.Output)
			}
			delays[key] = v
		}
		worst, what := 0.0, ""
		for k, v := range delays {
			if v > worst || what == "" {
				worst, what = v, k
			}
		}
		if worst <= maxLatenessMs {
			t.Logf("java %s: lateness max %.1f ms (mean %s), service overrun max %.1f ms, canary stall max %.1f ms",
				res.Timing["java_version"], res.MaxLatenessMs, res.Timing["mean_lateness_ms"],
				delays["max_service_overrun_ms"], delays["max_hiccup_ms"])
			return res
		}
		t.Logf("attempt %d: %s %.1f ms > %d ms: rerunning", i, what, worst, maxLatenessMs)
	}
	// No run was fit to judge: the machine is too busy for millisecond measurements. That is
	// not an answer about the pool: skip on a developer's machine, fail in CI, which must be
	// able to run these tests.
	msg := fmt.Sprintf("the schedule slipped by more than %d ms in %d runs: machine too busy to judge", maxLatenessMs, runAttempts)
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return nil
}

// sampleAt returns the sample at tMs or fails the test.
func sampleAt(t *testing.T, res *Result, tMs int64) Sample {
	t.Helper()
	s, ok := res.Sample(tMs)
	if !ok {
		t.Fatalf("no sample at %d ms\n%s", tMs, res.Output)
	}
	return s
}

// steady checks what must hold in a sample taken away from every transition: each pool
// thread is busy or idle, the dump's busy count agrees with the tasks' own counter, and the
// pool's size is the number of threads seen.
func steady(t *testing.T, res *Result, s Sample) {
	t.Helper()
	if s.Other != 0 || s.Busy != s.BusyCounter || s.PoolSize != s.Busy+s.IdleTimed+s.IdleUntimed {
		t.Errorf("sample at %d ms is not steady: %+v\n%s", s.TMs, s, res.Output)
	}
}

// namedRunner is a JVM to run on, named for subtests.
type namedRunner struct {
	name string
	r    Runner
}

// runners returns the default java and, when installed, Temurin 25 (the spec's baseline,
// §10). Temurin is not a Debian package, so its absence is never a failure, even in CI.
func runners(t *testing.T) []namedRunner {
	rs := []namedRunner{{"java", Runner{}}}
	home := os.Getenv("POOLSIM_JAVA25_HOME")
	if home == "" {
		home = DefaultJDK25Home
	}
	if _, err := os.Stat(filepath.Join(home, "bin", "javac")); err == nil {
		rs = append(rs, namedRunner{"temurin25", Runner{JavaHome: home}})
	} else {
		t.Logf("no JDK 25 at %s (set POOLSIM_JAVA25_HOME): running on the default java only", home)
	}
	return rs
}

// submits returns n submissions at atMs with ids from firstID, each serviceMs long.
func submits(n int, atMs int64, firstID int, serviceMs int64) []Submit {
	out := make([]Submit, n)
	for i := range out {
		out[i] = Submit{AtMs: atMs, ID: firstID + i, ServiceMs: serviceMs}
	}
	return out
}
