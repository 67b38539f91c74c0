package sim

import (
	"math"
	"time"

	"github.com/poolsim/poolsim/model"
)

// What the machine adds to the pool model (scenarios.Host): the time
// Thread.start() costs its caller, and processors shared by the CPU parts
// of running tasks.
//
// Thread starts. Each thread the model creates costs host.threadStart of
// its caller's time, one after another when one call starts several: the
// submitter inside execute (so later submissions wait, as CallerRuns makes
// them wait), the worker that runs processWorkerExit for a replacement, the
// thread calling a setter, or the constructor for prestarted threads. The
// new thread runs nothing before its start has passed (workerState.ready): a
// task handed to it earlier begins then. Simplification: the model sees
// the new worker at once (it is in workers and counted in wc, as in the
// JDK), and a task-less new worker is parked — reachable by an offer —
// while its start is still in progress, where the JDK thread would not yet
// be waiting in the queue; the task it receives still begins only when the
// thread is up. Thread starts use no simulated CPU.
//
// CPUs. With host.cpus = c, a task with a CPU part (a split service law)
// runs its pieces in order; every task currently in a CPU piece is
// "runnable", and with n runnable tasks each progresses at rate
// min(1, c/n): processor sharing, the idealised fair scheduler. It is run
// on a virtual clock v, the CPU service each runnable task has received:
// dv/dt = min(1, c/n). A CPU piece of demand d that begins when the clock
// reads v ends when it reads v + d, its tag, whatever n does meanwhile, so
// runnable tasks sit in a heap by tag and a change in n costs O(log n)
// (the heap) instead of a rescan. One CPU timer in the event heap predicts
// the smallest tag's end in real time; when n grows the prediction only
// moves later and the pending timer is kept (it fires early and re-arms),
// when it moves earlier a new timer is pushed and the old one goes stale:
// the lazy rescheduling of keepAlive timers. v is a float64 of nanoseconds
// reset to 0 whenever the CPUs fall idle, so it stays small. Blocking
// pieces, and the whole service of a task with a plain law, take their own
// time and no CPU. Tasks run by the caller (caller-runs) take their service
// time on the submitter and use no simulated CPU.

// cpuJob is a task running on a host with a CPU limit.
type cpuJob struct {
	w      *model.Worker
	cpu    time.Duration // the task's CPU part
	block  time.Duration // its blocking part
	slices int16         // pieces: cpu/slices, block/slices, cpu/slices, ...
	next   int16         // the piece whose CPU part begins next
	tag    float64       // while runnable: the virtual time its CPU piece ends
	seq    uint64        // tie-break among equal tags: the order pieces began
	joined time.Duration // when its current CPU piece began
	onCPU  time.Duration // wall time spent in CPU pieces so far
	inCPU  bool          // runnable: in the heap
}

// cpuSched is processor sharing on c CPUs (see above).
type cpuSched struct {
	c       int
	v       float64       // virtual time, nanoseconds of CPU service
	last    time.Duration // when v was last brought up to date
	ps      []int32       // min-heap of runnable jobs by (tag, seq)
	jobs    []cpuJob      // slots; a worker's workerState.job is 1 + its slot
	free    []int32
	seq     uint64
	timerAt time.Duration // the CPU timer in the event heap that counts (never: none)
	dirty   bool          // the runnable set changed: re-arm the timer
	areaAt  time.Duration // the recorder's CPU integrals run up to here
}

func newCPUSched(c int) *cpuSched { return &cpuSched{c: c, timerAt: never} }

// runnable is the number of tasks in a CPU piece.
func (s *cpuSched) runnable() int { return len(s.ps) }

// advance brings the virtual clock up to now.
func (s *cpuSched) advance(now time.Duration) {
	if now <= s.last {
		return
	}
	if n := len(s.ps); n > 0 {
		dt := float64(now - s.last)
		if n > s.c {
			dt = float64(dt*float64(s.c)) / float64(n)
		}
		s.v += dt
	}
	s.last = now
}

