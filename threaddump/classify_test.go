package threaddump

import (
	"strings"
	"testing"
)

// stack builds frames from StackTraceElement strings, top first.
func stack(t *testing.T, lines ...string) []Frame {
	t.Helper()
	frames := make([]Frame, len(lines))
	for i, l := range lines {
		f, ok := parseFrame(l)
		if !ok {
			t.Fatalf("bad frame %q", l)
		}
		frames[i] = f
	}
	return frames
}

// Frame sequences shared by several rows.
var (
	jdkWorker = []string{
		"java.util.concurrent.ThreadPoolExecutor.runWorker(ThreadPoolExecutor.java:1134)",
		"java.util.concurrent.ThreadPoolExecutor$Worker.run(ThreadPoolExecutor.java:624)",
		"java.lang.Thread.run(Thread.java:748)",
	}
	tomcatWorker = []string{
		"org.apache.tomcat.util.threads.ThreadPoolExecutor.runWorker(ThreadPoolExecutor.java:960)",
		"org.apache.tomcat.util.threads.ThreadPoolExecutor$Worker.run(ThreadPoolExecutor.java:491)",
		"org.apache.tomcat.util.threads.TaskThread$WrappingRunnable.run(TaskThread.java:63)",
		"java.lang.Thread.run(Thread.java:840)",
	}
)

func with(top []string, bottom []string) []string {
	return append(append([]string{}, top...), bottom...)
}

