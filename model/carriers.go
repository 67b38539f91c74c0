package model

import (
	"fmt"
	"time"
)

// VT is the event loop's handle of a virtual thread in a CarrierScheduler.
type VT int32

// Mount reports that a VT was mounted on a carrier after waiting Waited in
// the runnable queue: the event loop continues its code from there.
type Mount struct {
	VT     VT
	Waited time.Duration
}

// Compensation is what tryCompensate did for one blocking call (R136); the
// event loop gives it back to EndBlocking.
type Compensation uint8

const (
	// NotCompensated: the call holds its carrier and nothing makes up for
	// it (a pinned park, R134; a JDK 24+ file read, R136; or maxPoolSize
	// was reached).
	NotCompensated Compensation = iota
	// WokeIdle: an idle carrier was woken (it finds the runnable queue
	// empty, as an idle carrier only exists then).
	WokeIdle
	// CountedFewer: active carriers > minRunnable and total >= P: the
	// pool only counts one active carrier fewer, starting no thread;
	// EndBlocking counts it back.
	CountedFewer
	// StartedCarrier: a new carrier was started (total < maxPoolSize); it
	// stays after the call until CarrierKeepAlive idle.
	StartedCarrier
)

// CarrierScheduler is the virtual-thread scheduler (R131, R132): a
// ForkJoinPool in async (FIFO) mode whose workers are the carriers. It is
// a pure state machine like the executors: the event loop tells it when a
// VT becomes runnable, unmounts, or blocks holding its carrier, and it
// answers which VT mounts where; it knows no clock but the times it is
// given.
//
//   - A runnable VT mounts on an idle carrier (the most recently idle
//     first: ForkJoinPool's idle workers form a stack), else on a new
//     carrier while fewer than P exist (signalWork), else it waits in one
//     FIFO queue (R132; the real pool has a queue per carrier with work
//     stealing, which this one FIFO stands for).
//   - A mounted VT keeps its carrier until it parks, blocks unpinned or
//     ends (no preemption, R132): Unmount frees the carrier, which takes
//     the head of the queue.
//   - A blocking call that holds the carrier (pinned, R134–R136) calls
//     BeginBlocking; a Compensated one runs tryCompensate (R136).
//   - Carriers beyond P (started by compensation) end after
//     CarrierKeepAlive idle; the first P are kept (the real pool may trim
//     those too after 30 s of quiet: not modelled).
type CarrierScheduler struct {
	jvm      JVM
	total    int
	idle     []time.Duration // when each idle carrier went idle, oldest first; the last is woken first
	busy     int             // carriers with a VT mounted
	held     int             // of them, held by a blocking call
	released int             // CountedFewer compensations in force
	q        []Mount         // runnable VTs, FIFO from qHead; Waited holds when each became runnable
	qHead    int
	largest  int

	compensations, carriersStarted int64
}

// NewCarrierScheduler returns the scheduler of a JVM that has started no
// carrier yet (the pool starts them on demand).
func NewCarrierScheduler(j JVM) *CarrierScheduler { return &CarrierScheduler{jvm: j} }

// JVM returns the scheduler's settings.
func (s *CarrierScheduler) JVM() JVM { return s.jvm }

// Carriers is the carriers alive at now (after the surplus idle ones
// whose keep-alive has passed have ended).
func (s *CarrierScheduler) Carriers(now time.Duration) int { s.expire(now); return s.total }

// Busy is the carriers with a VT mounted (computing or held).
func (s *CarrierScheduler) Busy() int { return s.busy }

// Held is the carriers held by a VT blocked on them (pinned, or in a call
// that does not unmount).
func (s *CarrierScheduler) Held() int { return s.held }

// RunnableLen is the VTs waiting for a carrier.
func (s *CarrierScheduler) RunnableLen() int { return len(s.q) - s.qHead }

// Largest is the most carriers alive at once.
func (s *CarrierScheduler) Largest() int { return s.largest }

// Compensations is the blocking calls tryCompensate compensated (WokeIdle,
// CountedFewer or StartedCarrier); CarriersStarted those that started a
// carrier.
func (s *CarrierScheduler) Compensations() int64   { return s.compensations }
func (s *CarrierScheduler) CarriersStarted() int64 { return s.carriersStarted }

// expire ends the surplus carriers idle for CarrierKeepAlive by now.
// Applied lazily before every use, it gives what timers would: a carrier
// whose keep-alive passed at t <= now is gone at now.
func (s *CarrierScheduler) expire(now time.Duration) {
	n := 0
	for n < len(s.idle) && s.total > s.jvm.Parallelism && s.idle[n]+CarrierKeepAlive <= now {
		n++
		s.total--
	}
	if n > 0 {
		s.idle = append(s.idle[:0], s.idle[n:]...)
	}
}

