package conformance

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Differential tests of the resources (spec §14): every ResourceScript runs on the model
// (SimulateResource) and compareRuns times on the real class (HikariCP 2.7.9, the JDK's
// Semaphore), and the two must agree, as compare_test.go holds the pools:
//
//   - Samples: at every sample time quietMarginMs away from the model's transitions, total,
//     active, idle and waiting of the model lie inside the real runs' envelope.
//   - Borrows: in every real run each borrow has the model's outcome (got, failed, still
//     waiting or holding at the end) and, for HikariCP, the same connection by number.
//   - Connections: the same ones are opened, and the same ones are closed by the end.
//   - Configuration: HikariCP's getters after validateNumerics equal HikariConfig.Normalize.
//   - Times: every real start, got, failed and release time of a borrow, and every opened
//     and closed time of a connection after t=0, lies in [simulated − clockSlackMs,
//     simulated + maxLatenessMs]; a run that breaks this is repeated (keepTimely), unless
//     the same times are off run after run.
//
// The scripts keep their decisive instants spacingMs apart and never let two independent ones
// coincide, nor a house-keeper run come within quietMarginMs of an idle connection's
// idleTimeout (resourceSpacingProblems, checked without a JVM by
// TestHikariAndSemaphoreScriptsAreWellSpaced).

// resourceCase is one resource script compared between the model and the real class.
type resourceCase struct {
	name   string
	script ResourceScript
	// expect checks, on the model, that the script shows what the case is about.
	expect func(t *testing.T, m *Simulation)
}

// withResourceSamples sets the script's sample grid, as withSamples does for a pool.
func withResourceSamples(s ResourceScript) ResourceScript {
	s.Samples = withSamples(Script{EndMs: s.EndMs}).Samples
	return s
}

// simulateResource runs the script on the model or fails the test.
func simulateResource(t *testing.T, s ResourceScript) *Simulation {
	t.Helper()
	m, err := SimulateResource(s)
	if err != nil {
		t.Fatalf("simulate: %v\nscript:\n%s", err, s)
	}
	return m
}

// resourceTimeline prints a simulated resource run for failure messages.
func resourceTimeline(m *Simulation) string {
	var b strings.Builder
	b.WriteString("simulated borrows (id thread start got unit failed released):\n")
	for _, x := range m.Result.Borrows {
		fmt.Fprintf(&b, "  %d %s %g %g %d %g %g\n", x.ID, x.Thread, x.StartMs, x.GotMs, x.Unit, x.FailedMs, x.ReleasedMs)
	}
	if len(m.Result.Connections) > 0 {
		b.WriteString("simulated connections (unit connect opened closed):\n")
		for _, c := range m.Result.Connections {
			fmt.Fprintf(&b, "  #%d %g %g %g\n", c.Unit, c.ConnectMs, c.OpenedMs, c.ClosedMs)
		}
	}
	tr := make([]string, len(m.Transitions))
	for i, x := range m.Transitions {
		tr[i] = fmt.Sprint(x.Milliseconds())
	}
	fmt.Fprintf(&b, "simulated transitions (ms): %s\n", strings.Join(tr, " "))
	return b.String()
}

// resourceTimings holds a real run's times against the model's (see timings).
func resourceTimings(m *Simulation, r *Result) []timing {
	var out []timing
	add := func(what string, real, sim float64) { out = appendTiming(out, what, real, sim) }
	for i, rb := range r.Borrows {
		if i >= len(m.Result.Borrows) {
			break
		}
		sb := m.Result.Borrows[i]
		add(fmt.Sprintf("borrow %d start", rb.ID), rb.StartMs, sb.StartMs)
		add(fmt.Sprintf("borrow %d got", rb.ID), rb.GotMs, sb.GotMs)
		add(fmt.Sprintf("borrow %d failed", rb.ID), rb.FailedMs, sb.FailedMs)
		add(fmt.Sprintf("borrow %d released", rb.ID), rb.ReleasedMs, sb.ReleasedMs)
	}
	for _, rc := range r.Connections {
		sc, ok := m.Result.Connection(rc.Unit)
		if !ok {
			continue
		}
		// The constructor's connection opens (and, with minimumIdle 0, closes) before t=0.
		if rc.OpenedMs >= 0 {
			add(fmt.Sprintf("connection %d connect", rc.Unit), rc.ConnectMs, sc.ConnectMs)
			add(fmt.Sprintf("connection %d opened", rc.Unit), rc.OpenedMs, sc.OpenedMs)
		}
		if rc.ClosedMs >= 0 {
			add(fmt.Sprintf("connection %d closed", rc.Unit), rc.ClosedMs, sc.ClosedMs)
		}
	}
	for _, x := range r.ResourceSamples {
		if m.QuietMs(x.TMs) >= quietMarginMs {
			out = append(out, sampleTiming(m, r, x.TMs, x.LateMs))
		}
	}
	return out
}

