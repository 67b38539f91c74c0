package poolsim.conformance;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.apache.tomcat.util.threads.TaskQueue;

/**
 * Runs a pool at a realistic rate, microsecond by microsecond, for the hand-off timing cases
 * (spec §12): {@code Harness --handoff -}. The input:
 *
 * <pre>
 * handoff kind=jdk|tomcat core=10 max=300 keepAliveMs=1000 queue=linked|synchronous [fair=true] [capacity=N] [allowCoreThreadTimeOut=true]
 * sample everyMs=250
 * end atMs=12000
 * a AT_US SERVICE_US          # one line per task, in time order
 * </pre>
 *
 * One submitter thread makes the submissions at their times (parkNanos until shortly before, then
 * a short spin; its lateness is recorded), each task parks for its service (a parkNanos loop, as
 * Thread.sleep does), and a sampler reads the pool. Rejections are AbortPolicy's
 * RejectedExecutionException (Tomcat's RejectPolicy), each with getPoolSize() − getActiveCount()
 * at that instant. Output, after the run, times in microseconds from t=0:
 *
 * <pre>
 * task,id,worker,submit_us,start_us,end_us        # worker -1: rejected
 * rejected,id,t_us,idle
 * sample,t_ms,pool_size,active,queue_len,largest
 * worker,index,created_us
 * timing,key,value
 * </pre>
 */
final class HandOffRun {
    private final List<String> lines;
    private String kind = "jdk", queue = "linked";
    private int core, max, capacity = Integer.MAX_VALUE;
    private long keepAliveMs = 60_000, sampleMs = 250, endMs;
    private boolean fair, acto;
    private long[] at, service;

    HandOffRun(List<String> lines) {
        this.lines = lines;
    }

    private static IllegalArgumentException bad(int line, String msg) {
        return new IllegalArgumentException("script:" + line + ": " + msg);
    }

