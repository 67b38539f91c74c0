package poolsim.conformance;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.PriorityBlockingQueue;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.tomcat.util.threads.TaskQueue;
import org.apache.tomcat.util.threads.TaskThreadFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The four real pools behind one small interface. Each is built exactly as its users build it;
 * the harness only wraps the thread factory (to record threads) and the rejection handler (to
 * count invocations), both delegating to the real ones.
 */
final class Pools {
    /**
     * A scripted setter on java.util.concurrent.ThreadPoolExecutor, which the JDK pool and the
     * ScheduledThreadPoolExecutor share (R21-R24). Tomcat's executor is a separate copy of the class.
     */
    static void applySetter(ThreadPoolExecutor e, String key, long v) {
        switch (key) {
            case "core":
                e.setCorePoolSize((int) v);
                break;
            case "max":
                e.setMaximumPoolSize((int) v);
                break;
            case "keepAliveMs":
                e.setKeepAliveTime(v, TimeUnit.MILLISECONDS);
                break;
            case "allowCoreThreadTimeOut":
                e.allowCoreThreadTimeOut(v == 1);
                break;
            default:
                throw new IllegalStateException("unknown key " + key);
        }
    }

    private Pools() {}

    /** What the harness needs from a pool. */
    interface Pool {
        /** Calls the pool's execute; may throw RejectedExecutionException or a caller-run task's failure. */
        void execute(Task t);

        /** Told when execute threw RejectedExecutionException (counted where no handler is wrapped). */
        void onExecuteRejected();

        /** One key of a set directive, through the pool's own setter. */
        void apply(String key, long value);

        void shutdown();

        /** shutdownNow (JDK, Tomcat); for Jetty, at end only: drain the queue and interrupt the threads. */
        List<Runnable> shutdownNow();

        int poolSize();

        int queueLen();

        long completed();

        long rejected();

        int largest();

        int active();

        /** Tomcat's submittedCount (R64); -1 for the other pools. */
        default int submittedCount() {
            return -1;
        }

        /** A schedule directive: only a ScheduledThreadPoolExecutor has one. */
        default void schedule(SchedTask t, Script.Sched s) {
            throw new UnsupportedOperationException("schedule needs kind=scheduled");
        }

        /** Stops a warm-up pool and waits for its threads. */
        void close() throws Exception;
    }

    static Pool create(Script s, Recorder rec) throws Exception {
        switch (s.kind) {
            case JDK:
                return new Jdk(s, rec);
            case TOMCAT:
                return new Tomcat(s, rec);
            case JETTY:
                return new Jetty(s, rec);
            case SCHEDULED:
                return new Scheduled(s, rec);
            default:
                throw new IllegalStateException("unknown kind " + s.kind);
        }
    }

    /** java.util.concurrent.ThreadPoolExecutor with the default thread factory (names pool-N-thread-M, R87). */
    static final class Jdk implements Pool {
        final ThreadPoolExecutor tpe;
        private final AtomicLong rejected = new AtomicLong();

        Jdk(Script s, Recorder rec) {
            BlockingQueue<Runnable> q;
            switch (s.queue) {
                case "linked":
                    q = s.capacity == Script.UNBOUNDED ? new LinkedBlockingQueue<>() : new LinkedBlockingQueue<>(s.capacity);
                    break;
                case "array":
                    q = new ArrayBlockingQueue<>(s.capacity, s.fair);
                    break;
                case "synchronous":
                    q = new SynchronousQueue<>(s.fair);
                    break;
                case "priority":
                    q = new PriorityBlockingQueue<>();
                    break;
                default:
                    throw new IllegalStateException("unknown queue " + s.queue);
            }
            RejectedExecutionHandler policy;
            switch (s.rejection) {
                case "abort":
                    policy = new ThreadPoolExecutor.AbortPolicy();
                    break;
                case "caller-runs":
                    policy = new ThreadPoolExecutor.CallerRunsPolicy();
                    break;
                case "discard":
                    policy = new ThreadPoolExecutor.DiscardPolicy();
                    break;
                case "discard-oldest":
                    policy = new ThreadPoolExecutor.DiscardOldestPolicy();
                    break;
                default:
                    throw new IllegalStateException("unknown rejection " + s.rejection);
            }
            RejectedExecutionHandler counting = (r, e) -> {
                rejected.incrementAndGet();
                policy.rejectedExecution(r, e);
            };
            ThreadFactory f = rec.wrap(Executors.defaultThreadFactory(), Recorder::indexFromName);
            tpe = new ThreadPoolExecutor(s.core, s.max, s.keepAliveMs, TimeUnit.MILLISECONDS, q, f, counting);
            // allowCoreThreadTimeOut before prestarting: the prestarted workers then start in poll (R20,
            // R24) rather than being interrupted out of take.
            if (s.allowCoreThreadTimeOut) {
                tpe.allowCoreThreadTimeOut(true);
            }
            if (s.prestart) {
                tpe.prestartAllCoreThreads();
            }
        }

