package model

import "time"

// ThreadPerTaskExecutor mirrors java.util.concurrent.ThreadPerTaskExecutor,
// what Executors.newThreadPerTaskExecutor(factory) returns (JDK 21+, R86):
// a new thread for every task, which ends with it; no queue, no limit, no
// reuse, no replacement, no setters. The model runs it as the
// ThreadPoolExecutor it behaves like — core 0, max Integer.MAX_VALUE,
// keepAlive 0 and a SynchronousQueue, so every execute finds no parked
// worker and starts a thread, and every worker exits when its task ends
// (R15c) — except that no thread is ever replaced (its TaskRunner just
// lets the thread end; R17 is ThreadPoolExecutor's) and the setters do not
// exist.
type ThreadPerTaskExecutor struct {
	ThreadPoolExecutor
}

func newThreadPerTask(now time.Duration, cfg Config, obs Observer) *ThreadPerTaskExecutor {
	p := &ThreadPerTaskExecutor{}
	p.init(now, cfg, obs, p)
	p.setterBan = &ConfigError{Msg: "a thread-per-task executor has no pool settings to change", Rule: "R86: ThreadPerTaskExecutor has no setters"}
	return p
}

// replaceOnExit: a thread-per-task executor replaces nobody (R86).
func (p *ThreadPerTaskExecutor) replaceOnExit(bool) bool { return false }
