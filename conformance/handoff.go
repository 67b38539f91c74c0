package conformance

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/poolsim/poolsim/model"
	"github.com/poolsim/poolsim/scenarios"
	"github.com/poolsim/poolsim/sim"
	"github.com/poolsim/poolsim/workloads"
)

// A HandOffScript drives a JDK or Tomcat pool at a realistic rate, task by task to the
// microsecond, for the hand-off timing cases (spec §12): how real pools shrink, barge and
// reject where the zero-latency model (R47) does not. The harness runs it with --handoff
// (java/HandOffRun.java); SimulateHandOff replays the same submissions on the simulator, with
// or without a host wake-up latency.
type HandOffScript struct {
	// Pool is the pool: Kind jdk or tomcat, Queue linked or synchronous, rejection abort.
	Pool Pool
	// Tasks are the submissions in time order.
	Tasks []HandOffTask
	// SampleEvery is the sampler's period; End the end of the run.
	SampleEvery, End time.Duration
}

// HandOffTask is one submission: at At, a task that parks for Service.
type HandOffTask struct {
	At, Service time.Duration
}

// String renders the script in the harness's --handoff format.
func (s HandOffScript) String() string {
	var b strings.Builder
	p := s.Pool
	fmt.Fprintf(&b, "handoff kind=%s core=%d max=%d keepAliveMs=%d", p.Kind, p.Core, p.Max, p.KeepAliveMs)
	if p.Queue != "" {
		fmt.Fprintf(&b, " queue=%s", p.Queue)
	}
	if p.Queue == QueueSynchronous {
		fmt.Fprintf(&b, " fair=%v", p.Fair)
	}
	if p.Capacity > 0 && p.Capacity != Unbounded {
		fmt.Fprintf(&b, " capacity=%d", p.Capacity)
	}
	if p.AllowCoreThreadTimeOut {
		b.WriteString(" allowCoreThreadTimeOut=true")
	}
	fmt.Fprintf(&b, "\nsample everyMs=%d\nend atMs=%d\n", s.SampleEvery.Milliseconds(), s.End.Milliseconds())
	for _, t := range s.Tasks {
		fmt.Fprintf(&b, "a %d %d\n", t.At.Microseconds(), t.Service.Microseconds())
	}
	return b.String()
}

// HandOffResult is what one run of a HandOffScript did, real or simulated.
type HandOffResult struct {
	// Tasks are the submissions in order.
	Tasks []HandOffOutcome
	// Samples are the pool's state every SampleEvery.
	Samples []HandOffSample
	// Created are when the threads were created (from t=0).
	Created []time.Duration
	// SubmitLateMax and SubmitLateMean are how late the real submitter was.
	SubmitLateMax, SubmitLateMean time.Duration
	// IdleRejections are the rejections while a worker was not running a task: for a real
	// pool getPoolSize() − getActiveCount() > 0 at the rejection; for the simulator a worker
	// parked, waking, or matched and not yet awake (sim.WakeupSummary).
	IdleRejections int
}

// HandOffOutcome is what became of one submission: run on Worker (from 1) from Start to End,
// or rejected, with Idle workers (getPoolSize() − getActiveCount()) at that instant.
type HandOffOutcome struct {
	Worker             int
	Submit, Start, End time.Duration
	Rejected           bool
	Idle               int
}

// HandOffSample is the pool at T.
type HandOffSample struct {
	T                                time.Duration
	PoolSize, Active, Queue, Largest int
}

// RunHandOff runs the script on the real pool.
func (r Runner) RunHandOff(ctx context.Context, s HandOffScript) (*HandOffResult, error) {
	out, err := r.harness(ctx, s.String(), s.End+30*time.Second, "--handoff")
	if err != nil {
		return nil, err
	}
	return parseHandOff(out, len(s.Tasks))
}

func parseHandOff(out *bytes.Buffer, n int) (*HandOffResult, error) {
	res := &HandOffResult{Tasks: make([]HandOffOutcome, n)}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	us := func(s string) time.Duration {
		v, _ := strconv.ParseInt(s, 10, 64)
		return time.Duration(v) * time.Microsecond
	}
	seen := 0
	for sc.Scan() {
		f := strings.Split(sc.Text(), ",")
		atoi := func(i int) int { v, _ := strconv.Atoi(f[i]); return v }
		switch {
		case f[0] == "task" && len(f) == 6:
			id := atoi(1)
			if id < 1 || id > n {
				return nil, fmt.Errorf("conformance: handoff: task %d of %d", id, n)
			}
			t := &res.Tasks[id-1]
			t.Submit = us(f[3])
			if f[2] == "-1" {
				t.Rejected = true
			} else {
				t.Worker, t.Start, t.End = atoi(2), us(f[4]), us(f[5])
			}
			seen++
		case f[0] == "rejected" && len(f) == 4:
			res.Tasks[atoi(1)-1].Idle = atoi(3)
		case f[0] == "sample" && len(f) == 6:
			res.Samples = append(res.Samples, HandOffSample{T: time.Duration(atoi(1)) * time.Millisecond,
				PoolSize: atoi(2), Active: atoi(3), Queue: atoi(4), Largest: atoi(5)})
		case f[0] == "worker" && len(f) == 3:
			res.Created = append(res.Created, us(f[2]))
		case f[0] == "timing" && len(f) == 3 && f[1] == "submit_late_max_us":
			res.SubmitLateMax = us(f[2])
		case f[0] == "timing" && len(f) == 3 && f[1] == "submit_late_mean_us":
			res.SubmitLateMean = us(f[2])
		}
	}
	for _, t := range res.Tasks {
		if t.Rejected && t.Idle > 0 {
			res.IdleRejections++
		}
	}
	if seen == 0 && n > 0 {
		return nil, fmt.Errorf("conformance: handoff: the harness reported no task")
	}
	return res, sc.Err()
}

