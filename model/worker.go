package model

import (
	"fmt"
	"time"
)

// State is a worker thread's state as a thread dump would show it (R56–R60).
type State uint8

const (
	// Starting is the state before the worker's first setState.
	Starting State = iota
	// Running: the worker holds a task (RUNNABLE, or whatever the task does, R56).
	Running
	// IdleTimed: parked in queue.poll(keepAlive) inside getTask (TIMED_WAITING, R57).
	IdleTimed
	// IdleUntimed: parked in queue.take() inside getTask (WAITING, R58).
	IdleUntimed
	// Exited: the thread has ended.
	Exited
)

var stateNames = [...]string{Starting: "STARTING", Running: "RUNNING", IdleTimed: "IDLE_TIMED", IdleUntimed: "IDLE_UNTIMED", Exited: "EXITED"}

func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return fmt.Sprintf("State(%d)", s)
}

// idle reports whether s is IdleTimed or IdleUntimed.
func (s State) idle() bool { return s-IdleTimed <= IdleUntimed-IdleTimed }

// ThreadState is the java.lang.Thread.State a thread dump prints for a
// worker in this state (M6).
func (s State) ThreadState() string {
	switch s {
	case Running:
		return "RUNNABLE"
	case IdleTimed:
		return "TIMED_WAITING"
	case IdleUntimed:
		return "WAITING"
	case Exited:
		return "TERMINATED"
	}
	return "NEW"
}

// Worker mirrors ThreadPoolExecutor.Worker: one pool thread.
//
// Workers are interchangeable (R16): "core" is a count, not an identity.
type Worker struct {
	// ID is the thread number in creation order, from 1: the M of
	// pool-N-thread-M (R87) or Tomcat's <prefix>M (R62).
	ID int

	Created   time.Duration // when addWorker started it
	Completed int64         // tasks it finished, thrown ones included (R13)

	state     State
	since     time.Duration // when it entered its current state
	idleSince time.Duration // when it last became idle (its current idle gap began)

	task    Task // current task while Running
	hasTask bool

	// The wait it is in, while IdleTimed or IdleUntimed (M2).
	parkedAt time.Duration // latest entry into the wait list: the hand-off key (R47)
	deadline time.Duration // IdleTimed: end of its poll(keepAlive)
	// slot is a small number unique among live workers, reused after an
	// exit (Slot).
	slot int32

	// timedOut is getTask's local "did the last poll() time out?" (R15d),
	// kept across the worker's parks within one getTask call.
	timedOut bool
	// signalled: a condition queue signalled it and it is waking (off the
	// wait list, still idle, Config.Wakeup); interruptPending: it was
	// interrupted meanwhile (R113, R116).
	signalled, interruptPending bool

	// Scheduled flavor (scheduled.go): the ScheduledFutureTask it runs
	// (its due time, sequence and period), and the DelayedWorkQueue call
	// it waits in: poll(keepAlive) until pollDeadline, or take().
	sched        schedule
	inPoll       bool
	pollDeadline time.Duration

	// Jetty flavor (jetty.go): the pool's event stamp when the worker
	// began its current job or wait, to order it against lastShrink.
	stamp uint64

	// Intrusive lists: all live workers in creation order, and the wait list.
	prev, next   *Worker
	wprev, wnext *Worker
	waiting      bool
}

// State returns the worker's current state.
func (w *Worker) State() State { return w.state }

// Since returns when the worker entered its current state.
func (w *Worker) Since() time.Duration { return w.since }

// IdleSince returns when the worker last became idle: the start of its
// current idle gap, across a switch from poll(keepAlive) to take().
func (w *Worker) IdleSince() time.Duration { return w.idleSince }

// Task returns the task the worker is running, if any.
func (w *Worker) Task() (Task, bool) { return w.task, w.hasTask }

// Running returns the task the worker is running (nil if none), without
// copying it: it is valid while the worker runs it and must not be changed.
func (w *Worker) Running() *Task {
	if !w.hasTask {
		return nil
	}
	return &w.task
}

// Deadline returns when the worker's current poll(keepAlive) times out; it
// is meaningful only while the worker is IdleTimed.
func (w *Worker) Deadline() time.Duration { return w.deadline }

// ParkedAt returns when the worker last entered the wait list.
func (w *Worker) ParkedAt() time.Duration { return w.parkedAt }

// Signalled reports whether the worker was signalled and is still waking
// (Config.Wakeup): idle, off the wait list, due to re-acquire the queue's
// lock.
func (w *Worker) Signalled() bool { return w.signalled }

// Slot is a small number, from 0, unique among the pool's live workers and
// reused once a worker has exited (reported Exited): an event loop can
// keep its own per-worker state in a slice indexed by it, which stays as
// long as the pool's largest size, not its thread count over the run.
func (w *Worker) Slot() int { return int(w.slot) }

// workerList is an intrusive doubly linked list of workers in creation
// order: O(1) removal, deterministic iteration.
type workerList struct {
	head, tail *Worker
	n          int
}

func (l *workerList) pushBack(w *Worker) {
	w.prev, w.next = l.tail, nil
	if l.tail != nil {
		l.tail.next = w
	} else {
		l.head = w
	}
	l.tail = w
	l.n++
}

func (l *workerList) remove(w *Worker) {
	if w.prev != nil {
		w.prev.next = w.next
	} else {
		l.head = w.next
	}
	if w.next != nil {
		w.next.prev = w.prev
	} else {
		l.tail = w.prev
	}
	w.prev, w.next = nil, nil
	l.n--
}

// waitList holds parked workers in order of their latest entry into the
// wait list (R47): the head waited longest, the tail parked last. A
// worker off the list has nil links (a new one, or one remove or a pop
// took off), so pushBack sets only its wprev.
type waitList struct {
	head, tail *Worker
	n          int
}

func (l *waitList) pushBack(w *Worker) {
	w.wprev = l.tail
	if l.tail != nil {
		l.tail.wnext = w
	} else {
		l.head = w
	}
	l.tail = w
	l.n++
	w.waiting = true
}

func (l *waitList) remove(w *Worker) {
	if w.wprev != nil {
		w.wprev.wnext = w.wnext
	} else {
		l.head = w.wnext
	}
	if w.wnext != nil {
		w.wnext.wprev = w.wprev
	} else {
		l.tail = w.wprev
	}
	w.wprev, w.wnext = nil, nil
	l.n--
	w.waiting = false
}

// pop removes and returns the tail, the worker that parked last, if
// back, else the head, the worker that waited longest (the list is not
// empty): remove, for the two ends a hand-off takes from.
func (l *waitList) pop(back bool) (w *Worker) {
	if back {
		w = l.tail
		l.tail, w.wprev = w.wprev, nil
		if l.tail != nil {
			l.tail.wnext = nil
		} else {
			l.head = nil
		}
	} else {
		w = l.head
		l.head, w.wnext = w.wnext, nil
		if l.head != nil {
			l.head.wprev = nil
		} else {
			l.tail = nil
		}
	}
	l.n--
	w.waiting = false
	return w
}