func TestClassifyFrames(t *testing.T) {
	tests := []struct {
		name   string
		frames []string
		state  string
		role   Role
		family Family
		site   string
		queue  QueueKind
	}{
		// R58, JDK 6: Worker.run calls getTask directly (no runWorker).
		{"jdk6 take", []string{
			"sun.misc.Unsafe.park(Native Method)",
			"java.util.concurrent.locks.LockSupport.park(LockSupport.java:158)",
			"java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject.await(AbstractQueuedSynchronizer.java:1987)",
			"java.util.concurrent.LinkedBlockingQueue.take(LinkedBlockingQueue.java:399)",
			"java.util.concurrent.ThreadPoolExecutor.getTask(ThreadPoolExecutor.java:947)",
			"java.util.concurrent.ThreadPoolExecutor$Worker.run(ThreadPoolExecutor.java:907)",
			"java.lang.Thread.run(Thread.java:680)"},
			StateWaiting, RoleIdleUntimed, FamilyJDK, "LinkedBlockingQueue.take", QueueLinked},
		// R58, JDK 17+: ForkJoinPool.managedBlock frames inside a plain pool's take do not make it a ForkJoinPool.
		{"jdk17 take via managedBlock", with([]string{
			"jdk.internal.misc.Unsafe.park(java.base@17.0.19/Native Method)",
			"java.util.concurrent.locks.LockSupport.park(java.base@17.0.19/LockSupport.java:341)",
			"java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionNode.block(java.base@17.0.19/AbstractQueuedSynchronizer.java:506)",
			"java.util.concurrent.ForkJoinPool.unmanagedBlock(java.base@17.0.19/ForkJoinPool.java:3465)",
			"java.util.concurrent.ForkJoinPool.managedBlock(java.base@17.0.19/ForkJoinPool.java:3436)",
			"java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject.await(java.base@17.0.19/AbstractQueuedSynchronizer.java:1630)",
			"java.util.concurrent.LinkedBlockingQueue.take(java.base@17.0.19/LinkedBlockingQueue.java:435)",
			"java.util.concurrent.ThreadPoolExecutor.getTask(java.base@17.0.19/ThreadPoolExecutor.java:1062)"}, jdkWorker),
			StateWaiting, RoleIdleUntimed, FamilyJDK, "LinkedBlockingQueue.take", QueueLinked},
		// R59, JDK 25: SynchronousQueue built on LinkedTransferQueue; the frame above getTask is still SynchronousQueue.poll.
		{"jdk25 synchronous poll", with([]string{
			"jdk.internal.misc.Unsafe.park(java.base@25.0.3/Native Method)",
			"java.util.concurrent.locks.LockSupport.parkNanos(java.base@25.0.3/LockSupport.java:408)",
			"java.util.concurrent.LinkedTransferQueue$DualNode.await(java.base@25.0.3/LinkedTransferQueue.java:452)",
			"java.util.concurrent.SynchronousQueue$Transferer.xferLifo(java.base@25.0.3/SynchronousQueue.java:194)",
			"java.util.concurrent.SynchronousQueue.xfer(java.base@25.0.3/SynchronousQueue.java:235)",
			"java.util.concurrent.SynchronousQueue.poll(java.base@25.0.3/SynchronousQueue.java:338)",
			"java.util.concurrent.ThreadPoolExecutor.getTask(java.base@25.0.3/ThreadPoolExecutor.java:1015)"}, jdkWorker),
			StateTimedWaiting, RoleIdleTimed, FamilyJDK, "SynchronousQueue.poll", QueueSynchronous},
		// R59/R52: a SynchronousQueue poller caught spinning is RUNNABLE, still idle and timed.
		{"jdk17 synchronous spinning", with([]string{
			"java.util.concurrent.SynchronousQueue$TransferStack.transfer(java.base@17.0.19/SynchronousQueue.java:395)",
			"java.util.concurrent.SynchronousQueue.poll(java.base@17.0.19/SynchronousQueue.java:903)",
			"java.util.concurrent.ThreadPoolExecutor.getTask(java.base@17.0.19/ThreadPoolExecutor.java:1061)"}, jdkWorker),
			StateRunnable, RoleIdleTimed, FamilyJDK, "SynchronousQueue.poll", QueueSynchronous},
		// A core worker of a pool on a SynchronousQueue waits in take(): untimed.
		{"jdk17 synchronous take", with([]string{
			"jdk.internal.misc.Unsafe.park(java.base@17.0.19/Native Method)",
			"java.util.concurrent.locks.LockSupport.park(java.base@17.0.19/LockSupport.java:341)",
			"java.util.concurrent.SynchronousQueue$TransferStack.transfer(java.base@17.0.19/SynchronousQueue.java:401)",
			"java.util.concurrent.SynchronousQueue.take(java.base@17.0.19/SynchronousQueue.java:886)",
			"java.util.concurrent.ThreadPoolExecutor.getTask(java.base@17.0.19/ThreadPoolExecutor.java:1062)"}, jdkWorker),
			StateWaiting, RoleIdleUntimed, FamilyJDK, "SynchronousQueue.take", QueueSynchronous},
		// R57: waiting for the queue's lock inside poll(K) is still the timed wait of getTask.
		{"lock contention inside poll", with([]string{
			"jdk.internal.misc.Unsafe.park(java.base@17.0.19/Native Method)",
			"java.util.concurrent.locks.LockSupport.park(java.base@17.0.19/LockSupport.java:211)",
			"java.util.concurrent.locks.AbstractQueuedSynchronizer.acquire(java.base@17.0.19/AbstractQueuedSynchronizer.java:715)",
			"java.util.concurrent.locks.ReentrantLock$Sync.lockInterruptibly(java.base@17.0.19/ReentrantLock.java:159)",
			"java.util.concurrent.locks.ReentrantLock.lockInterruptibly(java.base@17.0.19/ReentrantLock.java:372)",
			"java.util.concurrent.LinkedBlockingQueue.poll(java.base@17.0.19/LinkedBlockingQueue.java:454)",
			"java.util.concurrent.ThreadPoolExecutor.getTask(java.base@17.0.19/ThreadPoolExecutor.java:1061)"}, jdkWorker),
			StateWaiting, RoleIdleTimed, FamilyJDK, "LinkedBlockingQueue.poll", QueueLinked},
		// R69: Tomcat renewal makes take() call poll(K): timed, parked at TaskQueue.take.
		{"tomcat take in renewal", with([]string{
			"jdk.internal.misc.Unsafe.park(java.base@17.0.19/Native Method)",
			"java.util.concurrent.locks.LockSupport.parkNanos(java.base@17.0.19/LockSupport.java:252)",
			"java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject.awaitNanos(java.base@17.0.19/AbstractQueuedSynchronizer.java:1679)",
			"java.util.concurrent.LinkedBlockingQueue.poll(java.base@17.0.19/LinkedBlockingQueue.java:460)",
			"org.apache.tomcat.util.threads.TaskQueue.poll(TaskQueue.java:89)",
			"org.apache.tomcat.util.threads.TaskQueue.take(TaskQueue.java:118)",
			"org.apache.tomcat.util.threads.TaskQueue.take(TaskQueue.java:31)",
			"org.apache.tomcat.util.threads.ThreadPoolExecutor.getTask(ThreadPoolExecutor.java:913)"}, tomcatWorker),
			StateTimedWaiting, RoleIdleTimed, FamilyTomcat, "TaskQueue.take", QueueTomcat},
		// R63: Tomcat before 2021 ran the JDK pool; its TaskQueue and TaskThread give it away.
		{"old tomcat on the jdk pool", []string{
			"java.util.concurrent.LinkedBlockingQueue.poll(LinkedBlockingQueue.java:467)",
			"org.apache.tomcat.util.threads.TaskQueue.poll(TaskQueue.java:85)",
			"org.apache.tomcat.util.threads.TaskQueue.poll(TaskQueue.java:31)",
			"java.util.concurrent.ThreadPoolExecutor.getTask(ThreadPoolExecutor.java:1073)",
			"java.util.concurrent.ThreadPoolExecutor.runWorker(ThreadPoolExecutor.java:1134)",
			"java.util.concurrent.ThreadPoolExecutor$Worker.run(ThreadPoolExecutor.java:624)",
			"org.apache.tomcat.util.threads.TaskThread$WrappingRunnable.run(TaskThread.java:61)",
			"java.lang.Thread.run(Thread.java:748)"},
			StateTimedWaiting, RoleIdleTimed, FamilyTomcat, "TaskQueue.poll", QueueTomcat},
		// R56: an old-Tomcat worker in a socket read is busy, and still Tomcat's.
		{"old tomcat busy", []string{
			"java.net.SocketInputStream.socketRead0(Native Method)",
			"org.apache.tomcat.util.net.SocketProcessorBase.run(SocketProcessorBase.java:49)",
			"java.util.concurrent.ThreadPoolExecutor.runWorker(ThreadPoolExecutor.java:1149)",
			"java.util.concurrent.ThreadPoolExecutor$Worker.run(ThreadPoolExecutor.java:624)",
			"org.apache.tomcat.util.threads.TaskThread$WrappingRunnable.run(TaskThread.java:61)",
			"java.lang.Thread.run(Thread.java:748)"},
			StateRunnable, RoleBusy, FamilyTomcat, "", QueueNone},
		// R61: the leader of a ScheduledThreadPoolExecutor waits timed in take().
		{"scheduled leader", with([]string{
			"java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject.awaitNanos(AbstractQueuedSynchronizer.java:2078)",
			"java.util.concurrent.ScheduledThreadPoolExecutor$DelayedWorkQueue.take(ScheduledThreadPoolExecutor.java:1093)",
			"java.util.concurrent.ScheduledThreadPoolExecutor$DelayedWorkQueue.take(ScheduledThreadPoolExecutor.java:809)",
			"java.util.concurrent.ThreadPoolExecutor.getTask(ThreadPoolExecutor.java:1074)"}, jdkWorker),
			StateTimedWaiting, RoleIdleTimed, FamilyScheduled, "DelayedWorkQueue.take", QueueDelayed},
		// A busy ScheduledThreadPoolExecutor worker runs a ScheduledFutureTask.
		{"scheduled busy", with([]string{
			"java.lang.Thread.sleep(Native Method)",
			"com.example.Job.run(Job.java:12)",
			"java.util.concurrent.Executors$RunnableAdapter.call(Executors.java:511)",
			"java.util.concurrent.FutureTask.runAndReset(FutureTask.java:308)",
			"java.util.concurrent.ScheduledThreadPoolExecutor$ScheduledFutureTask.access$301(ScheduledThreadPoolExecutor.java:180)",
			"java.util.concurrent.ScheduledThreadPoolExecutor$ScheduledFutureTask.run(ScheduledThreadPoolExecutor.java:294)"}, jdkWorker),
			StateTimedWaiting, RoleBusy, FamilyScheduled, "", QueueNone},
		// A plain pool's task that calls schedule() on another pool stays a plain pool's worker.
		{"jdk busy calling a scheduler", with([]string{
			"java.util.concurrent.ScheduledThreadPoolExecutor.schedule(ScheduledThreadPoolExecutor.java:549)",
			"com.example.Job.run(Job.java:12)"}, jdkWorker),
			StateRunnable, RoleBusy, FamilyJDK, "", QueueNone},
		// R56: busy whatever the state: a task parked on a latch is not idle.
		{"busy parked in a task", with([]string{
			"jdk.internal.misc.Unsafe.park(java.base@17.0.19/Native Method)",
			"java.util.concurrent.locks.LockSupport.park(java.base@17.0.19/LockSupport.java:211)",
			"java.util.concurrent.CountDownLatch.await(java.base@17.0.19/CountDownLatch.java:230)",
			"com.example.Job.run(Job.java:12)"}, jdkWorker),
			StateWaiting, RoleBusy, FamilyJDK, "", QueueNone},
		// Queues without their own family keep the pool's: priority, transfer, a custom one.
		{"priority queue", with([]string{
			"java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject.await(AbstractQueuedSynchronizer.java:2039)",
			"java.util.concurrent.PriorityBlockingQueue.take(PriorityBlockingQueue.java:549)",
			"java.util.concurrent.ThreadPoolExecutor.getTask(ThreadPoolExecutor.java:1074)"}, jdkWorker),
			StateWaiting, RoleIdleUntimed, FamilyJDK, "PriorityBlockingQueue.take", QueuePriority},
		{"transfer queue", with([]string{
			"java.util.concurrent.LinkedTransferQueue.poll(LinkedTransferQueue.java:1292)",
			"java.util.concurrent.ThreadPoolExecutor.getTask(ThreadPoolExecutor.java:1073)"}, jdkWorker),
			StateTimedWaiting, RoleIdleTimed, FamilyJDK, "LinkedTransferQueue.poll", QueueTransfer},
		{"custom queue", with([]string{
			"java.util.concurrent.locks.LockSupport.park(LockSupport.java:175)",
			"com.example.ResizableQueue.take(ResizableQueue.java:40)",
			"java.util.concurrent.ThreadPoolExecutor.getTask(ThreadPoolExecutor.java:1074)"}, jdkWorker),
			StateWaiting, RoleIdleUntimed, FamilyJDK, "ResizableQueue.take", QueueOther},
		// A custom queue's frames say nothing: the state decides.
		{"custom queue by state", with([]string{
			"jdk.internal.misc.Unsafe.park(java.base@17.0.19/Native Method)",
			"com.example.SpinQueue.next(SpinQueue.java:40)",
			"java.util.concurrent.ThreadPoolExecutor.getTask(ThreadPoolExecutor.java:1074)"}, jdkWorker),
			StateTimedWaiting, RoleIdleTimed, FamilyJDK, "SpinQueue.next", QueueOther},
		// R103, Jetty 9.4: idle in BlockingArrayQueue.poll(idleTimeout).
		{"jetty 9.4 idle", []string{
			"java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject.awaitNanos(java.base@17.0.19/AbstractQueuedSynchronizer.java:1679)",
			"org.eclipse.jetty.util.BlockingArrayQueue.poll(BlockingArrayQueue.java:382)",
			"org.eclipse.jetty.util.thread.QueuedThreadPool$Runner.idleJobPoll(QueuedThreadPool.java:974)",
			"org.eclipse.jetty.util.thread.QueuedThreadPool$Runner.run(QueuedThreadPool.java:1018)",
			"java.lang.Thread.run(java.base@17.0.19/Thread.java:840)"},
			StateTimedWaiting, RoleIdleTimed, FamilyJetty, "BlockingArrayQueue.poll", QueueJetty},
		// Jetty 9.3: an anonymous runnable and an access$ bridge.
		{"jetty 9.3 idle", []string{
			"org.eclipse.jetty.util.BlockingArrayQueue.poll(BlockingArrayQueue.java:392)",
			"org.eclipse.jetty.util.thread.QueuedThreadPool.idleJobPoll(QueuedThreadPool.java:563)",
			"org.eclipse.jetty.util.thread.QueuedThreadPool.access$800(QueuedThreadPool.java:48)",
			"org.eclipse.jetty.util.thread.QueuedThreadPool$3.run(QueuedThreadPool.java:626)",
			"java.lang.Thread.run(Thread.java:748)"},
			StateTimedWaiting, RoleIdleTimed, FamilyJetty, "BlockingArrayQueue.poll", QueueJetty},
		// R103: with idleTimeout <= 0 Jetty's idle threads take().
		{"jetty take", []string{
			"java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject.await(AbstractQueuedSynchronizer.java:2039)",
			"org.eclipse.jetty.util.BlockingArrayQueue.take(BlockingArrayQueue.java:340)",
			"org.eclipse.jetty.util.thread.QueuedThreadPool$Runner.idleJobPoll(QueuedThreadPool.java:972)",
			"org.eclipse.jetty.util.thread.QueuedThreadPool$Runner.run(QueuedThreadPool.java:1018)",
			"java.lang.Thread.run(Thread.java:748)"},
			StateWaiting, RoleIdleUntimed, FamilyJetty, "BlockingArrayQueue.take", QueueJetty},
		// A Jetty thread running a job.
		{"jetty busy", []string{
			"java.lang.Thread.sleep(Native Method)",
			"com.example.Handler.handle(Handler.java:9)",
			"org.eclipse.jetty.util.thread.QueuedThreadPool.runJob(QueuedThreadPool.java:883)",
			"org.eclipse.jetty.util.thread.QueuedThreadPool$Runner.run(QueuedThreadPool.java:1034)",
			"java.lang.Thread.run(Thread.java:748)"},
			StateTimedWaiting, RoleBusy, FamilyJetty, "", QueueNone},
		// ForkJoinPool.awaitWork with a bare Unsafe.park: the state decides; without one, untimed.
		{"forkjoin idle timed", []string{
			"jdk.internal.misc.Unsafe.park(java.base@25.0.3/Native Method)",
			"java.util.concurrent.ForkJoinPool.awaitWork(java.base@25.0.3/ForkJoinPool.java:2109)",
			"java.util.concurrent.ForkJoinPool.deactivate(java.base@25.0.3/ForkJoinPool.java:2063)",
			"java.util.concurrent.ForkJoinPool.runWorker(java.base@25.0.3/ForkJoinPool.java:2027)",
			"java.util.concurrent.ForkJoinWorkerThread.run(java.base@25.0.3/ForkJoinWorkerThread.java:187)"},
			StateTimedWaiting, RoleIdleTimed, FamilyForkJoin, "ForkJoinPool.awaitWork", QueueForkJoin},
		{"forkjoin idle no state", []string{
			"jdk.internal.misc.Unsafe.park(java.base@25.0.3/Native Method)",
			"java.util.concurrent.ForkJoinPool.awaitWork(java.base@25.0.3/ForkJoinPool.java:2109)",
			"java.util.concurrent.ForkJoinPool.runWorker(java.base@25.0.3/ForkJoinPool.java:2027)",
			"java.util.concurrent.ForkJoinWorkerThread.run(java.base@25.0.3/ForkJoinWorkerThread.java:187)"},
			"", RoleIdleUntimed, FamilyForkJoin, "ForkJoinPool.awaitWork", QueueForkJoin},
		{"forkjoin busy", []string{
			"java.lang.Thread.sleep(Native Method)",
			"com.example.Job.run(Job.java:12)",
			"java.util.concurrent.ForkJoinTask$RunnableExecuteAction.exec(java.base@17.0.19/ForkJoinTask.java:1395)",
			"java.util.concurrent.ForkJoinTask.doExec(java.base@17.0.19/ForkJoinTask.java:373)",
			"java.util.concurrent.ForkJoinPool$WorkQueue.topLevelExec(java.base@17.0.19/ForkJoinPool.java:1182)",
			"java.util.concurrent.ForkJoinPool.scan(java.base@17.0.19/ForkJoinPool.java:1655)",
			"java.util.concurrent.ForkJoinPool.runWorker(java.base@17.0.19/ForkJoinPool.java:1622)",
			"java.util.concurrent.ForkJoinWorkerThread.run(java.base@17.0.19/ForkJoinWorkerThread.java:165)"},
			StateTimedWaiting, RoleBusy, FamilyForkJoin, "", QueueNone},
		// No worker loop: a Timer thread is not a pool worker.
		{"timer", []string{
			"java.lang.Object.wait(Native Method)",
			"java.util.TimerThread.mainLoop(Timer.java:552)",
			"java.util.TimerThread.run(Timer.java:505)"},
			StateWaiting, RoleOther, FamilyUnknown, "", QueueNone},
		// No frames at all.
		{"no frames", nil, StateRunnable, RoleOther, FamilyUnknown, "", QueueNone},
	}
	for _, tt := range tests {
		role, family, site, queue := classifyFrames(stack(t, tt.frames...), tt.state)
		if role != tt.role || family != tt.family || site != tt.site || queue != tt.queue {
			t.Errorf("%s: got %s, %s, %q, %q; want %s, %s, %q, %q", tt.name, role, family, site, queue, tt.role, tt.family, tt.site, tt.queue)
		}
	}
}

