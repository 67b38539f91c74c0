// PoolStates starts real thread pools, drives each into a known state and
// holds it there, so that a thread dump of this JVM has known contents. It is
// the ground truth of threaddump's JVM tests (see jvm_test.go).
//
// Output on stdout, one line each:
//
//	POOL <key> <prefix>   the name prefix the pool's workers actually got
//	READY                 every pool has reached its expected state
//
// The JVM exits when stdin reaches EOF (the test closes it). Runs on Java 17
// and later; virtual threads are started (through reflection) only on 21+.
//
// Expected contents, per key (the Go test holds the same table):
//
//	fixed      Executors.newFixedThreadPool(3), 3 tasks done:       3 idle untimed, LinkedBlockingQueue.take (R58)
//	cached     Executors.newCachedThreadPool(), 4 concurrent tasks: 4 idle timed, SynchronousQueue.poll (R59)
//	grown      TPE(core 2, max 5, LinkedBlockingQueue(1)), 6 tasks: 5 idle timed, LinkedBlockingQueue.poll (R57, R60)
//	busy       TPE(5, 5, ArrayBlockingQueue(10)): sleeping, computing, BLOCKED, WAITING on a latch (busy, R56),
//	           plus 1 idle untimed in ArrayBlockingQueue.take
//	scheduled  ScheduledThreadPoolExecutor(3), 3 delayed tasks:     1 leader timed, 2 untimed, DelayedWorkQueue.take (R61)
//	tomcat     Tomcat TPE(core 2, max 10) + TaskQueue, burst of 6:  6 idle timed, TaskQueue.poll (R57, R67, R77)
//	spring     Spring Boot style "task-" pool (core 8, ACTO), 3 tasks: 3 idle timed, LinkedBlockingQueue.poll (P2)
//	jetty      Jetty 9.4 QueuedThreadPool(max 10, min 3), 6 jobs:   5 idle timed, BlockingArrayQueue.poll, 1 busy (R103)
//	forkjoin   new ForkJoinPool(2), 2 sleeping tasks:               2 busy
//	timer      java.util.Timer:                                     1 thread, not a pool worker
//
// Keep-alive times are 10 minutes instead of the products' 60 s defaults so
// that a slow machine cannot see a worker time out while the dumps are taken;
// the frames and states do not depend on K.
import java.io.IOException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Timer;
import java.util.TimerTask;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

public class PoolStates {
    static final long KEEP_ALIVE_MIN = 10;
    static final Object MONITOR = new Object();         // held by main forever: the BLOCKED worker waits for it
    static final CountDownLatch NEVER = new CountDownLatch(1); // never counted down
    static volatile boolean computing = true;
    static volatile long sink;

    /** What the settle check expects of one pool: Thread.State counts. */
    static final class Expect {
        final String key;
        String prefix;
        final Map<Thread.State, Integer> states = new HashMap<>();

        Expect(String key) {
            this.key = key;
        }

        Expect with(Thread.State s, int n) {
            states.put(s, n);
            return this;
        }
    }

    static final List<Expect> EXPECTS = new ArrayList<>();

    static Expect expect(String key, String threadName) {
        Expect e = new Expect(key);
        e.prefix = threadName.replaceAll("[0-9]+$", "");
        EXPECTS.add(e);
        return e;
    }

