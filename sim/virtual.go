package sim

import (
	"fmt"
	"strconv"
	"time"

	"github.com/poolsim/poolsim/model"
	"github.com/poolsim/poolsim/workloads"
)

// This file runs tasks on virtual threads (spec §13; pool presets virtual,
// tomcat-virtual, spring-boot-virtual, simple-async). The pool model
// (model.VirtualThreadPerTaskExecutor) starts a VT per task; the carrier
// scheduler (model.CarrierScheduler) says which VT runs on a carrier. The
// engine drives both from the one event loop:
//
//   - every task is a program of steps (steps.go); a plain service law is
//     one compute step, CPU work;
//   - a started VT is runnable: it mounts on a carrier at once or waits in
//     the scheduler's FIFO (R131, R132);
//   - a compute step runs mounted; nothing preempts it (R132);
//   - a block, hold or call step is a blocking call: by the JDK version
//     and the step's `in:` (model.JVM.Blocking, R133–R136) the VT unmounts
//     — its carrier takes the next runnable VT, and when the call ends the
//     VT is runnable again and must mount before its next step — or keeps
//     its carrier for the whole call (pinned), a file read on JDK 21–23
//     compensating (R136);
//   - the task's end unmounts the VT, and the VT ends (threadCount() − 1).
//
// A VT that mounts continues its program at the same instant, after the
// event that freed the carrier (vtDrain, called once per event): mounts
// are handled in the order the carriers were handed over, never
// recursively.
//
// The host: a computing carrier is assumed to have a CPU of its own
// (scenarios refuse host.cpus < jvm.parallelism); carriers started by
// compensation beyond P may compute at once with the others then, as they
// would on a machine with spare CPUs. The per-task thread start cost and
// the hand-off timing are refused.
//
// SimpleAsyncTaskExecutor's concurrencyLimit (R143) holds the submitter:
// while the limit is reached the next arrival waits, and the ones after it
// are not drawn, exactly as a caller-runs task holds the submitter
// (engine.go, pullArrival); the caller's wait counts in the task's queue
// wait (from its arrival to its start). The workload's arrival stream is
// that one caller: a request thread of another pool would be a second pool,
// which poolsim does not model.

// vtState is the engine's side of a virtual-thread run.
type vtState struct {
	jvm      model.JVM
	carriers *model.CarrierScheduler
	pending  []model.Mount         // VTs mounted during this event, to continue (vtDrain)
	plain    []workloads.DrawnStep // the one compute step of a plain service law
	// throttle: the pool is SimpleAsyncTaskExecutor with a limit, and
	// callerWaiting: its caller (the arrival e.next) waits for a permit.
	throttle      interface{ CallerMustWait() bool }
	callerWaiting bool
	callerWaits   int64

	// Statistics: whole-run integral of held carriers (pinned
	// carrier-seconds), peaks; steady-state areas; carrier waits (steady).
	lastT                         time.Duration
	heldArea                      float64 // carrier-nanoseconds
	vtPeak, runnablePeak          int
	heapPeak                      int64
	areaMounted, areaRunnable     float64
	areaParked, areaHeld, areaCar float64
	mounts                        int64
	wait                          *durHist
	waitN                         int64
	waitMax                       time.Duration
	waitSum                       float64
}

// newVT prepares a virtual-thread run, or returns nil for a platform pool.
func newVT(e *Engine) *vtState {
	if e.sc.Pool.Flavor != model.Virtual {
		return nil
	}
	return &vtState{jvm: e.sc.JVM, carriers: model.NewCarrierScheduler(e.sc.JVM), wait: newDurHist()}
}

// vtLive, vtMounted, vtRunnable, vtParked and vtHeld are the VTs by state
// (R137: mounted and runnable read RUNNABLE, parked WAITING or
// TIMED_WAITING; held = pinned in a blocking call, mounted).
func (e *Engine) vtCounts() (live, mounted, runnable, parked, held int) {
	c := e.vt.carriers
	live = e.pool.PoolSize()
	mounted, runnable, held = c.Busy(), c.RunnableLen(), c.Held()
	parked = live - mounted - runnable
	return
}