func TestClassifyPool(t *testing.T) {
	loop := stack(t, with([]string{"com.example.Job.run(Job.java:1)"}, jdkWorker)...)
	tests := []struct {
		name   string
		thread Thread
		pool   string
		number int
	}{
		// Numbered worker.
		{"worker", Thread{Name: "pool-1-thread-3", Frames: loop}, "pool-1-thread-", 3},
		// Numbered non-worker: the generic rule still makes a pool (role other).
		{"timer", Thread{Name: "Timer-0"}, "Timer-", 0},
		// A worker whose factory names every thread alike.
		{"unnumbered worker", Thread{Name: "worker", Frames: loop}, "worker", -1},
		// An unnumbered non-worker is in no pool.
		{"main", Thread{Name: "main", State: StateRunnable}, "", -1},
		// JIT compiler threads are numbered but no pool.
		{"compiler", Thread{Name: "C2 CompilerThread0", State: StateRunnable}, "", -1},
		// JVM-internal threads and virtual threads are in no pool.
		{"gc", Thread{Name: "GC Thread#0", JVMInternal: true}, "", -1},
		{"virtual", Thread{Name: "vt-1", Virtual: true, Frames: loop}, "", -1},
	}
	for _, tt := range tests {
		c := tt.thread.Classify()
		if c.Pool != tt.pool || c.Number != tt.number {
			t.Errorf("%s: pool %q #%d, want %q #%d", tt.name, c.Pool, c.Number, tt.pool, tt.number)
		}
	}
}

