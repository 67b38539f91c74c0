package model

import (
	"fmt"
	"time"
)

// Semaphore mirrors java.util.concurrent.Semaphore used as a bulkhead
// (spec §14.2, R160–R162): permits taken by acquire() or tryAcquire(t),
// given back by release(); waiters queue FIFO in the AQS sync queue, and a
// timed waiter leaves it at its deadline. Resilience4j's SemaphoreBulkhead
// is a fair Semaphore whose callers use tryAcquire(maxWaitDuration) (R162).
//
// Zero hand-off latency, as for the pools (R47): a released permit goes at
// once to the first waiter, so a free permit and a waiter never coexist,
// and fair and non-fair semaphores behave alike — they differ only in
// whether an arrival may take a permit during a woken waiter's wake-up
// (R161), which takes no time here.
type Semaphore struct {
	resourceBase
	permits int
	fair    bool
	free    int
	waiters waiterFIFO
	holders map[Borrower]bool

	// TimedOut counts the acquisitions that failed (tryAcquire returned
	// false).
	TimedOut int64
}

// NewSemaphore is new Semaphore(permits, fair).
func NewSemaphore(name string, permits int, fair bool, obs Observer) *Semaphore {
	if obs == nil {
		obs = nopObserver{}
	}
	return &Semaphore{resourceBase: resourceBase{name: name, obs: obs}, permits: permits, fair: fair, free: permits,
		holders: map[Borrower]bool{}}
}

// Permits returns the semaphore's permits and fairness.
func (s *Semaphore) Permits() (permits int, fair bool) { return s.permits, s.fair }

// Acquire is acquire() (timeout Forever) or tryAcquire(timeout): a free
// permit is taken at once; else the caller waits FIFO until one is
// released, or fails at its deadline (at once for a timeout of 0).
func (s *Semaphore) Acquire(now time.Duration, b Borrower, th Thread, timeout time.Duration) {
	s.now = now
	if s.free > 0 {
		s.free--
		s.holders[b] = true
		s.report(ResourceGranted, ResourceEvent{Borrower: b, Thread: th})
		return
	}
	if timeout <= 0 {
		s.TimedOut++
		s.report(ResourceTimedOut, ResourceEvent{Borrower: b, Thread: th})
		return
	}
	deadline := Forever
	if timeout != Forever {
		deadline = satAdd(now, timeout)
	}
	s.waiters.push(waiter{b: b, th: th, deadline: deadline})
	s.report(ResourceWaiting, ResourceEvent{Borrower: b, Thread: th, Deadline: deadline})
}

// Release is release(): the permit goes to the first waiter, if any.
func (s *Semaphore) Release(now time.Duration, b Borrower, th Thread) {
	s.now = now
	if !s.holders[b] {
		panic(fmt.Sprintf("model: resource %s: release by borrower %d, which holds no permit", s.name, b))
	}
	delete(s.holders, b)
	if s.waiters.len() > 0 {
		w := s.waiters.pop()
		s.holders[w.b] = true
		s.report(ResourceGranted, ResourceEvent{Borrower: w.b, Thread: w.th})
		return
	}
	s.free++
}

// WaitExpired ends b's tryAcquire(t) at its deadline: it returns false.
func (s *Semaphore) WaitExpired(now time.Duration, b Borrower) {
	w, ok := s.waiters.expire(b, now)
	if !ok {
		return
	}
	s.now = now
	s.TimedOut++
	s.report(ResourceTimedOut, ResourceEvent{Borrower: b, Thread: w.th})
}

// TimerFired: a Semaphore asks for no timers.
func (s *Semaphore) TimerFired(time.Duration, uint64) {}

// ThreadEnded: a Semaphore keeps nothing per thread.
func (s *Semaphore) ThreadEnded(Thread) {}

// Stats returns the permits in use and free, and the waiters.
func (s *Semaphore) Stats() ResourceStats {
	return ResourceStats{Total: s.permits, InUse: s.permits - s.free, Idle: s.free, Waiters: s.waiters.len()}
}

// Describe is where a thread waiting for a permit parks.
func (s *Semaphore) Describe() string {
	return "WAITING (parking) in Semaphore.acquire (AQS sync queue) for a permit of " + s.name
}

// CheckInvariants holds the permits to their holders.
func (s *Semaphore) CheckInvariants() {
	st := s.Stats()
	if len(s.holders) != st.InUse {
		panic(fmt.Sprintf("model invariant: resource %s: %d holders, %d permits in use", s.name, len(s.holders), st.InUse))
	}
	checkStats(s.name, st)
}