// vtHeap is the heap the unmounted VTs keep (R140).
func (e *Engine) vtHeap(live, mounted int) int64 {
	return int64(live-mounted) * e.vt.jvm.HeapPerVT()
}

// vtAdvance integrates the VT state up to t (before the event at t).
func (e *Engine) vtAdvance(t time.Duration) {
	v := e.vt
	if t <= v.lastT {
		return
	}
	_, mounted, runnable, parked, held := e.vtCounts()
	v.heldArea += float64(held) * float64(t-v.lastT)
	from := max(v.lastT, e.sc.Warmup)
	if t > from {
		dt := float64(t - from)
		v.areaMounted += float64(mounted) * dt
		v.areaRunnable += float64(runnable) * dt
		v.areaParked += float64(parked) * dt
		v.areaHeld += float64(held) * dt
		v.areaCar += float64(v.carriers.Carriers(from)) * dt
	}
	v.lastT = t
}

// vtSettle keeps the peaks after an event.
func (e *Engine) vtSettle() {
	v := e.vt
	live, mounted, runnable, _, _ := e.vtCounts()
	v.vtPeak = max(v.vtPeak, live)
	v.runnablePeak = max(v.runnablePeak, runnable)
	v.heapPeak = max(v.heapPeak, e.vtHeap(live, mounted))
}

// vtPlainProgram gives task t, of a plain service law, its program: on a
// virtual thread a plain service is CPU work, one compute step.
func (e *Engine) vtPlainProgram(t *model.Task) {
	e.vt.plain = append(e.vt.plain[:0], workloads.DrawnStep{Kind: workloads.Compute, Time: t.Service, Timeout: workloads.OwnTimeout})
	t.Program = e.newProgram(e.vt.plain)
}

// vtStart: the VT of program h, just started, is runnable (R131).
func (e *Engine) vtStart(now time.Duration, h int32) {
	if e.vt.carriers.Runnable(now, model.VT(h)) {
		e.vt.pending = append(e.vt.pending, model.Mount{VT: model.VT(h)})
	}
}

// vtDrain continues the programs of the VTs mounted during this event, in
// the order they mounted; those may free carriers in turn.
func (e *Engine) vtDrain(now time.Duration) {
	v := e.vt
	for i := 0; i < len(v.pending); i++ {
		m := v.pending[i]
		p := &e.progs[m.VT-1]
		p.mounted = true
		v.mounts++
		if e.rec.steady(now) {
			v.waitN++
			v.waitSum += float64(m.Waited)
			v.waitMax = max(v.waitMax, m.Waited)
			v.wait.record(m.Waited)
		}
		e.vtRunSteps(now, int32(m.VT))
	}
	v.pending = v.pending[:0]
}

// vtUnmount: program h's VT leaves its carrier at now (it parks, blocks
// unpinned or ends); the carrier takes the next runnable VT.
func (e *Engine) vtUnmount(now time.Duration, h int32) {
	p := &e.progs[h-1]
	p.mounted = false
	if m, ok := e.vt.carriers.Unmount(now); ok {
		e.vt.pending = append(e.vt.pending, m)
	}
}