// newCarrier starts a carrier, busy at once.
func (s *CarrierScheduler) newCarrier() {
	s.total++
	s.busy++
	s.largest = max(s.largest, s.total)
}

// Runnable: vt became runnable at now — started, or unparked (R131: a
// runnable VT is a task submitted to the scheduler). It reports whether vt
// mounted at once; else it waits in the FIFO until Unmount or
// BeginBlocking hands it a carrier.
func (s *CarrierScheduler) Runnable(now time.Duration, vt VT) bool {
	s.expire(now)
	switch {
	case len(s.idle) > 0:
		s.idle = s.idle[:len(s.idle)-1]
		s.busy++
		return true
	case s.total < s.jvm.Parallelism:
		s.newCarrier()
		return true
	}
	s.q = append(s.q, Mount{VT: vt, Waited: now})
	return false
}

// takeNext gives a carrier that has just become free the head of the
// runnable queue, if any; else the carrier goes idle.
func (s *CarrierScheduler) takeNext(now time.Duration) (Mount, bool) {
	if s.qHead == len(s.q) {
		s.busy--
		s.idle = append(s.idle, now)
		return Mount{}, false
	}
	m := s.q[s.qHead]
	s.q[s.qHead] = Mount{}
	s.qHead++
	if s.qHead == len(s.q) {
		s.q, s.qHead = s.q[:0], 0
	} else if s.qHead >= 1024 && s.qHead*2 >= len(s.q) {
		s.q = append(s.q[:0], s.q[s.qHead:]...)
		s.qHead = 0
	}
	m.Waited = now - m.Waited
	return m, true
}

// Unmount: the VT mounted on one carrier parks, blocks unpinned (R133) or
// ends at now. The carrier takes the next runnable VT, reported as the
// Mount, or goes idle.
func (s *CarrierScheduler) Unmount(now time.Duration) (Mount, bool) {
	s.expire(now)
	if s.busy <= s.held {
		panic("model: Unmount with no carrier running a VT")
	}
	return s.takeNext(now)
}

// BeginBlocking: the VT on one carrier blocks at now keeping it, as b says
// (Pinned, Compensated or HeldUncompensated). A Compensated call runs
// tryCompensate (R136, JDK 25 order): wake an idle carrier if there is
// one; else, if active carriers > minRunnable and total >= P, count one
// active carrier fewer; else, if total < maxPoolSize, start a carrier,
// which takes the head of the runnable queue (reported as the Mount); else
// go on uncompensated. A pinned park never compensates (R134).
func (s *CarrierScheduler) BeginBlocking(now time.Duration, b Blocking) (Compensation, Mount, bool) {
	s.expire(now)
	if !b.HoldsCarrier() {
		panic("model: BeginBlocking for a call that unmounts")
	}
	s.held++
	if s.held > s.busy {
		panic("model: BeginBlocking with no carrier running a VT")
	}
	if b != Compensated {
		return NotCompensated, Mount{}, false
	}
	active := s.busy - s.released
	switch {
	case len(s.idle) > 0:
		s.compensations++
		return WokeIdle, Mount{}, false
	case active > s.jvm.MinRunnable && s.total >= s.jvm.Parallelism:
		s.compensations++
		s.released++
		return CountedFewer, Mount{}, false
	case s.total < s.jvm.MaxPoolSize:
		s.compensations++
		s.carriersStarted++
		s.newCarrier()
		m, ok := s.takeNext(now)
		return StartedCarrier, m, ok
	}
	return NotCompensated, Mount{}, false
}

// EndBlocking: the blocking call begun with c ends at now; its VT goes on
// on the same carrier (Blocker.end undoes a CountedFewer).
func (s *CarrierScheduler) EndBlocking(now time.Duration, c Compensation) {
	s.expire(now)
	if s.held == 0 {
		panic("model: EndBlocking with no blocked carrier")
	}
	s.held--
	if c == CountedFewer {
		s.released--
	}
}

// CheckInvariants panics if the bookkeeping is inconsistent.
func (s *CarrierScheduler) CheckInvariants() {
	fail := func(format string, args ...any) {
		panic(fmt.Sprintf("model: carrier scheduler: "+format+" (total %d busy %d idle %d held %d released %d runnable %d)",
			append(args, s.total, s.busy, len(s.idle), s.held, s.released, s.RunnableLen())...))
	}
	switch {
	case s.busy+len(s.idle) != s.total:
		fail("busy + idle != total")
	case s.held > s.busy || s.released > s.held || s.released < 0:
		fail("held or released out of range")
	case s.total > s.jvm.MaxPoolSize:
		fail("more carriers than maxPoolSize")
	case s.RunnableLen() > 0 && len(s.idle) > 0:
		fail("a runnable VT waits while a carrier idles")
	case s.RunnableLen() > 0 && s.total < s.jvm.Parallelism:
		fail("a runnable VT waits while fewer than P carriers exist")
	}
}
