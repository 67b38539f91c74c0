package model

import (
	"fmt"
	"math"
	"time"
)

// QueuedThreadPool mirrors Jetty 9.4's
// org.eclipse.jetty.util.thread.QueuedThreadPool (spec §7, R100–R110), as
// Debian's libjetty9-java 9.4.57 ships it, with reservedThreads 0 and its
// default unbounded BlockingArrayQueue: execute, startThread,
// ensureThreads, the Runner loop with its shrink check, and the setters
// setMinThreads, setMaxThreads and setIdleTimeout. It is not a
// ThreadPoolExecutor: it has no core time-out, no rejection handler and no
// shutdown (its stop() is not modelled). Config.Core is minThreads,
// Config.Max maxThreads, Config.KeepAlive idleTimeout; wc is the thread
// count of QueuedThreadPool's packed _counts.
//
// Zero wake-up latency (R47) holds as for the JDK pools: a parked thread
// and a queued job never coexist, so Jetty's "idle" count (idle threads
// minus queued jobs) is the number of parked threads when none is queued,
// and minus the queue length otherwise.
//
// Time order of lastShrink. Jetty compares System.nanoTime() readings:
// a thread leaves when now − lastShrink > idleTimeout. Virtual time makes
// equality common (a thread started at t and idle at once times out at
// exactly t + idleTimeout). Java's clock only moves forward along a
// thread's own waits, so a wait (a job or a poll) that began at or after
// the instant lastShrink was set ends strictly more than its length after
// it. The model therefore counts equality as elapsed when lastShrink was
// set before — in its event order — the wait that just ended began, and as
// not elapsed otherwise (a race Java may decide either way).
type QueuedThreadPool struct {
	pool
	// lastShrink and the event stamp when it was set (R104); stamp numbers
	// the pool's events.
	lastShrink      time.Duration
	lastShrinkStamp uint64
	stamp           uint64
}

// newQueuedThreadPool is the constructor and doStart (R101): lastShrink =
// now, then ensureThreads starts minThreads threads, each of which finds
// no job and waits.
func newQueuedThreadPool(now time.Duration, cfg Config, obs Observer) *QueuedThreadPool {
	p := &QueuedThreadPool{}
	p.pool.init(now, cfg, obs)
	p.markShrink()
	p.ensureThreads()
	return p
}

// validateJetty holds the shape of a QueuedThreadPool: Jetty's default
// BlockingArrayQueue (unbounded), no rejection handler, no core time-out,
// an idleTimeout of whole milliseconds that fits Jetty's int.
func (c Config) validateJetty() error {
	switch {
	case c.Flavor == Jetty && c.Queue != BlockingArrayQueue:
		return &ConfigError{"queue.type", fmt.Sprintf("QueuedThreadPool uses its BlockingArrayQueue, got %s", c.Queue), "R100"}
	case c.Flavor != Jetty && c.Queue == BlockingArrayQueue:
		return &ConfigError{"queue.type", "BlockingArrayQueue is Jetty's queue (preset jetty)", "R100"}
	case c.Flavor != Jetty:
		return nil
	case c.QueueCapacity != Unbounded:
		return &ConfigError{"queue.capacity", fmt.Sprintf("Jetty's default BlockingArrayQueue is unbounded, got %d", c.QueueCapacity), "R100"}
	case c.Rejection != AbortPolicy:
		return &ConfigError{"rejection", fmt.Sprintf("QueuedThreadPool has no rejection handler: execute throws RejectedExecutionException itself; got %s", c.Rejection), "abort"}
	case c.CoreTimeOut:
		return &ConfigError{"allowCoreThreadTimeOut", "QueuedThreadPool has no core time-out; threads above minThreads leave one per idleTimeout", "R104"}
	case !wholeMillis(c.KeepAlive):
		return &ConfigError{"keepAlive", fmt.Sprintf("Jetty's idleTimeout is an int of milliseconds, got %v", c.KeepAlive), "0 to 2147483647 whole milliseconds (R100)"}
	}
	return nil
}

// wholeMillis: setIdleTimeout takes an int of milliseconds.
func wholeMillis(d time.Duration) bool {
	return d >= 0 && d%time.Millisecond == 0 && d/time.Millisecond <= math.MaxInt32
}

