package model

import "time"

// Task is one Runnable handed to Execute. The model stores tasks by value so
// a run allocates nothing per task.
type Task struct {
	ID      uint64
	Arrival time.Duration // when the submitter wanted to submit it
	Submit  time.Duration // when Execute was called (later than Arrival if the submitter was blocked)
	Service time.Duration // how long it runs once started, drawn by the workload
	// CPU is the part of Service that needs a processor, and Slices how
	// many alternating CPU and blocking pieces the task runs in (see
	// workloads.ServiceSplit). The event loop uses them when the host has
	// a CPU limit; the model ignores them.
	CPU      time.Duration
	Priority int32 // PriorityBlockingQueue order: lower runs first
	// Periodic numbers the scheduled job a ScheduledThreadPoolExecutor
	// task belongs to (1, 2, …; 0: ordinary traffic), for the caller's
	// reports, and Run counts its runs from 1 (R94, R95). The model copies
	// Periodic to every run it re-queues and increments Run.
	Periodic, Run int32
	// Program is the event loop's handle of the task's service steps
	// (sim: a task that computes and holds resources in turn; 0: a plain
	// service). The model carries it and ignores it, like CPU.
	Program int32
	Slices  int16
	// Fails: it throws at its end. On a ThreadPoolExecutor, through
	// execute, that kills its worker (R14); a ScheduledThreadPoolExecutor's
	// future catches it, and a periodic series stops (R96); Jetty logs it
	// and the thread lives on (R108); a thread-per-task executor's thread
	// just ends (R86).
	Fails bool
}

// Outcome is what became of a task that never ran on a pool worker.
type Outcome uint8

const (
	// Aborted: AbortPolicy threw RejectedExecutionException to the caller (R32).
	Aborted Outcome = iota
	// Discarded: DiscardPolicy dropped it (R34).
	Discarded
	// DiscardedOldest: DiscardOldestPolicy polled it off the queue's head to
	// make room for a newer task (R35).
	DiscardedOldest
	// DroppedAfterShutdown: CallerRuns or DiscardOldest received it after
	// shutdown and dropped it (R33, R35, R36).
	DroppedAfterShutdown
	// Drained: ShutdownNow returned it to the caller unrun (R28).
	Drained
	// ThreadStartFailed: addWorker could not start a thread for it and the
	// error reached the caller of execute (R11).
	ThreadStartFailed
	// RetryExhausted: DiscardOldestPolicy found nothing to drop (a saturated
	// SynchronousQueue); the JDK recursion ends in StackOverflowError unless
	// a worker frees up within microseconds (R35).
	RetryExhausted
	// Cancelled: ScheduledThreadPoolExecutor's shutdown removed it from the
	// queue and cancelled it, as its shutdown policies say (R98).
	Cancelled
	// RemovedAfterCancel: its future was cancelled (future.cancel, R97)
	// and it left the queue unrun: at once under removeOnCancelPolicy, or
	// when shutdown's onShutdown swept the cancelled tasks out (R98).
	RemovedAfterCancel

	// NumOutcomes is the number of outcomes, for arrays indexed by them.
	NumOutcomes = int(RemovedAfterCancel) + 1
)

var outcomeNames = [...]string{
	Aborted: "aborted", Discarded: "discarded", DiscardedOldest: "discarded-oldest",
	DroppedAfterShutdown: "dropped-after-shutdown", Drained: "drained",
	ThreadStartFailed: "thread-start-failed", RetryExhausted: "retry-exhausted",
	Cancelled: "cancelled", RemovedAfterCancel: "removed-after-cancel",
}

func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return "unknown"
}
