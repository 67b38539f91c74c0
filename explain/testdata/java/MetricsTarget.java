import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.apache.tomcat.util.threads.TaskQueue;
import org.apache.tomcat.util.threads.TaskThreadFactory;
import org.apache.tomcat.util.threads.ThreadPoolExecutor;

/**
 * Runs Tomcat's real pool at a known load and exports its metrics, for
 * explain's diagnose --metrics test: Poisson arrivals (a seeded
 * java.util.Random) in phases of known rate, tasks that sleep, and a small
 * exporter that reads the pool every scrape interval and writes the three
 * formats poolsim reads:
 *
 *   OUT.prom  the Prometheus text format, one scrape per interval opened by
 *             "# scrape <unix seconds>", without timestamps as Micrometer
 *             writes them (spec R177);
 *   OUT.json  a /api/v1/query_range response, one series per metric, the
 *             evaluation points at the scrape times (R176);
 *   OUT.csv   time,series,value.
 *
 * Names as Micrometer exports them (R170-R174): executor_* for name
 * "tomcat-exec", read through the same getters ExecutorServiceMetrics uses
 * (Micrometer binds them to java.util.concurrent pools only; Tomcat's copy
 * of ThreadPoolExecutor has the same getters); tomcat_threads_* for
 * "http-nio-8080" as TomcatMetrics reads the endpoint (current = getPoolSize,
 * busy = getActiveCount, config max = maxThreads: no queue, no counter, R173);
 * and jvm_threads_states_threads from the ThreadMXBean (R174).
 *
 * On exit it prints "DONE submitted=N phases=n1,n2,..." (tasks submitted per
 * phase).
 *
 * Args: core max keepAliveMs scrapeMs seed out phase... where each phase is
 *       durationMs:ratePerSecond:serviceMs
 */
public class MetricsTarget {
    static final List<String> samples = new ArrayList<>(); // "t series value"

