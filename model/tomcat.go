package model

import "time"

// TomcatThreadPoolExecutor mirrors org.apache.tomcat.util.threads.ThreadPoolExecutor
// (Tomcat 10.1, spec §4): a copy of the JDK class (R63) that counts
// submitted tasks (R64), prestarts its core threads (R65), forces a
// rejected task into its TaskQueue (R66) and replaces a worker that exits
// normally while tasks are queued (R70). Its queue is Tomcat's TaskQueue
// (taskqueue.go), which refuses offers while the pool can grow (R67).
type TomcatThreadPoolExecutor struct {
	ThreadPoolExecutor
	// submittedCount is Tomcat's count of queued plus running tasks (R64).
	submittedCount int
}

// newTomcat constructs Tomcat's executor: the constructor ends with
// prestartAllCoreThreads() (R65).
func newTomcat(now time.Duration, cfg Config, obs Observer) *TomcatThreadPoolExecutor {
	p := &TomcatThreadPoolExecutor{}
	p.init(now, cfg, obs, p)
	p.PrestartAllCoreThreads(now)
	return p
}

// SubmittedCount is Tomcat's getSubmittedCount() (R64).
func (p *TomcatThreadPoolExecutor) SubmittedCount() int { return p.submittedCount }

// Execute is Tomcat's execute(task) (R66): count the submission, run the
// JDK steps, and if they end in a RejectedExecutionException force the
// task into the TaskQueue; a refused force ("queue full", or the pool is
// shut down) reaches the caller as a RejectedExecutionException.
func (p *TomcatThreadPoolExecutor) Execute(now time.Duration, t *Task) {
	p.now = now
	p.submittedCount++
	if !p.executeInternal(t) {
		return
	}
	if p.force(t) {
		return
	}
	if p.runState == PoolRunning {
		p.submittedCount-- // "queue full"
	}
	p.aborted(t)
}

// execute is Tomcat's execute for DiscardOldestPolicy's retry: Execute at
// the current time. The body is Execute's, so that a submission, on every
// task's path, is one call.
func (p *TomcatThreadPoolExecutor) execute(t *Task) { p.Execute(p.now, t) }

// TaskDone ends w's task: Tomcat's afterExecute counts it, submittedCount−1
// whether or not it threw (R64); then runWorker goes on as the JDK's, of
// which Tomcat's class is a copy (R63).
func (p *TomcatThreadPoolExecutor) TaskDone(now time.Duration, w *Worker) {
	p.submittedCount--
	p.ThreadPoolExecutor.TaskDone(now, w)
}

// replaceOnExit is Tomcat's processWorkerExit (R70, bug 65454): as the
// JDK's, and a normal exit is also replaced whenever tasks are queued.
func (p *TomcatThreadPoolExecutor) replaceOnExit(abrupt bool) bool {
	return abrupt || p.wc < p.minWorkers() || p.queued > 0
}
