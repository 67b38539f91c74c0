package model

import (
	"fmt"
	"math"
	"time"
)

// This file is HikariCP's connection pool (spec §14.1, R150–R158), as
// Debian's libhikaricp-java 2.7.9 ships it and, where they differ, 6.x:
// HikariPool.getConnection, ConcurrentBag.borrow and requite, the
// connection adder (a single-thread executor that opens connections one at
// a time), the house-keeper (idle retirement and fillPool), and maxLifetime's
// soft eviction.
//
// Zero hand-off latency, as for the thread pools (R47): a returned or new
// connection goes at once to the longest waiter of the hand-off queue (a
// fair SynchronousQueue), so an idle connection and a waiting borrower never
// coexist. A connection's alive check (isConnectionAlive, for a connection
// idle over 500 ms) always succeeds and takes no time: the model has no
// database failures.

// HikariVersion selects the HikariCP rules where 2.7.9 and 6.x differ.
type HikariVersion uint8

const (
	// Hikari279 is HikariCP 2.7.9 (Debian's libhikaricp-java).
	Hikari279 HikariVersion = iota
	// Hikari6 is HikariCP 6.x.
	Hikari6
)

func (v HikariVersion) String() string {
	if v == Hikari6 {
		return "6"
	}
	return "2.7.9"
}

// HikariConfig is a HikariConfig's numbers, after validateNumerics (R150):
// NewHikariConfig applies its defaults and corrections.
type HikariConfig struct {
	MaximumPoolSize   int
	MinimumIdle       int
	ConnectionTimeout time.Duration
	IdleTimeout       time.Duration // 0: connections never retire for idleness
	MaxLifetime       time.Duration // 0: no limit
	// HousekeepingPeriod is the house-keeper's period
	// (com.zaxxer.hikari.housekeeping.periodMs, default 30 s); its first
	// run is 100 ms after the pool starts.
	HousekeepingPeriod time.Duration
	Version            HikariVersion
}

// HikariDefaults are HikariCP's own defaults (R150): 10 connections, a
// fixed pool (minimumIdle = maximumPoolSize), 30 s connection timeout,
// 10 min idle timeout, 30 min max lifetime.
var HikariDefaults = HikariConfig{MaximumPoolSize: 10, MinimumIdle: -1, ConnectionTimeout: 30 * time.Second,
	IdleTimeout: 10 * time.Minute, MaxLifetime: 30 * time.Minute, HousekeepingPeriod: 30 * time.Second}