// realTime converts a virtual-time span into wall time at the current rate.
func (s *cpuSched) realTime(dv float64) float64 {
	if n := len(s.ps); n > s.c {
		return float64(dv*float64(n)) / float64(s.c)
	}
	return dv
}

// due reports whether job k's CPU piece has (all but) ended: less than half
// a nanosecond of wall time remains, the rounding of the timer.
func (s *cpuSched) due(k int32) bool { return s.realTime(s.jobs[k].tag-s.v) < 0.5 }

func (s *cpuSched) less(a, b int32) bool {
	ja, jb := &s.jobs[a], &s.jobs[b]
	if ja.tag != jb.tag {
		return ja.tag < jb.tag
	}
	return ja.seq < jb.seq
}

// join makes job k runnable with a CPU piece of demand d, at now.
func (s *cpuSched) join(now time.Duration, k int32, d time.Duration) {
	s.advance(now)
	s.seq++
	j := &s.jobs[k]
	j.tag, j.seq, j.joined, j.inCPU = s.v+float64(d), s.seq, now, true
	s.ps = append(s.ps, k)
	for i := len(s.ps) - 1; i > 0; {
		p := (i - 1) / 2
		if !s.less(s.ps[i], s.ps[p]) {
			break
		}
		s.ps[i], s.ps[p] = s.ps[p], s.ps[i]
		i = p
	}
	s.dirty = true
}

// pop removes the runnable job with the smallest tag.
func (s *cpuSched) pop() int32 {
	top := s.ps[0]
	n := len(s.ps) - 1
	s.ps[0] = s.ps[n]
	s.ps = s.ps[:n]
	for i := 0; ; {
		l := 2*i + 1
		if l >= n {
			break
		}
		c := l
		if r := l + 1; r < n && s.less(s.ps[r], s.ps[l]) {
			c = r
		}
		if !s.less(s.ps[c], s.ps[i]) {
			break
		}
		s.ps[i], s.ps[c] = s.ps[c], s.ps[i]
		i = c
	}
	s.dirty = true
	return top
}

func (s *cpuSched) alloc() int32 {
	if n := len(s.free); n > 0 {
		k := s.free[n-1]
		s.free = s.free[:n-1]
		return k
	}
	s.jobs = append(s.jobs, cpuJob{})
	return int32(len(s.jobs) - 1)
}

func (s *cpuSched) release(k int32) {
	s.jobs[k] = cpuJob{}
	s.free = append(s.free, k)
}

// piece returns the i-th of k equal pieces of total (the first total%k
// pieces are a nanosecond longer), so the pieces add up to total exactly.
func piece(total time.Duration, k, i int16) time.Duration {
	p := total / time.Duration(k)
	if time.Duration(i) < total%time.Duration(k) {
		p++
	}
	return p
}

// hostStart schedules t, just handed to w at now, on the host: it begins
// when w's thread is up, and its CPU parts run on the CPUs. It returns when
// the task begins.
func (e *Engine) hostStart(now time.Duration, w *model.Worker, t *model.Task) time.Duration {
	ws := &e.ws[w.Slot()]
	start := max(now, ws.ready, ws.woke) // a thread still starting, or still waking, runs the task when it is up
	if e.cpu != nil && t.CPU > 0 {
		e.startJob(now, start, w, t)
	} else {
		e.h.push(start+t.Service+e.overrun(), phaseCompletion, w)
	}
	return start
}

// startJob begins running t on w from start (later than now while w's
// thread is still starting) on the host's CPUs.
func (e *Engine) startJob(now, start time.Duration, w *model.Worker, t *model.Task) {
	s := e.cpu
	k := s.alloc()
	s.jobs[k] = cpuJob{w: w, cpu: t.CPU, block: t.Service - t.CPU, slices: max(t.Slices, 1)}
	e.ws[w.Slot()].job = k + 1
	if start > now {
		e.h.push(start, phaseCompletion, w)
		return
	}
	e.stepJob(now, k, false)
}

