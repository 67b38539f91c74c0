package model

import "time"

// schedule is what a ScheduledFutureTask adds to its Runnable: its due
// time (ScheduledFutureTask.time), its sequence number (ties are broken FIFO
// by it, R88) and its period: > 0 for scheduleAtFixedRate, < 0 for
// scheduleWithFixedDelay (the delay, negated, as the JDK stores it), 0 for
// a one-shot task (R89, R94, R95). cancelled is the FutureTask's state
// CANCELLED, set by future.cancel(false) (R97): a queued task keeps its
// place in the heap, and a running one finishes, but neither runs again.
type schedule struct {
	due       time.Duration
	seq       uint64
	period    time.Duration
	cancelled bool
}

// periodic reports whether the task repeats (ScheduledFutureTask.isPeriodic).
func (s *schedule) periodic() bool { return s.period != 0 }

// delayed is one ScheduledFutureTask in the DelayedWorkQueue.
type delayed struct {
	task Task
	schedule
}

// before is ScheduledFutureTask.compareTo: by due time, then by sequence
// number. Sequence numbers are unique, so the order is total and any heap
// gives the same poll order.
func (d *delayed) before(o *delayed) bool {
	if d.due != o.due {
		return d.due < o.due
	}
	return d.seq < o.seq
}

// delayStore is ScheduledThreadPoolExecutor.DelayedWorkQueue's binary heap
// (R88), with the JDK's own siftUp, siftDown and remove, so that the array
// order — which toArray, onShutdown's traversal and shutdownNow's drain
// see (R98) — is the JDK's too. It is unbounded: offer never refuses, so an
// STPE never grows past core (R7, R88).
//
// It implements taskStore for the pool's generic code, which only asks for
// its size and iterates it; the scheduled code (scheduled.go) uses add,
// peek, pollHead and removeAt, which know due times.
type delayStore struct {
	es  []delayed
	out Task // the task poll returned
}

func (q *delayStore) size() int { return len(q.es) }

// head returns the task due first, or nil (queue[0]).
func (q *delayStore) head() *delayed {
	if len(q.es) == 0 {
		return nil
	}
	return &q.es[0]
}

// add is DelayedWorkQueue.offer: insert and sift up. It reports whether the
// new task became the head, the case in which offer clears the leader and
// signals a waiter (R93).
func (q *delayStore) add(d delayed) (isHead bool) {
	q.es = append(q.es, delayed{})
	q.siftUp(len(q.es)-1, d)
	return q.es[0].seq == d.seq
}

func (q *delayStore) siftUp(k int, key delayed) {
	for k > 0 {
		parent := (k - 1) >> 1
		if !key.before(&q.es[parent]) {
			break
		}
		q.es[k] = q.es[parent]
		k = parent
	}
	q.es[k] = key
}

func (q *delayStore) siftDown(k int, key delayed) {
	n := len(q.es)
	half := n >> 1
	for k < half {
		child := 2*k + 1
		if right := child + 1; right < n && q.es[right].before(&q.es[child]) {
			child = right
		}
		if !q.es[child].before(&key) {
			break
		}
		q.es[k] = q.es[child]
		k = child
	}
	q.es[k] = key
}

// pollHead is finishPoll(queue[0]): remove the head and restore the heap.
func (q *delayStore) pollHead() delayed {
	return q.removeAt(0)
}

// removeAt is DelayedWorkQueue.remove of the element at index i: the last
// element replaces it and sifts down, or up if it did not move.
func (q *delayStore) removeAt(i int) delayed {
	out := q.es[i]
	s := len(q.es) - 1
	replacement := q.es[s]
	q.es[s] = delayed{}
	q.es = q.es[:s]
	if s != i {
		q.siftDown(i, replacement)
		if q.es[i].seq == replacement.seq {
			q.siftUp(i, replacement)
		}
	}
	return out
}

// indexOf finds the task with sequence number seq (DelayedWorkQueue.indexOf).
func (q *delayStore) indexOf(seq uint64) int {
	for i := range q.es {
		if q.es[i].seq == seq {
			return i
		}
	}
	return -1
}

// snapshot returns the sequence numbers in array order (toArray).
func (q *delayStore) snapshot() []uint64 {
	out := make([]uint64, len(q.es))
	for i := range q.es {
		out[i] = q.es[i].seq
	}
	return out
}

// The taskStore interface, for the pool's generic code.

// offer is never used: tasks enter through add, which needs a due time.
func (q *delayStore) offer(*Task) bool {
	panic("model: DelayedWorkQueue takes tasks through schedule, not offer")
}

// poll removes the head whether due or not (ShutdownNow drains through
// drain instead, in the JDK's order).
func (q *delayStore) poll() *Task {
	if len(q.es) == 0 {
		return nil
	}
	q.out = q.pollHead().task
	return &q.out
}

func (q *delayStore) peek() (*Task, bool) {
	if len(q.es) == 0 {
		return nil, false
	}
	return &q.es[0].task, true
}

// each visits the tasks in the order workers will take them: by due time,
// ties by sequence. It works on a copy.
func (q *delayStore) each(fn func(*Task)) {
	c := delayStore{es: append([]delayed(nil), q.es...)}
	for len(c.es) > 0 {
		d := c.pollHead()
		fn(&d.task)
	}
}