// borrowOutcome names what became of a borrow by the end.
func borrowOutcome(b BorrowResult) string {
	switch {
	case math.IsNaN(b.StartMs):
		return "unstarted"
	case b.Failed():
		return "failed"
	case b.Unfinished && b.Got():
		return "holding at the end"
	case b.Unfinished:
		return "waiting at the end"
	default:
		return "got"
	}
}

// resourceAgreement is what one comparison found, for the test log and the report.
type resourceAgreement struct {
	samples, skipped int
	borrows, conns   int
	maxDriftMs       float64
	driftWhat        string
	noise            ResourceNoise
}

func (a resourceAgreement) String() string {
	return fmt.Sprintf("%d samples × 4 fields inside the real envelope (%d near transitions not compared); %d borrows with the model's outcome and connection, %d connections opened and closed alike, in each of %d runs; real − model times ≤ %.1f ms (%s) against a tolerance of %d ms; real runs among themselves: %s",
		a.samples, a.skipped, a.borrows, a.conns, compareRuns, a.maxDriftMs, a.driftWhat, maxLatenessMs, a.noise)
}

// compareResource holds the model against the real runs.
func compareResource(t *testing.T, s ResourceScript, m *Simulation, rs []*Result) resourceAgreement {
	t.Helper()
	var a resourceAgreement
	var err error
	if a.noise, err = MeasureResourceNoise(rs); err != nil {
		t.Fatal(err)
	}
	env, err := ResourceEnvelopes(rs)
	if err != nil {
		t.Fatal(err)
	}
	if len(env) != len(m.Result.ResourceSamples) {
		t.Fatalf("%d real samples, %d simulated", len(env), len(m.Result.ResourceSamples))
	}
	for k, e := range env {
		x := m.Result.ResourceSamples[k]
		if x.TMs != e.TMs {
			t.Fatalf("sample %d: real at %d ms, simulated at %d ms", k, e.TMs, x.TMs)
		}
		if m.QuietMs(x.TMs) < quietMarginMs {
			a.skipped++
			continue
		}
		a.samples++
		for f, fd := range resourceFields {
			if v := fd.get(x); v < e.Min[f] || v > e.Max[f] {
				t.Errorf("at %d ms (%.0f ms from a transition): %s simulated %d, real [%d, %d] over %d runs",
					x.TMs, m.QuietMs(x.TMs), fd.name, v, e.Min[f], e.Max[f], len(rs))
			}
		}
	}
	if a.samples == 0 {
		t.Errorf("no sample is %d ms away from the simulated transitions: the script compares no state", quietMarginMs)
	}
	for ri, r := range rs {
		for k, v := range m.Result.Config {
			if got, ok := r.Config[k]; !ok || got != v {
				t.Errorf("run %d: configuration %s: real %d (reported %v), model %d", ri+1, k, got, ok, v)
			}
		}
		if len(r.Borrows) != len(m.Result.Borrows) {
			t.Fatalf("run %d: %d borrows, simulated %d", ri+1, len(r.Borrows), len(m.Result.Borrows))
		}
		a.borrows = len(r.Borrows)
		for i, rb := range r.Borrows {
			sb := m.Result.Borrows[i]
			if ro, so := borrowOutcome(rb), borrowOutcome(sb); ro != so || rb.Unit != sb.Unit {
				t.Errorf("run %d: borrow %d (thread %s): real %s connection %d, model %s connection %d",
					ri+1, rb.ID, rb.Thread, ro, rb.Unit, so, sb.Unit)
			}
		}
		a.conns = len(m.Result.Connections)
		if len(r.Connections) != len(m.Result.Connections) {
			t.Errorf("run %d: %d connections opened, model %d", ri+1, len(r.Connections), len(m.Result.Connections))
		}
		for _, sc := range m.Result.Connections {
			rc, ok := r.Connection(sc.Unit)
			if !ok || math.IsNaN(rc.ClosedMs) != math.IsNaN(sc.ClosedMs) {
				t.Errorf("run %d: connection %d: real %+v (found %v), model %+v", ri+1, sc.Unit, rc, ok, sc)
			}
		}
		for _, d := range resourceTimings(m, r) {
			if d.outOfBound {
				t.Errorf("run %d: %s", ri+1, d) // only when keepTimely found the model's timing off
			}
			if x := d.real - d.sim; !d.sample && x > a.maxDriftMs {
				a.maxDriftMs, a.driftWhat = x, fmt.Sprintf("run %d %s", ri+1, d.what)
			}
		}
	}
	if t.Failed() {
		t.Logf("%s", resourceTimeline(m))
		for i, r := range rs {
			t.Logf("real run %d:\n%s", i+1, r.Output)
		}
	}
	return a
}