// Normalize applies what HikariConfig's setters and validateNumerics do
// to the numbers (R150) — setConnectionTimeout(0) is Integer.MAX_VALUE ms —
// and returns the numbers the pool runs with, with a note per value it
// changed.
func (c HikariConfig) Normalize() (HikariConfig, []string) {
	var notes []string
	note := func(format string, args ...any) { notes = append(notes, fmt.Sprintf(format, args...)) }
	if c.MaximumPoolSize < 1 {
		n := 10
		if c.Version == Hikari279 && c.MinimumIdle > 0 {
			n = c.MinimumIdle
		}
		note("maximumPoolSize %d < 1: %d (R150)", c.MaximumPoolSize, n)
		c.MaximumPoolSize = n
	}
	if c.MinimumIdle < 0 || c.MinimumIdle > c.MaximumPoolSize {
		if c.MinimumIdle > c.MaximumPoolSize {
			note("minimumIdle %d > maximumPoolSize: %d (R150)", c.MinimumIdle, c.MaximumPoolSize)
		}
		c.MinimumIdle = c.MaximumPoolSize
	}
	switch {
	case c.ConnectionTimeout == 0:
		// setConnectionTimeout(0) means no timeout: Integer.MAX_VALUE ms (2.7.9 and 6.x).
		note("connectionTimeout 0: Integer.MAX_VALUE ms, about 24.9 days (R150)")
		c.ConnectionTimeout = math.MaxInt32 * time.Millisecond
	case c.ConnectionTimeout < 250*time.Millisecond:
		// setConnectionTimeout refuses it (IllegalArgumentException); validateNumerics,
		// which a value set otherwise meets, makes it 30 s.
		note("connectionTimeout %v < 250ms: setConnectionTimeout refuses it; validateNumerics makes it 30s (R150)", c.ConnectionTimeout)
		c.ConnectionTimeout = 30 * time.Second
	}
	if c.MaxLifetime != 0 && c.MaxLifetime < 30*time.Second {
		note("maxLifetime %v < 30s: 30m (R150)", c.MaxLifetime)
		c.MaxLifetime = 30 * time.Minute
	}
	checkIdle := c.Version == Hikari279 || c.MinimumIdle < c.MaximumPoolSize
	if checkIdle && c.IdleTimeout+time.Second > c.MaxLifetime && c.MaxLifetime > 0 && c.IdleTimeout != 0 {
		note("idleTimeout %v is close to or above maxLifetime %v: disabled (R150)", c.IdleTimeout, c.MaxLifetime)
		c.IdleTimeout = 0
	}
	if checkIdle && c.IdleTimeout != 0 && c.IdleTimeout < 10*time.Second {
		note("idleTimeout %v < 10s: 10m (R150)", c.IdleTimeout)
		c.IdleTimeout = 10 * time.Minute
	}
	if c.HousekeepingPeriod <= 0 {
		c.HousekeepingPeriod = 30 * time.Second
	}
	return c, notes
}

// hikariConn is one PoolEntry.
type hikariConn struct {
	id         int
	created    time.Duration
	lastAccess time.Duration
	inUse      bool
	closed     bool
	evicted    bool // soft-evicted while in use (maxLifetime, R156)
	holder     Borrower
}

// Timers a HikariPool asks for: the house-keeper, the end of a connection's
// creation, each connection's maxLifetime (id · 4 + kind), and the end of
// the adder's pause after a creation (6.x).
const (
	hikariHousekeeper = iota
	hikariCreated
	hikariLifetime
	hikariAdderPause
	hikariTimerKinds = 4
)

// hikari6AdderPause is how long 6.x's PoolEntryCreator sleeps after adding
// a connection (quietlySleep(30L)) before its task ends and the adder's next
// one can run (R157).
const hikari6AdderPause = 30 * time.Millisecond

// HikariPool mirrors com.zaxxer.hikari.pool.HikariPool with its
// ConcurrentBag.
type HikariPool struct {
	resourceBase
	cfg HikariConfig

	all       []*hikariConn            // the bag's shared list, in creation order
	threads   map[Thread][]*hikariConn // each thread's ThreadLocal list
	waiters   waiterFIFO               // the hand-off queue's waiters (fair)
	waitConn  map[Borrower]bool        // borrowers waiting (for WaitExpired)
	borrowing int                      // a borrower between waiters.incrementAndGet() and its wait
	nextID    int
	idle      int
	inUse     int

	// The connection adder: a single-thread executor with a bounded queue
	// (maximumPoolSize) and DiscardPolicy (R157). creating is true while
	// its task opens a connection; queued counts the creator tasks waiting.
	creating    bool
	queued      int
	pendingDraw ConnectionDraw // the draws of the connection being created

	// Figures for reports.
	Opened, Closed, TimedOut int64
}

