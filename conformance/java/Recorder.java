package poolsim.conformance;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToIntFunction;

/**
 * Records the worker threads of one pool (creation and exit times, creation index) and classifies
 * them from a thread dump. It sees threads only through a wrapping ThreadFactory, so the pool's
 * own code runs unchanged: the wrapper adds one frame below the pool's worker Runnable.
 */
final class Recorder {
    private static final ThreadLocal<WorkerRec> CURRENT = new ThreadLocal<>();
    private static final int STACK_DEPTH = 64;

    final List<WorkerRec> workers = new CopyOnWriteArrayList<>();
    /** Tasks currently running on pool threads (not on the submitter). */
    final AtomicInteger busy = new AtomicInteger();
    /** Tasks finished on pool threads, failed ones included. */
    final AtomicLong completed = new AtomicLong();
    private final AtomicInteger alive = new AtomicInteger();
    private final AtomicInteger maxAlive = new AtomicInteger();
    private final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    final List<String> warnings = new CopyOnWriteArrayList<>();

    static final class WorkerRec {
        final int index;
        final Thread thread;
        final long createdNanos;
        volatile long runNanos; // when the thread began to run; 0 before
        volatile long exitNanos; // 0 while the thread runs

        WorkerRec(int index, Thread thread, long createdNanos) {
            this.index = index;
            this.thread = thread;
            this.createdNanos = createdNanos;
        }
    }

    /** The worker record of the calling thread, or null if it is not a pool thread. */
    static WorkerRec current() {
        return CURRENT.get();
    }

    /** The largest number of pool threads alive at once (Jetty has no getLargestPoolSize). */
    int largest() {
        return maxAlive.get();
    }

    /**
     * Wraps a thread factory: delegate makes and names the thread; indexOf reads its 1-based
     * creation index (from the name, or the wrapper's own count); the wrapper records the thread's
     * creation and, when the pool's Runnable returns or throws, its exit.
     */
    ThreadFactory wrap(ThreadFactory delegate, ToIntFunction<Thread> indexOf) {
        return r -> {
            long created = System.nanoTime();
            WorkerRec[] holder = new WorkerRec[1];
            Runnable wrapped = () -> {
                WorkerRec w = holder[0];
                w.runNanos = System.nanoTime();
                CURRENT.set(w);
                try {
                    r.run();
                } finally {
                    w.exitNanos = System.nanoTime();
                    alive.decrementAndGet();
                }
            };
            Thread t = delegate.newThread(wrapped);
            if (t == null) {
                return null;
            }
            WorkerRec w = new WorkerRec(indexOf.applyAsInt(t), t, created);
            holder[0] = w;
            workers.add(w);
            int a = alive.incrementAndGet();
            maxAlive.accumulateAndGet(a, Math::max);
            return t;
        };
    }

    /** Parses the number after the last '-' of a thread name (pool-N-thread-M, prefix-exec-M). */
    static int indexFromName(Thread t) {
        String n = t.getName();
        int dash = n.lastIndexOf('-');
        try {
            return Integer.parseInt(n.substring(dash + 1));
        } catch (NumberFormatException x) {
            throw new IllegalStateException("harness: cannot read a creation index from thread name " + n, x);
        }
    }

    /** How the live pool threads look in one thread dump. */
    static final class Census {
        int busy; // running a scripted task (Task.run on the stack)
        int idleTimed; // idle in poll(timeout)
        int idleUntimed; // idle in take()
        int other; // alive but neither: starting, between tasks, exiting
        int stateCallMismatch; // idle threads whose state disagrees with the call they are in
    }

    /**
     * Classifies every live pool thread from one ThreadMXBean dump (one safepoint for all of them).
     * A thread inside the pool's getTask (JDK, Tomcat) or QueuedThreadPool$Runner.idleJobPoll (Jetty)
     * is idle: TIMED_WAITING counts as timed, WAITING as untimed (R57–R59); an idle thread caught
     * RUNNABLE or BLOCKED (SynchronousQueue spinning, R52; lock hand-over) counts by the queue call it
     * is in: poll is timed, take is untimed.
     */
    Census census() {
        List<WorkerRec> live = new ArrayList<>();
        for (WorkerRec w : workers) {
            if (w.exitNanos == 0) {
                live.add(w);
            }
        }
        long[] ids = new long[live.size()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = live.get(i).thread.getId();
        }
        ThreadInfo[] infos = ids.length == 0 ? new ThreadInfo[0] : mx.getThreadInfo(ids, STACK_DEPTH);
        Census c = new Census();
        for (ThreadInfo ti : infos) {
            if (ti == null) {
                continue; // exited since the list was taken
            }
            StackTraceElement[] st = ti.getStackTrace();
            boolean inTask = false;
            int idleFrame = -1;
            for (int i = 0; i < st.length; i++) {
                StackTraceElement f = st[i];
                String cls = f.getClassName();
                String m = f.getMethodName();
                if ((cls.equals(Task.class.getName()) || cls.equals(SchedTask.class.getName())) && m.equals("run")) {
                    inTask = true;
                    break;
                }
                if ((m.equals("getTask") && cls.endsWith(".ThreadPoolExecutor"))
                        || (m.equals("idleJobPoll") && cls.endsWith("QueuedThreadPool$Runner"))) {
                    idleFrame = i;
                    break;
                }
            }
            if (inTask) {
                c.busy++;
                continue;
            }
            if (idleFrame < 0) {
                c.other++;
                continue;
            }
            // The queue call nearest the top of the stack: poll (timed) or take (untimed). A
            // DelayedWorkQueue's leader waits timed inside take (R61, R93): no mismatch there.
            String call = null;
            boolean delayed = false;
            for (int i = 0; i < idleFrame; i++) {
                String m = st[i].getMethodName();
                if (m.equals("poll") || m.equals("take")) {
                    call = m;
                    delayed = st[i].getClassName().endsWith("DelayedWorkQueue");
                    break;
                }
            }
            Thread.State state = ti.getThreadState();
            if (state == Thread.State.TIMED_WAITING) {
                c.idleTimed++;
                if ("take".equals(call) && !delayed) {
                    c.stateCallMismatch++;
                }
            } else if (state == Thread.State.WAITING) {
                c.idleUntimed++;
                if ("poll".equals(call)) {
                    c.stateCallMismatch++;
                }
            } else if ("poll".equals(call)) {
                c.idleTimed++;
            } else if ("take".equals(call)) {
                c.idleUntimed++;
            } else {
                c.other++; // in getTask but not waiting: about to return a task or exit
            }
        }
        return c;
    }
}