        @Override
        public void execute(Task t) {
            tpe.execute(t);
        }

        @Override
        public void onExecuteRejected() {
            // counted by the wrapped handler
        }

        @Override
        public void apply(String key, long v) {
            applySetter(tpe, key, v);
        }

        @Override
        public void shutdown() {
            tpe.shutdown();
        }

        @Override
        public List<Runnable> shutdownNow() {
            return tpe.shutdownNow();
        }

        @Override
        public int poolSize() {
            return tpe.getPoolSize();
        }

        @Override
        public int queueLen() {
            return tpe.getQueue().size();
        }

        @Override
        public long completed() {
            return tpe.getCompletedTaskCount();
        }

        @Override
        public long rejected() {
            return rejected.get();
        }

        @Override
        public int largest() {
            return tpe.getLargestPoolSize();
        }

        @Override
        public int active() {
            return tpe.getActiveCount();
        }

        @Override
        public void close() throws Exception {
            tpe.shutdownNow();
            tpe.awaitTermination(2, TimeUnit.SECONDS);
        }
    }

    /**
     * Tomcat's ThreadPoolExecutor with a TaskQueue, built as AbstractEndpoint.createExecutor does:
     * TaskThreadFactory (names tomcat-exec-M, daemon), the queue's parent set after construction.
     * The constructor prestarts the core threads itself (R65). rejection=abort keeps Tomcat's
     * default RejectPolicy (R66); then "rejected" counts RejectedExecutionException from execute.
     */
    static final class Tomcat implements Pool {
        final org.apache.tomcat.util.threads.ThreadPoolExecutor tpe;
        private final AtomicLong rejected = new AtomicLong();
        private final boolean countThrows;

        Tomcat(Script s, Recorder rec) {
            TaskQueue q = s.capacity == Script.UNBOUNDED ? new TaskQueue() : new TaskQueue(s.capacity);
            ThreadFactory f = rec.wrap(new TaskThreadFactory("tomcat-exec-", true, Thread.NORM_PRIORITY),
                    Recorder::indexFromName);
            if (s.rejection.equals("abort")) {
                countThrows = true;
                tpe = new org.apache.tomcat.util.threads.ThreadPoolExecutor(s.core, s.max, s.keepAliveMs,
                        TimeUnit.MILLISECONDS, q, f);
            } else {
                countThrows = false;
                org.apache.tomcat.util.threads.ThreadPoolExecutor.RejectedExecutionHandler policy;
                switch (s.rejection) {
                    case "caller-runs":
                        policy = new org.apache.tomcat.util.threads.ThreadPoolExecutor.CallerRunsPolicy();
                        break;
                    case "discard":
                        policy = new org.apache.tomcat.util.threads.ThreadPoolExecutor.DiscardPolicy();
                        break;
                    case "discard-oldest":
                        policy = new org.apache.tomcat.util.threads.ThreadPoolExecutor.DiscardOldestPolicy();
                        break;
                    default:
                        throw new IllegalStateException("unknown rejection " + s.rejection);
                }
                org.apache.tomcat.util.threads.ThreadPoolExecutor.RejectedExecutionHandler counting = (r, e) -> {
                    rejected.incrementAndGet();
                    policy.rejectedExecution(r, e);
                };
                tpe = new org.apache.tomcat.util.threads.ThreadPoolExecutor(s.core, s.max, s.keepAliveMs,
                        TimeUnit.MILLISECONDS, q, f, counting);
            }
            q.setParent(tpe);
            if (s.allowCoreThreadTimeOut) {
                tpe.allowCoreThreadTimeOut(true);
            }
        }

        @Override
        public int submittedCount() {
            return tpe.getSubmittedCount();
        }

        @Override
        public void execute(Task t) {
            tpe.execute(t);
        }

        @Override
        public void onExecuteRejected() {
            if (countThrows) {
                rejected.incrementAndGet();
            }
        }

