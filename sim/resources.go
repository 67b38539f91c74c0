package sim

import (
	"errors"
	"math"
	"math/rand/v2"
	"time"

	"github.com/poolsim/poolsim/model"
	"github.com/poolsim/poolsim/scenarios"
	"github.com/poolsim/poolsim/workloads"
)

// This file drives the scenario's resources (scenarios.Resource, model's
// HikariPool and Semaphore): it builds them, hears their events, keeps
// their timers in a heap of their own, draws what they cannot (a
// connection's connect time and lifetime jitter), and records their state.

// Resource timer kinds, the order of their events at one instant.
const (
	resTimer = iota // the resource's own timer: house-keeper, a creation's end, a lifetime
	resWait         // a waiting borrower's deadline
)

// resEntry is a resource event waiting in the resource heap.
type resEntry struct {
	at   time.Duration
	key  uint64 // kind<<56 | seq
	res  int32
	arg  uint64 // the timer's id, or the borrower
	kind uint8
}

func (a *resEntry) less(b *resEntry) bool { return a.at < b.at || (a.at == b.at && a.key < b.key) }

// resHeap is a binary min-heap of resource events. Resources are few and
// their events rare next to tasks', so they keep out of the main heap.
type resHeap struct {
	es  []resEntry
	seq uint64
}

func (h *resHeap) push(x resEntry) {
	h.seq++
	x.key = uint64(x.kind)<<56 | h.seq
	h.es = append(h.es, x)
	for k := len(h.es) - 1; k > 0; {
		p := (k - 1) / 2
		if !h.es[k].less(&h.es[p]) {
			break
		}
		h.es[k], h.es[p] = h.es[p], h.es[k]
		k = p
	}
}

func (h *resHeap) pop() resEntry {
	top := h.es[0]
	n := len(h.es) - 1
	h.es[0] = h.es[n]
	h.es = h.es[:n]
	for k := 0; ; {
		l := 2*k + 1
		if l >= n {
			break
		}
		c := l
		if r := l + 1; r < n && h.es[r].less(&h.es[l]) {
			c = r
		}
		if !h.es[c].less(&h.es[k]) {
			break
		}
		h.es[k], h.es[c] = h.es[c], h.es[k]
		k = c
	}
	return top
}

// pushResource schedules a resource event and keeps the resource phase's
// pending time up to date.
func (e *Engine) pushResource(at time.Duration, r int, kind uint8, arg uint64) {
	e.rh.push(resEntry{at: at, res: int32(r), arg: arg, kind: kind})
	e.setDue(phaseResource, e.rh.es[0].at)
}

// fireResource handles the earliest resource event.
func (e *Engine) fireResource() {
	x := e.rh.pop()
	next := never
	if len(e.rh.es) > 0 {
		next = e.rh.es[0].at
	}
	e.setDue(phaseResource, next)
	if x.kind == resTimer {
		e.res[x.res].TimerFired(x.at, x.arg)
	} else {
		e.res[x.res].WaitExpired(x.at, model.Borrower(x.arg))
	}
}

// resListener hears one resource's events.
type resListener struct {
	e *Engine
	i int
}

func (l *resListener) Observe(ev *model.Event) {
	e, r, x := l.e, l.i, ev.Res
	switch ev.Kind {
	case model.ResourceGranted:
		e.granted(ev.At, r, x.Borrower)
	case model.ResourceWaiting:
		e.waitingFor(ev.At, r, x.Borrower, x.Deadline)
	case model.ResourceTimedOut:
		e.refused(ev.At, r, x.Borrower)
	case model.ResourceTimer:
		e.pushResource(x.Deadline, r, resTimer, x.Timer)
	case model.ConnectionCreating:
		x.Draw.Connect = e.connect[r].Sample()
		x.Draw.Jitter = e.jitter[r].Float64()
	case model.ConnectionOpened:
		e.rec.res[r].opened++
	case model.ConnectionClosed:
		e.rec.res[r].closed++
	}
	if len(e.observers) > 0 {
		e.fanOut(ev)
	}
}

