package conformance

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// The hand-off timing cases (spec §12, issue 12): real pools at realistic rates against the
// simulator, ideal (zero latency, R47) and with the host wake-up timing (host.wakeup) measured
// in the same run (MeasuredWakeup: the latency of the hand-offs to idle workers, the race
// window of the condition queues, R113, and the tasks' overrun). Each case runs the real pool
// handOffRuns times on the same submissions; each run is replayed on the simulator with its
// own actual submit times. The real runs' spread is the noise: the envelope is [min, max] of
// the real figures, widened by that spread.
//
// Where the ideal model misses the envelope (the cases marked bites: the plateau of a FIFO
// pool at realistic rates, barging, the rejections of a direct hand-off at 1,000/s) the test
// requires that it does — so that the test bites — and that the timing model lands within the
// widened envelope or at least halves the ideal model's distance to it. Where the ideal model
// is inside (a fair or non-fair SynchronousQueue's plateau, a cached pool here), the timing
// model must stay inside too. The race window is fitted to each run's barging (RaceWindow), so
// the barged share checks the model's mechanism on what it was given; the pool size, to which
// nothing was fitted, is the prediction.
//
// handOffRuns is the number of real runs per case.
const handOffRuns = 3

// handOffMaxLate is the submitter lateness, after the first second, above which a real run is
// not trusted (a stall that long stops the pool's threads too, which the replay cannot know).
const handOffMaxLate = 20 * time.Millisecond

type handOffMetric struct {
	name  string
	value func(*HandOffResult) float64
	// bites: the ideal model must miss the envelope here.
	bites bool
	// floor is the least noise assumed (the metric's resolution).
	floor float64
	// count: the metric counts rare events among many (rejections of a few percent of
	// thousands of submissions), whose run-to-run spread is binomial, about √count: the
	// least noise assumed is then two such standard errors of the real runs' mean count,
	// which three runs' range understates one time in three or so.
	count bool
}

type handOffCase struct {
	name    string
	script  HandOffScript
	metrics []handOffMetric
}

// plateauMetric is the mean pool size over [from, to].
func plateauMetric(from, to time.Duration, bites bool) handOffMetric {
	return handOffMetric{fmt.Sprintf("pool %v–%v", from, to), func(r *HandOffResult) float64 { return r.plateau(from, to) }, bites, 1, false}
}