        @Override
        public void apply(String key, long v) {
            switch (key) {
                case "core":
                    tpe.setCorePoolSize((int) v);
                    break;
                case "max":
                    tpe.setMaximumPoolSize((int) v);
                    break;
                case "keepAliveMs":
                    tpe.setKeepAliveTime(v, TimeUnit.MILLISECONDS);
                    break;
                case "allowCoreThreadTimeOut":
                    tpe.allowCoreThreadTimeOut(v == 1);
                    break;
                default:
                    throw new IllegalStateException("unknown key " + key);
            }
        }

        @Override
        public void shutdown() {
            tpe.shutdown();
        }

        @Override
        public List<Runnable> shutdownNow() {
            return tpe.shutdownNow();
        }

        @Override
        public int poolSize() {
            return tpe.getPoolSize();
        }

        @Override
        public int queueLen() {
            return tpe.getQueue().size();
        }

        @Override
        public long completed() {
            return tpe.getCompletedTaskCount();
        }

        @Override
        public long rejected() {
            return rejected.get();
        }

        @Override
        public int largest() {
            return tpe.getLargestPoolSize();
        }

        @Override
        public int active() {
            return tpe.getActiveCount();
        }

        @Override
        public void close() throws Exception {
            tpe.shutdownNow();
            tpe.awaitTermination(2, TimeUnit.SECONDS);
        }
    }

    /**
     * java.util.concurrent.ScheduledThreadPoolExecutor(core, defaultThreadFactory, handler): max
     * Integer.MAX_VALUE, keepAlive 10 ms, a DelayedWorkQueue (R88), with the script's shutdown
     * policies (R98). Submits go through schedule(task, 0) — what execute does (R89) — so that
     * their futures can be recognised among what shutdownNow returns.
     */
    static final class Scheduled implements Pool {
        final ScheduledThreadPoolExecutor stpe;
        private final AtomicLong rejected = new AtomicLong();
        /** The queued futures and the scripted Runnable each wraps, to report drained tasks. */
        private final Map<Object, Runnable> futures = java.util.Collections.synchronizedMap(new IdentityHashMap<>());

        Scheduled(Script s, Recorder rec) {
            RejectedExecutionHandler policy;
            switch (s.rejection) {
                case "abort":
                    policy = new ThreadPoolExecutor.AbortPolicy();
                    break;
                case "caller-runs":
                    policy = new ThreadPoolExecutor.CallerRunsPolicy();
                    break;
                case "discard":
                    policy = new ThreadPoolExecutor.DiscardPolicy();
                    break;
                case "discard-oldest":
                    policy = new ThreadPoolExecutor.DiscardOldestPolicy();
                    break;
                default:
                    throw new IllegalStateException("unknown rejection " + s.rejection);
            }
            RejectedExecutionHandler counting = (r, e) -> {
                rejected.incrementAndGet();
                policy.rejectedExecution(r, e);
            };
            ThreadFactory f = rec.wrap(Executors.defaultThreadFactory(), Recorder::indexFromName);
            stpe = new ScheduledThreadPoolExecutor(s.core, f, counting);
            stpe.setContinueExistingPeriodicTasksAfterShutdownPolicy(s.continuePeriodic);
            stpe.setExecuteExistingDelayedTasksAfterShutdownPolicy(s.executeDelayed);
            stpe.setRemoveOnCancelPolicy(s.removeOnCancel);
            if (s.allowCoreThreadTimeOut) {
                stpe.allowCoreThreadTimeOut(true);
            }
            if (s.prestart) {
                stpe.prestartAllCoreThreads();
            }
        }

        @Override
        public void execute(Task t) {
            futures.put(stpe.schedule(t, 0, TimeUnit.NANOSECONDS), t);
        }

        @Override
        public void schedule(SchedTask t, Script.Sched s) {
            ScheduledFuture<?> f;
            switch (s.mode) {
                case "once":
                    f = stpe.schedule(t, s.delayMs, TimeUnit.MILLISECONDS);
                    break;
                case "fixed-rate":
                    f = stpe.scheduleAtFixedRate(t, s.delayMs, s.periodMs, TimeUnit.MILLISECONDS);
                    break;
                case "fixed-delay":
                    f = stpe.scheduleWithFixedDelay(t, s.delayMs, s.periodMs, TimeUnit.MILLISECONDS);
                    break;
                default:
                    throw new IllegalStateException("unknown mode " + s.mode);
            }
            t.future = f;
            futures.put(f, t);
        }

