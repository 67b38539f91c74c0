package scenarios

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/poolsim/poolsim/model"
	"github.com/poolsim/poolsim/workloads"
)

// This file holds the scenario parts of the two pool families beyond
// ThreadPoolExecutor: periodic and delayed jobs for a
// ScheduledThreadPoolExecutor (workload.periodic, spec §6) and the
// constructor and setter rules of ScheduledThreadPoolExecutor and Jetty's
// QueuedThreadPool (spec §7).

// PeriodicMode is how a periodic job calls the ScheduledThreadPoolExecutor.
type PeriodicMode string

// Periodic job modes.
const (
	// FixedRate is scheduleAtFixedRate: each run is due a period after the
	// previous one was DUE; late runs bunch up (R94).
	FixedRate PeriodicMode = "fixed-rate"
	// FixedDelay is scheduleWithFixedDelay: each run is due a delay after
	// the previous one ENDED (R95).
	FixedDelay PeriodicMode = "fixed-delay"
	// Once is schedule(task, initialDelay): one delayed run (R89).
	Once PeriodicMode = "once"
)

// PeriodicModes lists the modes by scenario name.
func PeriodicModes() []string { return []string{string(FixedRate), string(FixedDelay), string(Once)} }

// PeriodicJob is one entry of workload.periodic: a task handed to the
// ScheduledThreadPoolExecutor at At, beside the ordinary traffic.
type PeriodicJob struct {
	Name string
	Mode PeriodicMode
	// Every is the period (fixed-rate) or the delay between runs
	// (fixed-delay); 0 for Once.
	Every time.Duration
	// InitialDelay: the first run is due at At + InitialDelay.
	InitialDelay time.Duration
	// At is when the schedule call is made.
	At time.Duration
	// Service is each run's service time law (drawn per run, from the job's
	// own random stream).
	Service workloads.ServiceSpec
	// FirstRuns, if given, are the service times of the first runs, in
	// order; later runs draw from Service.
	FirstRuns []time.Duration
	// FailAt is the run (from 1) that throws, stopping the series (R96);
	// 0 for none.
	FailAt int
	// Failure is the probability that a run throws (0 for none).
	Failure float64
	// Cancel: future.cancel(false) is called at CancelAt (R97), at or
	// after the schedule call and within the run. A queued run then stays
	// queued until due and is skipped — or is removed at once under the
	// pool's removeOnCancelPolicy — and a running one finishes; no run
	// follows.
	Cancel   bool
	CancelAt time.Duration
}

// periodic decodes workload.periodic.
func (d *decoder) periodic(n *yaml.Node, path, dir string, sc *Scenario) error {
	items, err := d.sequence(n, path, "a list of periodic jobs")
	if err != nil {
		return err
	}
	if len(items) == 0 {
		return d.errAt(n, path, "empty list", "at least one job, e.g. {name: cleanup, mode: fixed-rate, every: 1s, service: {dist: constant, value: 50ms}}")
	}
	names := map[string]int{}
	for i, it := range items {
		p := fmt.Sprintf("%s[%d]", path, i)
		job := PeriodicJob{Name: fmt.Sprintf("periodic-%d", i+1)}
		var modeNode, everyNode, svcNode, nameNode *yaml.Node
		err := d.mapping(it, p, []field{
			{"name", func(n *yaml.Node, p string) (err error) {
				nameNode = n
				if job.Name, err = d.scalar(n, p, "a name for reports"); err == nil && strings.TrimSpace(job.Name) == "" {
					err = d.errAt(n, p, "empty", "a name for reports")
				}
				return
			}},
			{"mode", func(n *yaml.Node, p string) error {
				modeNode = n
				s, err := d.enum(n, p, PeriodicModes())
				job.Mode = PeriodicMode(s)
				return err
			}},
			{"every", func(n *yaml.Node, p string) (err error) {
				everyNode = n
				job.Every, err = d.duration(n, p) // the model refuses a period <= 0 (checkPeriodic)
				return
			}},
			{"initialDelay", func(n *yaml.Node, p string) (err error) {
				job.InitialDelay, err = d.nonNegativeDuration(n, p, "a duration >= 0 (the JDK treats a negative delay as 0)")
				return
			}},
			{"at", func(n *yaml.Node, p string) (err error) {
				job.At, err = d.nonNegativeDuration(n, p, "when the schedule call is made, within the run")
				return
			}},
			{"service", func(n *yaml.Node, p string) (err error) { svcNode = n; job.Service, err = d.service(n, p, dir); return }},
			{"firstRuns", func(n *yaml.Node, p string) (err error) {
				job.FirstRuns, err = d.durations(n, p, "the service times of the first runs, e.g. [350ms]", "a service time")
				return
			}},
			{"failAt", func(n *yaml.Node, p string) error {
				v, err := d.integer(n, p, "the run that throws, from 1")
				if err == nil && (v < 1 || v > math.MaxInt32) {
					err = d.errAt(n, p, fmt.Sprintf("must be >= 1, got %d", v), "the run that throws, from 1")
				}
				job.FailAt = int(v)
				return err
			}},
			{"failure", func(n *yaml.Node, p string) error {
				v, err := d.float(n, p, "a probability between 0 and 1")
				if err == nil && !(v >= 0 && v <= 1) {
					err = d.errAt(n, p, fmt.Sprintf("must be a probability, got %v", v), "0 <= failure <= 1")
				}
				job.Failure = v
				return err
			}},
			{"cancelAt", func(n *yaml.Node, p string) (err error) {
				job.Cancel = true
				job.CancelAt, err = d.nonNegativeDuration(n, p, "when future.cancel(false) is called, from the start of the run")
				return
			}},
		})
		if err != nil {
			return err
		}
		switch {
		case modeNode == nil:
			return d.errAt(it, p+".mode", "missing", strings.Join(PeriodicModes(), ", "))
		case svcNode == nil:
			return d.errAt(it, p+".service", "missing", "each run's service law, e.g. {dist: constant, value: 50ms}")
		case job.Mode == Once && everyNode != nil:
			return d.errAt(everyNode, p+".every", "mode once runs a single time", "leave it out, or use fixed-rate or fixed-delay")
		case job.Mode != Once && everyNode == nil:
			return d.errAt(it, p+".every", "missing for mode "+string(job.Mode), "the period, e.g. every: 100ms")
		case job.Mode == Once && job.FailAt > 1:
			return d.errAt(child(it, "failAt"), p+".failAt", fmt.Sprintf("mode once has one run, got failAt %d", job.FailAt), "failAt: 1, or leave it out")
		}
		if first, dup := names[job.Name]; dup {
			at := nameNode
			if at == nil {
				at = it
			}
			return d.errAt(at, p+".name", fmt.Sprintf("%q is already the name of periodic[%d]", job.Name, first), "a unique name per job")
		}
		names[job.Name] = i
		sc.Periodic = append(sc.Periodic, job)
	}
	return nil
}

