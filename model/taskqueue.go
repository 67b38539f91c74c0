package model

// This file is Tomcat's org.apache.tomcat.util.threads.TaskQueue (spec
// R66, R67): a LinkedBlockingQueue whose offer refuses a task while the
// pool can still grow, so that Tomcat's executor adds a thread before it
// queues anything, and whose force is the plain offer the executor falls
// back to.

// offer is TaskQueue.offer (R67): refuse — so that execute adds a thread
// for the task (R6) — when no worker should be idle and the pool is below
// max; otherwise LinkedBlockingQueue.offer.
func (p *TomcatThreadPoolExecutor) offer(t *Task) bool {
	if !p.taskQueueOffers() {
		return false
	}
	return p.pool.offer(t) // super.offer: LinkedBlockingQueue.offer
}

// taskQueueOffers is TaskQueue.offer's decision (R67): false means "refuse,
// so that execute adds a thread"; true means "do a plain offer". P is the
// number of workers (getPoolSizeNoLock), S the submitted count.
func (p *TomcatThreadPoolExecutor) taskQueueOffers() bool {
	poolSize := p.workers.n // getPoolSizeNoLock()
	switch {
	case poolSize == p.cfg.Max:
		return true
	case p.submittedCount <= poolSize:
		return true // an idle worker should exist
	case poolSize < p.cfg.Max:
		return false
	}
	return true
}

// force is TaskQueue.force (R66): refused once the pool is shut down;
// else a plain offer, which fails only at the queue's capacity.
func (p *TomcatThreadPoolExecutor) force(t *Task) bool {
	return p.runState == PoolRunning && p.pool.offer(t) // super.offer
}
