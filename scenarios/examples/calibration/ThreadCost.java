// ThreadCost measures what a platform thread costs on this machine, to
// calibrate host.threadStart (scenarios/examples/thread-per-task.yaml) and
// the per-task time of a pooled tiny task (pool-of-tasks.yaml).
//
//   java scenarios/examples/calibration/ThreadCost.java [threads per round] [rounds]
//
// Each round runs, one after another:
//   start+join   the seed's loop: new Thread(task).start(); join(); N times
//   start only   N threads started back to back (what a thread-per-task
//                executor's caller pays), joined afterwards, untimed
//   pool         5N tasks through Executors.newSingleThreadExecutor()
// and prints, per thread or task, the wall time and the process CPU time
// (user + system, every thread of the JVM) with the load average. On a
// shared machine wall times swell with other tenants' load; CPU time per
// thread is the work itself, and is what host.threadStart should be on a
// host where the submitter has a core to itself. The task is the seed's:
// add a random number to a list (synchronized here, since the threads of
// "start only" overlap).
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

public class ThreadCost {
    static final com.sun.management.OperatingSystemMXBean OS =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    static String load() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (Exception e) {
            return "?";
        }
    }

    static double median(double[] xs) {
        double[] s = xs.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 20000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 9;
        Random random = new Random(1);
        List<Integer> list = new ArrayList<>();
        Runnable task = () -> { synchronized (list) { list.add(random.nextInt()); } };
        for (int i = 0; i < n; i++) { // warm-up: JIT, thread-local caches
            Thread t = new Thread(task);
            t.start();
            t.join();
        }
        double[] sjWall = new double[rounds], sjCPU = new double[rounds], soWall = new double[rounds],
            soCPU = new double[rounds], plWall = new double[rounds], plCPU = new double[rounds];
        System.out.printf("java %s, %d CPUs, %d threads per round%n", System.getProperty("java.version"),
            Runtime.getRuntime().availableProcessors(), n);
        for (int r = 0; r < rounds; r++) {
            String l0 = load();
            long c0 = OS.getProcessCpuTime(), t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                Thread t = new Thread(task);
                t.start();
                t.join();
            }
            long c1 = OS.getProcessCpuTime(), t1 = System.nanoTime();
            Thread[] ts = new Thread[n];
            for (int i = 0; i < n; i++) {
                ts[i] = new Thread(task);
                ts[i].start();
            }
            long c2 = OS.getProcessCpuTime(), t2 = System.nanoTime();
            for (Thread t : ts) t.join();
            ExecutorService pool = Executors.newSingleThreadExecutor();
            long c3 = OS.getProcessCpuTime(), t3 = System.nanoTime();
            for (int i = 0; i < 5 * n; i++) pool.execute(task);
            pool.shutdown();
            pool.awaitTermination(1, TimeUnit.DAYS);
            long c4 = OS.getProcessCpuTime(), t4 = System.nanoTime();
            sjWall[r] = (t1 - t0) / 1e3 / n; sjCPU[r] = (c1 - c0) / 1e3 / n;
            soWall[r] = (t2 - t1) / 1e3 / n; soCPU[r] = (c2 - c1) / 1e3 / n;
            plWall[r] = (t4 - t3) / 1e3 / (5.0 * n); plCPU[r] = (c4 - c3) / 1e3 / (5.0 * n);
            System.out.printf("round %d (load %s): start+join %.1f us wall, %.1f us CPU; start only %.1f us wall, %.1f us CPU; pool %.3f us wall, %.3f us CPU per task%n",
                r, l0, sjWall[r], sjCPU[r], soWall[r], soCPU[r], plWall[r], plCPU[r]);
        }
        System.out.printf("median of %d rounds: start+join %.1f us wall, %.1f us CPU; start only %.1f us wall, %.1f us CPU; pool %.3f us wall, %.3f us CPU per task%n",
            rounds, median(sjWall), median(sjCPU), median(soWall), median(soCPU), median(plWall), median(plCPU));
        System.out.printf("fastest round: start+join %.1f us wall; start only %.1f us wall; pool %.3f us wall per task%n",
            Arrays.stream(sjWall).min().getAsDouble(), Arrays.stream(soWall).min().getAsDouble(), Arrays.stream(plWall).min().getAsDouble());
    }
}