// checkPeriodic: periodic jobs need a ScheduledThreadPoolExecutor, and each
// schedule call, and each cancel, must fall within the run — a cancel at or
// after its schedule call, which returns the future it cancels.
func (d *decoder) checkPeriodic(root *yaml.Node, sc *Scenario) error {
	if len(sc.Periodic) == 0 {
		return nil
	}
	items, _ := d.sequence(child(child(root, "workload"), "periodic"), "workload.periodic", "")
	if sc.Pool.Flavor != model.Scheduled {
		return d.errAt(child(root, "workload"), "workload.periodic",
			fmt.Sprintf("a %s pool has no schedule methods", sc.Pool.Preset), "pool: {preset: scheduled} — a ScheduledThreadPoolExecutor")
	}
	if err := d.replaySchedules(items, sc); err != nil {
		return err
	}
	for i, job := range sc.Periodic {
		if job.At > sc.Duration {
			at := items[i]
			if n := child(items[i], "at"); n != nil {
				at = n
			}
			return d.errAt(at, fmt.Sprintf("workload.periodic[%d].at", i), fmt.Sprintf("%v is after the end of the run (%v)", job.At, sc.Duration), "a time within the duration")
		}
		if !job.Cancel {
			continue
		}
		at, p := child(items[i], "cancelAt"), fmt.Sprintf("workload.periodic[%d].cancelAt", i)
		switch {
		case job.CancelAt > sc.Duration:
			return d.errAt(at, p, fmt.Sprintf("%v is after the end of the run (%v)", job.CancelAt, sc.Duration), "a time within the duration")
		case job.CancelAt < job.At:
			return d.errAt(at, p, fmt.Sprintf("%v is before the schedule call at %v, which returns the future to cancel", job.CancelAt, job.At), "a time at or after at, within the duration")
		}
	}
	return nil
}