    public static void main(String[] args) throws Exception {
        int core = Integer.parseInt(args[0]);
        int max = Integer.parseInt(args[1]);
        long keepAliveMs = Long.parseLong(args[2]);
        long scrapeMs = Long.parseLong(args[3]);
        long seed = Long.parseLong(args[4]);
        String out = args[5];

        TaskQueue queue = new TaskQueue();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(core, max, keepAliveMs, TimeUnit.MILLISECONDS, queue,
                new TaskThreadFactory("metrics-exec-", true, Thread.NORM_PRIORITY));
        queue.setParent(pool);
        pool.prestartAllCoreThreads();

        StringBuilder prom = new StringBuilder();
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        ScheduledExecutorService scraper = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "metrics-scraper");
            t.setDaemon(true);
            return t;
        });
        long start = System.currentTimeMillis();
        scraper.scheduleAtFixedRate(() -> scrape(pool, mx, prom), 0, scrapeMs, TimeUnit.MILLISECONDS);

        Random rnd = new Random(seed);
        long next = System.nanoTime();
        StringBuilder counts = new StringBuilder();
        int submitted = 0;
        for (int i = 6; i < args.length; i++) {
            String[] ph = args[i].split(":");
            long end = next + Long.parseLong(ph[0]) * 1_000_000L;
            double rate = Double.parseDouble(ph[1]);
            long serviceMs = Long.parseLong(ph[2]);
            int n = 0;
            while (true) {
                next += (long) (-Math.log(1 - rnd.nextDouble()) / rate * 1e9);
                if (next >= end) {
                    next = end;
                    break;
                }
                long wait;
                while ((wait = next - System.nanoTime()) > 0) {
                    LockSupport.parkNanos(wait);
                }
                pool.execute(() -> sleep(serviceMs));
                n++;
            }
            submitted += n;
            counts.append(counts.length() > 0 ? "," : "").append(n);
        }
        while (System.nanoTime() < next) {
            LockSupport.parkNanos(next - System.nanoTime());
        }
        // The last scrape is the scheduler's last one before the end.
        scraper.shutdown();
        scraper.awaitTermination(10, TimeUnit.SECONDS);
        synchronized (MetricsTarget.class) {
            write(out, prom);
        }
        System.out.println("DONE submitted=" + submitted + " phases=" + counts + " largest=" + pool.getLargestPoolSize()
                + " start=" + start);
        System.out.flush();
    }

    static synchronized void scrape(ThreadPoolExecutor pool, ThreadMXBean mx, StringBuilder prom) {
        long now = System.currentTimeMillis();
        String t = String.format(Locale.ROOT, "%d.%03d", now / 1000, now % 1000);
        prom.append("# scrape ").append(t).append('\n');
        String ex = "{name=\"tomcat-exec\"}";
        String tc = "{name=\"http-nio-8080\"}";
        int timed = 0;
        for (ThreadInfo ti : mx.getThreadInfo(mx.getAllThreadIds())) {
            if (ti != null && ti.getThreadState() == Thread.State.TIMED_WAITING) {
                timed++;
            }
        }
        Object[][] rows = {
            {"executor_pool_size_threads", "gauge", ex, (double) pool.getPoolSize()},
            {"executor_active_threads", "gauge", ex, (double) pool.getActiveCount()},
            {"executor_queued_tasks", "gauge", ex, (double) pool.getQueue().size()},
            {"executor_completed_tasks_total", "counter", ex, (double) pool.getCompletedTaskCount()},
            {"executor_pool_core_threads", "gauge", ex, (double) pool.getCorePoolSize()},
            {"executor_pool_max_threads", "gauge", ex, (double) pool.getMaximumPoolSize()},
            {"tomcat_threads_current_threads", "gauge", tc, (double) pool.getPoolSize()},
            {"tomcat_threads_busy_threads", "gauge", tc, (double) pool.getActiveCount()},
            {"tomcat_threads_config_max_threads", "gauge", tc, (double) pool.getMaximumPoolSize()},
            {"jvm_threads_states_threads", "gauge", "{state=\"timed-waiting\"}", (double) timed},
        };
        for (Object[] r : rows) {
            String v = String.format(Locale.ROOT, "%.1f", (Double) r[3]);
            prom.append("# TYPE ").append(r[0]).append(' ').append(r[1]).append('\n');
            prom.append(r[0]).append(r[2]).append(' ').append(v).append('\n');
            samples.add(t + " " + r[0] + r[2] + " " + v);
        }
    }

    static void write(String out, StringBuilder prom) throws IOException {
        Files.writeString(Paths.get(out + ".prom"), prom);
        try (PrintWriter csv = new PrintWriter(out + ".csv")) {
            csv.println("time,series,value");
            for (String s : samples) {
                String[] p = s.split(" ");
                csv.println(p[0] + ",\"" + p[1].replace("\"", "\"\"") + "\"," + p[2]);
            }
        }
        // query_range: one matrix entry per series, values in time order.
        List<String> names = new ArrayList<>();
        List<StringBuilder> values = new ArrayList<>();
        for (String s : samples) {
            String[] p = s.split(" ");
            int i = names.indexOf(p[1]);
            if (i < 0) {
                names.add(p[1]);
                values.add(new StringBuilder());
                i = names.size() - 1;
            }
            StringBuilder b = values.get(i);
            b.append(b.length() > 0 ? "," : "").append('[').append(p[0]).append(",\"").append(p[2]).append("\"]");
        }
        StringBuilder js = new StringBuilder("{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[");
        for (int i = 0; i < names.size(); i++) {
            String n = names.get(i);
            int brace = n.indexOf('{');
            String labels = n.substring(brace + 1, n.length() - 1).replaceAll("(\\w+)=\"", "\"$1\":\"");
            js.append(i > 0 ? "," : "").append("{\"metric\":{\"__name__\":\"").append(n, 0, brace).append("\",")
              .append(labels).append("},\"values\":[").append(values.get(i)).append("]}");
        }
        js.append("]}}\n");
        Files.writeString(Paths.get(out + ".json"), js);
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
