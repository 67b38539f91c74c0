// Package model is a pure state machine of Java's thread pools, one type per
// executor family, each mirroring its Java class method by method and
// following the numbered rules of shared/spec/threadpool-semantics.md
// (R1…R110), cited in each doc comment:
//
//   - ThreadPoolExecutor (tpe.go, tpe_set.go): java.util.concurrent's —
//     Execute, addWorker, getTask, processWorkerExit, tryTerminate,
//     interruptIdleWorkers, the setters, Shutdown and ShutdownNow (§1).
//   - TomcatThreadPoolExecutor (tomcat.go) and its TaskQueue (taskqueue.go):
//     Tomcat's copy of it, which counts submitted tasks and grows before it
//     queues (§4, R63–R72).
//   - ThreadPerTaskExecutor (threadpertask.go): a thread per task, no
//     queue, no reuse, no setters (R86).
//   - VirtualThreadPerTaskExecutor (virtual.go): a virtual thread per task
//     (R130, R141, R142), with SimpleAsyncTaskExecutor's concurrencyLimit
//     (R143); its VTs run on the carriers of CarrierScheduler
//     (carriers.go: P carriers, one FIFO, no preemption, tryCompensate;
//     R131, R132, R136), and JVM.Blocking is the pinning table by JDK
//     version (R133–R136).
//   - ScheduledThreadPoolExecutor (scheduled.go) and its DelayedWorkQueue
//     (delayqueue.go): Schedule, ScheduleAtFixedRate,
//     ScheduleWithFixedDelay, Cancel, the leader–follower wait and the
//     shutdown policies (§6, R88–R98).
//   - QueuedThreadPool (jetty.go): Jetty 9.4's pool, with its own method
//     names (SetMinThreads, SetMaxThreads, SetIdleTimeout), growth when no
//     thread is idle and one shrink per idleTimeout pool-wide (§7,
//     R100–R108).
//
// All of them are Executors (executor.go), the interface an event loop
// drives; New builds the family a Config names. They share the machinery of
// base.go — live workers in creation order, the wait list in hand-off
// order, the counts by state, the one place a worker's state changes
// (setState) — and the task stores of queue.go. The subclasses of
// ThreadPoolExecutor override its methods as their Java classes do: the
// JDK's code calls the overridable ones through ThreadPoolExecutor.self (see
// overrides). A new family is a new type beside these, added to New; no
// other family changes.
//
// The model knows no wall clock, no random numbers, no files and no
// goroutines. Every entry point is given the virtual time; every task
// arrives with its service time already drawn. The model never schedules
// anything: it reports every event to its Observer (event.go) — "worker 7
// runs task 42" (Started), "worker 3 waits in poll(keepAlive) until t"
// (TimerArmed), a rejection, a lost task, a worker's state change, a run
// state change, a reconfiguration — and the event loop (package sim) turns
// those reports into events and feeds their firings back through TaskDone
// and TimedWaitExpired. Runtime changes reach a pool through one entry
// point, Apply, which knows the order its calls must come in.
//
// Zero wake-up latency. Java threads take microseconds to wake; the model
// takes none (spec R47). Consequently a parked worker and a non-empty queue
// never coexist: an offered task goes straight to the parked worker the queue
// would signal, and a worker that finishes while tasks are queued takes the
// head without parking (R46). On a DelayedWorkQueue, a parked worker and a
// DUE task never coexist; which of a signalled worker and a worker returning
// from a task takes the next due task is a race in Java (both happen), and
// the model lets the signalled one go first.
//
// Which parked worker receives the next task is the single fact that decides
// which idle workers reach their keepAlive and die. It is explicit per queue
// kind (see QueueKind.HandOff): the worker whose latest entry into the wait
// list is oldest for linked, array, priority and Tomcat queues and for a fair
// SynchronousQueue (R47, R48, R50, R53); the most recently parked worker for
// a non-fair SynchronousQueue (R50).
//
// Simultaneous interrupts. interruptIdleWorkers wakes idle workers in an
// order Java leaves to thread scheduling; the model re-parks them in their
// previous wait-list order, so an interrupt never reshuffles the hand-off order.
package model