// NewHikariPool starts a pool at now (R157): the constructor's
// checkFailFast opens one connection (initializationFailTimeout's check) —
// kept when minimumIdle > 0, closed again at once when it is 0, so that
// such a pool starts empty — and the house-keeper's first run 100 ms later
// fills the pool up to minimumIdle. The real constructor returns once that
// connection is open; the model's pool starts ready at now, the
// connection's connect time unused.
func NewHikariPool(now time.Duration, name string, cfg HikariConfig, obs Observer) *HikariPool {
	if obs == nil {
		obs = nopObserver{}
	}
	p := &HikariPool{resourceBase: resourceBase{name: name, obs: obs, now: now}, cfg: cfg,
		threads: map[Thread][]*hikariConn{}, waitConn: map[Borrower]bool{}}
	d := p.draw()
	if cfg.MinimumIdle > 0 {
		p.open(d)
	} else {
		// "initialization check complete and minimumIdle is zero": opened
		// and closed, never in the bag.
		p.nextID++
		p.Opened++
		p.report(ConnectionOpened, ResourceEvent{Unit: p.nextID})
		p.Closed++
		p.report(ConnectionClosed, ResourceEvent{Unit: p.nextID})
	}
	p.timer(now+100*time.Millisecond, hikariHousekeeper)
	return p
}

// SetIdleTimeout is HikariConfigMXBean.setIdleTimeout: a change at run
// time, which validateNumerics never sees (R150); the house-keeper reads it
// at its next run (R155).
func (p *HikariPool) SetIdleTimeout(d time.Duration) { p.cfg.IdleTimeout = d }

// SetMaxLifetime is HikariConfigMXBean.setMaxLifetime, unvalidated: it
// applies to the connections opened afterwards, whose lifetime timer
// createPoolEntry arms (R156); open ones keep theirs.
func (p *HikariPool) SetMaxLifetime(d time.Duration) { p.cfg.MaxLifetime = d }

// Config returns the pool's configuration.
func (p *HikariPool) Config() HikariConfig { return p.cfg }

func (p *HikariPool) timer(at time.Duration, id uint64) {
	p.report(ResourceTimer, ResourceEvent{Deadline: at, Timer: id})
}

// draw asks the event loop for a new connection's connect time and lifetime
// jitter.
func (p *HikariPool) draw() ConnectionDraw {
	var d ConnectionDraw
	p.report(ConnectionCreating, ResourceEvent{Draw: &d})
	return d
}

// open adds a new connection (createPoolEntry then ConcurrentBag.add): it
// arms its maxLifetime (R156) and goes to the longest waiter, if any.
func (p *HikariPool) open(d ConnectionDraw) {
	p.nextID++
	c := &hikariConn{id: p.nextID, created: p.now, lastAccess: p.now}
	p.all = append(p.all, c)
	p.idle++
	p.Opened++
	p.report(ConnectionOpened, ResourceEvent{Unit: c.id})
	if l := p.cfg.MaxLifetime; l > 0 {
		if l > 10*time.Second {
			l -= time.Duration(d.Jitter * float64(l/40)) // maxLifetime − U[0, maxLifetime/40)
		}
		p.timer(p.now+l, uint64(c.id)*hikariTimerKinds+hikariLifetime)
	}
	p.handOff(c)
}

// Acquire is HikariPool.getConnection(connectionTimeout) on thread th,
// with timeout replacing connectionTimeout when it is not Forever (R151).
func (p *HikariPool) Acquire(now time.Duration, b Borrower, th Thread, timeout time.Duration) {
	p.now = now
	if timeout == Forever {
		timeout = p.cfg.ConnectionTimeout
	}
	p.borrow(b, th, satAdd(now, timeout))
}

func satAdd(t, d time.Duration) time.Duration {
	if t > Forever-d {
		return Forever
	}
	return t + d
}

// borrow is ConcurrentBag.borrow with getConnection's loop around it
// (R151, R152): the thread's own list from its end, then the shared list
// from the oldest connection, then a FIFO wait until deadline.
func (p *HikariPool) borrow(b Borrower, th Thread, deadline time.Duration) {
	for {
		c := p.fromThreadList(th)
		if c == nil {
			// waiters.incrementAndGet(): from here to the end of its wait
			// the borrower counts as a waiting thread, for the adder too.
			p.borrowing++
			waiting := p.waiters.len() + p.borrowing
			c = p.fromShared()
			if c != nil && waiting > 1 {
				p.addBagItem(waiting - 1) // it may have taken a waiter's connection
			}
			if c == nil {
				p.addBagItem(waiting)
			}
			p.borrowing--
		}
		if c == nil {
			if p.now >= deadline {
				p.timedOut(b, th)
				return
			}
			p.waiters.push(waiter{b: b, th: th, deadline: deadline})
			p.waitConn[b] = true
			p.report(ResourceWaiting, ResourceEvent{Borrower: b, Thread: th, Deadline: deadline})
			return
		}
		if p.take(c, b, th) {
			return
		}
		// An evicted connection is closed at its next borrow (2.7.9,
		// R151): borrow again with the time left.
	}
}

