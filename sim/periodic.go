package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/poolsim/poolsim/model"
	"github.com/poolsim/poolsim/scenarios"
	"github.com/poolsim/poolsim/workloads"
)

// This file drives a ScheduledThreadPoolExecutor's periodic and delayed
// jobs (workload.periodic): it makes each job's schedule call at its time,
// draws every run's service time from the job's own random stream (the
// model, pure, cannot), and reports per job how many runs there were, how
// late they started, and whether the series stopped (spec R94–R98).

// PeriodicTaskIDBase numbers the runs of periodic jobs: PeriodicTaskIDBase+1,
// +2, … in the order they are queued, apart from the ordinary tasks, which
// keep their numbers 1, 2, … in submission order whatever the jobs.
const PeriodicTaskIDBase = 1 << 48

// periodicJob is a job's state during the run.
type periodicJob struct {
	spec    scenarios.PeriodicJob
	dist    workloads.Distribution
	failRNG *rand.Rand

	runs, lateRuns       int64
	maxLateness, sumLate time.Duration
	ended                string // "", "exception", "shutdown", "drained"
	endedAt              time.Duration
	lastRun              int32
	rejected             bool         // the schedule call was rejected (R90)
	future               model.Future // what the schedule call returned
	drained              bool         // shutdownNow returned its queued run (R28)

	// The cancel (R97): whether cancel(false) found the series live, when,
	// the run it found (queued or, if running, in progress), and what
	// became of that run when queued: skipped by a worker when due
	// (counted; when), or removed unrun (removeOnCancelPolicy at once, or
	// shutdown's sweep).
	cancelled, cancelRunning bool
	cancelledAt              time.Duration
	cancelRun                int32
	skipped                  int64
	skippedAt                time.Duration
	removed                  bool
	removedAt                time.Duration
}

// newPeriodic prepares the scenario's periodic jobs, each with its own
// streams ("periodic:NAME" and "periodic-failures:NAME"), so adding a job
// never changes the others' draws or the ordinary traffic.
func newPeriodic(sc *scenarios.Scenario) ([]*periodicJob, error) {
	var out []*periodicJob
	for i, spec := range sc.Periodic {
		d, err := workloads.NewDistribution(spec.Service, workloads.NewStream(sc.Seed, "periodic:"+spec.Name))
		if err != nil {
			if pe, ok := err.(*workloads.ParamError); ok {
				pe.Field = fmt.Sprintf("periodic[%d].service.%s", i, pe.Field)
			}
			return nil, err
		}
		out = append(out, &periodicJob{spec: spec, dist: d,
			failRNG: rand.New(workloads.NewStream(sc.Seed, "periodic-failures:"+spec.Name))})
	}
	return out, nil
}

// draw sets the service time and failure of run t.Run of job j.
func (j *periodicJob) draw(t *model.Task) {
	if k := int(t.Run); k <= len(j.spec.FirstRuns) {
		t.Service = j.spec.FirstRuns[k-1]
	} else {
		t.Service = j.dist.Sample()
	}
	t.Fails = int(t.Run) == j.spec.FailAt
	if j.spec.Failure > 0 && j.failRNG.Float64() < j.spec.Failure {
		t.Fails = true
	}
}

// nextPeriodicAt is when the next schedule call is due (never: none left).
func (e *Engine) nextPeriodicAt() time.Duration {
	if e.nextPeriodic < len(e.periodicOrder) {
		return e.periodic[e.periodicOrder[e.nextPeriodic]].spec.At
	}
	return never
}

// schedulePeriodic makes the next job's schedule call (R89, R94, R95).
func (e *Engine) schedulePeriodic() {
	i := e.periodicOrder[e.nextPeriodic]
	e.nextPeriodic++
	e.setDue(phasePeriodic, e.nextPeriodicAt())
	j := e.periodic[i]
	e.periodicIDs++
	t := model.Task{ID: PeriodicTaskIDBase + e.periodicIDs, Arrival: e.now, Submit: e.now, Periodic: int32(i + 1), Run: 1}
	j.draw(&t)
	e.rec.submitted++
	if len(e.observers) > 0 {
		e.report(model.ScheduleCalled, nil, t)
	}
	var err error
	switch j.spec.Mode {
	case scenarios.FixedRate:
		j.future, err = e.sched.ScheduleAtFixedRate(e.now, t, j.spec.InitialDelay, j.spec.Every)
	case scenarios.FixedDelay:
		j.future, err = e.sched.ScheduleWithFixedDelay(e.now, t, j.spec.InitialDelay, j.spec.Every)
	default: // a one-shot schedule(task, delay)
		j.future, err = e.sched.Schedule(e.now, t, j.spec.InitialDelay)
	}
	if err != nil {
		// The loader checks the pool family and the period.
		panic(fmt.Sprintf("sim: periodic job %q: %v", j.spec.Name, err))
	}
}

// nextCancelAt is when the next cancel is due (never: none left).
func (e *Engine) nextCancelAt() time.Duration {
	if e.nextCancel < len(e.cancelOrder) {
		return e.periodic[e.cancelOrder[e.nextCancel]].spec.CancelAt
	}
	return never
}

