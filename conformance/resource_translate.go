package conformance

import (
	"container/heap"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/poolsim/poolsim/model"
)

// This file runs a ResourceScript on poolsim's model — model.HikariPool (as HikariCP 2.7.9) or
// model.Semaphore — and returns what happened in the harness's shape. The model is a pure
// state machine; the small event loop here plays the borrower threads, the clock and the
// timers the model asks for, as sim's engine does for a scenario's resources (whose borrowers
// are a pool's tasks, not named threads, which is why the script is not replayed there).

// Event phases at one instant, in the order they run (the real threads race; the scripts keep
// such coincidences apart, TestResourceScriptsAreWellSpaced).
const (
	resPhaseRelease = iota // a hold ends: close or release
	resPhaseTimer          // the resource's own timer: house-keeper, a creation's end, a lifetime
	resPhaseWait           // a waiting borrower's deadline
	resPhaseSet            // a set directive (HikariConfigMXBean)
	resPhaseBorrow         // a thread's next borrow
)

// resEvent is one event of the loop; arg is the borrow's index, the timer's id, the borrower or
// the set's index.
type resEvent struct {
	at    time.Duration
	phase int
	seq   uint64
	arg   uint64
}

type resQueue []resEvent

func (q resQueue) Len() int { return len(q) }
func (q resQueue) Less(i, j int) bool {
	a, b := q[i], q[j]
	if a.at != b.at {
		return a.at < b.at
	}
	if a.phase != b.phase {
		return a.phase < b.phase
	}
	return a.seq < b.seq
}
func (q resQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *resQueue) Push(x any)   { *q = append(*q, x.(resEvent)) }
func (q *resQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}

// resDriver plays a ResourceScript on a model resource.
type resDriver struct {
	s      ResourceScript
	res    model.Resource
	hikari *model.HikariPool // nil for a Semaphore
	now    time.Duration
	q      resQueue
	seq    uint64
	out    *Result
	trans  []time.Duration

	threads  map[string]model.Thread
	byThread map[string][]int // borrow indexes, file order
	next     map[string]int   // the thread's next borrow, as an index into byThread
	connect  map[int]float64  // ConnectionCreating times, by connection number
	nextUnit int
}

func (d *resDriver) push(at time.Duration, phase int, arg uint64) {
	d.seq++
	heap.Push(&d.q, resEvent{at: at, phase: phase, seq: d.seq, arg: arg})
}

// Observe hears the model's events.
func (d *resDriver) Observe(ev *model.Event) {
	r := ev.Res
	if ev.Kind != model.ResourceTimer { // a timer asked for changes nothing yet
		d.trans = append(d.trans, ev.At)
	}
	switch ev.Kind {
	case model.ResourceGranted:
		i := int(r.Borrower) - 1
		b := &d.out.Borrows[i]
		b.GotMs, b.Unit = durMs(ev.At), r.Unit
		d.push(ev.At+msDur(d.s.Borrows[i].HoldMs), resPhaseRelease, uint64(i))
	case model.ResourceWaiting:
		if r.Deadline != model.Forever {
			d.push(r.Deadline, resPhaseWait, uint64(r.Borrower))
		}
	case model.ResourceTimedOut:
		i := int(r.Borrower) - 1
		d.out.Borrows[i].FailedMs = durMs(ev.At)
		d.threadFree(d.s.Borrows[i].Thread, ev.At)
	case model.ResourceTimer:
		d.push(r.Deadline, resPhaseTimer, r.Timer)
	case model.ConnectionCreating:
		// The script's connect time; no maxLifetime variance (HikariCP draws none for a
		// maxLifetime of 10 s or less, the only ones the scripts end within, R156).
		r.Draw.Connect, r.Draw.Jitter = msDur(d.s.Resource.ConnectMs), 0
		d.nextUnit++
		d.connect[d.nextUnit] = durMs(ev.At)
	case model.ConnectionOpened:
		d.out.Connections = append(d.out.Connections, Connection{Unit: r.Unit, ConnectMs: d.connect[r.Unit],
			OpenedMs: durMs(ev.At), ClosedMs: math.NaN()})
	case model.ConnectionClosed:
		for k := range d.out.Connections {
			if d.out.Connections[k].Unit == r.Unit {
				d.out.Connections[k].ClosedMs = durMs(ev.At)
			}
		}
	}
}