        @Override
        public void onExecuteRejected() {
            // counted by the wrapped handler
        }

        @Override
        public void apply(String key, long v) {
            applySetter(stpe, key, v);
        }

        @Override
        public void shutdown() {
            stpe.shutdown();
        }

        /** shutdownNow, with each returned future replaced by the scripted Runnable it wraps. */
        @Override
        public List<Runnable> shutdownNow() {
            List<Runnable> out = new ArrayList<>();
            for (Runnable r : stpe.shutdownNow()) {
                Runnable mine = futures.get(r);
                out.add(mine != null ? mine : r);
            }
            return out;
        }

        @Override
        public int poolSize() {
            return stpe.getPoolSize();
        }

        @Override
        public int queueLen() {
            return stpe.getQueue().size();
        }

        @Override
        public long completed() {
            return stpe.getCompletedTaskCount();
        }

        @Override
        public long rejected() {
            return rejected.get();
        }

        @Override
        public int largest() {
            return stpe.getLargestPoolSize();
        }

        @Override
        public int active() {
            return stpe.getActiveCount();
        }

        @Override
        public void close() throws Exception {
            stpe.shutdownNow();
            stpe.awaitTermination(2, TimeUnit.SECONDS);
        }
    }

    /** QueuedThreadPool exposes its job queue to subclasses only. */
    static final class Qtp extends QueuedThreadPool {
        Qtp(int maxThreads, int minThreads, int idleTimeout, ThreadFactory f) {
            super(maxThreads, minThreads, idleTimeout, 0, null, null, f);
        }

        BlockingQueue<Runnable> jobs() {
            return getQueue();
        }
    }

    /**
     * Jetty 9.4 QueuedThreadPool: minThreads = core, maxThreads = max, idleTimeout = keepAliveMs,
     * reservedThreads = 0, its default unbounded BlockingArrayQueue (R100). A thread factory of ours
     * names the threads qtp-worker-M in creation order. Jetty has no rejection handler: "rejected"
     * counts RejectedExecutionException from execute, and "completed" and "largest" come from the
     * harness's own counts (QueuedThreadPool keeps neither).
     */
    static final class Jetty implements Pool {
        final Qtp qtp;
        private final Recorder rec;
        private final AtomicLong rejected = new AtomicLong();

        Jetty(Script s, Recorder rec) throws Exception {
            this.rec = rec;
            AtomicInteger n = new AtomicInteger();
            ThreadFactory base = r -> {
                Thread t = new Thread(r, "qtp-worker-" + n.incrementAndGet());
                t.setDaemon(true);
                return t;
            };
            qtp = new Qtp(s.max, s.core, (int) s.keepAliveMs, rec.wrap(base, Recorder::indexFromName));
            qtp.start(); // starts minThreads threads (R101)
        }

        @Override
        public void execute(Task t) {
            qtp.execute(t);
        }

        @Override
        public void onExecuteRejected() {
            rejected.incrementAndGet();
        }

        @Override
        public void apply(String key, long v) {
            switch (key) {
                case "core":
                    qtp.setMinThreads((int) v);
                    break;
                case "max":
                    qtp.setMaxThreads((int) v);
                    break;
                case "keepAliveMs":
                    qtp.setIdleTimeout((int) v);
                    break;
                default:
                    throw new IllegalStateException("unknown key " + key + " for jetty");
            }
        }

        @Override
        public void shutdown() {
            throw new UnsupportedOperationException("jetty has no shutdown");
        }

        @Override
        public List<Runnable> shutdownNow() {
            List<Runnable> drained = new ArrayList<>();
            qtp.jobs().drainTo(drained);
            for (Recorder.WorkerRec w : rec.workers) {
                w.thread.interrupt();
            }
            return drained;
        }

        @Override
        public int poolSize() {
            return qtp.getThreads();
        }

        @Override
        public int queueLen() {
            return qtp.getQueueSize();
        }

        @Override
        public long completed() {
            return rec.completed.get();
        }

        @Override
        public long rejected() {
            return rejected.get();
        }

        @Override
        public int largest() {
            return rec.largest();
        }

        @Override
        public int active() {
            return qtp.getBusyThreads();
        }

        @Override
        public void close() throws Exception {
            qtp.setStopTimeout(500);
            qtp.stop();
        }
    }
}