// fromThreadList scans th's ThreadLocal list from its end, removing entries
// as it goes, for an idle connection (R152 step 1).
func (p *HikariPool) fromThreadList(th Thread) *hikariConn {
	l := p.threads[th]
	for len(l) > 0 {
		c := l[len(l)-1]
		l = l[:len(l)-1]
		if !c.inUse && !c.closed {
			p.threads[th] = l
			return c
		}
	}
	if _, ok := p.threads[th]; ok {
		p.threads[th] = l
	}
	return nil
}

// fromShared scans the shared list from the oldest connection (R152 step 2).
func (p *HikariPool) fromShared() *hikariConn {
	for _, c := range p.all {
		if !c.inUse && !c.closed {
			return c
		}
	}
	return nil
}

// take gives c to b: or, if c was evicted, closes it and reports false so
// that getConnection borrows again (R151).
func (p *HikariPool) take(c *hikariConn, b Borrower, th Thread) bool {
	p.idle--
	c.inUse = true
	if c.evicted {
		p.inUse++
		p.close(c)
		return false
	}
	p.inUse++
	c.holder = b
	p.report(ResourceGranted, ResourceEvent{Borrower: b, Thread: th, Unit: c.id})
	return true
}

// timedOut ends b's wait with SQLTransientConnectionException (R151).
func (p *HikariPool) timedOut(b Borrower, th Thread) {
	p.TimedOut++
	p.report(ResourceTimedOut, ResourceEvent{Borrower: b, Thread: th})
}

// WaitExpired ends b's wait in the hand-off queue at its deadline.
func (p *HikariPool) WaitExpired(now time.Duration, b Borrower) {
	w, ok := p.waiters.expire(b, now)
	if !ok {
		return
	}
	p.now = now
	delete(p.waitConn, b)
	p.timedOut(b, w.th)
}

// Release is ProxyConnection.close → PoolEntry.recycle → requite (R153):
// the connection goes to the longest waiter, else to the end of the
// returning thread's list (6.x: only while it holds fewer than 50). In 6.x
// an evicted connection is closed here.
func (p *HikariPool) Release(now time.Duration, b Borrower, th Thread) {
	p.now = now
	c := p.held(b)
	c.lastAccess = now
	c.holder = 0
	if c.evicted && p.cfg.Version == Hikari6 {
		p.close(c)
		return
	}
	c.inUse = false
	p.inUse--
	p.idle++
	if p.waiters.len() > 0 {
		p.handOff(c)
		return
	}
	if l := p.threads[th]; p.cfg.Version == Hikari279 || len(l) < 50 {
		p.threads[th] = append(l, c)
	}
}

// held finds the connection b holds.
func (p *HikariPool) held(b Borrower) *hikariConn {
	for _, c := range p.all {
		if c.inUse && c.holder == b {
			return c
		}
	}
	panic(fmt.Sprintf("model: resource %s: release by borrower %d, which holds no connection", p.name, b))
}

// handOff gives idle connection c to the longest waiter, if any: the fair
// SynchronousQueue's poll returns it (R152 step 3, R153).
func (p *HikariPool) handOff(c *hikariConn) {
	for p.waiters.len() > 0 && !c.inUse && !c.closed {
		w := p.waiters.pop()
		delete(p.waitConn, w.b)
		if p.take(c, w.b, w.th) {
			return
		}
		// An evicted connection was handed over: the waiter closes it and
		// borrows again, behind the others (2.7.9, R151).
		p.borrow(w.b, w.th, w.deadline)
		return
	}
}