// SimulateHandOff replays submissions — the script's, or a real run's actual submit times
// (submits, if not nil) — on the simulator, with the host wake-up latency wake (nil: the
// ideal zero-latency model) drawn from seed's streams.
func SimulateHandOff(ctx context.Context, s HandOffScript, submits []time.Duration, wake *scenarios.Wakeup, seed uint64) (*HandOffResult, error) {
	cfg, preset, prefix, err := s.Pool.config()
	if err != nil {
		return nil, err
	}
	sc := &scenarios.Scenario{
		Name: "handoff", Seed: seed, Duration: s.End, Sample: s.SampleEvery, WorkloadForm: "trace",
		Pool: scenarios.Pool{Preset: preset, ThreadNamePrefix: prefix, Config: cfg},
		Host: scenarios.Host{Wakeup: wake},
	}
	arr := make([]workloads.Arrival, len(s.Tasks))
	for i, t := range s.Tasks {
		at := t.At
		if submits != nil {
			at = submits[i]
		}
		arr[i] = workloads.Arrival{At: at, Service: t.Service}
	}
	for i := 1; i < len(arr); i++ { // the real submitter's clock reads are in order; keep it so
		arr[i].At = max(arr[i].At, arr[i-1].At)
	}
	res := &HandOffResult{Tasks: make([]HandOffOutcome, len(s.Tasks))}
	var pool model.Executor
	obs := model.ObserverFunc(func(ev *model.Event) {
		switch ev.Kind {
		case model.Submitted:
			res.Tasks[ev.Task.ID-1].Submit = ev.At
		case model.WorkerChanged:
			if ev.From == model.Starting {
				res.Created = append(res.Created, ev.At)
			}
		case model.Rejected:
			t := &res.Tasks[ev.Task.ID-1]
			t.Rejected = true
			t.Idle = pool.Count(model.IdleTimed) + pool.Count(model.IdleUntimed)
		}
	})
	opts := sim.Options{
		Workload: &sliceSource{arr: arr}, Observer: obs, CheckInvariants: true,
		OnTask: func(e sim.TaskEvent) {
			t := &res.Tasks[e.TaskID-1]
			if e.End {
				t.End = e.T
			} else {
				t.Worker, t.Start = e.Worker, e.T
			}
		},
		OnSample: func(x sim.Sample) {
			res.Samples = append(res.Samples, HandOffSample{T: x.T, PoolSize: x.PoolSize, Active: x.Busy, Queue: x.Queue, Largest: x.Largest})
		},
	}
	e, err := sim.NewEngine(sc, opts)
	if err != nil {
		return nil, err
	}
	pool = e.Pool()
	out, err := e.Run(ctx)
	if err != nil {
		return nil, err
	}
	if w := out.Summary.Wakeup; w != nil {
		res.IdleRejections = int(w.IdleRejections)
	}
	return res, nil
}

// sliceSource is a workload of given arrivals.
type sliceSource struct {
	arr []workloads.Arrival
	i   int
}

func (s *sliceSource) Next() (workloads.Arrival, bool) {
	if s.i >= len(s.arr) {
		return workloads.Arrival{}, false
	}
	s.i++
	return s.arr[s.i-1], true
}
func (s *sliceSource) Err() error   { return nil }
func (s *sliceSource) Close() error { return nil }

// MeasuredWakeup is the host wake-up timing a real run shows, as quantile laws: the latency
// from the submission to the start of the tasks submitted after from to an idle worker (one
// that had finished its previous task), the race window (RaceWindow) and how much longer than
// their service the tasks ran.
func (r *HandOffResult) MeasuredWakeup(s HandOffScript, from time.Duration) scenarios.Wakeup {
	var lat, over []time.Duration
	r.ranTasks(func(i int, t HandOffOutcome, prevEnd time.Duration, hadPrev bool) {
		if t.Submit < from {
			return
		}
		if hadPrev && prevEnd <= t.Submit {
			lat = append(lat, t.Start-t.Submit)
		}
		over = append(over, max(t.End-t.Start-s.Tasks[i].Service, 0))
	})
	o := quantileLaw(over)
	w := scenarios.Wakeup{Latency: quantileLaw(lat), Overrun: &o}
	if s.Pool.Queue != QueueSynchronous { // a matched worker's task is never taken (R120)
		race := r.RaceWindow(from)
		w.Race = &race
	}
	return w
}