// replaySchedules makes the jobs' schedule calls on a scratch pool of the
// scenario's configuration, in the order the run makes them, so that a call
// the ScheduledThreadPoolExecutor refuses — a period or delay <= 0 (R94,
// R95) — is reported at its line; the rule lives in the model only.
func (d *decoder) replaySchedules(items []*yaml.Node, sc *Scenario) error {
	cfg := sc.Pool.Config
	cfg.ThreadLimit = 1 // whether a call is refused never depends on the threads
	pool, err := model.New(0, cfg, nil)
	if err != nil {
		return fmt.Errorf("scenarios: replaying the schedule calls: %w", err) // finishPool validated cfg
	}
	scratch := pool.(model.Scheduler)
	order := make([]int, len(sc.Periodic))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return sc.Periodic[order[a]].At < sc.Periodic[order[b]].At })
	for _, i := range order {
		job := sc.Periodic[i]
		t := model.Task{ID: uint64(i + 1), Periodic: int32(i + 1), Run: 1}
		var err error
		switch job.Mode {
		case FixedRate:
			_, err = scratch.ScheduleAtFixedRate(job.At, t, job.InitialDelay, job.Every)
		case FixedDelay:
			_, err = scratch.ScheduleWithFixedDelay(job.At, t, job.InitialDelay, job.Every)
		default:
			_, err = scratch.Schedule(job.At, t, job.InitialDelay)
		}
		var ce *model.ConfigError
		if errors.As(err, &ce) {
			n := child(items[i], ce.Field)
			if n == nil {
				n = items[i]
			}
			return d.errAt(n, fmt.Sprintf("workload.periodic[%d].%s", i, ce.Field), ce.Msg, ce.Rule)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// finishFamily refuses, in the pool block, the keys the constructors of
// ScheduledThreadPoolExecutor (R88) and QueuedThreadPool (R100–R102) do not
// take: they are errors, not silently ignored. The values they do take are
// checked by the model (finishPool).
func (d *decoder) finishFamily(sc *Scenario, pn *poolNodes) error {
	c := &sc.Pool.Config
	fixed := func(key, msg, allowed string) error {
		if n := child(pn.block, key); n != nil {
			return d.errAt(n, "pool."+key, msg, allowed)
		}
		return nil
	}
	pre, _ := LookupPreset(sc.Pool.Preset)
	if !pre.Throttle {
		for _, key := range []string{"concurrencyLimit", "rejectTasksWhenLimitReached"} {
			if err := fixed(key, "a SimpleAsyncTaskExecutor setting (R143)", "pool: {preset: simple-async}"); err != nil {
				return err
			}
		}
	}
	switch c.Flavor {
	case model.Virtual:
		if pn.path != "pool" {
			at := pn.preset
			if at == nil {
				at = pn.block
			}
			return d.errAt(at, pn.path+".preset", "a virtual-thread executor as a called resource is not modelled (its VTs would need the scenario's carriers)",
				"a platform preset for this executor, e.g. spring-boot; or make the virtual pool the scenario's pool")
		}
		for _, key := range []string{"core", "max", "keepAlive", "allowCoreThreadTimeOut", "prestart", "queue"} {
			if err := fixed(key, fmt.Sprintf("the %s preset starts a virtual thread per task: no pool size, queue or keep-alive limits it (R130, R141, R142)", pre.Name),
				"leave it out; jvm.parallelism sets the carriers, a resource (hikari, semaphore) or simple-async's concurrencyLimit bounds concurrency"); err != nil {
				return err
			}
		}
	case model.Scheduled:
		for _, k := range []struct{ key, msg, allowed string }{
			{"max", "ScheduledThreadPoolExecutor's constructor fixes maximumPoolSize at Integer.MAX_VALUE, and the pool never exceeds core (R88)", "leave it out; an events set can call setMaximumPoolSize"},
			{"keepAlive", "ScheduledThreadPoolExecutor's constructor fixes keepAliveTime at 10ms (R88)", "leave it out; an events set can call setKeepAliveTime"},
			{"queue", "ScheduledThreadPoolExecutor always uses its unbounded DelayedWorkQueue (R88)", "leave it out"},
		} {
			if err := fixed(k.key, k.msg, k.allowed); err != nil {
				return err
			}
		}
	case model.Jetty:
		if q := child(pn.block, "queue"); q != nil {
			// Only the hypothetical hand-off order of what-ifs applies (a custom queue).
			for _, key := range []string{"type", "capacity", "fair"} {
				if n := child(q, key); n != nil {
					return d.errAt(n, "pool.queue."+key, "the jetty presets model QueuedThreadPool's default unbounded BlockingArrayQueue (R100)", "leave it out (queue.handOff may model a custom queue)")
				}
			}
		}
		for _, k := range []struct{ key, msg, allowed string }{
			{"allowCoreThreadTimeOut", "QueuedThreadPool has no core time-out: threads above minThreads leave one per idleTimeout (R104)", "leave it out"},
		} {
			if err := fixed(k.key, k.msg, k.allowed); err != nil {
				return err
			}
		}
		if n := child(pn.block, "prestart"); n != nil && !c.Prestart {
			return d.errAt(n, "pool.prestart", "QueuedThreadPool.start() always starts minThreads threads (R101)", "true, or leave it out")
		}
		// Its rejection, sizes and idleTimeout are the model's to check
		// (model.Config.Validate, in finishPool).
	default:
		for _, key := range []string{"continueExistingPeriodicTasksAfterShutdown", "executeExistingDelayedTasksAfterShutdown"} {
			if err := fixed(key, "a shutdown policy of ScheduledThreadPoolExecutor only (R98)", "pool: {preset: scheduled}"); err != nil {
				return err
			}
		}
		if err := fixed("removeOnCancelPolicy", "setRemoveOnCancelPolicy is a ScheduledThreadPoolExecutor method: only its futures can be cancelled in the queue (R97)", "pool: {preset: scheduled}"); err != nil {
			return err
		}
	}
	return nil
}