// cancelPeriodic calls cancel(false) on the next job's future (R97). The
// loader puts it at or after the schedule call, which the event order
// makes first at equal times.
func (e *Engine) cancelPeriodic() {
	i := e.cancelOrder[e.nextCancel]
	e.nextCancel++
	e.setDue(phaseCancel, e.nextCancelAt())
	j := e.periodic[i]
	running := false
	e.pool.Workers(func(w *model.Worker) {
		if t, ok := w.Task(); ok && t.Periodic == int32(i+1) {
			running = true
		}
	})
	if e.sched.Cancel(e.now, j.future) {
		j.cancelled, j.cancelledAt, j.cancelRunning = true, e.now, running
	}
}

// rescheduled: a periodic task's next run is queued; it gets a task
// number, a service time and a fate.
func (e *Engine) rescheduled(t *model.Task) {
	j := e.periodic[t.Periodic-1]
	e.periodicIDs++
	t.ID = PeriodicTaskIDBase + e.periodicIDs
	j.draw(t)
	e.rec.submitted++
}

// periodicEnded notes why and when a job's series ended.
func (e *Engine) periodicEnded(now time.Duration, t *model.Task, why model.PeriodicEnd) {
	j := e.periodic[t.Periodic-1]
	if j.ended == "" {
		j.ended, j.endedAt = why.String(), now
	}
	switch why {
	case model.EndedByDrain:
		j.drained = true
	case model.EndedByCancel:
		j.cancelRun = t.Run
	}
}

// removedAfterCancel notes that job t's cancelled run left the queue unrun
// (R97, R98).
func (e *Engine) removedAfterCancel(now time.Duration, t *model.Task) {
	if t.Periodic != 0 {
		j := e.periodic[t.Periodic-1]
		j.removed, j.removedAt = true, now
	}
}

// skippedCancelled: a worker took a cancelled run from the queue and
// returned from it at once (R97). The pool counts it as a completed task
// (getCompletedTaskCount), and so does the run: it ran nothing, so it has
// no wait, service or response time.
func (e *Engine) skippedCancelled(now time.Duration, t *model.Task) {
	e.rec.completed++
	e.rec.skippedCancelled++
	if t.Periodic != 0 {
		j := e.periodic[t.Periodic-1]
		j.skipped++
		j.skippedAt = now
	}
}

// periodicStarted counts a run of a periodic job and its lateness, the
// time from its due time (t.Arrival, R94) to its start.
func (e *Engine) periodicStarted(now time.Duration, t *model.Task) {
	j := e.periodic[t.Periodic-1]
	j.runs++
	j.lastRun = t.Run
	late := now - t.Arrival
	if late > 0 {
		j.lateRuns++
		j.sumLate += late
		if late > j.maxLateness {
			j.maxLateness = late
		}
	}
}

// PeriodicSummary is one periodic job's report (summary.json "periodic").
type PeriodicSummary struct {
	Name  string  `json:"name"`
	Mode  string  `json:"mode"`
	Every float64 `json:"every_s"`
	// Runs counts runs started; LateRuns those that started after their
	// due time, by up to MaxLateness (seconds; 0 when none was late).
	Runs        int64   `json:"runs"`
	LateRuns    int64   `json:"late_runs"`
	MaxLateness float64 `json:"max_lateness_s"`
	MeanLate    Stat    `json:"mean_lateness_of_late_runs_s"`
	// StoppedByException: a run threw and the series stopped (R96), at
	// StoppedAt, after run LastRun.
	StoppedByException bool `json:"stopped_by_exception"`
	// CancelledByShutdown: shutdown ended the series (R98); Drained:
	// shutdownNow returned its queued run (R28).
	CancelledByShutdown bool `json:"cancelled_by_shutdown"`
	Drained             bool `json:"drained_by_shutdown_now"`
	// Rejected: the schedule call came after shutdown (R90).
	Rejected  bool `json:"rejected"`
	StoppedAt Stat `json:"stopped_at_s"`
	LastRun   int  `json:"last_run"`
	// Cancelled: future.cancel(false) (cancelAt) found the series live and
	// ended it at CancelledAt (R97; also StoppedAt), during a run
	// (CancelledRunning: that run finished) or with run CancelledRun
	// queued. SkippedRuns counts the cancelled runs a worker then took from
	// the queue when due and returned from at once (no service time;
	// counted in completed), at SkippedAt; RemovedAfterCancel, that the
	// cancelled run left the queue unrun instead, at RemovedAt: at once
	// under removeOnCancelPolicy, or swept out by shutdown (R98).
	Cancelled          bool  `json:"cancelled"`
	CancelledAt        Stat  `json:"cancelled_at_s"`
	CancelledRunning   bool  `json:"cancelled_while_running"`
	CancelledRun       int   `json:"cancelled_run"`
	SkippedRuns        int64 `json:"skipped_runs"`
	SkippedAt          Stat  `json:"skipped_at_s"`
	RemovedAfterCancel bool  `json:"removed_after_cancel"`
	RemovedAt          Stat  `json:"removed_at_s"`
}