// RaceWindow is the law of the race window R (host.wakeup.race, R113) a real run shows:
// how long after a submission to idle workers a worker returning from its task still takes
// it. Each task submitted after from to a pool with idle workers is one observation of
// "current status" data: δ, from its submission to the first end of a task after it, and
// whether the worker that ran it was still running its previous task at the submission
// (barged: then R > δ, else R ≤ δ). The survival P(R > δ) is estimated by its
// non-parametric maximum likelihood, the non-increasing fit of the barged indicators
// ordered by δ (pool-adjacent-violators), and read off as quantiles. It assumes what the
// hand-off cases have: idle workers at every submission, so a task taken by a returning
// worker was taken from a signalled one.
func (r *HandOffResult) RaceWindow(from time.Duration) workloads.ServiceSpec {
	ends := r.ends()
	var xs []raceObs
	r.ranTasks(func(_ int, t HandOffOutcome, prevEnd time.Duration, hadPrev bool) {
		if !hadPrev || t.Submit < from {
			return
		}
		if i, _ := slices.BinarySearch(ends, t.Submit+1); i < len(ends) {
			xs = append(xs, raceObs{ends[i] - t.Submit, prevEnd > t.Submit})
		}
	})
	return raceLaw(xs)
}

// ranTasks calls fn for every task that ran, in submission order (a worker's tasks start in
// that order too), with the end of its worker's previous task (hadPrev: it had one). A task
// whose worker's previous task ended after its submission was taken by that worker as it came
// back from it: barged, where idle workers were waiting (R113).
func (r *HandOffResult) ranTasks(fn func(i int, t HandOffOutcome, prevEnd time.Duration, hadPrev bool)) {
	last := map[int]time.Duration{}
	for i, t := range r.Tasks {
		if t.Rejected || t.Worker == 0 {
			continue
		}
		prev, ok := last[t.Worker]
		fn(i, t, prev, ok)
		last[t.Worker] = t.End
	}
}

// ends are the ends of the tasks that ran, in time order.
func (r *HandOffResult) ends() []time.Duration {
	var ends []time.Duration
	for _, t := range r.Tasks {
		if !t.Rejected && t.Worker != 0 {
			ends = append(ends, t.End)
		}
	}
	slices.Sort(ends)
	return ends
}

// raceObs is one current-status observation of the race window: the next task ended d after a
// submission, and its task was or was not taken by a returning worker (then R > d).
type raceObs struct {
	d      time.Duration
	barged bool
}

// raceLaw is the maximum-likelihood law of R from current-status observations (RaceWindow),
// as quantile points.
func raceLaw(xs []raceObs) workloads.ServiceSpec {
	xs = slices.Clone(xs)
	slices.SortStableFunc(xs, func(a, b raceObs) int { return cmp.Compare(a.d, b.d) })
	// Pool-adjacent-violators: blocks of consecutive observations whose mean barged share
	// does not increase with δ.
	type block struct {
		n, barged float64
		lo        time.Duration // the least δ of the block
	}
	var bs []block
	for _, x := range xs {
		b := block{1, 0, x.d}
		if x.barged {
			b.barged = 1
		}
		bs = append(bs, b)
		for len(bs) > 1 {
			p, q := bs[len(bs)-2], bs[len(bs)-1]
			if p.barged/p.n > q.barged/q.n {
				break
			}
			bs = append(bs[:len(bs)-2], block{p.n + q.n, p.barged + q.barged, p.lo})
		}
	}
	// P(R > δ) is block k's share on [lo_k, lo_{k+1}); below the first block it is the first
	// block's. The quantile at u is the least δ where 1 − P(R > δ) ≥ u: the lo of the first
	// block whose share is at most 1 − u (within rounding: 1 − 0.9 is not 0.1 in floating
	// point), or, past the last block, the greatest δ seen.
	spec := workloads.ServiceSpec{Dist: "quantiles"}
	var maxD time.Duration
	if len(xs) > 0 {
		maxD = xs[len(xs)-1].d
	}
	for _, u := range []float64{0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.93, 0.95, 0.96, 0.97, 0.98, 0.985, 0.99, 0.995, 0.998, 0.999, 1} {
		v := maxD
		for k, b := range bs {
			if b.barged/b.n <= 1-u+1e-9 {
				v = b.lo
				if k == 0 {
					v = 0
				}
				break
			}
		}
		spec.Points = append(spec.Points, workloads.QuantilePoint{Q: u, Value: v})
	}
	return spec
}

// quantileLaw is the quantiles law of the samples xs (at least one).
func quantileLaw(xs []time.Duration) workloads.ServiceSpec {
	slices.Sort(xs)
	s := workloads.ServiceSpec{Dist: "quantiles"}
	if len(xs) == 0 {
		xs = []time.Duration{0}
	}
	for _, q := range []float64{0, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.995, 0.999, 1} {
		v := xs[int(q*float64(len(xs)-1))]
		if n := len(s.Points); n > 0 && v < s.Points[n-1].Value {
			v = s.Points[n-1].Value
		}
		s.Points = append(s.Points, workloads.QuantilePoint{Q: q, Value: v})
	}
	return s
}