// newResources builds the scenario's resources at time 0, each with its
// own streams ("connect:NAME", "lifetime:NAME").
func (e *Engine) newResources(sc *scenarios.Scenario) error {
	e.resIndex = map[string]int{}
	for i, spec := range sc.Resources {
		e.resIndex[spec.Name] = i
		e.rec.res = append(e.rec.res, newResRecord(spec))
		l := &resListener{e, i}
		switch spec.Type {
		case "executor":
			ce, err := newCalledExecutor(spec.Name, spec.Pool.Config, l)
			if err != nil {
				var cerr *model.ConfigError
				if errors.As(err, &cerr) {
					cerr.Field = spec.Name + ".pool." + cerr.Field
				}
				return err
			}
			e.connect = append(e.connect, nil)
			e.jitter = append(e.jitter, nil)
			e.resMaxWait = append(e.resMaxWait, model.Forever) // Future.get()
			e.res = append(e.res, ce)
		case "hikari":
			d, err := workloads.NewDistribution(spec.Connect, workloads.NewStream(sc.Seed, "connect:"+spec.Name))
			if err != nil {
				if pe, ok := err.(*workloads.ParamError); ok {
					pe.Field = spec.Name + ".connect." + pe.Field
				}
				return err
			}
			e.connect = append(e.connect, d)
			e.jitter = append(e.jitter, rand.New(workloads.NewStream(sc.Seed, "lifetime:"+spec.Name)))
			e.resMaxWait = append(e.resMaxWait, model.Forever) // its connectionTimeout
			e.res = append(e.res, nil)
			e.res[i] = model.NewHikariPool(0, spec.Name, spec.Hikari, l)
		default: // semaphore, bulkhead
			e.connect = append(e.connect, nil)
			e.jitter = append(e.jitter, nil)
			e.resMaxWait = append(e.resMaxWait, spec.MaxWait)
			e.res = append(e.res, model.NewSemaphore(spec.Name, spec.Permits, spec.Fair, l))
		}
	}
	return nil
}

// resRecord is what the recorder keeps of one resource.
type resRecord struct {
	spec scenarios.Resource
	cur  model.ResourceStats // after the last event

	// Over the whole run.
	acquisitions, timeouts, opened, closed int64

	// Steady state: time-weighted areas (count × nanoseconds), maxima, and
	// the acquisitions' waits (from asking to getting or giving up).
	areaInUse, areaIdle, areaWaiters, areaTotal float64
	waitersMax                                  int
	nAcq, nWaited                               int64
	waitSum                                     float64
	waitMax                                     time.Duration
	wait                                        *durHist
}

func newResRecord(spec scenarios.Resource) resRecord {
	return resRecord{spec: spec, wait: histograms.Get().(*durHist)}
}

// resWait records the end of one acquisition — granted or refused — after
// a wait of d (0: at once).
func (rec *recorder) resWait(r *resRecord, now, d time.Duration) {
	r.acquisitions++
	if !rec.steady(now) {
		return
	}
	r.nAcq++
	if d > 0 {
		r.nWaited++
	}
	r.waitSum += float64(d)
	r.waitMax = max(r.waitMax, d)
	r.wait.record(d)
}

// advanceResources integrates the resources' state and the blocked
// workers over [from, to) of the steady state.
func (rec *recorder) advanceResources(dt float64) {
	rec.areaBlocked += float64(rec.blocked) * dt
	for i := range rec.res {
		r := &rec.res[i]
		r.areaInUse += float64(r.cur.InUse) * dt
		r.areaIdle += float64(r.cur.Idle) * dt
		r.areaWaiters += float64(r.cur.Waiters) * dt
		r.areaTotal += float64(r.cur.Total) * dt
	}
}