// TestSummariseOrder: largest pool first, then by prefix; families rank
// Tomcat over the JDK frames it shows; Jetty's prefix names an unknown pool.
func TestSummariseOrder(t *testing.T) {
	busy := stack(t, with([]string{"com.example.Job.run(Job.java:1)"}, jdkWorker)...)
	tomcat := stack(t, with([]string{"com.example.Job.run(Job.java:1)"}, tomcatWorker)...)
	d := &Dump{Threads: []Thread{
		{Name: "b-1", Frames: busy, State: StateRunnable},
		{Name: "a-1", Frames: busy, State: StateRunnable},
		{Name: "c-1", Frames: busy, State: StateRunnable},
		{Name: "c-2", Frames: tomcat, State: StateRunnable, Daemon: true},
		{Name: "qtp77-12", State: StateRunnable},
		{Name: "c-9", State: "", Incomplete: true}, // the cut thread is left out
	}}
	pools := Summarise(d)
	var got []string
	for _, p := range pools {
		got = append(got, p.String())
	}
	want := []string{
		"c- (tomcat): 2 threads: 2 busy, 0 idle timed, 0 idle untimed, 0 other; RUNNABLE=2; highest number 2",
		"a- (jdk): 1 threads: 1 busy, 0 idle timed, 0 idle untimed, 0 other; RUNNABLE=1; highest number 1",
		"b- (jdk): 1 threads: 1 busy, 0 idle timed, 0 idle untimed, 0 other; RUNNABLE=1; highest number 1",
		"qtp77- (jetty): 1 threads: 0 busy, 0 idle timed, 0 idle untimed, 1 other; RUNNABLE=1; highest number 12",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if pools[0].Daemon != 1 {
		t.Errorf("daemon %d, want 1", pools[0].Daemon)
	}
	if Summarise(nil) != nil {
		t.Error("Summarise(nil) != nil")
	}
}
