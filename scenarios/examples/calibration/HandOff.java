// HandOff measures the timing of a thread pool's hand-off on this machine,
// to calibrate host.wakeup (spec §12, R124):
//
//   java scenarios/examples/calibration/HandOff.java [samples] [rounds] [workers]
//
//   latency   execute() on a fixed pool of `workers` (default 100) threads
//             parked in LinkedBlockingQueue.take(), to the first line of the
//             task: the wake-up latency L of a signalled thread (R111, R112).
//             The submitter sleeps a random 2-6 ms between tasks, so every
//             worker is parked, and the FIFO hand-off (R47) wakes each one
//             after it has slept `workers` tasks long: a thread parked that
//             long wakes more slowly than one parked a moment ago (its
//             caches are cold), as in an idle pool's plateau.
//   overrun   a task that sleeps 1 ms (Thread.sleep, a parkNanos loop) ends
//             this much late: what a blocking task's end costs on top of its
//             time, measured inside the task.
//
// Each round takes `samples` of both; the quantiles of all rounds together
// are printed, then a host.wakeup block ready to paste into a scenario,
// with the load average at the time (a shared machine's latencies swell
// with its load: calibrate on the machine, and under the load, you ask
// about). poolsim's `host: {wakeup: calibrated}` uses the values measured
// on the project's development machine (README, "Hand-off timing").
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

public class HandOff {
    static final double[] QS = {0, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 1};

    static String load() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (Exception e) {
            return "?";
        }
    }

    static double quantile(double[] sorted, double q) {
        double pos = q * (sorted.length - 1);
        int lo = (int) Math.floor(pos);
        int hi = Math.min(lo + 1, sorted.length - 1);
        return sorted[lo] + (pos - lo) * (sorted[hi] - sorted[lo]);
    }

    static String us(double ns) {
        return String.format(Locale.ROOT, "%.1fus", ns / 1000);
    }

    static String points(double[] xs) {
        double[] s = xs.clone();
        Arrays.sort(s);
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < QS.length; i++) {
            if (i > 0) b.append(", ");
            b.append(String.format(Locale.ROOT, "[%s, %s]", QS[i], us(Math.max(quantile(s, QS[i]), 0))));
        }
        return b.append("]").toString();
    }

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        int workers = args.length > 2 ? Integer.parseInt(args[2]) : 100;
        ThreadPoolExecutor pool = new ThreadPoolExecutor(workers, workers, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>());
        pool.prestartAllCoreThreads();
        Random random = new Random(1);
        double[] lat = new double[n * rounds], over = new double[n * rounds];
        for (int w = 0; w < 2 * workers + 200; w++) { // warm-up: JIT, and every worker has run
            CountDownLatch done = new CountDownLatch(1);
            pool.execute(done::countDown);
            done.await();
        }
        String loadBefore = load();
        for (int i = 0; i < n * rounds; i++) {
            Thread.sleep(2 + random.nextInt(5)); // the worker parks in take()
            final int k = i;
            CountDownLatch done = new CountDownLatch(1);
            long submitted = System.nanoTime();
            pool.execute(() -> {
                lat[k] = System.nanoTime() - submitted;
                long s = System.nanoTime();
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                over[k] = System.nanoTime() - s - 1_000_000;
                done.countDown();
            });
            done.await();
        }
        pool.shutdown();
        System.out.printf(Locale.ROOT, "# %d samples, %d parked workers, load average %s before and %s after; java %s%n",
            n * rounds, workers, loadBefore, load(), System.getProperty("java.version"));
        System.out.println("# quantiles: " + Arrays.toString(QS));
        System.out.println("host:");
        System.out.println("  wakeup:");
        System.out.println("    latency: {dist: quantiles, points: " + points(lat) + "}");
        System.out.println("    overrun: {dist: quantiles, points: " + points(over) + "}");
    }
}