// vtRunSteps runs program h's steps, mounted, from its next one until one
// takes time or the task ends.
func (e *Engine) vtRunSteps(now time.Duration, h int32) {
	p := &e.progs[h-1]
	for p.next < len(p.steps) && !p.failed {
		st := &p.steps[p.next]
		e.vtStepEvent(now, h, false)
		if st.Kind == workloads.Compute {
			if st.Time > 0 {
				e.h.push(now+st.Time, phaseCompletion, p.w)
				return
			}
			e.vtStepEvent(now, h, true)
			p.next++
			continue
		}
		// A blocking call: it unmounts, or holds the carrier (R133–R136).
		b := model.Unmounts
		if st.Kind != workloads.Call {
			b = e.vt.jvm.Blocking(model.Site(st.In))
		}
		p.blocking, p.blk = true, b
		if b.HoldsCarrier() {
			var m model.Mount
			var ok bool
			p.comp, m, ok = e.vt.carriers.BeginBlocking(now, b)
			if ok {
				e.vt.pending = append(e.vt.pending, m)
			}
		} else {
			e.vtUnmount(now, h)
		}
		if st.Kind == workloads.Block {
			e.h.push(now+st.Time, phaseCompletion, p.w)
			return
		}
		if e.acquire(now, h, st) {
			return
		}
	}
	e.endProgram(now, h)
}

// vtStepDone ends program h's current step at now: a computation (the VT
// goes on, mounted), or a blocking call, whose resource unit goes back;
// after an unpinned call the VT is runnable and goes on once mounted.
func (e *Engine) vtStepDone(now time.Duration, h int32) {
	p := &e.progs[h-1]
	if p.held != 0 {
		r := p.held - 1
		p.held = 0
		e.res[r].Release(now, borrower(h), thread(p.w))
	}
	e.vtStepEvent(now, h, true)
	p.next++
	if !p.blocking {
		e.vtRunSteps(now, h)
		return
	}
	p.blocking = false
	if p.blk.HoldsCarrier() {
		e.vt.carriers.EndBlocking(now, p.comp)
		e.vtRunSteps(now, h)
		return
	}
	e.vtStart(now, h) // unparked: runnable again
}

// vtStepEvent tells Options.OnStep that program h's current step begins
// or ends at now.
func (e *Engine) vtStepEvent(now time.Duration, h int32, end bool) {
	if e.opt.OnStep == nil {
		return
	}
	p := &e.progs[h-1]
	t, _ := p.w.Task()
	e.opt.OnStep(StepEvent{T: now, TaskID: t.ID, Step: p.next, End: end})
}

// vtEnd: program h's task ends at now (its steps are done, or an
// acquisition failed): a VT still mounted, or held in a blocking call,
// leaves its carrier. A VT whose unpinned call failed ends from where it
// parked, without mounting again (the exception's handling is not
// modelled).
func (e *Engine) vtEnd(now time.Duration, h int32) {
	p := &e.progs[h-1]
	if p.blocking && p.blk.HoldsCarrier() {
		e.vt.carriers.EndBlocking(now, p.comp)
	}
	p.blocking = false
	if p.mounted {
		e.vtUnmount(now, h)
	}
}

// vtTaskEnded: a task ended; a caller waiting on SimpleAsyncTaskExecutor's
// limit gets its permit (afterAccess signals, R143) and submits now.
func (e *Engine) vtTaskEnded(now time.Duration) {
	v := e.vt
	if v.callerWaiting && !v.throttle.CallerMustWait() {
		// The caller goes on now: the held arrival is submitted now, and
		// the ones due meanwhile follow back to back (pullArrival), never
		// in the past.
		v.callerWaiting = false
		e.due[phaseArrival] = now
		e.submitterFree = max(e.submitterFree, now)
	}
}

// vtCallerMustWait reports whether the caller submitting now must wait for
// a permit (R143); if so the arrival is held until a task ends.
func (e *Engine) vtCallerMustWait() bool {
	v := e.vt
	if v == nil || v.throttle == nil || !v.throttle.CallerMustWait() {
		return false
	}
	if !v.callerWaiting {
		v.callerWaits++
	}
	v.callerWaiting = true
	e.due[phaseArrival] = never
	return true
}