// threadFree schedules the thread's next borrow: at its time, or now if that has passed.
func (d *resDriver) threadFree(th string, now time.Duration) {
	k := d.next[th]
	if k >= len(d.byThread[th]) {
		return
	}
	d.next[th] = k + 1
	i := d.byThread[th][k]
	d.push(max(msDur(d.s.Borrows[i].AtMs), now), resPhaseBorrow, uint64(i))
}

func msDur(ms int64) time.Duration { return time.Duration(ms) * time.Millisecond }

func durMs(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// hikariConfig is the model's configuration for the script's HikariCP, after
// HikariConfig.Normalize (validateNumerics, R150), with any notes it made.
func (r Resource) hikariConfig() (model.HikariConfig, []string) {
	cfg := model.HikariConfig{MaximumPoolSize: r.MaximumPoolSize, MinimumIdle: r.MinimumIdle,
		ConnectionTimeout: msDur(r.ConnectionTimeoutMs), IdleTimeout: msDur(r.IdleTimeoutMs), MaxLifetime: msDur(r.MaxLifetimeMs),
		HousekeepingPeriod: msDur(r.HousekeepingMs), Version: model.Hikari279}
	return cfg.Normalize()
}

// SimulateResource runs the resource script on poolsim's model, with its invariant checks
// after every event, and returns what happened in the harness's shape: ResourceSamples at
// SampleTimes (after every event at that instant), Borrows in file order, Connections in
// creation order (the constructor's first one at 0), Config as the model runs it (HikariCP:
// after HikariConfig.Normalize), and Events for the set directives and the end. The model has
// no latencies: a connection opens exactly ConnectMs after the pool asks for it, the
// house-keeper runs at exactly 100 ms + k · HousekeepingMs, a hand-off is instant (R47).
// Transitions are the instants at which the model did anything, a borrow started or a set
// was made. Summary is left empty.
func SimulateResource(s ResourceScript) (*Simulation, error) {
	if s.EndMs <= 0 {
		return nil, fmt.Errorf("conformance: simulate resource: end at %d ms: must be > 0", s.EndMs)
	}
	d := &resDriver{s: s, out: &Result{Timing: map[string]string{}, Config: map[string]int64{}},
		threads: map[string]model.Thread{}, byThread: map[string][]int{}, next: map[string]int{}, connect: map[int]float64{}}
	for i, th := range s.threads() {
		d.threads[th] = model.Thread(i + 1)
	}
	ids := map[int]bool{}
	for i, u := range s.Borrows {
		if ids[u.ID] || u.ID < 1 {
			return nil, fmt.Errorf("conformance: simulate resource: borrow %d: id %d is not unique and positive", i+1, u.ID)
		}
		ids[u.ID] = true
		if i > 0 && u.AtMs < s.Borrows[i-1].AtMs {
			return nil, fmt.Errorf("conformance: simulate resource: borrow %d at %d ms: before the previous one", u.ID, u.AtMs)
		}
		d.byThread[u.Thread] = append(d.byThread[u.Thread], i)
		d.out.Borrows = append(d.out.Borrows, BorrowResult{ID: u.ID, Thread: u.Thread, StartMs: math.NaN(), GotMs: math.NaN(),
			Unit: -1, FailedMs: math.NaN(), ReleasedMs: math.NaN()})
	}
	switch s.Resource.Kind {
	case ResourceHikari:
		cfg, _ := s.Resource.hikariConfig()
		d.hikari = model.NewHikariPool(0, "poolsim", cfg, d)
		d.res = d.hikari
		for k, v := range map[string]time.Duration{"connectionTimeoutMs": cfg.ConnectionTimeout, "idleTimeoutMs": cfg.IdleTimeout,
			"maxLifetimeMs": cfg.MaxLifetime, "housekeepingMs": cfg.HousekeepingPeriod} {
			d.out.Config[k] = v.Milliseconds()
		}
		d.out.Config["maximumPoolSize"], d.out.Config["minimumIdle"] = int64(cfg.MaximumPoolSize), int64(cfg.MinimumIdle)
	case ResourceSemaphore:
		if len(s.Sets) > 0 {
			return nil, fmt.Errorf("conformance: simulate resource: a Semaphore has no setters")
		}
		d.res = model.NewSemaphore("poolsim", s.Resource.Permits, s.Resource.Fair, d)
		d.out.Config["permits"], d.out.Config["fair"] = int64(s.Resource.Permits), 0
		if s.Resource.Fair {
			d.out.Config["fair"] = 1
		}
	default:
		return nil, fmt.Errorf("conformance: simulate resource: unknown kind %q", s.Resource.Kind)
	}
	d.trans = nil // the constructor's connection opens before t=0 in the real pool
	for th := range d.byThread {
		d.threadFree(th, 0)
	}
	for i, e := range s.Sets {
		d.push(msDur(e.AtMs), resPhaseSet, uint64(i))
	}
	end := msDur(s.EndMs)
	times := s.SampleTimes()
	k := 0
	for {
		nextAt := model.Forever
		if len(d.q) > 0 {
			nextAt = d.q[0].at
		}
		for ; k < len(times) && msDur(times[k]) < nextAt; k++ {
			d.sample(times[k])
		}
		if len(d.q) == 0 || nextAt > end {
			break
		}
		ev := heap.Pop(&d.q).(resEvent)
		d.now = ev.at
		if err := d.step(ev); err != nil {
			return nil, err
		}
		d.res.CheckInvariants()
	}
	for ; k < len(times); k++ {
		d.sample(times[k])
	}
	for i := range d.out.Borrows {
		b := &d.out.Borrows[i]
		b.Unfinished = !math.IsNaN(b.StartMs) && math.IsNaN(b.FailedMs) && math.IsNaN(b.ReleasedMs)
	}
	for _, e := range s.Sets {
		d.out.Events = append(d.out.Events, Event{AtMs: e.AtMs, ActualMs: float64(e.AtMs), Kind: "set", Detail: changesText(e.Changes)})
	}
	d.out.Events = append(d.out.Events, Event{AtMs: s.EndMs, ActualMs: float64(s.EndMs), Kind: "end"})
	slices.Sort(d.trans)
	return &Simulation{Result: d.out, Transitions: slices.Compact(d.trans)}, nil
}

// step runs one event.
func (d *resDriver) step(ev resEvent) error {
	switch ev.phase {
	case resPhaseRelease:
		i := int(ev.arg)
		u := d.s.Borrows[i]
		d.trans = append(d.trans, d.now)
		d.out.Borrows[i].ReleasedMs = durMs(d.now)
		d.res.Release(d.now, model.Borrower(i+1), d.threads[u.Thread])
		d.threadFree(u.Thread, d.now)
	case resPhaseTimer:
		d.res.TimerFired(d.now, ev.arg)
	case resPhaseWait:
		d.res.WaitExpired(d.now, model.Borrower(ev.arg))
	case resPhaseSet:
		d.trans = append(d.trans, d.now)
		for _, c := range d.s.Sets[ev.arg].Changes {
			v, err := strconv.ParseInt(c.Value, 10, 64)
			if err != nil || d.hikari == nil {
				return fmt.Errorf("conformance: simulate resource: set %s=%s: not a HikariCP setter", c.Key, c.Value)
			}
			switch c.Key {
			case "idleTimeoutMs":
				d.hikari.SetIdleTimeout(msDur(v))
			case "maxLifetimeMs":
				d.hikari.SetMaxLifetime(msDur(v))
			default:
				return fmt.Errorf("conformance: simulate resource: set %s: unknown key (idleTimeoutMs, maxLifetimeMs)", c.Key)
			}
		}
	case resPhaseBorrow:
		i := int(ev.arg)
		u := d.s.Borrows[i]
		d.trans = append(d.trans, d.now)
		d.out.Borrows[i].StartMs = durMs(d.now)
		timeout := model.Forever // HikariCP: its connectionTimeout; Semaphore: acquire()
		if u.Timed {
			timeout = msDur(u.TimeoutMs)
		}
		d.res.Acquire(d.now, model.Borrower(i+1), d.threads[u.Thread], timeout)
	}
	return nil
}

// sample records the model's state at tMs.
func (d *resDriver) sample(tMs int64) {
	st := d.res.Stats()
	d.out.ResourceSamples = append(d.out.ResourceSamples, ResourceSample{TMs: tMs, Total: st.Total, Active: st.InUse,
		Idle: st.Idle, Waiting: st.Waiters})
}
