package model

import (
	"fmt"
	"time"
)

// A Resource is something a task holds for part of its service and may have
// to wait for: a connection of a HikariCP pool (HikariPool, hikari.go), a
// permit of a java.util.concurrent.Semaphore used as a bulkhead (Semaphore,
// semaphore.go). Like an Executor it is a pure state machine: it is given
// the virtual time of every call, reports everything through its Observer
// (the Resource* events), and asks the event loop to call it back
// (ResourceTimer) rather than scheduling anything itself.
//
// A borrower is named by the event loop (Borrower: it finds the task again
// from it) and by the thread that borrows (Thread: HikariCP keeps a list
// of connections per thread).
type Resource interface {
	// Name is the resource's name in the scenario.
	Name() string
	// Acquire asks for one unit at now for borrower b on thread th,
	// waiting at most timeout (Forever: no limit; 0: fail at once). It
	// reports ResourceGranted, or ResourceWaiting then, later,
	// ResourceGranted or ResourceTimedOut; a borrower that cannot wait
	// is reported ResourceTimedOut at once.
	Acquire(now time.Duration, b Borrower, th Thread, timeout time.Duration)
	// Release gives back the unit b holds, on thread th.
	Release(now time.Duration, b Borrower, th Thread)
	// WaitExpired fires the timer of b's wait (reported with its deadline
	// in ResourceWaiting) at that deadline; it is a no-op if b no longer
	// waits with that deadline (the wait ended, or b waits anew).
	WaitExpired(now time.Duration, b Borrower)
	// TimerFired fires a timer the resource asked for (ResourceTimer).
	TimerFired(now time.Duration, id uint64)
	// ThreadEnded tells the resource that thread th has ended.
	ThreadEnded(th Thread)
	// Stats is the resource's state now.
	Stats() ResourceStats
	// Describe says, as a thread dump annotated by poolsim would, where a
	// thread waiting for this resource is parked.
	Describe() string
	// CheckInvariants panics with a state dump if the bookkeeping is
	// inconsistent.
	CheckInvariants()
}

// Borrower names one acquisition: the event loop's handle of the task that
// asks (it is echoed in every event about the acquisition).
type Borrower uint64

// Thread names the thread that borrows, for resources that keep state per
// thread (HikariCP's ThreadLocal lists).
type Thread uint64

// Forever is a wait without a timeout (acquire(), not tryAcquire(t)).
const Forever = time.Duration(1<<63 - 1)

// ResourceStats is a resource's state at one instant.
type ResourceStats struct {
	Total   int // units that exist: open connections, permits
	InUse   int // held by borrowers
	Idle    int // free
	Waiters int // borrowers waiting
	// Pending is, for HikariCP, the connection creations queued or under
	// way (the adder's queue and its running task).
	Pending int
}

// ResourceEvent is what a Resource* event carries besides the common
// fields: which resource, which borrower, which unit.
type ResourceEvent struct {
	Resource string
	Borrower Borrower
	Thread   Thread
	Unit     int           // the connection's number (from 1), or 0
	Deadline time.Duration // ResourceWaiting: when the wait times out (Forever: never)
	Timer    uint64        // ResourceTimer: the id to pass back to TimerFired
	// Draw is set on ConnectionCreating: the event loop fills in what the
	// model cannot draw, during the call.
	Draw *ConnectionDraw
}

// ConnectionDraw is what a new connection's creation needs from the event
// loop's random streams.
type ConnectionDraw struct {
	// Connect is how long the database takes to open the connection.
	Connect time.Duration
	// Jitter is a uniform draw in [0, 1) for the maxLifetime variance (R156).
	Jitter float64
}

// waiterFIFO is a FIFO of waiting borrowers with their deadlines (a fair
// SynchronousQueue's waiters, an AQS sync queue).
type waiterFIFO struct {
	q []waiter
}

type waiter struct {
	b        Borrower
	th       Thread
	deadline time.Duration
}

func (f *waiterFIFO) len() int { return len(f.q) }

func (f *waiterFIFO) push(w waiter) { f.q = append(f.q, w) }

// pop removes and returns the longest waiter.
func (f *waiterFIFO) pop() waiter {
	w := f.q[0]
	copy(f.q, f.q[1:])
	f.q = f.q[:len(f.q)-1]
	return w
}

// expire takes b out of the queue if it waits there with this deadline (a
// timer of an earlier wait of the same borrower is stale) and reports
// whether it did.
func (f *waiterFIFO) expire(b Borrower, deadline time.Duration) (waiter, bool) {
	for i, w := range f.q {
		if w.b == b && w.deadline == deadline {
			copy(f.q[i:], f.q[i+1:])
			f.q = f.q[:len(f.q)-1]
			return w, true
		}
	}
	return waiter{}, false
}

// resourceBase is what both resources share: the name, the observer, the
// clock of the current call, the event being reported.
type resourceBase struct {
	name string
	obs  Observer
	now  time.Duration
	ev   Event
	rev  ResourceEvent
}

func (r *resourceBase) Name() string { return r.name }

// report sends a resource event of kind k.
func (r *resourceBase) report(k EventKind, re ResourceEvent) {
	re.Resource = r.name
	r.rev = re
	r.ev = Event{Kind: k, At: r.now, Res: &r.rev}
	r.obs.Observe(&r.ev)
}

// checkStats holds the counts every resource keeps consistent.
func checkStats(name string, s ResourceStats) {
	if s.InUse < 0 || s.Idle < 0 || s.Waiters < 0 || s.InUse+s.Idle != s.Total {
		panic(fmt.Sprintf("model invariant: resource %s: %+v", name, s))
	}
	if s.Waiters > 0 && s.Idle > 0 {
		panic(fmt.Sprintf("model invariant: resource %s: %d waiters beside %d idle units: %+v", name, s.Waiters, s.Idle, s))
	}
}