// VirtualSummary is summary.json's "virtual" object: the carriers and the
// virtual threads (absent for platform pools).
type VirtualSummary struct {
	JDK         int `json:"jdk"`
	Parallelism int `json:"parallelism"`
	MaxPoolSize int `json:"max_pool_size"`
	MinRunnable int `json:"min_runnable"`
	// Whole run: the most carriers and live VTs at once, the most VTs
	// waiting for a carrier, the most heap unmounted VTs kept (R140).
	CarriersPeak int   `json:"carriers_peak"`
	VTPeak       int   `json:"vt_peak"`
	RunnablePeak int   `json:"vt_runnable_peak"`
	HeapPeak     int64 `json:"vt_heap_peak_bytes"`
	// Steady state: mean VTs mounted (= carriers busy), runnable, parked,
	// pinned (holding a carrier in a blocking call), mean carriers.
	MountedMean  Stat `json:"vt_mounted_mean"`
	RunnableMean Stat `json:"vt_runnable_mean"`
	ParkedMean   Stat `json:"vt_parked_mean"`
	PinnedMean   Stat `json:"vt_pinned_mean"`
	CarriersMean Stat `json:"carriers_mean"`
	// Steady state: how long a VT was runnable before it mounted, over
	// every mount (a start or a return from an unmounting call).
	Mounts         int64 `json:"mounts"`
	CarrierWaitP50 Stat  `json:"carrier_wait_p50_s"`
	CarrierWaitP99 Stat  `json:"carrier_wait_p99_s"`
	CarrierWaitMax Stat  `json:"carrier_wait_max_s"`
	CarrierWaitAvg Stat  `json:"carrier_wait_mean_s"`
	// Whole run: carrier-seconds held by pinned or non-unmounting
	// blocking calls; tryCompensate's compensations and the carriers
	// they started (R136).
	PinnedCarrierSeconds Stat  `json:"pinned_carrier_seconds"`
	Compensations        int64 `json:"compensations"`
	CarriersStarted      int64 `json:"compensation_carriers_started"`
	// SimpleAsyncTaskExecutor's limit (R143): the times the caller had to
	// wait for a permit.
	CallerWaits int64 `json:"caller_waits"`
}

func (e *Engine) virtualSummary(st steady) *VirtualSummary {
	v := e.vt
	e.vtAdvance(e.now)
	c := v.carriers
	return &VirtualSummary{JDK: v.jvm.Version, Parallelism: v.jvm.Parallelism, MaxPoolSize: v.jvm.MaxPoolSize, MinRunnable: v.jvm.MinRunnable,
		CarriersPeak: c.Largest(), VTPeak: v.vtPeak, RunnablePeak: v.runnablePeak, HeapPeak: v.heapPeak,
		MountedMean: st.mean(v.areaMounted), RunnableMean: st.mean(v.areaRunnable), ParkedMean: st.mean(v.areaParked),
		PinnedMean: st.mean(v.areaHeld), CarriersMean: st.mean(v.areaCar),
		Mounts: v.waitN, CarrierWaitP50: Stat(quantile(v.wait, v.waitN, 0.5, v.waitMax)), CarrierWaitP99: Stat(quantile(v.wait, v.waitN, 0.99, v.waitMax)),
		CarrierWaitMax: maxOf(v.waitMax, v.waitN), CarrierWaitAvg: avg(v.waitSum, v.waitN),
		PinnedCarrierSeconds: Stat(v.heldArea / 1e9), Compensations: c.Compensations(), CarriersStarted: c.CarriersStarted(),
		CallerWaits: v.callerWaits}
}

// VirtualColumns are the timeline's columns of a virtual-thread run,
// after every other extension: live VTs, mounted, runnable (waiting for a
// carrier), parked, pinned (holding a carrier blocked), carriers alive and
// busy, and the heap the unmounted VTs keep (R140).
var VirtualColumns = []string{"vt_live", "vt_mounted", "vt_runnable", "vt_parked", "vt_pinned", "carriers", "carriers_busy", "vt_heap_bytes"}

