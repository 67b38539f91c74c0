// Package model is a pure state machine of java.util.concurrent.ThreadPoolExecutor,
// Tomcat's org.apache.tomcat.util.threads.ThreadPoolExecutor,
// java.util.concurrent.ScheduledThreadPoolExecutor and Jetty 9.4's
// QueuedThreadPool, chosen by Config.Flavor — and of
// java.util.concurrent.ThreadPerTaskExecutor (R86), run as the
// ThreadPoolExecutor it behaves like (Flavor ThreadPerTask).
//
// It mirrors the Java classes method by method — Execute, addWorker, getTask,
// processWorkerExit, tryTerminate, interruptIdleWorkers, the setters,
// Shutdown and ShutdownNow — following the numbered rules of
// shared/spec/threadpool-semantics.md (R1…R110), cited in each doc comment.
// The ScheduledThreadPoolExecutor (scheduled.go, delayqueue.go) adds
// Schedule, ScheduleAtFixedRate and ScheduleWithFixedDelay, which return a
// Future that Cancel cancels (R97, with the removeOnCancelPolicy), the
// DelayedWorkQueue's leader–follower wait and the shutdown policies
// (R88–R98); its periodic runs are re-queued by the model, which asks a
// ScheduleObserver for each run's service time. Jetty's pool (jetty.go)
// grows whenever no thread is idle and lets at most one thread leave per
// idleTimeout, pool-wide (R100–R108).
//
// The model knows no wall clock, no random numbers, no files and no
// goroutines. Every entry point is given the virtual time; every task arrives
// with its service time already drawn. The model never schedules anything:
// it tells its Observer what must happen next ("worker 7 runs task 42",
// "worker 3 waits in poll(keepAlive) until t") and the event loop (package
// sim) turns those reports into events and feeds their firings back through
// TaskDone and KeepAliveExpired.
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
