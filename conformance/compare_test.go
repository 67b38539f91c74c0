package conformance

import (
	"context"
	"fmt"
	"maps"
	"math"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// Differential conformance tests: every script runs on poolsim's simulator (Simulate) and
// compareRuns times on the real pool (the harness), and the two must agree.
//
//   - Samples: at every scripted sample time at least quietMarginMs away from any simulated
//     transition, each compared field of the simulated sample must lie inside the envelope
//     (min…max over the real runs) of the real samples at that time. The envelope is the
//     real pool's own run-to-run spread; nothing is added to it.
//   - Tasks: in every real run, each task has the simulated outcome and ran on the simulated
//     worker (creation index; 0 = the submitter), exactly.
//   - Workers and counts: the same threads are created, the same ones have exited by the
//     end, and the shutdownNow and end drains return as many tasks.
//   - Times: each real submission, start, end, thread creation and exit happens no earlier
//     than simulated (less clockSlackMs) and at most maxLatenessMs later. That bound is the
//     premise of the sample comparison — a real transition later than simulated by more than
//     quietMarginMs could cross a compared sample — so a run that breaks it is not judged
//     but repeated, unless the same times are late run after run (realRuns).
//
// The scripts keep every decisive instant (a submission, a task end, a keep-alive expiry,
// a setter or shutdown call, the end) at least 100 ms from any other, and never let two of
// them coincide where Java would race (checkSpacing, run on every script by
// TestCompareScriptsAreWellSpaced, which needs no JVM).

// compareRuns is how many times each script runs on the real pool: its envelope is their
// field-by-field minimum and maximum at each sample time.
const compareRuns = 3

// quietMarginMs is how far a compared sample must be from every simulated transition. A real
// run is used only if none of its measured delays exceeded maxLatenessMs (runValid), every
// real transition lay in [simulated − clockSlackMs, simulated + maxLatenessMs], and every
// compared sample was over before the next simulated transition less clockSlackMs (timings):
// so a sample quietMarginMs = maxLatenessMs away from the simulated transitions sees, in the
// real pool, the same side of every transition.
const quietMarginMs = maxLatenessMs

// clockSlackMs is how much earlier than simulated a real time may be: the harness prints
// times rounded to 0.1 ms, measured from a t0 taken just before the pool is built.
const clockSlackMs = 1.0

// spacingMs is the smallest distance between two distinct decisive instants of a script.
const spacingMs = scheduleMarginMs

// compareCase is one script compared between the simulator and the real pool.
type compareCase struct {
	name   string
	script Script
	// jdk25 also runs it on Temurin 25 when installed: for the SynchronousQueue, whose
	// implementation changed between JDK 17 and 25 (spec §10).
	jdk25 bool
	// expect checks, on the simulation, that the script shows what the case is about (so
	// that a later edit cannot turn it into a comparison of nothing in particular).
	expect func(t *testing.T, m *Simulation)
	// known, if set, skips the real comparison: a known discrepancy (see the report).
	known string
}

// sampleEvery is the sample grid of every script: fine enough that each quiet stretch
// between two decisive instants 100 ms apart holds a compared sample.
const sampleEvery = 20

// withSamples sets the script's sample grid: every sampleEvery ms from 10 ms to the end.
func withSamples(s Script) Script {
	s.Samples = Samples{EveryMs: sampleEvery, FromMs: 10, UntilMs: s.EndMs - (s.EndMs-10)%sampleEvery}
	if s.Samples.UntilMs != s.EndMs {
		s.Samples.AtMs = []int64{s.EndMs}
	}
	return s
}

// task is a submission: id, time, service time.
func task(id int, atMs, serviceMs int64) Submit {
	return Submit{AtMs: atMs, ID: id, ServiceMs: serviceMs}
}

// failing is a submission whose task throws at its end.
func failing(id int, atMs, serviceMs int64) Submit {
	return Submit{AtMs: atMs, ID: id, ServiceMs: serviceMs, Fail: true}
}

// prio is a submission with a priority (lower runs first).
func prio(id int, atMs, serviceMs int64, p int) Submit {
	return Submit{AtMs: atMs, ID: id, ServiceMs: serviceMs, Priority: p}
}

// set is a set directive.
func set(atMs int64, ch ...Change) Set { return Set{AtMs: atMs, Changes: ch} }

// simulate runs the case's script on the simulator or fails the test.
func simulate(t *testing.T, s Script) *Simulation {
	t.Helper()
	m, err := Simulate(context.Background(), s)
	if err != nil {
		t.Fatalf("simulate: %v\nscript:\n%s", err, s)
	}
	return m
}

// timeline prints a simulation for failure messages.
func timeline(m *Simulation) string {
	var b strings.Builder
	b.WriteString("simulated tasks (id worker submit start end outcome):\n")
	for _, tk := range m.Result.Tasks {
		fmt.Fprintf(&b, "  %d w%d %g %g %g %s\n", tk.ID, tk.Worker, tk.SubmitMs, tk.StartMs, tk.EndMs, tk.Outcome)
	}
	b.WriteString("simulated workers (index created exited):\n")
	for _, w := range m.Result.Workers {
		fmt.Fprintf(&b, "  %d %g %g\n", w.Index, w.CreatedMs, w.ExitedMs)
	}
	tr := make([]string, len(m.Transitions))
	for i, x := range m.Transitions {
		tr[i] = fmt.Sprint(x.Milliseconds())
	}
	fmt.Fprintf(&b, "simulated transitions (ms): %s\n", strings.Join(tr, " "))
	return b.String()
}

// instant is what happens at one instant of a simulated run.
type instant struct {
	arrivals, callerEnds, poolEnds, failEnds, exits, creations, directives int
	end                                                                    bool // the script's end
	expiry                                                                 bool // a transition with no other cause: a poll that timed out into take()
}

// decisive reports whether anything at the instant could be reordered with another one.
func (in *instant) decisive() bool {
	return in.arrivals+in.callerEnds+in.poolEnds+in.failEnds+in.exits+in.directives > 0 || in.end || in.expiry
}

// checkSpacing checks that the script's decisive instants, as simulated, are far enough apart
// that the real pool cannot take them in another order:
//   - distinct decisive instants are at least spacingMs apart;
//   - at one instant, a submission meets no task end, keep-alive expiry or the end (a
//     caller-run task's end may release a delayed submission: that order is causal; and a
//     set or shutdown at the same time runs after it, in file order); a set or shutdown
//     meets no task end or expiry; no two pool tasks end together (their workers would then
//     park in either order, and FIFO hand-off depends on that order); no two workers expire
//     together (which of them exits is a race, R16); and a failing task's end (its worker
//     exits and is replaced, R17) meets no expiry.
func checkSpacing(t *testing.T, s Script, m *Simulation) {
	t.Helper()
	if ps := spacingProblems(s, m); len(ps) > 0 {
		t.Errorf("the script's decisive instants are too close:\n  %s\n%s", strings.Join(ps, "\n  "), timeline(m))
	}
}

// spacingProblems lists what checkSpacing objects to.
func spacingProblems(s Script, m *Simulation) []string {
	var ps []string
	at := map[float64]*instant{}
	get := func(ms float64) *instant {
		if at[ms] == nil {
			at[ms] = &instant{}
		}
		return at[ms]
	}
	for i, tk := range m.Result.Tasks {
		if !math.IsNaN(tk.SubmitMs) {
			get(tk.SubmitMs).arrivals++
		}
		if math.IsNaN(tk.EndMs) {
			continue
		}
		switch {
		case tk.Outcome == OutcomeCaller:
			get(tk.EndMs).callerEnds++
		case s.Submits[i].Fail:
			get(tk.EndMs).failEnds++
		default:
			get(tk.EndMs).poolEnds++
		}
	}
	for _, e := range s.Sets {
		get(float64(e.AtMs)).directives++
	}
	for _, e := range s.Shutdowns {
		get(float64(e.AtMs)).directives++
	}
	get(float64(s.EndMs)).end = true
	for _, w := range m.Result.Workers {
		get(w.CreatedMs).creations++
		if !math.IsNaN(w.ExitedMs) {
			get(w.ExitedMs).exits++
		}
	}
	for _, x := range m.Transitions {
		ms := float64(x) / float64(time.Millisecond)
		if at[ms] == nil {
			get(ms).expiry = true
		}
	}
	var times []float64
	for ms, in := range at {
		if in.decisive() {
			times = append(times, ms)
		}
	}
	sort.Float64s(times)
	for i, ms := range times {
		in := at[ms]
		if i > 0 && ms-times[i-1] < spacingMs {
			ps = append(ps, fmt.Sprintf("decisive instants at %g and %g ms are less than %d ms apart", times[i-1], ms, spacingMs))
		}
		// Exits caused by a failing task's end or by a directive are not expiries.
		expiries := in.exits - in.failEnds
		if in.directives > 0 {
			expiries = 0 // setMaximumPoolSize, shutdown: exits the directive causes
		}
		if in.expiry {
			expiries++
		}
		ends := in.poolEnds + in.failEnds
		switch {
		case in.arrivals > 0 && (ends > 0 || expiries > 0 || in.end):
			ps = append(ps, fmt.Sprintf("at %g ms a submission meets a task end, a keep-alive expiry or the end", ms))
		case (in.directives > 0 || in.end) && (ends > 0 || expiries > 0):
			ps = append(ps, fmt.Sprintf("at %g ms a directive or the end meets a task end or a keep-alive expiry", ms))
		case ends > 1:
			ps = append(ps, fmt.Sprintf("at %g ms %d pool tasks end together: their workers park in a racy order", ms, ends))
		case expiries > 1:
			ps = append(ps, fmt.Sprintf("at %g ms %d keep-alive expiries coincide: which worker exits is a race (R16)", ms, expiries))
		case in.failEnds > 0 && expiries > 0:
			ps = append(ps, fmt.Sprintf("at %g ms a failing task's worker exits as another one expires", ms))
		}
	}
	return ps
}

// compareField is one sample column compared with the real pool.
type compareField struct {
	name string
	get  func(Sample) float64
}

// fieldsFor returns the sample columns compared for a pool kind: those of MeasureNoise, and
// for Tomcat its submittedCount (R64).
func fieldsFor(k Kind) []compareField {
	var fs []compareField
	for _, f := range sampleFields {
		fs = append(fs, compareField{f.name, f.get})
	}
	if k == KindTomcat {
		fs = append(fs, compareField{"submitted_count", func(s Sample) float64 { return float64(s.SubmittedCount) }})
	}
	return fs
}

// interruptWindows returns, for each shutdownNow, the stretch from it to the simulated end of
// the tasks it finds running. The harness's tasks stop when interrupted (Task.Interrupted);
// the model's tasks ignore interrupts and run to their end (model.Pool.ShutdownNow), so there
// the two legitimately differ; the tasks concerned are compared instead (interrupted in the
// real pool exactly when running in the simulated one). The harness's own shutdownNow at the
// end comes after the last sample.
func interruptWindows(s Script, m *Simulation) (windows [][2]float64, running map[int]bool) {
	running = map[int]bool{}
	for _, e := range s.Shutdowns {
		if !e.Now {
			continue
		}
		at := float64(e.AtMs)
		until := at
		for _, tk := range m.Result.Tasks {
			if tk.Outcome == OutcomePool && tk.StartMs <= at && (tk.Unfinished || tk.EndMs > at) {
				running[tk.ID] = true
				end := tk.EndMs
				if tk.Unfinished {
					end = float64(s.EndMs)
				}
				until = math.Max(until, end)
			}
		}
		windows = append(windows, [2]float64{at, until})
	}
	return windows, running
}

// within returns the interrupt window holding tMs, if any.
func within(windows [][2]float64, tMs float64) ([2]float64, bool) {
	for _, w := range windows {
		if tMs >= w[0] && tMs <= w[1] {
			return w, true
		}
	}
	return [2]float64{}, false
}

// agreement is what one comparison found, for the test log and the report.
type agreement struct {
	samples, fields, skipped int // compared samples × fields; samples left out
	maxSpread                float64
	tasks                    int
	maxDriftMs               float64
	driftWhat                string
	counts                   string
	noise                    Noise // the real runs among themselves
}

func (a agreement) String() string {
	return fmt.Sprintf("%d samples × %d fields inside the real envelope (max spread %g; %d samples near transitions not compared); "+
		"%d/%d task outcomes and worker ids equal in each of %d runs (real runs among themselves: %d worker differences, task starts within %.1f ms); "+
		"counts equal: %s; real − simulated times ≤ %.1f ms (%s)",
		a.samples, a.fields, a.maxSpread, a.skipped, a.tasks, a.tasks, compareRuns, a.noise.WorkerMismatches, a.noise.TaskStartRangeMs,
		a.counts, a.maxDriftMs, a.driftWhat)
}

// realRuns runs the script on the real pool until compareRuns runs kept their schedule, each
// judged on its timing alone, before its outcome is looked at: runValid's own measures (the
// harness's lateness, the tasks' oversleep, the canary's stalls), then the distance of every
// real time from the simulated one (timelyProblems). The second catches a delay the first
// cannot see, such as one pool thread left unscheduled for 90 ms on a loaded 2-core machine
// while the canary ran on time. A run that fails it is repeated; runAttempts such runs skip
// the test as too busy to judge (or fail it when CI=true) — unless the same times were off
// in every one of them: a delay that repeats is the model's, not the machine's. realRuns then
// fails the test and returns the last rejected runs, so that compare can show what else
// differs.
func realRuns(t *testing.T, r Runner, s Script, m *Simulation) []*Result {
	t.Helper()
	return keepTimely(t, func() *Result { return runValid(t, r, s) }, func(res *Result) []timing { return timelyProblems(s, m, res) })
}

// keepTimely is realRuns for any script: run gives one run that kept its own schedule
// (runValid), problems lists its real times outside their simulated bounds.
func keepTimely(t *testing.T, run func() *Result, problems func(*Result) []timing) []*Result {
	t.Helper()
	rs := make([]*Result, 0, compareRuns)
	var rejectedRuns []*Result
	var common map[string]bool
	for len(rs) < compareRuns {
		res := run()
		bad := problems(res)
		if len(bad) == 0 {
			rs = append(rs, res)
			continue
		}
		rejectedRuns = append(rejectedRuns, res)
		keys := map[string]bool{}
		for _, d := range bad {
			keys[d.what] = true
		}
		if common == nil {
			common = keys
		} else {
			for k := range common {
				if !keys[k] {
					delete(common, k)
				}
			}
		}
		t.Logf("run rejected (%d of %d allowed): %d real times outside their bounds, first %s", len(rejectedRuns), runAttempts, len(bad), bad[0])
		if len(rejectedRuns) < runAttempts {
			continue
		}
		if len(common) > 0 {
			t.Errorf("in %d runs, the same real times lay outside [simulated − %g, simulated + %d] ms: %v — the simulator's timing differs from the real pool's",
				runAttempts, clockSlackMs, maxLatenessMs, slices.Sorted(maps.Keys(common)))
			return rejectedRuns[len(rejectedRuns)-compareRuns:]
		}
		msg := fmt.Sprintf("%d runs strayed from the simulated schedule by more than %d ms, each at other times: machine too busy to judge", runAttempts, maxLatenessMs)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return rs
}

// timing is one real time held against its simulated counterpart.
type timing struct {
	what       string  // e.g. "task 6 start"
	real, sim  float64 // ms
	lo, hi     float64 // the bounds real must lie in
	outOfBound bool
	sample     bool // a compared sample's end, not a transition
}

func (d timing) String() string {
	return fmt.Sprintf("%s: real %.1f ms, simulated %g ms, bounds [%.1f, %.1f]", d.what, d.real, d.sim, d.lo, d.hi)
}

// timings holds every real submission, task start and end, thread creation and exit of a run
// against the simulated one: the real time must lie in [simulated − clockSlackMs, simulated
// + maxLatenessMs]. Interrupted tasks' ends are left out, and a worker that exits because its
// task was interrupted must exit between the shutdownNow and its simulated exit (see
// interruptWindows). Things that happened in only one of the two are outcomes, judged by
// compare.
func timings(s Script, m *Simulation, r *Result) []timing {
	windows, _ := interruptWindows(s, m)
	var out []timing
	add := func(what string, real, sim float64) { out = appendTiming(out, what, real, sim) }
	for i, rt := range r.Tasks {
		if i >= len(m.Result.Tasks) {
			break
		}
		st := m.Result.Tasks[i]
		add(fmt.Sprintf("task %d submit", rt.ID), rt.SubmitMs, st.SubmitMs)
		add(fmt.Sprintf("task %d start", rt.ID), rt.StartMs, st.StartMs)
		if !rt.Interrupted && !st.Unfinished {
			add(fmt.Sprintf("task %d end", rt.ID), rt.EndMs, st.EndMs)
		}
	}
	for i, rw := range r.Workers {
		if i >= len(m.Result.Workers) {
			break
		}
		sw := m.Result.Workers[i]
		add(fmt.Sprintf("worker %d created", rw.Index), rw.CreatedMs, sw.CreatedMs)
		if w, ok := within(windows, sw.ExitedMs); ok && !math.IsNaN(rw.ExitedMs) {
			// It exits when its interrupted task ends: in the real pool at once, in the
			// model at the task's full end.
			d := timing{what: fmt.Sprintf("worker %d exited", rw.Index), real: rw.ExitedMs, sim: sw.ExitedMs,
				lo: w[0] - clockSlackMs, hi: sw.ExitedMs + maxLatenessMs}
			d.outOfBound = d.real < d.lo || d.real > d.hi
			out = append(out, d)
			continue
		}
		add(fmt.Sprintf("worker %d exited", rw.Index), rw.ExitedMs, sw.ExitedMs)
	}
	for _, x := range r.Samples {
		if compared(windows, m, x.TMs) {
			out = append(out, sampleTiming(m, r, x.TMs, x.LateMs))
		}
	}
	return out
}

// appendTiming appends a real time held against its simulated counterpart, bounded to
// [simulated − clockSlackMs, simulated + maxLatenessMs]; nothing if either did not happen.
func appendTiming(out []timing, what string, real, sim float64) []timing {
	if math.IsNaN(real) || math.IsNaN(sim) {
		return out
	}
	d := timing{what: what, real: real, sim: sim, lo: sim - clockSlackMs, hi: sim + maxLatenessMs}
	d.outOfBound = real < d.lo || real > d.hi
	return append(out, d)
}

// sampleTiming holds a compared sample of run r at tMs, taken lateMs late: it must be over
// before the next simulated transition could happen, its lateness plus the run's longest
// sample (a thread dump, a few getters) leaving it before then.
func sampleTiming(m *Simulation, r *Result, tMs int64, lateMs float64) timing {
	cost := r.TimingMs("max_sample_cost_ms")
	if math.IsNaN(cost) {
		cost = math.Inf(1) // cannot tell: reject the run
	}
	next := math.Inf(1)
	if i, _ := slices.BinarySearch(m.Transitions, time.Duration(tMs)*time.Millisecond); i < len(m.Transitions) {
		next = float64(m.Transitions[i]) / float64(time.Millisecond)
	}
	d := timing{what: fmt.Sprintf("sample at %d ms", tMs), real: float64(tMs) + lateMs + cost, sim: float64(tMs),
		lo: float64(tMs) - clockSlackMs, hi: next - clockSlackMs, sample: true}
	d.outOfBound = d.real < d.lo || d.real > d.hi
	return d
}

// compared reports whether the sample at tMs is compared: quietMarginMs away from every
// simulated transition, and not in an interrupt window.
func compared(windows [][2]float64, m *Simulation, tMs int64) bool {
	_, interrupted := within(windows, float64(tMs)-quietMarginMs)
	return m.QuietMs(tMs) >= quietMarginMs && !interrupted
}

// timelyProblems returns the run's times outside their bounds.
func timelyProblems(s Script, m *Simulation, r *Result) []timing {
	var bad []timing
	for _, d := range timings(s, m, r) {
		if d.outOfBound {
			bad = append(bad, d)
		}
	}
	return bad
}

// compare holds the simulation against the real runs.
func compare(t *testing.T, s Script, m *Simulation, rs []*Result) agreement {
	t.Helper()
	var a agreement
	fields := fieldsFor(s.Pool.Kind)
	a.fields = len(fields)
	env, err := Envelope(rs)
	if err != nil {
		t.Fatal(err)
	}
	if len(env) != len(m.Result.Samples) {
		t.Fatalf("%d real samples, %d simulated", len(env), len(m.Result.Samples))
	}
	if a.noise, err = MeasureNoise(rs); err != nil {
		t.Fatal(err)
	}
	windows, interrupted := interruptWindows(s, m)
	for k, e := range env {
		x := m.Result.Samples[k]
		if x.TMs != e.TMs {
			t.Fatalf("sample %d: real at %d ms, simulated at %d ms", k, e.TMs, x.TMs)
		}
		if !compared(windows, m, x.TMs) {
			a.skipped++
			continue
		}
		a.samples++
		for _, f := range fields {
			v, lo, hi := f.get(x), f.get(e.Min), f.get(e.Max)
			a.maxSpread = math.Max(a.maxSpread, hi-lo)
			if v < lo || v > hi {
				t.Errorf("at %d ms (%.0f ms from a transition): %s simulated %g, real [%g, %g] over %d runs",
					x.TMs, m.QuietMs(x.TMs), f.name, v, lo, hi, len(rs))
			}
		}
	}
	if a.samples == 0 {
		t.Errorf("no sample is %d ms away from the simulated transitions: the script compares no state", quietMarginMs)
	}

	simEnd := float64(s.EndMs)
	for ri, r := range rs {
		if len(r.Tasks) != len(m.Result.Tasks) {
			t.Fatalf("run %d: %d tasks, simulated %d", ri+1, len(r.Tasks), len(m.Result.Tasks))
		}
		a.tasks = len(r.Tasks)
		relabel := prestartRelabel(s, r, m.Result)
		for i, rt := range r.Tasks {
			st := m.Result.Tasks[i]
			if w, ok := relabel[rt.Worker]; ok {
				rt.Worker = w
			}
			if rt.ID != st.ID {
				t.Fatalf("run %d: task %d is id %d, simulated id %d", ri+1, i, rt.ID, st.ID)
			}
			if rt.Outcome != st.Outcome || rt.Worker != st.Worker {
				t.Errorf("run %d: task %d: real %s on worker %d, simulated %s on worker %d", ri+1, rt.ID, rt.Outcome, rt.Worker, st.Outcome, st.Worker)
				continue
			}
			// Running at the end: the harness's final shutdownNow interrupts it.
			realAtEnd := rt.Unfinished || rt.Interrupted && rt.EndMs >= simEnd
			if realAtEnd != st.Unfinished && (rt.Outcome == OutcomePool || rt.Outcome == OutcomeCaller) {
				t.Errorf("run %d: task %d: still running at the end: real %v, simulated %v", ri+1, rt.ID, realAtEnd, st.Unfinished)
			}
			if mid := rt.Interrupted && !realAtEnd; mid != interrupted[rt.ID] {
				t.Errorf("run %d: task %d: interrupted by a shutdownNow: real %v, simulated running then %v", ri+1, rt.ID, mid, interrupted[rt.ID])
			}
			if rt.Failed != st.Failed {
				t.Errorf("run %d: task %d: failed: real %v, simulated %v", ri+1, rt.ID, rt.Failed, st.Failed)
			}
		}
		if len(r.Workers) != len(m.Result.Workers) {
			t.Errorf("run %d: %d threads created, simulated %d", ri+1, len(r.Workers), len(m.Result.Workers))
		} else {
			for i, rw := range r.Workers {
				sw := m.Result.Workers[i]
				if rw.Index != sw.Index || rw.Alive() != sw.Alive() {
					t.Errorf("run %d: worker %d alive at the end %v, simulated worker %d %v", ri+1, rw.Index, rw.Alive(), sw.Index, sw.Alive())
				}
			}
		}
		var realDrains, simDrains []string
		for _, e := range r.Events {
			if e.Kind == "shutdownNow" || e.Kind == "end" {
				realDrains = append(realDrains, fmt.Sprintf("%s@%d:%s", e.Kind, e.AtMs, e.Detail))
			}
		}
		for _, e := range m.Result.Events {
			if e.Kind == "shutdownNow" || e.Kind == "end" {
				simDrains = append(simDrains, fmt.Sprintf("%s@%d:%s", e.Kind, e.AtMs, e.Detail))
			}
		}
		// The end counts, exactly, whatever the envelope: the last sample is at the end.
		rl, sl := r.Samples[len(r.Samples)-1], m.Result.Samples[len(m.Result.Samples)-1]
		if rl.TMs != s.EndMs || rl.Completed != sl.Completed || rl.Rejected != sl.Rejected || rl.Largest != sl.Largest {
			t.Errorf("run %d: at %d ms completed %d rejected %d largest %d; simulated at %d ms %d %d %d",
				ri+1, rl.TMs, rl.Completed, rl.Rejected, rl.Largest, sl.TMs, sl.Completed, sl.Rejected, sl.Largest)
		}
		if !slices.Equal(realDrains, simDrains) {
			t.Errorf("run %d: drains %v, simulated %v", ri+1, realDrains, simDrains)
		}
		for _, d := range timings(s, m, r) {
			if d.outOfBound {
				t.Errorf("run %d: %s", ri+1, d) // only when realRuns found the model's timing off
			}
			if x := d.real - d.sim; !d.sample && x > a.maxDriftMs {
				a.maxDriftMs, a.driftWhat = x, fmt.Sprintf("run %d %s", ri+1, d.what)
			}
		}
	}
	a.counts = counts(s, m)
	if t.Failed() {
		t.Logf("%s", timeline(m))
		for i, r := range rs {
			t.Logf("real run %d:\n%s", i+1, r.Output)
		}
	}
	return a
}

// counts summarises the simulated run's end counts, which compare holds equal to the real
// ones: outcomes by kind (per task), threads created and exited (per worker), the largest
// pool size and the completed and rejected counters at the last sample (at the end).
func counts(s Script, m *Simulation) string {
	by := map[Outcome]int{}
	for _, tk := range m.Result.Tasks {
		by[tk.Outcome]++
	}
	var parts []string
	for _, o := range []Outcome{OutcomePool, OutcomeCaller, OutcomeRejected, OutcomeDiscarded, OutcomeDrained, OutcomeUnsubmitted} {
		if by[o] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", o, by[o]))
		}
	}
	exited := 0
	for _, w := range m.Result.Workers {
		if !w.Alive() {
			exited++
		}
	}
	last := m.Result.Samples[len(m.Result.Samples)-1]
	parts = append(parts, fmt.Sprintf("threads %d created %d exited", len(m.Result.Workers), exited),
		fmt.Sprintf("largest %d", last.Largest), fmt.Sprintf("completed %d", last.Completed), fmt.Sprintf("rejected %d", last.Rejected))
	return strings.Join(parts, ", ")
}

// survivors returns the simulated workers alive at the end, by index.
func survivors(m *Simulation) []int {
	var out []int
	for _, w := range m.Result.Workers {
		if w.Alive() {
			out = append(out, w.Index)
		}
	}
	return out
}

// workersOf returns the simulated worker of each task, in id order of the given ids.
func workersOf(m *Simulation, ids ...int) []int {
	out := make([]int, len(ids))
	for i, id := range ids {
		tk, ok := m.Result.Task(id)
		if !ok {
			out[i] = -2
			continue
		}
		out[i] = tk.Worker
	}
	return out
}

// simSampleAt returns the simulated sample at tMs.
func simSampleAt(t *testing.T, m *Simulation, tMs int64) Sample {
	t.Helper()
	x, ok := m.Result.Sample(tMs)
	if !ok {
		t.Fatalf("no simulated sample at %d ms", tMs)
	}
	return x
}

// wantWorkers checks the simulated workers of tasks.
func wantWorkers(t *testing.T, m *Simulation, ids []int, want []int, why string) {
	t.Helper()
	if got := workersOf(m, ids...); !slices.Equal(got, want) {
		t.Errorf("tasks %v ran on workers %v, want %v: %s", ids, got, want, why)
	}
}

// wantSurvivors checks which simulated workers are alive at the end.
func wantSurvivors(t *testing.T, m *Simulation, want []int, why string) {
	t.Helper()
	if got := survivors(m); !slices.Equal(got, want) {
		t.Errorf("workers alive at the end %v, want %v: %s", got, want, why)
	}
}

// runCases compares each case on each JVM it asks for.
func runCases(t *testing.T, cases []compareCase) {
	rs := runners(t)
	var report []string
	for _, c := range cases {
		s := withSamples(c.script)
		for i, nr := range rs {
			if i > 0 && !c.jdk25 {
				continue
			}
			name := c.name
			if len(rs) > 1 && c.jdk25 {
				name = nr.name + "/" + c.name
			}
			t.Run(name, func(t *testing.T) {
				m := simulate(t, s)
				checkSpacing(t, s, m)
				c.expect(t, m)
				if t.Failed() {
					t.FailNow()
				}
				if c.known != "" {
					t.Skip("known discrepancy: " + c.known)
				}
				start := time.Now()
				runs := realRuns(t, nr.r, s, m)
				a := compare(t, s, m, runs)
				line := fmt.Sprintf("%s [%s, %.1fs]: %s", name, runs[0].Timing["java_version"], time.Since(start).Seconds(), a)
				t.Log(line)
				if !t.Failed() {
					report = append(report, line)
				}
			})
		}
	}
	t.Logf("agreement:\n  %s", strings.Join(report, "\n  "))
}

// TestCompareScriptsAreWellSpaced checks every comparison script on the simulator alone, no
// JVM needed: its decisive instants are far enough apart (checkSpacing), and it shows what its
// case is about (expect).
func TestCompareScriptsAreWellSpaced(t *testing.T) {
	for _, c := range append(jdkCases(), tomcatCases()...) {
		t.Run(c.name, func(t *testing.T) {
			s := withSamples(c.script)
			m := simulate(t, s)
			checkSpacing(t, s, m)
			c.expect(t, m)
			quiet := 0
			for _, x := range m.Result.Samples {
				if m.QuietMs(x.TMs) >= quietMarginMs {
					quiet++
				}
			}
			if quiet == 0 {
				t.Errorf("no sample is %d ms away from a transition", quietMarginMs)
			}
		})
	}
}

// TestCompareJDK holds the simulator to java.util.concurrent.ThreadPoolExecutor (Java 17, and
// Temurin 25 for the SynchronousQueue cases).
func TestCompareJDK(t *testing.T) {
	Require(t)
	runCases(t, jdkCases())
}

// TestCompareTomcat holds the simulator to Tomcat 10.1's ThreadPoolExecutor and TaskQueue.
func TestCompareTomcat(t *testing.T) {
	Require(t)
	runCases(t, tomcatCases())
}

// prestartRelabel matches the labels of threads started together before any
// task — prestartAllCoreThreads, Tomcat's constructor, Jetty's minThreads —
// between a real run and the simulation. Those threads race to their first
// wait, so which of them parks first, and receives the first task, is up to
// the OS scheduler (seen: Jetty's two minThreads gave task 1 to thread 2 in
// one run of three). Their labels are matched in order of first use; every
// other thread, and every later hand-off among these, is compared exactly.
func prestartRelabel(s Script, real, simulated *Result) map[int]int {
	// Threads started before the first call that can start one: a
	// submit, a schedule (ensurePrestart, R91) or a setter (R21).
	first := math.Inf(1)
	for _, sub := range s.Submits {
		first = math.Min(first, float64(sub.AtMs))
	}
	for _, sch := range s.Schedules {
		first = math.Min(first, float64(sch.AtMs))
	}
	for _, set := range s.Sets {
		first = math.Min(first, float64(set.AtMs))
	}
	batch := func(r *Result) map[int]bool {
		b := map[int]bool{}
		for _, w := range r.Workers {
			if w.CreatedMs < first {
				b[w.Index] = true
			}
		}
		return b
	}
	order := func(r *Result, in map[int]bool) []int {
		ts := append([]Task(nil), r.Tasks...)
		sort.SliceStable(ts, func(i, j int) bool { return ts[i].StartMs < ts[j].StartMs })
		var out []int
		seen := map[int]bool{}
		for _, tk := range ts {
			if in[tk.Worker] && !seen[tk.Worker] && tk.Outcome == OutcomePool {
				seen[tk.Worker] = true
				out = append(out, tk.Worker)
			}
		}
		return out
	}
	rb, sb := batch(real), batch(simulated)
	if len(rb) < 2 || len(rb) != len(sb) {
		return nil
	}
	ro, so := order(real, rb), order(simulated, sb)
	if len(ro) != len(so) {
		return nil // the exact comparison then reports the difference
	}
	m := map[int]int{}
	for i := range ro {
		m[ro[i]] = so[i]
	}
	return m
}

// TestPrestartRelabel: only threads started before the first call that can
// start one are matched by first use; threads that a schedule call or a
// submit started are compared by label exactly, so a swap among them is
// still a difference.
func TestPrestartRelabel(t *testing.T) {
	res := func(firstUse ...int) *Result {
		r := &Result{Workers: []Worker{{Index: 1, CreatedMs: 0}, {Index: 2, CreatedMs: 0}}}
		for i, w := range firstUse {
			r.Tasks = append(r.Tasks, Task{ID: i + 1, Worker: w, StartMs: float64(100 * (i + 1)), Outcome: OutcomePool})
		}
		return r
	}
	prestarted := Script{Submits: []Submit{{AtMs: 100}, {AtMs: 200}}}
	if got := prestartRelabel(prestarted, res(2, 1), res(1, 2)); !reflect.DeepEqual(got, map[int]int{2: 1, 1: 2}) {
		t.Errorf("two prestarted threads used in the other order: relabel %v, want 2→1, 1→2", got)
	}
	scheduled := Script{Schedules: []Schedule{{AtMs: 0, ID: 1}, {AtMs: 0, ID: 2}}}
	if got := prestartRelabel(scheduled, res(2, 1), res(1, 2)); got != nil {
		t.Errorf("threads started by schedule calls must not be relabelled: %v", got)
	}
}