// stepJob moves job k on at now: into the CPU part of its next piece, or
// (afterCPU: that CPU part has just ended) into the piece's blocking part,
// or, after the last piece, to the end of the task.
func (e *Engine) stepJob(now time.Duration, k int32, afterCPU bool) {
	s := e.cpu
	for {
		j := &s.jobs[k]
		if !afterCPU {
			if j.next >= j.slices {
				e.endJob(now, k)
				return
			}
			if d := piece(j.cpu, j.slices, j.next); d > 0 {
				e.cpuAccount(now)
				s.join(now, k, d)
				e.cpuCount(now)
				return
			}
		}
		afterCPU = false
		b := piece(j.block, j.slices, j.next)
		j.next++
		if b > 0 {
			e.h.push(now+b, phaseCompletion, j.w)
			return
		}
	}
}

// endJob ends job k's task.
func (e *Engine) endJob(now time.Duration, k int32) {
	s := e.cpu
	j := s.jobs[k]
	if e.rec.steady(now) {
		e.rec.nCPUDelay++
		e.rec.cpuDelaySum += float64(j.onCPU - j.cpu)
	}
	e.ws[j.w.Slot()].job = 0
	s.release(k)
	e.taskDone(now, j.w, false)
}

// fireCPU handles the CPU timer: every runnable task whose CPU piece has
// ended leaves the CPUs, in tag order, and moves on.
func (e *Engine) fireCPU(at time.Duration) {
	s := e.cpu
	if at != s.timerAt {
		return // stale: an earlier prediction replaced it
	}
	s.timerAt = never
	s.dirty = true
	s.advance(at)
	for len(s.ps) > 0 && s.due(s.ps[0]) {
		e.cpuAccount(at)
		k := s.pop()
		e.cpuCount(at)
		s.jobs[k].onCPU += at - s.jobs[k].joined
		s.jobs[k].inCPU = false
		e.stepJob(at, k, true)
	}
}

// cpuAccount brings the recorder's steady-state CPU integrals (runnable
// tasks, busy CPUs) up to now, before the runnable set changes: they live
// here, not in the recorder's per-event advance, so that a run without a
// CPU limit pays nothing for them. At the warmup boundary the number then
// runnable counts toward the maximum.
func (e *Engine) cpuAccount(now time.Duration) {
	s, rec := e.cpu, e.rec
	from := max(s.areaAt, rec.warmup)
	if now > from {
		n := len(s.ps)
		dt := float64(now - from)
		rec.areaRunnable += float64(n) * dt
		rec.areaCPUBusy += float64(min(n, s.c)) * dt
		if s.areaAt <= rec.warmup && n > rec.cpuRunnableMax {
			rec.cpuRunnableMax = n
		}
	}
	s.areaAt = now
}

// cpuCount records the runnable set's new size.
func (e *Engine) cpuCount(now time.Duration) {
	n := e.cpu.runnable()
	e.rec.cpuRunnable = n
	if n > e.rec.cpuRunnableMax && e.rec.steady(now) {
		e.rec.cpuRunnableMax = n
	}
}

// rearmCPU predicts when the next CPU piece ends, after an event that
// changed the runnable set, and makes sure a timer fires by then.
func (e *Engine) rearmCPU(now time.Duration) {
	s := e.cpu
	s.dirty = false
	if len(s.ps) == 0 {
		s.v, s.last = 0, now // idle CPUs: restart the virtual clock
		return
	}
	s.advance(now)
	dt := math.Ceil(s.realTime(s.jobs[s.ps[0]].tag - s.v))
	at := never - 1
	if dt < float64(at-now) {
		at = now + max(time.Duration(dt), 1)
	}
	if at < s.timerAt {
		s.timerAt = at
		e.h.push(at, phaseCPU, nil)
	}
}

// hostNote describes what a running worker's task is doing on the host,
// for snapshots: "" without a CPU limit.
func (e *Engine) hostNote(w *model.Worker) string {
	ws := e.ws[w.Slot()]
	if e.cpu == nil || ws.job == 0 {
		return ""
	}
	j := &e.cpu.jobs[ws.job-1]
	if j.inCPU {
		return "; in a CPU part (runnable)"
	}
	if e.now < ws.ready {
		return "; its thread is still starting"
	}
	if j.next == 0 {
		return "; waiting to start"
	}
	return "; in a blocking part"
}