// runResourceCases compares each case on the default JVM.
func runResourceCases(t *testing.T, cases []resourceCase) {
	var report []string
	for _, c := range cases {
		s := withResourceSamples(c.script)
		t.Run(c.name, func(t *testing.T) {
			m := simulateResource(t, s)
			if ps := resourceSpacingProblems(s, m); len(ps) > 0 {
				t.Fatalf("the script's decisive instants are too close:\n  %s\n%s", strings.Join(ps, "\n  "), resourceTimeline(m))
			}
			c.expect(t, m)
			if t.Failed() {
				t.FailNow()
			}
			Require(t)
			start := time.Now()
			run := func(ctx context.Context) (*Result, error) { return Runner{}.RunResource(ctx, s) }
			runs := keepTimely(t, func() *Result { return firstValid(t, s.EndMs, s.String(), run) },
				func(res *Result) []timing {
					var bad []timing
					for _, d := range resourceTimings(m, res) {
						if d.outOfBound {
							bad = append(bad, d)
						}
					}
					return bad
				})
			a := compareResource(t, s, m, runs)
			line := fmt.Sprintf("%s [%s, %.1fs]: %s", c.name, runs[0].Timing["java_version"], time.Since(start).Seconds(), a)
			t.Log(line)
			if !t.Failed() {
				report = append(report, line)
			}
		})
	}
	t.Logf("agreement:\n  %s", strings.Join(report, "\n  "))
}

// resourceSpacingProblems lists what would let the real class take the script's decisive
// instants in another order than the model:
//   - two independent causes at one instant: a borrow's start (unless its thread's previous
//     borrow just ended), a hold's end, a wait's deadline, a connection's opening, a house-
//     keeper or lifetime close or fill, a maxLifetime expiry, a set directive, the end;
//   - distinct decisive instants less than spacingMs apart;
//   - a house-keeper run (100 ms + k · period, R155) within quietMarginMs of the instant an
//     idle connection passes idleTimeout (its real run drifts a little later every period);
//   - a maxLifetime over 10 s that expires before the end (its variance is random, R156).
func resourceSpacingProblems(s ResourceScript, m *Simulation) []string {
	var ps []string
	causes := map[float64][]string{}
	add := func(ms float64, why string) {
		if !math.IsNaN(ms) && ms <= float64(s.EndMs) {
			causes[ms] = append(causes[ms], why)
		}
	}
	explained := map[float64]bool{} // instants where a borrow, release or opening explains a fill or close
	for i, b := range m.Result.Borrows {
		if b.StartMs == float64(s.Borrows[i].AtMs) {
			add(b.StartMs, fmt.Sprintf("borrow %d starts", b.ID))
		}
		add(b.ReleasedMs, fmt.Sprintf("borrow %d releases", b.ID))
		if b.FailedMs != b.StartMs {
			add(b.FailedMs, fmt.Sprintf("borrow %d times out", b.ID))
		}
		explained[b.StartMs], explained[b.ReleasedMs] = true, true
	}
	for _, c := range m.Result.Connections {
		if c.OpenedMs > 0 {
			add(c.OpenedMs, fmt.Sprintf("connection %d opens", c.Unit))
			explained[c.OpenedMs] = true
		}
	}
	if s.Resource.Kind == ResourceHikari {
		ps = append(ps, hikariThresholdProblems(s, m, add, explained)...)
	}
	for _, c := range m.Result.Connections {
		if c.ConnectMs > 0 && !explained[c.ConnectMs] && !slices.ContainsFunc(m.Result.Connections, func(o Connection) bool { return o.ClosedMs == c.ConnectMs }) {
			add(c.ConnectMs, "the house-keeper fills")
		}
		if c.ClosedMs > 0 && !explained[c.ClosedMs] { // 0: the constructor's, before t=0
			add(c.ClosedMs, "the house-keeper or maxLifetime closes")
		}
	}
	for _, e := range s.Sets {
		add(float64(e.AtMs), "a set directive")
	}
	add(float64(s.EndMs), "the end")
	var times []float64
	for ms, cs := range causes {
		slices.Sort(cs)
		causes[ms] = slices.Compact(cs)
		times = append(times, ms)
	}
	sort.Float64s(times)
	for i, ms := range times {
		if i > 0 && ms-times[i-1] < spacingMs {
			ps = append(ps, fmt.Sprintf("decisive instants at %g ms (%s) and %g ms (%s) are less than %d ms apart",
				times[i-1], strings.Join(causes[times[i-1]], ", "), ms, strings.Join(causes[ms], ", "), spacingMs))
		}
		if len(causes[ms]) > 1 {
			ps = append(ps, fmt.Sprintf("at %g ms: %s — the real threads race", ms, strings.Join(causes[ms], ", ")))
		}
	}
	return ps
}

