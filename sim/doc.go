// Package sim is poolsim's event loop: an Engine drives a pool model (package
// model) with a workload (package workloads) on a virtual clock, and records
// what happens.
//
// Use Run for a whole run, or NewEngine to step one: Step processes one
// event, Now and Pool show where the run stands, Result what it found, and
// Subscribe (or Options.Observer) hears every model event as it happens —
// the model's own (a task started, a rejection and its reason, a lost task,
// a worker created, parked, woken or exited, a run-state change, a setter
// applied) and those of the engine's calls (Submitted, ScheduleCalled,
// Finished). The recorder, the timeline, the snapshots and the OnTask hook
// listen to that one stream; package conformance reads each task's fate
// from it.
//
// Files: engine.go (the Engine, its sources and the loop), heap.go (the
// phases and the event heap), observe.go (the engine as the model's
// observer), record.go and hist.go (statistics), timeline.go, snapshot.go
// and summary.go (outputs), host.go (thread start costs and CPUs),
// periodic.go (a ScheduledThreadPoolExecutor's jobs), limits.go,
// steps.go and resources.go (service steps, connection pools), virtual.go
// (virtual threads on their carriers).
//
// Time is an integer (time.Duration since the start of the run). Pending
// completions and timers sit in a binary heap ordered by (time, phase,
// sequence number); every other source has at most one pending event, kept
// beside the heap. The sequence number makes ties deterministic, and the
// phase — a table (heap.go), not the order of if statements — makes the
// order of simultaneous events deliberate (spec M3):
//
//  1. completion: task completions (and the ends of a task's blocking
//     pieces or of its thread's start, on a host model),
//  2. cpu: the ends of CPU pieces on a host with a CPU limit,
//  3. keepAlive: timed-wait timers (in the order the waits began),
//  4. wake: a signalled worker awake, with a host wake-up latency
//     (host.wakeup; after the timers, so a timeout and a wake-up at the
//     same instant see the timeout first: the signal has already won),
//  5. resource: a resource's own timers (a HikariCP house-keeper's run, a
//     connection's creation ending, its maxLifetime), then the deadlines
//     of borrowers waiting for a unit (so a connection returned or opened
//     at the very instant of a waiter's deadline reaches the waiter),
//  6. arrival: the workload's next submission,
//  7. client: a caller's timeout ending, then a retry or a closed-loop
//     user's next request (so an answer at the very instant of a caller's
//     deadline reaches the caller, and a retry follows the arrivals),
//  8. periodic: the schedule calls of periodic jobs,
//  9. cancel: the cancels of their futures (so a cancel at the very time
//     of its schedule call comes just after it),
//  10. runtime: runtime events (setters, shutdown),
//  11. snapshot: snapshots,
//  12. sample: timeline samples.
//
// So when an arrival and a keepAlive expiry fall on the same nanosecond,
// the worker times out first (and may exit) and the arrival sees the pool
// after it; a sample at time t shows the state after every event at or
// before t (CONTRACT.md §2).
//
// KeepAlive timers are cancelled lazily: each worker has at most one timer
// in the heap; when it fires, the model ignores it unless the worker is
// still in the same timed wait (its deadline equals the firing time), and a
// wait that was extended re-arms the timer at its new deadline. The heap
// therefore holds O(workers) entries, never O(tasks). The engine keeps its
// own per-worker state (the pending timer, a thread's start, a CPU job) in
// a slice indexed by model.Worker.Slot.
//
// The host (host.go, scenarios.Host) adds what the machine costs: each
// Thread.start() takes its caller's time, and with a CPU limit the CPU
// parts of running tasks share the processors by processor sharing, on a
// virtual-time clock with one lazily rescheduled CPU timer.
//
// Statistics never grow with the run: time-weighted means are running
// integrals, quantiles come from fixed-size histograms, and the timeline is
// streamed to its writer as it is sampled. Memory is O(workers + queued
// tasks).
package sim
