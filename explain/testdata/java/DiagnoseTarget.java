import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.tomcat.util.threads.TaskQueue;
import org.apache.tomcat.util.threads.TaskThreadFactory;
import org.apache.tomcat.util.threads.ThreadPoolExecutor;

/**
 * Runs Tomcat's real pool at a known load, for explain's diagnose test:
 * a burst grows the pool, then requests arrive at a fixed rate, periodic
 * or (with the last argument "poisson") at exponential gaps from a fixed
 * seed.
 * After the settle time it prints READY (the test then takes a thread dump)
 * and keeps the traffic going until killed.
 *
 * Args: core max keepAliveMs burst burstServiceMs ratePerSecond serviceMs settleMs [threadNamePrefix [poisson]]
 */
public class DiagnoseTarget {
    public static void main(String[] args) throws Exception {
        int core = Integer.parseInt(args[0]);
        int max = Integer.parseInt(args[1]);
        long keepAliveMs = Long.parseLong(args[2]);
        int burst = Integer.parseInt(args[3]);
        long burstServiceMs = Long.parseLong(args[4]);
        double rate = Double.parseDouble(args[5]);
        long serviceMs = Long.parseLong(args[6]);
        long settleMs = Long.parseLong(args[7]);
        String prefix = args.length > 8 ? args[8] : "diag-exec-";
        boolean poisson = args.length > 9 && args[9].equals("poisson");

        TaskQueue queue = new TaskQueue();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(core, max, keepAliveMs, TimeUnit.MILLISECONDS, queue,
                new TaskThreadFactory(prefix, true, Thread.NORM_PRIORITY));
        queue.setParent(pool);

        for (int i = 0; i < burst; i++) {
            pool.execute(() -> sleep(burstServiceMs));
        }
        Thread.sleep(burstServiceMs + 50);

        // Fixed-rate submissions from a dedicated thread: periodic traffic.
        ScheduledExecutorService clock = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "diag-clock");
            t.setDaemon(true);
            return t;
        });
        long periodNanos = (long) (1e9 / rate);
        if (poisson) {
            Thread submitter = new Thread(() -> {
                java.util.Random random = new java.util.Random(60);
                long next = System.nanoTime();
                for (;;) {
                    next += (long) (-Math.log(1 - random.nextDouble()) / rate * 1e9);
                    for (long left = next - System.nanoTime(); left > 0; left = next - System.nanoTime()) {
                        java.util.concurrent.locks.LockSupport.parkNanos(left);
                    }
                    pool.execute(() -> sleep(serviceMs));
                }
            }, "diag-clock");
            submitter.setDaemon(true);
            submitter.start();
        } else {
            clock.scheduleAtFixedRate(() -> pool.execute(() -> sleep(serviceMs)), 0, periodNanos, TimeUnit.NANOSECONDS);
        }

        Thread.sleep(settleMs);
        System.out.println("READY pool=" + pool.getPoolSize() + " largest=" + pool.getLargestPoolSize());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