// hikariThresholdProblems finds house-keeper runs too near an idle connection's idleTimeout,
// and adds each maxLifetime expiry before the end as a decisive instant, which explains a
// close and a fill at that instant.
func hikariThresholdProblems(s ResourceScript, m *Simulation, add func(float64, string), explained map[float64]bool) []string {
	var ps []string
	cfg, _ := s.Resource.hikariConfig()
	inForce := func(at float64, key string, v time.Duration) float64 {
		for _, e := range s.Sets {
			for _, c := range e.Changes {
				if ms, err := strconv.ParseInt(c.Value, 10, 64); err == nil && float64(e.AtMs) <= at && c.Key == key {
					v = msDur(ms)
				}
			}
		}
		return durMs(v)
	}
	var runs []float64
	for t := 100.0; t <= float64(s.EndMs); t += float64(cfg.HousekeepingPeriod.Milliseconds()) {
		runs = append(runs, t)
	}
	for _, c := range m.Result.Connections {
		closed := c.ClosedMs
		if math.IsNaN(closed) {
			closed = float64(s.EndMs)
		}
		if ml := inForce(c.OpenedMs, "maxLifetimeMs", cfg.MaxLifetime); ml > 0 && c.OpenedMs+ml <= float64(s.EndMs) && c.OpenedMs+ml <= closed {
			if ml > 10000 {
				ps = append(ps, fmt.Sprintf("connection %d: maxLifetime %g ms > 10 s expires before the end, at a random time (R156)", c.Unit, ml))
			}
			add(c.OpenedMs+ml, fmt.Sprintf("connection %d's maxLifetime expires", c.Unit))
			explained[c.OpenedMs+ml] = true
		}
		if cfg.MinimumIdle >= cfg.MaximumPoolSize {
			continue
		}
		// The connection's idle stretches: from its opening or a release not handed over at
		// once, to its next borrow or its close.
		type stretch struct{ from, to float64 }
		var busy []stretch
		for _, b := range m.Result.Borrows {
			if b.Unit == c.Unit {
				to := b.ReleasedMs
				if math.IsNaN(to) {
					to = math.Inf(1)
				}
				busy = append(busy, stretch{b.GotMs, to})
			}
		}
		sort.Slice(busy, func(i, j int) bool { return busy[i].from < busy[j].from })
		from := c.OpenedMs
		idle := []stretch{}
		for _, b := range busy {
			if b.from > from {
				idle = append(idle, stretch{from, b.from})
			}
			from = b.to
		}
		if from < closed {
			idle = append(idle, stretch{from, closed})
		}
		for _, st := range idle {
			it := inForce(st.from, "idleTimeoutMs", cfg.IdleTimeout)
			if it <= 0 {
				continue
			}
			for _, r := range runs {
				if r > st.from && r <= st.to && math.Abs(r-(st.from+it)) < quietMarginMs {
					ps = append(ps, fmt.Sprintf("connection %d, idle since %g ms, passes idleTimeout %g ms at %g ms, %g ms from the house-keeper's run at %g ms",
						c.Unit, st.from, it, st.from+it, math.Abs(r-(st.from+it)), r))
				}
			}
		}
	}
	return ps
}