// Execute is QueuedThreadPool.execute (R102): with no idle thread (idle
// <= 0) and threads < maxThreads it starts a thread; the job is queued
// either way — and, with zero wake-up latency, goes to the parked thread
// the queue signals (FIFO, R103), or to the new thread. The queue is
// unbounded and the pool never stops, so execute never rejects.
func (p *QueuedThreadPool) Execute(now time.Duration, t *Task) {
	p.now = now
	start := p.waiters.n == 0 && p.wc < p.cfg.Max
	p.offer(t)
	if start {
		p.startThread()
	}
}

// TaskDone ends w's job: the Runner catches and logs what it threw, and
// the thread lives on (R108) to its next job or wait.
func (p *QueuedThreadPool) TaskDone(now time.Duration, w *Worker) {
	p.finishTask(now, w)
	p.runner(w)
}

// TimedWaitExpired fires w's poll(idleTimeout): if w is still in it, the
// poll returns null and the Runner checks whether it may shrink (R104).
// A stale timer does nothing and returns false.
func (p *QueuedThreadPool) TimedWaitExpired(now time.Duration, w *Worker) bool {
	if w.state != IdleTimed || w.deadline != now {
		return false
	}
	p.now = now
	p.unpark(w)
	p.runner(w)
	return true
}

// ensureThreads (R107) starts threads while there are fewer than
// minThreads, or while jobs wait for a thread (idle < 0) and there are
// fewer than maxThreads.
func (p *QueuedThreadPool) ensureThreads() int {
	n := 0
	for p.wc < p.cfg.Core || (p.queued > 0 && p.waiters.n == 0 && p.wc < p.cfg.Max) {
		if !p.startThread() {
			break
		}
		n++
	}
	return n
}

// PrestartAllCoreThreads is ensureThreads (R107), for callers that drive
// every family alike.
func (p *QueuedThreadPool) PrestartAllCoreThreads(now time.Duration) int {
	p.now = now
	return p.ensureThreads()
}

// startThread is QueuedThreadPool.startThread: a new thread, and lastShrink
// = now (R104). With Config.ThreadLimit reached, Thread.start throws: the
// counts roll back and the job stays queued for a running thread (the
// error reaches execute's caller in Jetty; the model reports nothing).
func (p *QueuedThreadPool) startThread() bool {
	if p.cfg.ThreadLimit > 0 && p.workers.n >= p.cfg.ThreadLimit {
		return false
	}
	w := p.newWorker()
	p.markShrink()
	p.runner(w)
	return true
}

// markShrink sets lastShrink = now, stamped in event order.
func (p *QueuedThreadPool) markShrink() {
	p.lastShrink = p.now
	p.stamp++
	p.lastShrinkStamp = p.stamp
}

// runner is one pass of QueuedThreadPool.Runner.run's loop for w, which
// has no job: take a queued job; else, if idleTimeout > 0, threads >
// minThreads and more than idleTimeout has passed since lastShrink, win the
// CAS on lastShrink and leave (R104, R105); else wait in
// poll(idleTimeout) — TIMED_WAITING whatever the thread count — or take()
// when idleTimeout <= 0 (R103).
func (p *QueuedThreadPool) runner(w *Worker) {
	if t := p.dequeue(); t != nil {
		p.stamp++
		w.stamp = p.stamp
		p.runTask(w, t)
		return
	}
	k := p.cfg.KeepAlive
	if k > 0 && p.wc > p.cfg.Core && p.shrinkDue(w, k) {
		p.markShrink()
		p.exit(w)
		return
	}
	p.stamp++
	w.stamp = p.stamp
	p.park(w, k > 0)
}

// shrinkDue is "now − lastShrink > idleTimeout", with the tie rule of the
// type's comment.
func (p *QueuedThreadPool) shrinkDue(w *Worker, k time.Duration) bool {
	d := p.now - p.lastShrink
	return d > k || (d == k && p.lastShrinkStamp < w.stamp)
}

// exit ends w after a shrink: the counts fall, the thread leaves, and
// ensureThreads runs in case a job arrived meanwhile (R107).
func (p *QueuedThreadPool) exit(w *Worker) {
	p.wc--
	p.retire(w)
	p.ensureThreads()
}