// settleResources reads the resources' state after an event.
func (e *Engine) settleResources(now time.Duration) {
	rec := e.rec
	steady := rec.steady(now)
	for i, res := range e.res {
		r := &rec.res[i]
		r.cur = res.Stats()
		if steady {
			r.waitersMax = max(r.waitersMax, r.cur.Waiters)
		}
	}
	if steady {
		rec.blockedMax = max(rec.blockedMax, rec.blocked)
	}
}

// ResourceSummary is one resource's report (summary.json "resources").
type ResourceSummary struct {
	Name string `json:"name"`
	Type string `json:"type"`
	// Size is the most units there can be: maximumPoolSize, permits.
	Size int `json:"size"`
	// Whole run: acquisitions tried, failed (timed out, or could not
	// wait), connections opened and closed.
	Acquisitions int64 `json:"acquisitions"`
	Timeouts     int64 `json:"timeouts"`
	Opened       int64 `json:"connections_opened"`
	Closed       int64 `json:"connections_closed"`
	// Steady state: units in use, idle, existing, and waiting borrowers,
	// on average; the most waiters; the share of acquisitions that had to
	// wait, and their wait.
	InUseMean   Stat     `json:"in_use_mean"`
	IdleMean    Stat     `json:"idle_mean"`
	TotalMean   Stat     `json:"total_mean"`
	WaitersMean Stat     `json:"waiters_mean"`
	WaitersMax  int      `json:"waiters_max"`
	Utilization Stat     `json:"utilization"`
	WaitedShare Stat     `json:"waited_share"`
	WaitMean    Stat     `json:"wait_mean_s"`
	WaitP99     Stat     `json:"wait_p99_s"`
	WaitMax     Stat     `json:"wait_max_s"`
	Notes       []string `json:"notes,omitempty"`
}

// resourceSummaries reports every resource.
func (e *Engine) resourceSummaries(st steady) []ResourceSummary {
	var out []ResourceSummary
	for i := range e.rec.res {
		r := &e.rec.res[i]
		size := r.spec.Permits
		switch r.spec.Type {
		case "hikari":
			size = r.spec.Hikari.MaximumPoolSize
		case "executor":
			size = executorThreads(r.spec.Pool.Config)
		}
		s := ResourceSummary{Name: r.spec.Name, Type: r.spec.Type, Size: size,
			Acquisitions: r.acquisitions, Timeouts: r.timeouts, Opened: r.opened, Closed: r.closed,
			InUseMean: st.mean(r.areaInUse), IdleMean: st.mean(r.areaIdle), TotalMean: st.mean(r.areaTotal),
			WaitersMean: st.mean(r.areaWaiters), WaitersMax: r.waitersMax,
			WaitMean: avg(r.waitSum, r.nAcq), WaitP99: Stat(quantile(r.wait, r.nAcq, 0.99, r.waitMax)),
			WaitMax: maxOf(r.waitMax, r.nAcq), WaitedShare: Stat(math.NaN()), Utilization: Stat(math.NaN()),
			Notes: r.spec.Notes}
		if r.nAcq > 0 {
			s.WaitedShare = Stat(float64(r.nWaited) / float64(r.nAcq))
		}
		if size > 0 {
			s.Utilization = Stat(float64(s.InUseMean) / float64(size))
		}
		out = append(out, s)
	}
	return out
}

// executorThreads is the most threads a called executor runs: max when
// its pool grows to it — a SynchronousQueue or a bounded queue (R6), a
// Tomcat or Jetty pool — else core, an unbounded queue keeping it there
// (R7), and at least the one thread a pool of core 0 starts for a queued
// task (R5); 0 (no ceiling) for an unbounded max.
func executorThreads(c model.Config) int {
	n := c.Max
	if c.Flavor == model.JDK && c.Queue != model.Synchronous && c.QueueCapacity == model.Unbounded {
		n = max(c.Core, 1)
	}
	if n >= model.Unbounded {
		return 0
	}
	return n
}
