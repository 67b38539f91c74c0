package sim

import (
	"time"

	"github.com/poolsim/poolsim/model"
)

// phase orders the events of one instant: at equal times the event of the
// earlier phase goes first (doc.go says why). The order is this table's;
// nextEvent only compares (time, phase).
type phase uint8

const (
	phaseCompletion phase = iota // a task's end (or the end of a blocking piece or of a thread start, host.go): in the heap
	phaseCPU                     // the end of a CPU piece on a host with a CPU limit (host.go): in the heap
	phaseKeepAlive               // a timed wait's timer (in the order the waits began): in the heap
	phaseWake                    // a signalled worker awake (host.wakeup, wakeup.go): in the heap
	phaseResource                // a resource's timer, then a resource wait's deadline (resources.go)
	phaseArrival                 // the workload's next submission
	phaseClient                  // a caller's patience ending, then a retry or a user's next request (client.go)
	phasePeriodic                // schedule calls of workload.periodic, after the arrivals
	phaseCancel                  // their future.cancel(false) calls (R97), after the schedule calls
	phaseRuntime                 // runtime events (setters, shutdown)
	phaseSnapshot                // snapshots.txt
	phaseSample                  // timeline samples, after every other event of their instant
	numPhases

	// heapPhases are the phases whose events wait in the event heap, many
	// at a time; the resource phase's wait in a heap of their own; each
	// later phase has one pending event at most. The next time of each
	// phase beside the event heap is in Engine.due.
	heapPhases = phaseResource
)

var phaseNames = [numPhases]string{"completion", "cpu", "keepAlive", "wake", "resource", "arrival", "client", "periodic", "cancel", "runtime", "snapshot", "sample"}

func (p phase) String() string { return phaseNames[p] }

// event is one event the engine processes.
type event struct {
	at    time.Duration
	phase phase
	idx   int32 // runtime event index
	w     *model.Worker
}

// nextEvent returns the next event to process, or false when none is due by
// the end of the run: the earliest by (time, phase) among the heap's top
// and the one pending event of each later phase. Taking it moves that
// phase's source on. The pending arrival changes at every submission; the
// phases after it change rarely, so their earliest (rest) is kept up to
// date by setDue instead of searched for at every event.
func (e *Engine) nextEvent() (event, bool) {
again:
	at, ph := never, phase(0)
	// e.h.earliest(), written out: the event loop that nextEvent inlines
	// into is past the size the compiler inlines into, and the call cost
	// 2 % of a run's CPU time (30 alternated runs).
	var top *entry
	if es := e.h.es; !e.h.taken {
		if len(es) > 0 {
			top = &es[0]
		}
	} else if len(es) > 1 {
		top = &es[smallerChild(es, 1, len(es))]
	}
	if top != nil {
		at, ph = top.at, top.phase()
	}
	fromQ := e.h.queueFirst(top, at) // the earliest is the timer queue's front
	if fromQ {
		at, ph = e.h.tq.at, phaseKeepAlive
	}
	if e.due[phaseResource] < at {
		at, ph = e.due[phaseResource], phaseResource
	}
	if e.due[phaseArrival] < at {
		at, ph = e.due[phaseArrival], phaseArrival
	}
	if e.restAt < at {
		at, ph = e.restAt, e.restPhase
	}
	if at > e.end {
		return event{}, false
	}
	ev := event{at: at, phase: ph}
	switch ph {
	case phaseCompletion, phaseCPU, phaseKeepAlive, phaseWake:
		if fromQ {
			ev.w = e.h.tq.pop()
		} else {
			ev.w = e.h.take()
		}
		if ph == phaseKeepAlive && e.plain && e.timerQuiet(ev.w, at) && e.rec.mergeExact(e.end) {
			// A timer that changes nothing: its books kept, it is
			// counted as the event it would have been, and the state
			// integrals run on through its instant (skipQuietTimers).
			e.fireKeepAlive(ev)
			e.events++
			e.quietSkipped++
			goto again
		}
	case phaseArrival:
		e.due[ph] = never // submit draws the next one
	case phaseResource, phaseClient, phasePeriodic, phaseCancel:
		// fireResource, fireClient, schedulePeriodic and cancelPeriodic
		// move their sources on.
	case phaseRuntime:
		ev.idx = int32(e.nextRuntime)
		e.nextRuntime++
		e.setDue(ph, e.nextRuntimeAt())
	case phaseSnapshot:
		e.nextSnap++
		e.setDue(ph, e.nextSnapAt())
	case phaseSample:
		e.setDue(ph, e.due[ph]+e.sc.Sample)
	}
	return ev, true
}