// addBagItem is HikariPool.addBagItem (R157): queue a connection creator
// when waiting borrowers outnumber the queued creators (2.7.9: at least as
// many; 6.x: more).
func (p *HikariPool) addBagItem(waiting int) {
	should := waiting-p.queued >= 0
	if p.cfg.Version == Hikari6 {
		should = waiting-p.queued > 0
	}
	if should {
		p.submitCreator()
	}
}

// submitCreator submits a PoolEntryCreator to the adder: it runs at once
// if the adder is free, else waits in its queue of capacity maximumPoolSize
// (DiscardPolicy drops it when full).
func (p *HikariPool) submitCreator() {
	switch {
	case !p.creating:
		p.runCreator()
	case p.queued < p.cfg.MaximumPoolSize:
		p.queued++
	}
}

// runCreator runs one PoolEntryCreator on the adder's thread: it opens a
// connection if one is still wanted (shouldCreateAnotherConnection, R157),
// else ends at once and the next queued creator runs.
func (p *HikariPool) runCreator() {
	for {
		if p.shouldCreate() {
			p.creating = true
			d := p.draw()
			p.pendingDraw = d
			p.timer(p.now+d.Connect, hikariCreated)
			return
		}
		if p.queued == 0 {
			p.creating = false
			return
		}
		p.queued--
	}
}

// shouldCreate is shouldCreateAnotherConnection (R157). With zero hand-off
// latency a waiter that got a connection no longer counts. In 2.7.9 that
// is a race: ConcurrentBag.add's offer only wakes the waiter, whose thread
// leaves the waiters count when it runs, while the adder goes straight on
// to its next queued creator, whose check may still count it and open one
// connection more than needed (seen on the real 2.7.9 in 6 of 9 runs
// of a script with such a queued creator). 6.x's adder sleeps 30 ms after
// each connection (hikari6AdderPause), which settles it.
func (p *HikariPool) shouldCreate() bool {
	total := len(p.all)
	if total >= p.cfg.MaximumPoolSize {
		return false
	}
	waiting := p.waiters.len() + p.borrowing // ConcurrentBag.getWaitingThreadCount()
	if p.cfg.Version == Hikari6 {
		return p.idle < p.cfg.MinimumIdle || waiting > p.idle
	}
	return waiting > 0 || p.idle < p.cfg.MinimumIdle
}

// TimerFired runs the house-keeper, ends a connection's creation, or
// soft-evicts a connection at its maxLifetime.
func (p *HikariPool) TimerFired(now time.Duration, id uint64) {
	p.now = now
	switch id % hikariTimerKinds {
	case hikariHousekeeper:
		p.houseKeep()
		p.timer(now+p.cfg.HousekeepingPeriod, hikariHousekeeper) // scheduleWithFixedDelay
	case hikariCreated:
		p.open(p.pendingDraw)
		if p.cfg.Version == Hikari6 {
			p.timer(now+hikari6AdderPause, hikariAdderPause) // the task sleeps 30 ms
			return
		}
		p.nextCreator()
	case hikariAdderPause:
		p.nextCreator()
	case hikariLifetime:
		p.softEvict(int(id / hikariTimerKinds))
	}
}

// nextCreator ends the adder's task: its next queued creator runs, if any.
func (p *HikariPool) nextCreator() {
	if p.queued > 0 {
		p.queued--
		p.runCreator()
	} else {
		p.creating = false
	}
}