// periodicSummaries reports every job, and fills the summary's totals.
func (e *Engine) periodicSummaries(s *Summary) []PeriodicSummary {
	var out []PeriodicSummary
	maxLate := time.Duration(0)
	for _, j := range e.periodic {
		ps := PeriodicSummary{Name: j.spec.Name, Mode: string(j.spec.Mode), Every: j.spec.Every.Seconds(),
			Runs: j.runs, LateRuns: j.lateRuns, MaxLateness: j.maxLateness.Seconds(),
			MeanLate: Stat(math.NaN()), StoppedAt: Stat(math.NaN()), LastRun: int(j.lastRun),
			CancelledAt: Stat(math.NaN()), SkippedAt: Stat(math.NaN()), RemovedAt: Stat(math.NaN())}
		if j.lateRuns > 0 {
			ps.MeanLate = Stat(j.sumLate.Seconds() / float64(j.lateRuns))
		}
		switch j.ended {
		case "exception":
			ps.StoppedByException = true
			ps.StoppedAt = Stat(j.endedAt.Seconds())
			s.PeriodicStoppedByException++
		case "shutdown":
			ps.CancelledByShutdown = true
			ps.StoppedAt = Stat(j.endedAt.Seconds())
		case "drained":
			ps.StoppedAt = Stat(j.endedAt.Seconds())
		case "cancel":
			ps.StoppedAt = Stat(j.endedAt.Seconds())
		}
		ps.Drained = j.drained
		if j.cancelled {
			ps.Cancelled, ps.CancelledAt, ps.CancelledRunning, ps.CancelledRun = true, Stat(j.cancelledAt.Seconds()), j.cancelRunning, int(j.cancelRun)
			s.PeriodicCancelled++
		}
		ps.SkippedRuns = j.skipped
		if j.skipped > 0 {
			ps.SkippedAt = Stat(j.skippedAt.Seconds())
		}
		if j.removed {
			ps.RemovedAfterCancel, ps.RemovedAt = true, Stat(j.removedAt.Seconds())
		}
		ps.Rejected = j.rejected
		s.PeriodicRuns += j.runs
		s.PeriodicLateRuns += j.lateRuns
		maxLate = max(maxLate, j.maxLateness)
		out = append(out, ps)
	}
	if len(e.periodic) > 0 {
		s.PeriodicMaxLateness = Stat(maxLate.Seconds())
	}
	return out
}

// periodicFindings states what users miss: a series that an exception
// stopped for good (R96), runs that bunched after a late one (R94), and
// cancelled runs that stayed in the queue until due (R97).
func periodicFindings(ps []PeriodicSummary) []string {
	var out, kept []string
	for _, p := range ps {
		if p.StoppedByException {
			out = append(out, fmt.Sprintf("periodic job %q stopped for good at t=%vs: its run %d threw, and ScheduledThreadPoolExecutor schedules no further run of a task that threw (R96) — nothing is logged, the future just holds the exception",
				p.Name, FormatFloat(float64(p.StoppedAt)), p.LastRun))
		}
		if p.Cancelled && !p.CancelledRunning && !p.RemovedAfterCancel {
			fate := "still queued at the end"
			switch {
			case p.SkippedRuns > 0:
				fate = "skipped at " + FormatFloat(float64(p.SkippedAt)) + "s"
			case p.Drained:
				fate = "then returned, unrun, by shutdownNow"
			}
			kept = append(kept, fmt.Sprintf("%q (cancelled at %ss, %s)", p.Name, FormatFloat(float64(p.CancelledAt)), fate))
		}
		if p.LateRuns > 0 && p.Mode == string(scenarios.FixedRate) {
			out = append(out, fmt.Sprintf("periodic job %q: %d of %d runs started late (up to %ss): after a late run, fixed-rate runs the missed ones back to back (R94)",
				p.Name, p.LateRuns, p.Runs, FormatFloat(p.MaxLateness)))
		}
	}
	if len(kept) > 0 {
		what := "a cancelled job kept its queued run"
		if len(kept) > 1 {
			what = fmt.Sprintf("%d cancelled jobs kept their queued runs", len(kept))
		}
		out = append(out, fmt.Sprintf("%s in the queue after the cancel — %s: with removeOnCancelPolicy false, future.cancel(false) leaves a cancelled task in its place (queue_len counts it, and a thread waits TIMED_WAITING for it as if it would run) until a worker takes it and skips it (R97); removeOnCancelPolicy: true removes it at once",
			what, strings.Join(kept, ", ")))
	}
	return out
}

// emptySource is the ordinary traffic of a scenario with periodic jobs only.
type emptySource struct{}

func (emptySource) Next() (workloads.Arrival, bool) { return workloads.Arrival{}, false }
func (emptySource) Err() error                      { return nil }
func (emptySource) Close() error                    { return nil }
