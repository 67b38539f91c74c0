package threaddump

import (
	"strings"
)

// Classification is what a thread's name and frames say about its pool.
type Classification struct {
	// Pool is the name prefix the thread shares with its pool
	// ("http-nio-8080-exec-", "pool-3-thread-", "qtp12345-"); the whole name
	// for a worker whose name ends in no number; "" for a thread in no pool
	// (JVM-internal and compiler threads, virtual threads, unnumbered
	// non-workers such as "main").
	Pool string
	// Number is the number after the prefix (R62: a creation counter for the
	// JDK and Tomcat, the Java thread id for Jetty); -1 when there is none.
	Number int
	Role   Role
	// Family is the pool kind the frames show; FamilyUnknown when they show
	// no worker loop.
	Family Family
	// ParkSite is where an idle worker waits: the queue method its pool's
	// loop called (the frame above getTask, R57–R59, R61; above Jetty's
	// idleJobPoll, R103), as "SimpleClass.method", e.g. "TaskQueue.poll",
	// "LinkedBlockingQueue.take", "DelayedWorkQueue.take". "" unless idle.
	ParkSite string
	Queue    QueueKind // the queue kind ParkSite implies; QueueNone unless idle
}

// Classify reads the thread's pool membership from its name and its role,
// family and park site from its frames (spec §3, R56–R62):
//
//   - a worker loop at the bottom of the stack makes a pool worker:
//     ThreadPoolExecutor.runWorker / $Worker.run (JDK and Tomcat),
//     QueuedThreadPool$Runner.run (Jetty), ForkJoinPool.runWorker;
//   - a worker waiting in getTask (Jetty: idleJobPoll; ForkJoinPool:
//     awaitWork) is idle: timed when the frames above show a timed wait
//     (poll, parkNanos, awaitNanos), untimed when they show take, park or
//     await; the thread state decides when the frames do not;
//   - any other worker is busy, whatever its state (R56);
//   - a thread without a worker loop has RoleOther.
func (t *Thread) Classify() Classification {
	c := Classification{Number: -1, Family: FamilyUnknown}
	if t.JVMInternal || t.Virtual || isCompilerThread(t.Name) {
		return c
	}
	c.Role, c.Family, c.ParkSite, c.Queue = classifyFrames(t.Frames, t.State)
	if prefix, num, ok := splitNumber(t.Name); ok {
		c.Pool, c.Number = prefix, num
	} else if c.Role != RoleOther {
		c.Pool = t.Name
	}
	return c
}

// isCompilerThread matches the JIT's threads ("C2 CompilerThread0"): Java
// threads with numbered names that belong to no pool.
func isCompilerThread(name string) bool {
	for _, p := range []string{"C1 CompilerThread", "C2 CompilerThread", "JVMCI CompilerThread", "JVMCI-native CompilerThread"} {
		if strings.HasPrefix(name, p) && allDigits(name[len(p):]) {
			return true
		}
	}
	return false
}

// loop is the kind of worker loop a frame belongs to.
type loop int

const (
	loopNone  loop = iota
	loopTPE        // ThreadPoolExecutor.runWorker, ThreadPoolExecutor$Worker.run (JDK and Tomcat copies)
	loopJetty      // QueuedThreadPool$Runner.run (9.4+), QueuedThreadPool$N.run (9.2, 9.3)
	loopFJ         // ForkJoinPool.runWorker, ForkJoinWorkerThread.run
)

func loopKind(f Frame) loop {
	top := topName(f.Class)
	switch {
	case f.Method == "runWorker" && top == "ThreadPoolExecutor",
		f.Method == "run" && top == "ThreadPoolExecutor$Worker":
		return loopTPE
	case f.Method == "run" && strings.HasPrefix(f.Class, "org.eclipse.jetty.util.thread.QueuedThreadPool$"):
		return loopJetty
	case f.Method == "runWorker" && f.Class == "java.util.concurrent.ForkJoinPool",
		f.Method == "run" && f.Class == "java.util.concurrent.ForkJoinWorkerThread":
		return loopFJ
	}
	return loopNone
}