// houseKeep is HouseKeeper.run (R155): with idleTimeout set and minimumIdle
// below the maximum, close the idle connections unused for idleTimeout,
// newest first, as long as more than minimumIdle are idle; then fillPool.
func (p *HikariPool) houseKeep() {
	if p.cfg.IdleTimeout > 0 && p.cfg.MinimumIdle < p.cfg.MaximumPoolSize {
		remove := p.idle - p.cfg.MinimumIdle
		for i := len(p.all) - 1; i >= 0 && remove > 0; i-- {
			c := p.all[i]
			if !c.inUse && !c.closed && p.now-c.lastAccess > p.cfg.IdleTimeout {
				p.idle--
				p.inUse++ // reserved, then closed
				p.close(c)
				remove--
			}
		}
	}
	p.fillPool()
}

// fillPool (R157): queue creators for min(max − total, minIdle − idle)
// connections, less those already queued.
func (p *HikariPool) fillPool() {
	n := min(p.cfg.MaximumPoolSize-len(p.all), p.cfg.MinimumIdle-p.idle) - p.queued
	for ; n > 0; n-- {
		p.submitCreator()
	}
}

// softEvict is maxLifetime's timer (R156): close the connection now if
// idle, else mark it evicted.
func (p *HikariPool) softEvict(id int) {
	for _, c := range p.all {
		if c.id != id || c.closed {
			continue
		}
		if c.inUse {
			c.evicted = true
			return
		}
		p.idle--
		p.inUse++
		p.close(c)
		return
	}
}

// close removes an in-use (reserved) connection from the bag and, once the
// closer thread has closed it, refills the pool (R157).
func (p *HikariPool) close(c *hikariConn) {
	c.closed, c.inUse = true, false
	p.inUse--
	for i, x := range p.all {
		if x == c {
			p.all = append(p.all[:i], p.all[i+1:]...)
			break
		}
	}
	p.Closed++
	p.report(ConnectionClosed, ResourceEvent{Unit: c.id})
	p.fillPool()
}

// ThreadEnded drops th's ThreadLocal list.
func (p *HikariPool) ThreadEnded(th Thread) { delete(p.threads, th) }

// Stats returns the pool's state: total, active, idle, pending (waiting
// threads), and the creations queued or under way.
func (p *HikariPool) Stats() ResourceStats {
	pending := p.queued
	if p.creating {
		pending++
	}
	return ResourceStats{Total: len(p.all), InUse: p.inUse, Idle: p.idle, Waiters: p.waiters.len(), Pending: pending}
}

// Describe is where a thread waiting for a connection parks.
func (p *HikariPool) Describe() string {
	return "TIMED_WAITING (parking) in ConcurrentBag.borrow (SynchronousQueue.poll) for a connection of " + p.name
}

// CheckInvariants holds the bag's counts to its connections.
func (p *HikariPool) CheckInvariants() {
	s := p.Stats()
	idle, inUse := 0, 0
	for _, c := range p.all {
		if c.closed {
			panic(fmt.Sprintf("model invariant: resource %s: closed connection %d in the bag", p.name, c.id))
		}
		if c.inUse {
			inUse++
		} else {
			idle++
		}
	}
	if idle != p.idle || inUse != p.inUse || len(p.waitConn) != p.waiters.len() {
		panic(fmt.Sprintf("model invariant: resource %s: idle %d/%d, in use %d/%d, waiters %d/%d",
			p.name, idle, p.idle, inUse, p.inUse, len(p.waitConn), p.waiters.len()))
	}
	if len(p.all) > p.cfg.MaximumPoolSize {
		panic(fmt.Sprintf("model invariant: resource %s: %d connections > maximumPoolSize %d", p.name, len(p.all), p.cfg.MaximumPoolSize))
	}
	checkStats(p.name, s)
}

// String is a short description of the configuration.
func (c HikariConfig) String() string {
	return fmt.Sprintf("HikariCP %v: maximumPoolSize %d, minimumIdle %d, connectionTimeout %v, idleTimeout %v, maxLifetime %v",
		c.Version, c.MaximumPoolSize, c.MinimumIdle, c.ConnectionTimeout, c.IdleTimeout, c.MaxLifetime)
}