// Apply makes the setter calls of one runtime change: maxThreads raised
// before minThreads is set and lowered after, as for a ThreadPoolExecutor
// (Jetty's setters never refuse an order: each drags the other bound,
// R100). QueuedThreadPool has no allowCoreThreadTimeOut and no shutdown:
// a change that calls them is refused whole.
func (p *QueuedThreadPool) Apply(now time.Duration, c Change) error {
	switch {
	case c.Shutdown != NoShutdown:
		return &ConfigError{"shutdown", "QueuedThreadPool has no shutdown() or shutdownNow() (its stop() is not modelled)", "set: {core, max, keepAlive}"}
	case c.CoreTimeOut != nil:
		return &ConfigError{"allowCoreThreadTimeOut", "QueuedThreadPool has no core time-out", "R104"}
	}
	if err := p.applySizes(now, c, p.SetMaxThreads, p.SetMinThreads); err != nil {
		return err
	}
	if c.KeepAlive != nil {
		if err := p.SetIdleTimeout(now, *c.KeepAlive); err != nil {
			return err
		}
	}
	p.now = now
	p.emit(Event{Kind: Reconfigured, Change: &c})
	return nil
}

// SetMinThreads is setMinThreads(n) (R100): min = n, max dragged up to it,
// then ensureThreads.
func (p *QueuedThreadPool) SetMinThreads(now time.Duration, n int) error {
	if n < 0 {
		return &ConfigError{"core", fmt.Sprintf("minThreads must be >= 0, got %d", n), "R100"}
	}
	p.now = now
	p.cfg.Core = n
	if p.cfg.Core > p.cfg.Max {
		p.cfg.Max = p.cfg.Core
	}
	p.ensureThreads()
	return nil
}

// SetMaxThreads is setMaxThreads(n) (R100): max = n, min dragged down to
// it. No thread leaves for it: threads above the new max shrink away one
// per idleTimeout.
func (p *QueuedThreadPool) SetMaxThreads(now time.Duration, n int) error {
	if n <= 0 || n > Unbounded {
		return &ConfigError{"max", fmt.Sprintf("setMaxThreads(%d): want at least one thread", n), "max >= 1"}
	}
	p.now = now
	p.cfg.Max = n
	if p.cfg.Core > p.cfg.Max {
		p.cfg.Core = p.cfg.Max
	}
	return nil
}

// SetIdleTimeout is setIdleTimeout(ms): the new value applies to each
// thread's next wait and next shrink check; nobody is interrupted.
func (p *QueuedThreadPool) SetIdleTimeout(now time.Duration, d time.Duration) error {
	if !wholeMillis(d) {
		return &ConfigError{"keepAlive", fmt.Sprintf("setIdleTimeout takes an int of milliseconds, got %v", d), "whole milliseconds from 0 to 2147483647ms"}
	}
	p.now = now
	p.cfg.KeepAlive = d
	return nil
}

// LastShrink returns Jetty's lastShrink: when a thread last started or
// left (R104).
func (p *QueuedThreadPool) LastShrink() time.Duration { return p.lastShrink }

// CheckInvariants panics with a state dump if the pool's bookkeeping is
// inconsistent. Threads above maxThreads may wait (they leave one per
// idleTimeout, R100).
func (p *QueuedThreadPool) CheckInvariants() {
	fail := p.failer()
	p.checkWorkers(fail)
	p.checkHandOff(fail)
}

// TimedWaitSite: idle threads wait in poll(idleTimeout).
func (p *QueuedThreadPool) TimedWaitSite() string { return p.pollSite() }

// DescribeIdle says where idle thread w waits, and when it may leave.
func (p *QueuedThreadPool) DescribeIdle(now time.Duration, w *Worker, rank int) string {
	if w.state == IdleUntimed {
		return p.describeTake(now, w, rank)
	}
	return fmt.Sprintf("TIMED_WAITING (parking) in %s.poll(idleTimeout) for %v, times out in %v (then leaves only if no thread started or left for idleTimeout; last at %v); hand-off rank %d",
		p.cfg.Queue.JavaName(), now-w.since, w.deadline-now, p.lastShrink, rank)
}

// Woken: Jetty's queue has no modelled wake-up latency (Config.Wakeup is
// refused for it), so no worker is ever signalled.
func (p *QueuedThreadPool) Woken(time.Duration, *Worker) bool { return false }