// classifyFrames finds the worker loop at the bottom of the stack and what
// the worker does above it.
func classifyFrames(frames []Frame, state string) (Role, Family, string, QueueKind) {
	// The thread's own loop is the bottom-most loop frame; loopTop is the
	// top of the contiguous run of loop frames (runWorker above Worker.run).
	anchor, kind := -1, loopNone
	for i := len(frames) - 1; i >= 0; i-- {
		if k := loopKind(frames[i]); k != loopNone {
			anchor, kind = i, k
			break
		}
	}
	if anchor < 0 {
		return RoleOther, FamilyUnknown, "", QueueNone
	}
	loopTop := anchor
	for loopTop > 0 && loopKind(frames[loopTop-1]) == kind {
		loopTop--
	}
	above := frames[:loopTop]

	switch kind {
	case loopJetty:
		for g, f := range above {
			if f.Method == "idleJobPoll" && strings.HasPrefix(f.Class, "org.eclipse.jetty.util.thread.QueuedThreadPool") {
				site, queue := parkSite(above, g)
				return idleRole(above[:g], site, state), FamilyJetty, site, queue
			}
		}
		return RoleBusy, FamilyJetty, "", QueueNone
	case loopFJ:
		for g, f := range above {
			if f.Method == "awaitWork" && f.Class == "java.util.concurrent.ForkJoinPool" {
				return idleRole(above[:g], "awaitWork", state), FamilyForkJoin, "ForkJoinPool.awaitWork", QueueForkJoin
			}
		}
		return RoleBusy, FamilyForkJoin, "", QueueNone
	}

	// ThreadPoolExecutor: the JDK's, or Tomcat's copy (R63).
	family := FamilyUnknown
	switch strings.SplitN(frames[anchor].Class, "$", 2)[0] {
	case "java.util.concurrent.ThreadPoolExecutor":
		family = FamilyJDK
	case "org.apache.tomcat.util.threads.ThreadPoolExecutor":
		family = FamilyTomcat
	}
	for _, f := range frames[anchor:] {
		// Tomcat before 9.0.50 / 10.0.x ran the JDK pool in TaskThreads.
		if strings.HasPrefix(f.Class, "org.apache.tomcat.util.threads.") {
			family = FamilyTomcat
		}
	}
	g := loopTop - 1
	if g >= 0 && frames[g].Method == "getTask" && topName(frames[g].Class) == "ThreadPoolExecutor" {
		site, queue := parkSite(above, g)
		switch {
		case queue == QueueTomcat:
			family = FamilyTomcat
		case queue == QueueDelayed && family != FamilyTomcat:
			family = FamilyScheduled
		}
		return idleRole(above[:g], site, state), family, site, queue
	}
	if g >= 0 && frames[g].Class == "java.util.concurrent.ScheduledThreadPoolExecutor$ScheduledFutureTask" && family != FamilyTomcat {
		family = FamilyScheduled
	}
	return RoleBusy, family, "", QueueNone
}

// parkSite names the frame just above the idle marker at index g: the
// queue call the pool's loop waits in.
func parkSite(frames []Frame, g int) (string, QueueKind) {
	if g < 1 {
		return "", QueueOther
	}
	f := frames[g-1]
	return simpleName(f.Class) + "." + f.Method, queueKind(f.Class)
}

func queueKind(class string) QueueKind {
	switch class {
	case "java.util.concurrent.LinkedBlockingQueue", "java.util.concurrent.LinkedBlockingDeque":
		return QueueLinked
	case "java.util.concurrent.ArrayBlockingQueue":
		return QueueArray
	case "java.util.concurrent.SynchronousQueue":
		return QueueSynchronous
	case "java.util.concurrent.PriorityBlockingQueue":
		return QueuePriority
	case "java.util.concurrent.LinkedTransferQueue":
		return QueueTransfer
	case "java.util.concurrent.ScheduledThreadPoolExecutor$DelayedWorkQueue":
		return QueueDelayed
	case "org.apache.tomcat.util.threads.TaskQueue":
		return QueueTomcat
	case "org.eclipse.jetty.util.BlockingArrayQueue":
		return QueueJetty
	}
	return QueueOther
}

// idleRole decides timed or untimed for an idle worker from the frames
// above its idle marker (top first): a timed call (poll, parkNanos,
// awaitNanos, ...) makes it timed, an untimed one (take, park, await)
// untimed. A bare Unsafe.park says nothing (ForkJoinPool calls it both
// ways); then the thread state decides, then the park site's method name.
func idleRole(frames []Frame, site, state string) Role {
	for _, f := range frames {
		switch f.Method {
		case "poll", "parkNanos", "parkUntil", "awaitNanos", "awaitUntil":
			return RoleIdleTimed
		}
	}
	for _, f := range frames {
		switch f.Method {
		case "take", "await", "awaitUninterruptibly":
			return RoleIdleUntimed
		case "park":
			if f.Class == "java.util.concurrent.locks.LockSupport" {
				return RoleIdleUntimed
			}
		}
	}
	switch state {
	case StateTimedWaiting:
		return RoleIdleTimed
	case StateWaiting:
		return RoleIdleUntimed
	}
	if strings.HasSuffix(site, ".poll") {
		return RoleIdleTimed
	}
	return RoleIdleUntimed
}