// setDue sets when phase p's next event is, p being a phase beside the
// event heap, and finds the earliest of the phases after the arrivals
// again: ties go to the earlier phase.
func (e *Engine) setDue(p phase, at time.Duration) {
	e.due[p] = at
	if p <= phaseArrival {
		return
	}
	e.restAt, e.restPhase = never, 0
	for q := phaseArrival + 1; q < numPhases; q++ {
		if e.due[q] < e.restAt {
			e.restAt, e.restPhase = e.due[q], q
		}
	}
}

// entry is an event in the heap: only completions and timers live there.
// key packs the phase above the sequence number, so the tie-break on
// (phase, seq) is one comparison.
type entry struct {
	at  time.Duration
	key uint64 // phase<<56 | seq
	w   *model.Worker
}

func (a *entry) less(b *entry) bool {
	return a.at < b.at || (a.at == b.at && a.key < b.key)
}

func (e *entry) phase() phase { return phase(e.key >> 56) }

// eventHeap is a binary min-heap of entries by value: pushing and popping
// allocate nothing once the slice has grown (container/heap would box every
// entry in an interface).
//
// The engine takes the top entry (take) and leaves it in place: the next
// push replaces it — one sift-down instead of a pop's and a push's, the
// common case of a worker whose task ended and that takes the next one, or
// parks with a timer, or of the next arrival starting a task — and until
// then the heap's earliest is the earlier of its children (earliest),
// which is removed from there when it is taken in turn. The entries' keys
// are unique, so the order in which they come out does not depend on how
// the heap holds them.
//
// Beside the heap, a FIFO holds the keepAlive timers armed in time order
// (timerQueue); nextEvent compares its front with the heap's top.
type eventHeap struct {
	es  []entry
	seq uint64
	// taken: es[0] was handed out by take and is gone from the heap.
	taken bool
	tq    timerQueue
}

func (h *eventHeap) push(at time.Duration, ph phase, w *model.Worker) {
	h.seq++
	x := entry{at: at, key: uint64(ph)<<56 | h.seq, w: w}
	if h.taken {
		h.taken = false
		h.es[0] = x
		h.down()
		return
	}
	h.es = append(h.es, x)
	up(h.es, len(h.es)-1)
}

// pushTimer adds w's keepAlive timer at at: to the timer queue if it is
// not earlier than the queue's last, to the heap otherwise.
func (h *eventHeap) pushTimer(at time.Duration, w *model.Worker) {
	if at < h.tq.last {
		h.push(at, phaseKeepAlive, w)
		return
	}
	h.seq++
	h.tq.push(entry{at: at, key: uint64(phaseKeepAlive)<<56 | h.seq, w: w})
}

// queueFirst reports whether the timer queue's front comes before top,
// the heap's top (nil: none) whose time is at (never: none).
func (h *eventHeap) queueFirst(top *entry, at time.Duration) bool {
	return h.tq.at <= at && h.tq.n > 0 && (top == nil || h.tq.buf[h.tq.head].less(top))
}

// earliest returns the heap's earliest entry (nil: none). A taken top
// stays in place until a push replaces it or the heap's next event is taken
// (take): meanwhile the earliest is the earlier of its children.
func (h *eventHeap) earliest() *entry {
	es := h.es
	if !h.taken {
		if len(es) == 0 {
			return nil
		}
		return &es[0]
	}
	if len(es) < 2 {
		return nil
	}
	return &es[smallerChild(es, 1, len(es))]
}

// take hands out the worker of the earliest entry (earliest has just
// returned it), which leaves the heap: a taken top is removed first, its
// earlier child, this entry, taking its place; the entry's own place goes
// to the next push.
func (h *eventHeap) take() *model.Worker {
	if h.taken {
		h.removeTop()
	}
	h.taken = true
	return h.es[0].w
}

