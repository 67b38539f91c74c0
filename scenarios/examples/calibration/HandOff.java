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
//   race      the window after execute() in which a worker returning from
//             its task takes the new task before the signalled parked one
//             has it (R113): one worker runs a task that ends at a set
//             instant, a task is submitted δ before it (δ from 1 µs to 5 ms,
//             evenly on a log scale), and whether the returning worker ran
//             it is noted. The share it ran, by δ, is P(race > δ): its
//             non-increasing fit (pool-adjacent-violators, the maximum
//             likelihood for such yes/no data) gives the law's quantiles.
//             Less than the latency: part of a wake-up (the submitter's own
//             call, the woken thread's way back into the task) races nobody.
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
    // The race law's quantiles: most of it is near zero, its tail decides.
    static final double[] RACE_QS = {0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.97, 0.98, 0.99, 0.995, 0.999, 1};

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

    /**
     * The race law's points from current-status observations: delta[i] (ns) and whether the
     * returning worker took the task. P(race > δ) is fitted non-increasing by
     * pool-adjacent-violators; the quantile at u is the least δ where it is at most 1 − u.
     */
    static String racePoints(double[] delta, boolean[] took, int n) {
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) order[i] = i;
        Arrays.sort(order, (a, b) -> Double.compare(delta[a], delta[b]));
        double[] bn = new double[n], bk = new double[n], lo = new double[n];
        int m = 0;
        for (int j = 0; j < n; j++) {
            int i = order[j];
            bn[m] = 1;
            bk[m] = took[i] ? 1 : 0;
            lo[m] = delta[i];
            m++;
            while (m > 1 && bk[m - 2] / bn[m - 2] <= bk[m - 1] / bn[m - 1]) {
                bn[m - 2] += bn[m - 1];
                bk[m - 2] += bk[m - 1];
                m--;
            }
        }
        double maxD = n > 0 ? delta[order[n - 1]] : 0;
        StringBuilder b = new StringBuilder("[");
        for (int q = 0; q < RACE_QS.length; q++) {
            double v = maxD;
            for (int k = 0; k < m; k++) {
                if (bk[k] / bn[k] <= 1 - RACE_QS[q] + 1e-9) { // within rounding: 1 - 0.9 is not 0.1
                    v = k == 0 ? 0 : lo[k];
                    break;
                }
            }
            if (q > 0) b.append(", ");
            b.append(String.format(Locale.ROOT, "[%s, %s]", RACE_QS[q], us(v)));
        }
        return b.append("]").toString();
    }

    /** Parks until the nanoTime deadline, spinning its last 50 µs. */
    static void until(long deadline) {
        for (long left; (left = deadline - System.nanoTime()) > 0; ) {
            if (left > 80_000) {
                java.util.concurrent.locks.LockSupport.parkNanos(left - 50_000);
            } else {
                Thread.onSpinWait();
            }
        }
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
        // The race: a worker's task ends at a set instant, a task is submitted δ before it.
        double[] delta = new double[n * rounds];
        boolean[] took = new boolean[n * rounds];
        int races = 0;
        for (int i = 0; i < n * rounds; i++) {
            Thread.sleep(2 + random.nextInt(5)); // every worker parked again
            long d = (long) (1_000 * Math.pow(5_000, random.nextDouble())); // 1 µs to 5 ms
            long end = System.nanoTime() + 1_000_000 + d;
            Thread[] returner = new Thread[1], taker = new Thread[1];
            long[] ended = new long[1];
            CountDownLatch started = new CountDownLatch(1), done = new CountDownLatch(2);
            pool.execute(() -> {
                returner[0] = Thread.currentThread();
                started.countDown();
                for (long left; (left = end - System.nanoTime()) > 0; ) { // sleeps, as a blocking task does
                    java.util.concurrent.locks.LockSupport.parkNanos(left);
                }
                ended[0] = System.nanoTime();
                done.countDown();
            });
            started.await();
            until(end - d);
            long submitted = System.nanoTime();
            pool.execute(() -> {
                taker[0] = Thread.currentThread();
                done.countDown();
            });
            done.await();
            if (ended[0] > submitted) { // the returner was still in its task at the submission
                delta[races] = ended[0] - submitted;
                took[races] = taker[0] == returner[0];
                races++;
            }
        }
        pool.shutdown();
        System.out.printf(Locale.ROOT, "# %d samples, %d parked workers, load average %s before and %s after; java %s%n",
            n * rounds, workers, loadBefore, load(), System.getProperty("java.version"));
        System.out.printf(Locale.ROOT, "# race: %d submissions while a worker's task was ending%n", races);
        System.out.println("# quantiles: " + Arrays.toString(QS));
        System.out.println("host:");
        System.out.println("  wakeup:");
        System.out.println("    latency: {dist: quantiles, points: " + points(lat) + "}");
        System.out.println("    race: {dist: quantiles, points: " + racePoints(delta, took, races) + "}");
        System.out.println("    overrun: {dist: quantiles, points: " + points(over) + "}");
    }
}
