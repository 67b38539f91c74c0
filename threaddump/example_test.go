package threaddump_test

import (
	"fmt"
	"strings"

	"github.com/poolsim/poolsim/threaddump"
)

// Two Tomcat workers of a jstack dump (JDK 17): both idle in TaskQueue.poll,
// so TIMED_WAITING (spec R57, R77).
const twoWorkers = `2026-12-01 20:00:08
Full thread dump OpenJDK 64-Bit Server VM (17.0.19+10 mixed mode, sharing):

"http-nio-8080-exec-1" #33 daemon prio=5 os_prio=0 cpu=1.01ms elapsed=10.14s tid=0x00007fbb241a46a0 nid=0x2257 waiting on condition  [0x00007fbaf41a6000]
   java.lang.Thread.State: TIMED_WAITING (parking)
	at jdk.internal.misc.Unsafe.park(java.base@17.0.19/Native Method)
	- parking to wait for  <0x000000069eaecb28> (a java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject)
	at java.util.concurrent.locks.LockSupport.parkNanos(java.base@17.0.19/LockSupport.java:252)
	at java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject.awaitNanos(java.base@17.0.19/AbstractQueuedSynchronizer.java:1679)
	at java.util.concurrent.LinkedBlockingQueue.poll(java.base@17.0.19/LinkedBlockingQueue.java:460)
	at org.apache.tomcat.util.threads.TaskQueue.poll(TaskQueue.java:89)
	at org.apache.tomcat.util.threads.TaskQueue.poll(TaskQueue.java:31)
	at org.apache.tomcat.util.threads.ThreadPoolExecutor.getTask(ThreadPoolExecutor.java:913)
	at org.apache.tomcat.util.threads.ThreadPoolExecutor.runWorker(ThreadPoolExecutor.java:960)
	at org.apache.tomcat.util.threads.ThreadPoolExecutor$Worker.run(ThreadPoolExecutor.java:491)
	at org.apache.tomcat.util.threads.TaskThread$WrappingRunnable.run(TaskThread.java:63)
	at java.lang.Thread.run(java.base@17.0.19/Thread.java:840)

"http-nio-8080-exec-121" #154 daemon prio=5 os_prio=0 cpu=0.46ms elapsed=10.14s tid=0x00007fbb241a55e0 nid=0x2258 waiting on condition  [0x00007fba9effe000]
   java.lang.Thread.State: TIMED_WAITING (parking)
	at jdk.internal.misc.Unsafe.park(java.base@17.0.19/Native Method)
	- parking to wait for  <0x000000069eaecb28> (a java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject)
	at java.util.concurrent.locks.LockSupport.parkNanos(java.base@17.0.19/LockSupport.java:252)
	at java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject.awaitNanos(java.base@17.0.19/AbstractQueuedSynchronizer.java:1679)
	at java.util.concurrent.LinkedBlockingQueue.poll(java.base@17.0.19/LinkedBlockingQueue.java:460)
	at org.apache.tomcat.util.threads.TaskQueue.poll(TaskQueue.java:89)
	at org.apache.tomcat.util.threads.TaskQueue.poll(TaskQueue.java:31)
	at org.apache.tomcat.util.threads.ThreadPoolExecutor.getTask(ThreadPoolExecutor.java:913)
	at org.apache.tomcat.util.threads.ThreadPoolExecutor.runWorker(ThreadPoolExecutor.java:960)
	at org.apache.tomcat.util.threads.ThreadPoolExecutor$Worker.run(ThreadPoolExecutor.java:491)
	at org.apache.tomcat.util.threads.TaskThread$WrappingRunnable.run(TaskThread.java:63)
	at java.lang.Thread.run(java.base@17.0.19/Thread.java:840)

JNI global refs: 7, weak refs: 0
`

func ExampleSummarise() {
	d, err := threaddump.Parse(strings.NewReader(twoWorkers), "dump.txt")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range threaddump.Summarise(d) {
		fmt.Println(p)
	}
	// Output:
	// http-nio-8080-exec- (tomcat): 2 threads: 0 busy, 2 idle timed, 0 idle untimed, 0 other; TIMED_WAITING=2; parked at TaskQueue.poll=2 (tomcat); highest number 121
}

func ExampleThread_Classify() {
	d, err := threaddump.Parse(strings.NewReader(twoWorkers), "dump.txt")
	if err != nil {
		fmt.Println(err)
		return
	}
	c := d.Threads[0].Classify()
	fmt.Println(c.Pool, c.Number, c.Role, c.Family, c.ParkSite, c.Queue)
	// Output:
	// http-nio-8080-exec- 1 idle-timed tomcat TaskQueue.poll tomcat
}

func ExampleParse_error() {
	_, err := threaddump.Parse(strings.NewReader("GET /health 200\n"), "access.log")
	fmt.Println(err)
	// Output:
	// access.log:1:1: not a thread dump: no thread header ("name" #N … tid=… nid=…, or #N "name") found (the output of jstack, jcmd Thread.print, kill -3, or jcmd Thread.dump_to_file (plain or -format=json))
}
