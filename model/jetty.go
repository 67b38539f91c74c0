package model

import (
	"fmt"
	"math"
	"time"
)

// This file is Jetty 9.4's QueuedThreadPool (spec §7, R100–R110), as
// Debian's libjetty9-java 9.4.57 ships it, with reservedThreads 0 and its
// default unbounded BlockingArrayQueue: execute, startThread,
// ensureThreads, the Runner loop with its shrink check, and the setters.
// Config.Core is minThreads, Config.Max maxThreads, Config.KeepAlive
// idleTimeout; the pool's wc is the thread count of QueuedThreadPool's
// packed _counts.
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
	}
	return checkIdleTimeout(c.KeepAlive)
}

// checkIdleTimeout: setIdleTimeout takes an int of milliseconds.
func checkIdleTimeout(d time.Duration) error {
	if d%time.Millisecond != 0 || d/time.Millisecond > math.MaxInt32 || d < 0 {
		return &ConfigError{"keepAlive", fmt.Sprintf("Jetty's idleTimeout is an int of milliseconds, got %v", d), "0 to 2147483647 whole milliseconds (R100)"}
	}
	return nil
}

// jettyStart is doStart (R101): lastShrink = now, then ensureThreads
// starts minThreads threads, each of which finds no job and waits.
func (p *Pool) jettyStart() {
	p.lastShrink = p.now
	p.stamp++
	p.lastShrinkStamp = p.stamp
	p.ensureThreads()
}

// jettyExecute is QueuedThreadPool.execute (R102): with no idle thread
// (idle <= 0) and threads < maxThreads it starts a thread; the job is
// queued either way — and, with zero wake-up latency, goes to the parked
// thread the queue signals (FIFO, R103), or to the new thread. The queue is
// unbounded and the pool never stops, so execute never rejects.
func (p *Pool) jettyExecute(t *Task) {
	start := p.waiters.n == 0 && p.wc < p.cfg.Max
	p.plainOffer(t)
	if start {
		p.startThread()
	}
}

// ensureThreads (R107) starts threads while there are fewer than
// minThreads, or while jobs wait for a thread (idle < 0) and there are
// fewer than maxThreads.
func (p *Pool) ensureThreads() int {
	n := 0
	for p.wc < p.cfg.Core || (p.store.size() > 0 && p.waiters.n == 0 && p.wc < p.cfg.Max) {
		if !p.startThread() {
			break
		}
		n++
	}
	return n
}

// startThread is QueuedThreadPool.startThread: a new thread, and lastShrink
// = now (R104). With Config.ThreadLimit reached, Thread.start throws: the
// counts roll back and the job stays queued for a running thread (the
// error reaches execute's caller in Jetty; the model reports nothing).
func (p *Pool) startThread() bool {
	if p.cfg.ThreadLimit > 0 && p.workers.n >= p.cfg.ThreadLimit {
		return false
	}
	w := p.newWorker()
	p.lastShrink = p.now
	p.stamp++
	p.lastShrinkStamp = p.stamp
	p.jettyRunner(w)
	return true
}

// jettyRunner is one pass of QueuedThreadPool.Runner.run's loop for w,
// which has no job: take a queued job; else, if idleTimeout > 0, threads >
// minThreads and more than idleTimeout has passed since lastShrink, win the
// CAS on lastShrink and leave (R104, R105); else wait in
// poll(idleTimeout) — TIMED_WAITING whatever the thread count — or take()
// when idleTimeout <= 0 (R103).
func (p *Pool) jettyRunner(w *Worker) {
	if t, ok := p.store.poll(); ok {
		p.stamp++
		w.stamp = p.stamp
		p.runTask(w, &t)
		return
	}
	k := p.cfg.KeepAlive
	if k > 0 && p.wc > p.cfg.Core && p.shrinkDue(w, k) {
		p.lastShrink = p.now
		p.stamp++
		p.lastShrinkStamp = p.stamp
		p.jettyExit(w)
		return
	}
	p.stamp++
	w.stamp = p.stamp
	p.park(w, k > 0)
}

// shrinkDue is "now − lastShrink > idleTimeout", with the tie rule of the
// file comment.
func (p *Pool) shrinkDue(w *Worker, k time.Duration) bool {
	d := p.now - p.lastShrink
	return d > k || (d == k && p.lastShrinkStamp < w.stamp)
}

// jettyExit ends w after a shrink: the counts fall, the thread leaves,
// and ensureThreads runs in case a job arrived meanwhile (R107).
func (p *Pool) jettyExit(w *Worker) {
	p.wc--
	p.completedTaskCount += w.Completed
	p.workers.remove(w)
	p.setState(w, Exited)
	p.ensureThreads()
}

// setMinThreads (R100): min = n, max dragged up to it, then ensureThreads.
func (p *Pool) setMinThreads(n int) error {
	if n < 0 {
		return &ConfigError{"core", fmt.Sprintf("minThreads must be >= 0, got %d", n), "R100"}
	}
	p.cfg.Core = n
	if p.cfg.Core > p.cfg.Max {
		p.cfg.Max = p.cfg.Core
	}
	p.ensureThreads()
	return nil
}

// setMaxThreads (R100): max = n, min dragged down to it. No thread leaves
// for it: threads above the new max shrink away one per idleTimeout.
func (p *Pool) setMaxThreads(n int) error {
	if n <= 0 || n > Unbounded {
		return &ConfigError{"max", fmt.Sprintf("maxThreads must be in 1..%d, got %d", Unbounded, n), "R100"}
	}
	p.cfg.Max = n
	if p.cfg.Core > p.cfg.Max {
		p.cfg.Core = p.cfg.Max
	}
	return nil
}

// setIdleTimeout: the new value applies to each thread's next wait and
// next shrink check; nobody is interrupted.
func (p *Pool) setIdleTimeout(d time.Duration) error {
	if err := checkIdleTimeout(d); err != nil {
		return err
	}
	p.cfg.KeepAlive = d
	return nil
}

// LastShrink returns Jetty's lastShrink: when a thread last started or
// left (R104).
func (p *Pool) LastShrink() time.Duration { return p.lastShrink }