    private void parse() {
        List<long[]> tasks = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String l = lines.get(i).trim();
            if (l.isEmpty() || l.startsWith("#")) {
                continue;
            }
            String[] f = l.split("\\s+");
            if (f[0].equals("a")) {
                tasks.add(new long[] {Long.parseLong(f[1]), Long.parseLong(f[2])});
                continue;
            }
            for (int k = 1; k < f.length; k++) {
                String[] kv = f[k].split("=", 2);
                if (kv.length != 2) {
                    throw bad(i + 1, "want key=value, got " + f[k]);
                }
                switch (f[0] + "." + kv[0]) {
                    case "handoff.kind": kind = kv[1]; break;
                    case "handoff.core": core = Integer.parseInt(kv[1]); break;
                    case "handoff.max": max = Integer.parseInt(kv[1]); break;
                    case "handoff.keepAliveMs": keepAliveMs = Long.parseLong(kv[1]); break;
                    case "handoff.queue": queue = kv[1]; break;
                    case "handoff.fair": fair = Boolean.parseBoolean(kv[1]); break;
                    case "handoff.capacity": capacity = Integer.parseInt(kv[1]); break;
                    case "handoff.allowCoreThreadTimeOut": acto = Boolean.parseBoolean(kv[1]); break;
                    case "sample.everyMs": sampleMs = Long.parseLong(kv[1]); break;
                    case "end.atMs": endMs = Long.parseLong(kv[1]); break;
                    default: throw bad(i + 1, "unknown key " + f[0] + " " + kv[0]);
                }
            }
        }
        at = new long[tasks.size()];
        service = new long[tasks.size()];
        for (int i = 0; i < tasks.size(); i++) {
            at[i] = tasks.get(i)[0];
            service[i] = tasks.get(i)[1];
        }
    }

    private final ConcurrentHashMap<Thread, Integer> index = new ConcurrentHashMap<>();
    private final AtomicInteger created = new AtomicInteger();
    private final long[] createdUs = new long[100_000];
    private long t0;

    private ThreadFactory factory(String prefix) {
        return r -> {
            int k = created.getAndIncrement();
            Thread t = new Thread(r, prefix + (k + 1));
            t.setDaemon(true);
            index.put(t, k + 1);
            if (k < createdUs.length) {
                createdUs[k] = (System.nanoTime() - t0) / 1000;
            }
            return t;
        };
    }

    // The pool being run: a JDK ThreadPoolExecutor, or Tomcat's (not a subclass of the JDK's).
    private ThreadPoolExecutor jdk;
    private org.apache.tomcat.util.threads.ThreadPoolExecutor tomcat;

    private void build() {
        jdk = null;
        tomcat = null;
        if (kind.equals("tomcat")) {
            TaskQueue q = capacity == Integer.MAX_VALUE ? new TaskQueue() : new TaskQueue(capacity);
            tomcat = new org.apache.tomcat.util.threads.ThreadPoolExecutor(core, max, keepAliveMs, TimeUnit.MILLISECONDS, q,
                factory("tomcat-exec-"));
            q.setParent(tomcat);
            tomcat.allowCoreThreadTimeOut(acto);
            return;
        }
        BlockingQueue<Runnable> q = queue.equals("synchronous") ? new SynchronousQueue<>(fair) : new LinkedBlockingQueue<>(capacity);
        jdk = new ThreadPoolExecutor(core, max, keepAliveMs, TimeUnit.MILLISECONDS, q, factory("pool-1-thread-"));
        jdk.allowCoreThreadTimeOut(acto);
    }

    private int poolSize() { return jdk != null ? jdk.getPoolSize() : tomcat.getPoolSize(); }
    private int active() { return jdk != null ? jdk.getActiveCount() : tomcat.getActiveCount(); }
    private int queueLen() { return jdk != null ? jdk.getQueue().size() : tomcat.getQueue().size(); }
    private int largest() { return jdk != null ? jdk.getLargestPoolSize() : tomcat.getLargestPoolSize(); }
    private void execute(Runnable r) {
        if (jdk != null) {
            jdk.execute(r);
        } else {
            tomcat.execute(r);
        }
    }
    private void shutdownNow() {
        if (jdk != null) {
            jdk.shutdownNow();
        } else {
            tomcat.shutdownNow();
        }
    }

    /** Parks until t0 + us, spinning the last 50 µs; returns how late it woke, in ns. */
    private long until(long us) {
        long target = t0 + us * 1000;
        for (;;) {
            long left = target - System.nanoTime();
            if (left <= 0) {
                return -left;
            }
            if (left > 80_000) {
                LockSupport.parkNanos(left - 60_000);
            } else {
                Thread.onSpinWait();
            }
        }
    }

    int run() throws Exception {
        parse();
        int n = at.length;
        long[] submitNs = new long[n], startNs = new long[n], endNs = new long[n];
        int[] worker = new int[n];
        int[] rejIdle = new int[n];
        boolean[] rejected = new boolean[n];
        // Warm-up: the same kind of pool, briefly, so the JIT has compiled the paths.
        t0 = System.nanoTime();
        build();
        for (int i = 0; i < 2000; i++) {
            try {
                execute(() -> LockSupport.parkNanos(10_000));
            } catch (RejectedExecutionException e) {
                // fine
            }
            if (i % 50 == 0) {
                LockSupport.parkNanos(1_000_000);
            }
        }
        shutdownNow();
        LockSupport.parkNanos(200_000_000);
        created.set(0);
        index.clear();

        List<long[]> samples = new ArrayList<>();
        t0 = System.nanoTime();
        build();
        Thread sampler = new Thread(() -> {
            for (long t = sampleMs; t <= endMs; t += sampleMs) {
                until(t * 1000);
                samples.add(new long[] {t, poolSize(), active(), queueLen(), largest()});
            }
        }, "sampler");
        sampler.setDaemon(true);
        sampler.start();
        long maxLate = 0, sumLate = 0;
        for (int i = 0; i < n; i++) {
            long late = until(at[i]);
            maxLate = Math.max(maxLate, late);
            sumLate += late;
            final int k = i;
            final long svc = service[i] * 1000;
            submitNs[k] = System.nanoTime() - t0;
            try {
                execute(() -> {
                    long s = System.nanoTime();
                    startNs[k] = s - t0;
                    Integer wi = index.get(Thread.currentThread());
                    worker[k] = wi == null ? 0 : wi;
                    for (long left = svc; left > 0; left = svc - (System.nanoTime() - s)) {
                        LockSupport.parkNanos(left);
                    }
                    endNs[k] = System.nanoTime() - t0;
                });
            } catch (RejectedExecutionException e) {
                rejected[k] = true;
                rejIdle[k] = poolSize() - active();
            }
        }
        until(endMs * 1000);
        sampler.join(2000);
        shutdownNow();
        LockSupport.parkNanos(100_000_000);
        PrintWriter out = new PrintWriter(System.out, false);
        for (int i = 0; i < n; i++) {
            if (rejected[i]) {
                out.printf(Locale.ROOT, "task,%d,-1,%d,-1,-1%n", i + 1, submitNs[i] / 1000);
                out.printf(Locale.ROOT, "rejected,%d,%d,%d%n", i + 1, submitNs[i] / 1000, rejIdle[i]);
            } else if (endNs[i] > 0) {
                out.printf(Locale.ROOT, "task,%d,%d,%d,%d,%d%n", i + 1, worker[i], submitNs[i] / 1000, startNs[i] / 1000, endNs[i] / 1000);
            }
        }
        for (long[] s : samples) {
            out.printf(Locale.ROOT, "sample,%d,%d,%d,%d,%d%n", s[0], s[1], s[2], s[3], s[4]);
        }
        for (int k = 0; k < Math.min(created.get(), createdUs.length); k++) {
            out.printf(Locale.ROOT, "worker,%d,%d%n", k + 1, createdUs[k]);
        }
        out.printf(Locale.ROOT, "timing,submit_late_max_us,%d%n", maxLate / 1000);
        out.printf(Locale.ROOT, "timing,submit_late_mean_us,%d%n", n == 0 ? 0 : sumLate / n / 1000);
        out.flush();
        return 0;
    }
}