func handOffCases() []handOffCase {
	const end = 10 * time.Second
	sample := 250 * time.Millisecond
	// A FIFO pool grown to 300 by a burst, then Poisson traffic of 2 ms tasks: its plateau,
	// and from 200/s on — where a 10 s run has enough tasks for the share to be measured
	// within a few tenths of a percent — the share of tasks a returning worker barged.
	fifo := func(name string, p Pool, rate float64) handOffCase {
		c := handOffCase{name, HandOffScript{Pool: p, SampleEvery: sample, End: end,
			Tasks: burstThenPoisson(300, 500*time.Millisecond, rate, 2*time.Millisecond, 600*time.Millisecond, end, uint64(rate))},
			[]handOffMetric{plateauMetric(7*time.Second, end, true)}}
		if rate >= 200 {
			// The floor is two standard errors of a share of about 2 % over the run's tasks.
			se := 100 * math.Sqrt(0.02*0.98/(rate*(end.Seconds()-1)))
			c.metrics = append(c.metrics, handOffMetric{"barged %", func(r *HandOffResult) float64 { return 100 * r.barged(time.Second) }, true, 2 * se, false})
		}
		return c
	}
	tomcat := Pool{Kind: KindTomcat, Core: 10, Max: 300, KeepAliveMs: 1000}
	// The JDK pool grows past core only while its queue is full (R6): a queue of 10 lets the
	// burst grow it to 290 workers, which then wait timed above core.
	jdk := Pool{Kind: KindJDK, Core: 10, Max: 310, KeepAliveMs: 1000, Queue: QueueLinked, Capacity: 10}
	sq := func(name string, fair bool) handOffCase {
		return handOffCase{name, HandOffScript{Pool: Pool{Kind: KindJDK, Core: 10, Max: 300, KeepAliveMs: 1000, Queue: QueueSynchronous, Fair: fair},
			SampleEvery: sample, End: end, Tasks: burstThenPoisson(300, 500*time.Millisecond, 100, 2*time.Millisecond, 600*time.Millisecond, end, 100)},
			[]handOffMetric{plateauMetric(7*time.Second, end, false)}}
	}
	direct := func(name string, p Pool, metrics ...handOffMetric) handOffCase {
		return handOffCase{name, HandOffScript{Pool: p, SampleEvery: sample, End: 5 * time.Second,
			Tasks: burstThenPoisson(0, 0, 1000, time.Millisecond, 200*time.Millisecond, 5*time.Second, 1000)}, metrics}
	}
	rejected := func(r *HandOffResult) float64 {
		n := 0
		for _, t := range r.Tasks {
			if t.Rejected {
				n++
			}
		}
		return float64(n)
	}
	largest := func(r *HandOffResult) float64 { return float64(len(r.Created)) }
	// Below 400/s the gap between the ideal model and a real pool (a few workers of 40–90 at
	// 50–100/s, 5–8 of 185 at 200/s on the shared machine, README's table) is about the spread
	// of real runs on a loaded 2-core machine (2–11 workers between runs at 200/s) and about
	// what the timing model leaves (2–4 workers at 200/s), so those rates were measured for the
	// README and are not cases: a case must show its gap to judge.
	return []handOffCase{
		fifo("tomcat 400/s", tomcat, 400),
		fifo("jdk linked 400/s", jdk, 400),
		sq("synchronous fair 100/s", true), sq("synchronous non-fair 100/s", false),
		direct("cached 1000/s × 1ms", Pool{Kind: KindJDK, Core: 0, Max: Unbounded, KeepAliveMs: 60000, Queue: QueueSynchronous},
			handOffMetric{"threads created", largest, false, 1, false}),
		direct("direct hand-off 2/4 1000/s × 1ms", Pool{Kind: KindJDK, Core: 2, Max: 4, KeepAliveMs: 60000, Queue: QueueSynchronous},
			handOffMetric{"rejected", rejected, true, 1, true}),
	}
}

// TestHandOffTiming runs the cases; see above.
func TestHandOffTiming(t *testing.T) {
	if testing.Short() {
		t.Skip("real pools for minutes")
	}
	Require(t)
	var table []string
	for _, c := range handOffCases() {
		t.Run(c.name, func(t *testing.T) {
			rows := runHandOffCase(t, c)
			table = append(table, rows...)
		})
	}
	t.Logf("real envelope [min, max] of %d runs; ideal and timed: means of the replays\n%s", handOffRuns, strings.Join(table, "\n"))
}

// runHandOffCase runs one case and checks its metrics; it returns a line per metric.
//
// A biting metric checks two things: that the case shows the gap it is for (the ideal model
// outside the real runs' envelope) and that the timing model closes it. The first is about the
// case, not the model: on a loaded machine the real runs' own spread can swallow the gap. Then the
// case runs once more; if the spread still hides the gap, that is logged — the machine was too
// noisy to show it — and the timing model must still lie within the real envelope.
func runHandOffCase(t *testing.T, c handOffCase) []string {
	for attempt := 1; ; attempt++ {
		rows, hidden := judgeHandOffCase(t, c, attempt == 2)
		if !hidden || attempt == 2 {
			return rows
		}
		t.Logf("%s: the real runs' spread hides the gap the case is for (a busy machine): running the case again", c.name)
	}
}