// pop removes and returns the earliest entry, of the heap or the timer
// queue: for an eventHeap that take is not used on (calledExecutor's).
func (h *eventHeap) pop() entry {
	if h.frontFirst() {
		x := h.tq.buf[h.tq.head]
		h.tq.pop()
		return x
	}
	top := h.es[0]
	h.removeTop()
	return top
}

// frontFirst reports whether the timer queue's front comes before the
// heap's top.
func (h *eventHeap) frontFirst() bool {
	return h.tq.n > 0 && (len(h.es) == 0 || h.tq.buf[h.tq.head].less(&h.es[0]))
}

// removeTop removes the heap's top, bottom-up (Floyd): the hole at the
// top moves down along the smaller children to a leaf — one comparison a
// level, not two — and the last entry fills it and sifts up, which it
// seldom has far to go.
func (h *eventHeap) removeTop() {
	es := h.es
	n := len(es) - 1
	k := 0
	for {
		l := 2*k + 1
		if l >= n {
			break
		}
		c := smallerChild(es, l, n)
		es[k] = es[c]
		k = c
	}
	es[k] = es[n]
	es[n] = entry{}
	h.es = es[:n]
	up(es[:n], k)
}

// up sifts the entry at k up to its place.
func up(es []entry, k int) {
	for k > 0 {
		parent := (k - 1) / 2
		if !es[k].less(&es[parent]) {
			break
		}
		es[k], es[parent] = es[parent], es[k]
		k = parent
	}
}

// smallerChild is the earlier of the children l and l+1 (if l+1 < n) of a
// heap of n entries: where an entry moving down goes. Which child is
// earlier is a coin toss the processor cannot predict, so it is computed
// without a branch (an index of l plus 0 or 1): a mispredicted branch on
// every level of every sift cost more than the arithmetic.
func smallerChild(es []entry, l, n int) int {
	r := l + 1
	if r >= n {
		return l
	}
	a, b := &es[r], &es[l]
	return l + (b2i(a.at < b.at) | b2i(a.at == b.at)&b2i(a.key < b.key))
}

// b2i is 1 for true, 0 for false (a SETcc, no branch).
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// down sifts the top entry down to its place.
func (h *eventHeap) down() {
	es := h.es
	n := len(es)
	k := 0
	for {
		l := 2*k + 1
		if l >= n {
			break
		}
		c := smallerChild(es, l, n)
		if !es[c].less(&es[k]) {
			break
		}
		es[k], es[c] = es[c], es[k]
		k = c
	}
}

// len and peek look at an eventHeap that take is not used on
// (calledExecutor's).
func (h *eventHeap) len() int { return len(h.es) + h.tq.n }

func (h *eventHeap) peek() *entry {
	if h.frontFirst() {
		return &h.tq.buf[h.tq.head]
	}
	return &h.es[0]
}

// timerQueue is a FIFO of keepAlive timers, a ring buffer: with a constant
// keepAlive, timers are armed at now + keepAlive, in nondecreasing time
// order and with increasing sequence numbers, so the queue is ordered by
// (time, phase, sequence number) as the heap is and its front is its
// earliest. A timer earlier than the last one queued (a keepAlive lowered
// at runtime, a re-arm at the end of a wait that began before the last
// timer was armed) goes to the heap.
type timerQueue struct {
	buf     []entry // len(buf) is 0 or a power of two
	head, n int
	at      time.Duration // the front's time (never when empty: NewEngine sets it)
	last    time.Duration // the last one's time (0: empty)
}

func (q *timerQueue) push(x entry) {
	if q.n == len(q.buf) {
		buf := make([]entry, max(2*len(q.buf), 16))
		for i := 0; i < q.n; i++ {
			buf[i] = q.buf[(q.head+i)&(len(q.buf)-1)]
		}
		q.buf, q.head = buf, 0
	}
	q.buf[(q.head+q.n)&(len(q.buf)-1)] = x
	if q.n == 0 {
		q.at = x.at
	}
	q.n++
	q.last = x.at
}

// pop removes the front entry and returns its worker.
func (q *timerQueue) pop() *model.Worker {
	f := &q.buf[q.head]
	w := f.w
	*f = entry{}
	q.head = (q.head + 1) & (len(q.buf) - 1)
	q.n--
	if q.n == 0 {
		q.at, q.last = never, 0
	} else {
		q.at = q.buf[q.head].at
	}
	return w
}
