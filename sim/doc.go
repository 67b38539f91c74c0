// Package sim is poolsim's event loop: it drives the pool model with a
// workload on a virtual clock and records what happens.
//
// Time is an integer (time.Duration since the start of the run). Pending
// events sit in a binary heap ordered by (time, phase, sequence number):
// the sequence number makes ties deterministic, and the phase makes the
// order of simultaneous events deliberate (spec M3):
//
//  1. task completions (and the ends of a task's blocking pieces or of its
//     thread's start, on a host model),
//  2. the ends of CPU pieces on a host with a CPU limit,
//  3. keepAlive expiries (in the order the waits began),
//  4. arrivals, then the schedule calls of periodic jobs, then the
//     cancels of their futures (so a cancel at the very time of its
//     schedule call comes just after it),
//  5. runtime events (setters, shutdown),
//  6. snapshots, then timeline samples.
//
// So when an arrival and a keepAlive expiry fall on the same nanosecond,
// the worker times out first (and may exit) and the arrival sees the pool
// after it; a sample at time t shows the state after every event at or
// before t (CONTRACT.md §2).
//
// KeepAlive timers are cancelled lazily: each worker has at most one timer
// in the heap; when it fires, the model ignores it unless the worker is
// still in the same poll(keepAlive) (its deadline equals the firing time),
// and a wait that was extended re-arms the timer at its new deadline. The
// heap therefore holds O(workers) entries, never O(tasks).
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