// judgeHandOffCase runs the case's real runs and their replays and checks the metrics; hidden
// reports that a biting metric's gap was inside the real spread. Unless last, that is not yet
// an error (runHandOffCase runs the case again).
func judgeHandOffCase(t *testing.T, c handOffCase, last bool) (rows []string, hidden bool) {
	ctx := context.Background()
	vals := map[string][3][]float64{} // metric → real, ideal, timed
	for run := 0; run < handOffRuns; run++ {
		real := validHandOff(t, ctx, c.script)
		subs := make([]time.Duration, len(real.Tasks))
		for i, x := range real.Tasks {
			subs[i] = x.Submit
		}
		wake := real.MeasuredWakeup(c.script, time.Second/2)
		ideal, err := SimulateHandOff(ctx, c.script, subs, nil, uint64(run+1))
		if err != nil {
			t.Fatal(err)
		}
		timed, err := SimulateHandOff(ctx, c.script, subs, &wake, uint64(run+1))
		if err != nil {
			t.Fatal(err)
		}
		d := real.wakeDelays(time.Second / 2)
		t.Logf("run %d: submitter late max %v after the first second; hand-off latency p50 %.0fµs p90 %.0fµs p99 %.0fµs", run+1,
			lateAfter(c.script, real, time.Second), q(d, 0.5), q(d, 0.9), q(d, 0.99))
		for _, m := range c.metrics {
			v := vals[m.name]
			for k, r := range []*HandOffResult{real, ideal, timed} {
				v[k] = append(v[k], m.value(r))
			}
			vals[m.name] = v
		}
	}
	for _, m := range c.metrics {
		v := vals[m.name]
		lo, hi := slices.Min(v[0]), slices.Max(v[0])
		noise := math.Max(hi-lo, m.floor)
		if m.count {
			noise = math.Max(noise, 2*math.Sqrt(mean(v[0])))
		}
		dist := func(x float64) float64 { return math.Max(math.Max(lo-x, x-hi), 0) }
		ideal, timed := mean(v[1]), mean(v[2])
		dIdeal, dTimed := dist(ideal), dist(timed)
		row := fmt.Sprintf("%-34s %-16s real [%.4g, %.4g]  ideal %.4g (off by %.3g)  timed %.4g (off by %.3g)  noise %.3g",
			c.name, m.name, lo, hi, ideal, dIdeal, timed, dTimed, noise)
		rows = append(rows, row)
		t.Log(row)
		switch {
		case m.bites && dIdeal <= noise && !last:
			hidden = true
		case m.bites && dIdeal <= noise:
			t.Logf("%s: the ideal model is within the real runs' spread (%.3g ≤ %.3g) twice: the machine's noise hides the gap; the timing model is held to the envelope", m.name, dIdeal, noise)
			if dTimed > noise {
				t.Errorf("%s: the timing model is off by %.3g, more than the real runs' spread %.3g", m.name, dTimed, noise)
			}
		case m.bites && dTimed > math.Max(noise, dIdeal/2):
			t.Errorf("%s: the timing model is off by %.3g, more than the noise %.3g and more than half the ideal model's %.3g", m.name, dTimed, noise, dIdeal)
		case !m.bites && (dIdeal > noise || dTimed > noise):
			t.Errorf("%s: off by %.3g (ideal) and %.3g (timed), more than the real runs' spread %.3g", m.name, dIdeal, dTimed, noise)
		}
	}
	return rows, hidden
}

// validHandOff runs the script until a run's submitter kept its schedule after the first
// second within handOffMaxLate; with none in runAttempts it skips, or fails when CI=true.
func validHandOff(t *testing.T, ctx context.Context, s HandOffScript) *HandOffResult {
	t.Helper()
	for i := 1; i <= runAttempts; i++ {
		res, err := Runner{}.RunHandOff(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		late := lateAfter(s, res, time.Second)
		if late <= handOffMaxLate {
			return res
		}
		t.Logf("attempt %d: the submitter was %v late: rerunning", i, late)
	}
	msg := fmt.Sprintf("the submitter slipped by more than %v in %d runs: machine too busy to judge", handOffMaxLate, runAttempts)
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return nil
}

// lateAfter is how late the real submitter was at worst for the submissions planned at or
// after from.
func lateAfter(s HandOffScript, r *HandOffResult, from time.Duration) time.Duration {
	var late time.Duration
	for i, x := range r.Tasks {
		if s.Tasks[i].At >= from {
			late = max(late, x.Submit-s.Tasks[i].At)
		}
	}
	return late
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