// vtRow appends the virtual columns' values.
func (e *Engine) vtRow(b []byte) []byte {
	live, mounted, runnable, parked, held := e.vtCounts()
	for _, x := range [...]int64{int64(live), int64(mounted), int64(runnable), int64(parked), int64(held),
		int64(e.vt.carriers.Carriers(e.now)), int64(mounted), e.vtHeap(live, mounted)} {
		b = append(b, ',')
		b = strconv.AppendInt(b, x, 10)
	}
	return b
}

// vtCheckInvariants holds the carriers' invariants and ties them to the
// programs: every live VT is mounted, runnable or parked, no VT waits for
// a carrier while one idles, and the mounted programs are the busy
// carriers.
func (e *Engine) vtCheckInvariants() {
	c := e.vt.carriers
	c.CheckInvariants()
	live, mounted, runnable, parked, held := e.vtCounts()
	mountedProgs := 0
	for i := range e.progs {
		if e.progs[i].w != nil && e.progs[i].mounted {
			mountedProgs++
		}
	}
	if parked < 0 || held > mounted || mountedProgs != mounted || len(e.vt.pending) != 0 {
		panic(fmt.Sprintf("sim: virtual threads: live %d mounted %d (programs %d) runnable %d parked %d held %d pending %d",
			live, mounted, mountedProgs, runnable, parked, held, len(e.vt.pending)))
	}
}

// vtSnapshotHeader is a snapshot's first line for a virtual-thread pool:
// the VTs by state (R137) and the carriers (R131), as `jcmd
// Thread.dump_to_file -format=json` would let one count them (R138).
func (e *Engine) vtSnapshotHeader() string {
	live, mounted, runnable, parked, held := e.vtCounts()
	c := e.vt.carriers
	return fmt.Sprintf("pool %s: %d virtual threads (threadCount()): %d mounted on a carrier (RUNNABLE, %d of them pinned in a blocking call), %d runnable waiting for a carrier (RUNNABLE), %d parked (WAITING/TIMED_WAITING, unmounted); %d carriers ForkJoinPool-1-worker-N, %d busy (parallelism %d, JDK %d)\n",
		e.pool.RunState(), live, mounted, held, runnable, parked, c.Carriers(e.now), c.Busy(), e.vt.jvm.Parallelism, e.vt.jvm.Version)
}

// vtNote describes the virtual thread running program h in a snapshot, by
// its state (R137): mounted (computing, or pinned in a blocking call),
// runnable (waiting for a carrier), or parked (unmounted in a blocking
// call or waiting for a resource).
func (e *Engine) vtNote(h int32, t *model.Task) string {
	p := &e.progs[h-1]
	n := len(p.steps)
	st := p.steps[min(p.next, n-1)]
	step := fmt.Sprintf("task %d, step %d of %d", t.ID, p.next+1, n)
	call := "blocking"
	if site := model.Site(st.In); site != model.Anywhere {
		call += " in " + site.String()
	}
	switch {
	case p.waiting:
		how := "parked, unmounted"
		if p.blk.HoldsCarrier() {
			how = "carrier held: " + p.blk.String()
		}
		r := e.res[p.held-1]
		return fmt.Sprintf("%s, for %v (%s; %s)", r.Describe(), e.now-p.waitFrom, step, how)
	case p.blocking && p.blk.HoldsCarrier():
		what := call
		if p.held != 0 {
			what = "holding " + st.Resource + ", " + call
		}
		return fmt.Sprintf("WAITING (carrier held: %s) %s: %s for %v", p.blk, step, what, st.Time)
	case p.blocking && !p.mounted:
		what := call
		if p.held != 0 {
			what = "holding " + st.Resource + ", " + call
		}
		return fmt.Sprintf("WAITING (parked, unmounted) %s: %s for %v", step, what, st.Time)
	case !p.mounted:
		return fmt.Sprintf("RUNNABLE (waiting for a carrier) %s", step)
	}
	return fmt.Sprintf("RUNNABLE (mounted) %s: computing for %v", step, st.Time)
}