    /** Runs n tasks on ex at once, waits until all run, then lets them finish. */
    static String burst(java.util.concurrent.Executor ex, int n, int running) throws InterruptedException {
        CountDownLatch started = new CountDownLatch(running);
        CountDownLatch release = new CountDownLatch(1);
        String[] name = new String[1];
        for (int i = 0; i < n; i++) {
            ex.execute(() -> {
                name[0] = Thread.currentThread().getName();
                started.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        started.await();
        release.countDown();
        return name[0];
    }

    static void sleepForever() {
        try {
            Thread.sleep(TimeUnit.HOURS.toMillis(1));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static void compute() {
        double x = 1;
        while (computing) {
            for (int i = 0; i < 100_000; i++) {
                x = Math.sqrt(x + i);
            }
            sink = (long) x;
            Thread.yield(); // stays RUNNABLE, but lets the other engineers' builds run
        }
    }

    public static void main(String[] args) throws Exception {
        synchronized (MONITOR) {
            run();
        }
    }

    static void run() throws Exception {
        // fixed: 3 threads (R4/R81), then all idle in take().
        ExecutorService fixed = Executors.newFixedThreadPool(3);
        String n = burst(fixed, 3, 3);
        expect("fixed", n).with(Thread.State.WAITING, 3);

        // cached: 4 concurrent tasks make 4 threads (R83), idle in SynchronousQueue.poll(K).
        ThreadPoolExecutor cached = (ThreadPoolExecutor) Executors.newCachedThreadPool();
        cached.setKeepAliveTime(KEEP_ALIVE_MIN, TimeUnit.MINUTES);
        n = burst(cached, 4, 4);
        expect("cached", n).with(Thread.State.TIMED_WAITING, 4);

        // grown: core 2, max 5, queue capacity 1: 6 tasks -> 2 core + 1 queued + 3 more threads (R7),
        // then wc 5 > core 2, so all 5 idle workers wait in poll(K) (R15b, R60).
        ThreadPoolExecutor grown = new ThreadPoolExecutor(2, 5, KEEP_ALIVE_MIN, TimeUnit.MINUTES,
                new LinkedBlockingQueue<>(1));
        n = burst(grown, 6, 5);
        expect("grown", n).with(Thread.State.TIMED_WAITING, 5);

        // busy: 5 threads; 4 tasks never end, 1 ends at once (its worker then waits in take()).
        ThreadPoolExecutor busy = new ThreadPoolExecutor(5, 5, 0, TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(10));
        CountDownLatch busyStarted = new CountDownLatch(5);
        String[] busyName = new String[1];
        busy.execute(() -> { busyStarted.countDown(); sleepForever(); });
        busy.execute(() -> { busyStarted.countDown(); compute(); });
        busy.execute(() -> { busyStarted.countDown(); synchronized (MONITOR) { sink++; } });
        busy.execute(() -> {
            busyStarted.countDown();
            try {
                NEVER.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        busy.execute(() -> { busyName[0] = Thread.currentThread().getName(); busyStarted.countDown(); });
        busyStarted.await();
        expect("busy", busyName[0]).with(Thread.State.RUNNABLE, 1).with(Thread.State.TIMED_WAITING, 1)
                .with(Thread.State.BLOCKED, 1).with(Thread.State.WAITING, 2);

        // scheduled: each schedule() starts a worker while wc < core (R91); one leader waits timed (R61, R93).
        ScheduledThreadPoolExecutor scheduled = new ScheduledThreadPoolExecutor(3);
        String[] schedName = new String[1];
        CountDownLatch schedStarted = new CountDownLatch(1);
        scheduled.execute(() -> { schedName[0] = Thread.currentThread().getName(); schedStarted.countDown(); });
        schedStarted.await();
        for (int h = 1; h <= 2; h++) {
            scheduled.schedule(() -> { }, h, TimeUnit.HOURS);
        }
        expect("scheduled", schedName[0]).with(Thread.State.TIMED_WAITING, 1).with(Thread.State.WAITING, 2);

        // tomcat: the constructor prestarts 2 core workers (R65); a burst of 6 grows the pool to 6 (R67);
        // afterwards wc 6 > core 2, so all 6 wait in TaskQueue.poll(K) (R77).
        org.apache.tomcat.util.threads.TaskQueue taskQueue = new org.apache.tomcat.util.threads.TaskQueue();
        org.apache.tomcat.util.threads.ThreadPoolExecutor tomcat = new org.apache.tomcat.util.threads.ThreadPoolExecutor(
                2, 10, KEEP_ALIVE_MIN, TimeUnit.MINUTES, taskQueue,
                new org.apache.tomcat.util.threads.TaskThreadFactory("http-nio-8080-exec-", true, 5));
        taskQueue.setParent(tomcat);
        n = burst(tomcat, 6, 6);
        expect("tomcat", n).with(Thread.State.TIMED_WAITING, 6);

        // spring: Spring Boot's executor shape (P2): core 8, unbounded queue, allowCoreThreadTimeOut,
        // threads "task-1", "task-2", ...; 3 tasks make 3 threads (R4), idle in poll(K) because of ACTO.
        AtomicInteger springCount = new AtomicInteger();
        ThreadFactory springFactory = r -> new Thread(r, "task-" + springCount.incrementAndGet());
        ThreadPoolExecutor spring = new ThreadPoolExecutor(8, Integer.MAX_VALUE, KEEP_ALIVE_MIN, TimeUnit.MINUTES,
                new LinkedBlockingQueue<>(), springFactory);
        spring.allowCoreThreadTimeOut(true);
        n = burst(spring, 3, 3);
        expect("spring", n).with(Thread.State.TIMED_WAITING, 3);

        // jetty: starts min 3 threads (R101); 6 concurrent jobs grow it to 6 (R102); 5 jobs end, 1 sleeps.
        org.eclipse.jetty.util.thread.QueuedThreadPool qtp = new org.eclipse.jetty.util.thread.QueuedThreadPool(
                10, 3, (int) TimeUnit.MINUTES.toMillis(KEEP_ALIVE_MIN));
        qtp.setReservedThreads(0);
        qtp.start();
        CountDownLatch jettyStarted = new CountDownLatch(6);
        CountDownLatch jettyRelease = new CountDownLatch(1);
        String[] jettyName = new String[1];
        for (int i = 0; i < 6; i++) {
            boolean sleeper = i == 0;
            qtp.execute(() -> {
                jettyName[0] = Thread.currentThread().getName();
                jettyStarted.countDown();
                if (sleeper) {
                    sleepForever();
                    return;
                }
                try {
                    jettyRelease.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        jettyStarted.await();
        jettyRelease.countDown();
        expect("jetty", jettyName[0]).with(Thread.State.TIMED_WAITING, 6);

        // forkjoin: 2 tasks that sleep on a pool of parallelism 2.
        ForkJoinPool fj = new ForkJoinPool(2);
        CountDownLatch fjStarted = new CountDownLatch(2);
        String[] fjName = new String[1];
        for (int i = 0; i < 2; i++) {
            fj.execute(() -> { fjName[0] = Thread.currentThread().getName(); fjStarted.countDown(); sleepForever(); });
        }
        fjStarted.await();
        expect("forkjoin", fjName[0]).with(Thread.State.TIMED_WAITING, 2);

        // timer: one "Timer-N" thread, waiting for a far task; not a pool worker.
        Timer timer = new Timer("Timer-0");
        timer.schedule(new TimerTask() {
            @Override
            public void run() {
            }
        }, TimeUnit.HOURS.toMillis(1));
        expect("timer", "Timer-0").with(Thread.State.TIMED_WAITING, 1);

        startVirtualThreads();

        awaitSettled();
        for (Expect e : EXPECTS) {
            System.out.println("POOL " + e.key + " " + e.prefix);
        }
        System.out.println("READY");
        System.out.flush();
        while (System.in.read() >= 0) {
            // hold every state until the test closes stdin
        }
        computing = false;
        System.exit(0);
    }

    /** On Java 21+, two sleeping virtual threads (unmounted: only Thread.dump_to_file shows them). */
    static void startVirtualThreads() throws Exception {
        Method m;
        try {
            m = Executors.class.getMethod("newVirtualThreadPerTaskExecutor");
        } catch (NoSuchMethodException e) {
            return;
        }
        ExecutorService vt = (ExecutorService) m.invoke(null);
        CountDownLatch started = new CountDownLatch(2);
        for (int i = 0; i < 2; i++) {
            vt.execute(() -> { started.countDown(); sleepForever(); });
        }
        started.await();
    }

    /** Waits until every pool shows exactly its expected Thread.State counts, twice 200 ms apart. */
    static void awaitSettled() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        int stable = 0;
        while (stable < 2) {
            if (System.nanoTime() > deadline) {
                System.err.println("not settled: " + describe());
                System.exit(3);
            }
            stable = settled() ? stable + 1 : 0;
            Thread.sleep(200);
        }
    }

    static boolean settled() {
        for (Expect e : EXPECTS) {
            if (!count(e.prefix).equals(e.states)) {
                return false;
            }
        }
        return true;
    }

    static Map<Thread.State, Integer> count(String prefix) {
        Map<Thread.State, Integer> got = new HashMap<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            String name = t.getName();
            if (name.startsWith(prefix) && name.substring(prefix.length()).matches("[0-9]+")) {
                got.merge(t.getState(), 1, Integer::sum);
            }
        }
        return got;
    }

    static String describe() {
        StringBuilder b = new StringBuilder();
        for (Expect e : EXPECTS) {
            b.append(e.key).append(" want ").append(e.states).append(" got ").append(count(e.prefix)).append("; ");
        }
        return b.toString();
    }
}
