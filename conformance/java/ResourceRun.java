package poolsim.conformance;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Runs a resource script (resource kind=hikari or kind=semaphore): one thread per named borrower
 * makes that thread's borrows in file order — getConnection() or acquire()/tryAcquire(t), hold,
 * then close() or release() — a controller makes the set directives (HikariConfigMXBean), a
 * sampler reads the resource's counts, and everything is printed after the end. It shares the
 * Harness's clock (t0), canary and scheduling helpers.
 *
 * <p>For HikariCP, t=0 is the end of new HikariDataSource(config), when it scheduled its
 * house-keeper 100 ms later (R155); the constructor has opened the first connection before
 * (R157, closed again when minimumIdle is 0). A borrower runs one statement at the end of its hold, as an
 * application's last query, so that the connection's last access (ProxyConnection.lastAccess:
 * set at the borrow and by statements, commit and rollback, not by close) is its release time.
 */
final class ResourceRun {
    private static final long MS = 1_000_000L;

    private final Harness h;
    private final Script s;

    ResourceRun(Harness h, Script s) {
        this.h = h;
        this.s = s;
    }

    /** What the borrowers borrow from. */
    interface Res {
        /** Borrows one unit for b: its lease, or null when the wait timed out. */
        Lease acquire(Script.Borrow b) throws InterruptedException;

        /** total, active, idle, waiting. */
        int[] stats();

        /** One key of a set directive. */
        void apply(String key, long value);

        /** The configuration the class runs with, as key, value pairs. */
        Map<String, Long> config();

        void close();
    }

    /** A unit held by a borrower. */
    interface Lease {
        /** The connection's number in creation order; 0 for a permit. */
        int unit();

        void release();
    }

    /**
     * The house-keeping executor HikariPool builds for itself when given none
     * (initializeHouseKeepingExecutorService: one thread, DiscardPolicy, delayed tasks dropped at
     * shutdown, removeOnCancel), given to it through HikariConfig.setScheduledExecutor so that
     * the harness sees when the house-keeper is scheduled: the end of the pool's constructor,
     * which the run takes as t=0 (the first run is 100 ms later, R155).
     */
    static final class HouseKeeping extends ScheduledThreadPoolExecutor {
        volatile long housekeeperScheduledNanos;

        HouseKeeping(String name) {
            super(1, r -> {
                Thread t = new Thread(r, name + " housekeeper");
                t.setDaemon(true);
                return t;
            }, new ThreadPoolExecutor.DiscardPolicy());
            setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
            setRemoveOnCancelPolicy(true);
        }

        @Override
        public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
            housekeeperScheduledNanos = System.nanoTime(); // only the HouseKeeper is scheduled so
            return super.scheduleWithFixedDelay(command, initialDelay, delay, unit);
        }
    }

    /** HikariCP 2.7.9's HikariDataSource over a TestDataSource. */
    static final class Hikari implements Res {
        final TestDataSource db;
        final HikariDataSource ds;
        final HouseKeeping houseKeeping;
        private final HikariPoolMXBean mx;

        Hikari(Script s, String name, long connectMs) {
            // Read by each HikariPool when it is built (HOUSEKEEPING_PERIOD_MS).
            System.setProperty("com.zaxxer.hikari.housekeeping.periodMs", Long.toString(s.housekeepingMs));
            db = new TestDataSource(connectMs);
            HikariConfig c = new HikariConfig();
            c.setPoolName(name);
            c.setDataSource(db);
            if (s.maximumPoolSize != -1) {
                c.setMaximumPoolSize(s.maximumPoolSize);
            }
            if (s.minimumIdle != -1) {
                c.setMinimumIdle(s.minimumIdle);
            }
            c.setConnectionTimeout(s.connectionTimeoutMs);
            c.setIdleTimeout(s.idleTimeoutMs);
            c.setMaxLifetime(s.maxLifetimeMs);
            houseKeeping = new HouseKeeping(name);
            c.setScheduledExecutor(houseKeeping);
            ds = new HikariDataSource(c);
            mx = ds.getHikariPoolMXBean();
        }

        @Override
        public Lease acquire(Script.Borrow b) throws InterruptedException {
            Connection c;
            try {
                c = ds.getConnection();
            } catch (SQLTransientConnectionException x) {
                return null; // connectionTimeout passed (R151)
            } catch (SQLException x) {
                if (x.getCause() instanceof InterruptedException) {
                    throw new InterruptedException(x.getMessage());
                }
                throw new IllegalStateException("getConnection threw " + x, x);
            }
            int n;
            try {
                n = c.unwrap(TestDataSource.Numbered.class).number();
            } catch (SQLException x) {
                throw new IllegalStateException("unwrap threw " + x, x);
            }
            return new Lease() {
                @Override
                public int unit() {
                    return n;
                }

                @Override
                public void release() {
                    try {
                        try (Statement st = c.createStatement()) {
                            st.execute("SELECT 1");
                        }
                        c.close();
                    } catch (SQLException x) {
                        throw new IllegalStateException("closing connection " + n + " threw " + x, x);
                    }
                }
            };
        }

        @Override
        public int[] stats() {
            return new int[] {mx.getTotalConnections(), mx.getActiveConnections(), mx.getIdleConnections(),
                mx.getThreadsAwaitingConnection()};
        }

        @Override
        public void apply(String key, long value) {
            switch (key) {
                case "idleTimeoutMs":
                    ds.getHikariConfigMXBean().setIdleTimeout(value);
                    break;
                case "maxLifetimeMs":
                    ds.getHikariConfigMXBean().setMaxLifetime(value);
                    break;
                default:
                    throw new IllegalStateException("unknown key " + key);
            }
        }

        @Override
        public Map<String, Long> config() {
            Map<String, Long> m = new LinkedHashMap<>();
            m.put("maximumPoolSize", (long) ds.getMaximumPoolSize());
            m.put("minimumIdle", (long) ds.getMinimumIdle());
            m.put("connectionTimeoutMs", ds.getConnectionTimeout());
            m.put("idleTimeoutMs", ds.getIdleTimeout());
            m.put("maxLifetimeMs", ds.getMaxLifetime());
            m.put("housekeepingMs", Long.getLong("com.zaxxer.hikari.housekeeping.periodMs", 30_000L));
            return m;
        }

        @Override
        public void close() {
            ds.close();
            houseKeeping.shutdownNow(); // the pool leaves an executor it was given running
        }
    }

    /** java.util.concurrent.Semaphore(permits, fair). */
    static final class Sem implements Res {
        private final Semaphore sem;
        private final int permits;
        private final boolean fair;

        Sem(int permits, boolean fair) {
            this.sem = new Semaphore(permits, fair);
            this.permits = permits;
            this.fair = fair;
        }

        @Override
        public Lease acquire(Script.Borrow b) throws InterruptedException {
            if (b.timeoutMs < 0) {
                sem.acquire();
            } else if (!sem.tryAcquire(b.timeoutMs, TimeUnit.MILLISECONDS)) {
                return null;
            }
            return new Lease() {
                @Override
                public int unit() {
                    return 0;
                }

                @Override
                public void release() {
                    sem.release();
                }
            };
        }

        @Override
        public int[] stats() {
            int free = sem.availablePermits();
            return new int[] {permits, permits - free, free, sem.getQueueLength()};
        }

        @Override
        public void apply(String key, long value) {
            throw new IllegalStateException("a Semaphore has no setters");
        }

        @Override
        public Map<String, Long> config() {
            Map<String, Long> m = new LinkedHashMap<>();
            m.put("permits", (long) permits);
            m.put("fair", fair ? 1L : 0L);
            return m;
        }

        @Override
        public void close() {}
    }

    private Res create(String name, long connectMs) {
        return s.kind == Script.Kind.HIKARI ? new Hikari(s, name, connectMs) : new Sem(s.permits, s.fair);
    }

    /** What happened to one borrow directive. */
    private static final class Rec {
        final Script.Borrow b;
        volatile long startNanos; // getConnection or acquire called; 0 if never
        volatile long gotNanos;
        volatile long failedNanos;
        volatile long releasedNanos; // close or release called
        volatile int unit = -1;
        volatile boolean interrupted;
        volatile long lateNanos;
        volatile long overrunNanos;

        Rec(Script.Borrow b) {
            this.b = b;
        }
    }

    /** One sample as printed. */
    private static final class SampleRec {
        long tMs;
        long lateNanos;
        long costNanos;
        int[] stats;
    }

    int run() throws Exception {
        long w0 = System.nanoTime();
        warmUp();
        long warmupNanos = System.nanoTime() - w0;

        Map<String, List<Rec>> byThread = new LinkedHashMap<>();
        List<Rec> recs = new ArrayList<>();
        for (Script.Event e : s.events) {
            if (e instanceof Script.Borrow) {
                Rec r = new Rec((Script.Borrow) e);
                recs.add(r);
                byThread.computeIfAbsent(r.b.thread, k -> new ArrayList<>()).add(r);
            }
        }
        long[] eventActual = new long[s.events.size()];
        long[] eventLate = new long[s.events.size()];
        String[] eventDetail = new String[s.events.size()];
        List<SampleRec> samples = new ArrayList<>(s.samples.size());
        System.gc();
        long[] gc0 = Harness.gcStats();

        CountDownLatch go = new CountDownLatch(1);
        Res[] ref = new Res[1];
        List<Thread> borrowers = new ArrayList<>();
        for (Map.Entry<String, List<Rec>> en : byThread.entrySet()) {
            borrowers.add(new Thread(() -> {
                if (await(go)) {
                    borrowLoop(ref[0], en.getValue());
                }
            }, "borrower-" + en.getKey()));
        }
        Thread controller = new Thread(() -> {
            if (await(go)) {
                controlLoop(ref[0], eventActual, eventLate, eventDetail);
            }
        }, "harness-controller");
        Thread sampler = new Thread(() -> {
            if (await(go)) {
                for (long tMs : s.samples) {
                    long due = h.t0 + tMs * MS;
                    h.sleepUntil(due);
                    samples.add(sample(ref[0], tMs, due));
                }
            }
        }, "harness-sampler");
        List<Thread> drivers = new ArrayList<>(borrowers);
        drivers.add(controller);
        drivers.add(sampler);
        h.startDrivers(drivers);

        Res res;
        long built0 = System.nanoTime();
        try {
            res = create("poolsim", s.connectMs);
        } catch (IllegalArgumentException x) {
            System.err.println(new Script.Error(s.file, s.poolLine, 0, "resource", "the constructor refused it: " + x, null).format());
            return 2;
        }
        // t=0: the pool is ready. HikariCP's constructor ends by scheduling its house-keeper,
        // which the model starts at t=0 too; anything after that (logging, seal) is the harness's.
        long ready = System.nanoTime();
        h.t0 = res instanceof Hikari ? ((Hikari) res).houseKeeping.housekeeperScheduledNanos : ready;
        long buildNanos = ready - built0;
        ref[0] = res;
        Map<String, Long> config = res.config();
        go.countDown();

        long endDue = h.t0 + s.endMs * MS;
        h.sleepUntil(endDue);
        sampler.join();
        controller.join(1000);
        h.ended = true;
        long endNanos = System.nanoTime();
        long endLate = endNanos - endDue;
        for (Thread th : borrowers) {
            th.interrupt();
        }
        for (Thread th : borrowers) {
            th.join(2000);
        }
        long[] gc1 = Harness.gcStats();

        PrintWriter out = new PrintWriter(new java.io.BufferedWriter(
                new java.io.OutputStreamWriter(System.out, StandardCharsets.UTF_8)), false);
        out.println("# poolsim conformance harness, resource kind=" + s.kind.name().toLowerCase(Locale.ROOT) + ", java "
                + System.getProperty("java.version"));
        out.println("# config,key,value");
        for (Map.Entry<String, Long> en : config.entrySet()) {
            out.println("config," + en.getKey() + "," + en.getValue());
        }
        out.println("# rsample,t_ms,total,active,idle,waiting,late_ms");
        long maxSampleLate = 0;
        long maxSampleCost = 0;
        long sumLate = 0;
        int nLate = 0;
        for (SampleRec r : samples) {
            out.println("rsample," + r.tMs + "," + r.stats[0] + "," + r.stats[1] + "," + r.stats[2] + "," + r.stats[3] + ","
                    + Harness.ms(r.lateNanos));
            maxSampleLate = Math.max(maxSampleLate, r.lateNanos);
            maxSampleCost = Math.max(maxSampleCost, r.costNanos);
            sumLate += r.lateNanos;
            nLate++;
        }
        out.println("# borrow,id,thread,start_ms,got_ms,unit,failed_ms,released_ms,note");
        long maxBorrowLate = 0;
        long maxOverrun = 0;
        for (Rec r : recs) {
            // Only what happened by the end counts; the harness interrupted the rest.
            long start = upTo(r.startNanos, endNanos);
            long got = upTo(r.gotNanos, endNanos);
            long failed = upTo(r.failedNanos, endNanos);
            long released = upTo(r.releasedNanos, endNanos);
            if (start != 0) {
                maxBorrowLate = Math.max(maxBorrowLate, r.lateNanos);
                sumLate += r.lateNanos;
                nLate++;
            }
            if (released != 0) {
                maxOverrun = Math.max(maxOverrun, r.overrunNanos);
            }
            String note = start != 0 && failed == 0 && released == 0 ? "unfinished" : "";
            out.println("borrow," + r.b.id + "," + r.b.thread + "," + h.time(start) + "," + h.time(got) + ","
                    + (got != 0 ? r.unit : -1) + "," + h.time(failed) + "," + h.time(released) + "," + note);
        }
        if (res instanceof Hikari) {
            out.println("# conn,unit,connect_ms,opened_ms,closed_ms");
            for (TestDataSource.Conn c : ((Hikari) res).db.conns) {
                long connect = upTo(c.connectNanos, endNanos);
                if (connect == 0) {
                    continue;
                }
                out.println("conn," + c.number + "," + h.time(connect) + "," + h.time(upTo(c.openedNanos, endNanos)) + ","
                        + h.time(upTo(c.closedNanos, endNanos)));
            }
        }
        out.println("# event,at_ms,actual_ms,kind,detail");
        long maxEventLate = 0;
        for (Script.Event e : s.events) {
            if (!(e instanceof Script.SetEvent)) {
                continue;
            }
            if (eventActual[e.index] != 0) {
                maxEventLate = Math.max(maxEventLate, eventLate[e.index]);
                sumLate += eventLate[e.index];
                nLate++;
            }
            out.println("event," + e.atMs + "," + h.time(eventActual[e.index]) + ",set,"
                    + (eventDetail[e.index] == null ? "" : eventDetail[e.index]));
        }
        out.println("event," + s.endMs + "," + h.time(endNanos) + ",end,");
        long maxLate = Math.max(Math.max(maxSampleLate, maxBorrowLate), Math.max(maxEventLate, endLate));
        out.println("# timing,key,value");
        out.println("timing,max_lateness_ms," + Harness.ms(maxLate));
        out.println("timing,mean_lateness_ms," + (nLate == 0 ? "0.0" : Harness.ms(sumLate / nLate)));
        out.println("timing,max_borrow_lateness_ms," + Harness.ms(maxBorrowLate));
        out.println("timing,max_event_lateness_ms," + Harness.ms(maxEventLate));
        out.println("timing,max_sample_lateness_ms," + Harness.ms(maxSampleLate));
        out.println("timing,end_lateness_ms," + Harness.ms(endLate));
        out.println("timing,max_sample_cost_ms," + Harness.ms(maxSampleCost));
        out.println("timing,max_service_overrun_ms," + Harness.ms(maxOverrun));
        out.println("timing,max_hiccup_ms," + Harness.ms(h.maxHiccup));
        out.println("timing,hiccups_over_10ms," + h.hiccupsOver10ms);
        out.println("timing,build_ms," + Harness.ms(buildNanos));
        out.println("timing,ready_ms," + Harness.ms(ready - h.t0));
        out.println("timing,gc_count," + (gc1[0] - gc0[0]));
        out.println("timing,gc_ms," + (gc1[1] - gc0[1]));
        out.println("timing,warmup_ms," + Harness.ms(warmupNanos));
        out.println("timing,java_version," + System.getProperty("java.version"));
        out.println("timing,vm," + System.getProperty("java.vm.name").replace(',', ';'));
        synchronized (h.warnings) {
            for (String w : h.warnings) {
                out.println("warning," + w.replace(',', ';').replace('\n', ' '));
            }
        }
        out.flush();
        return 0;
    }

    /** t if it happened by end, else 0 (did not happen). */
    private static long upTo(long t, long end) {
        return t != 0 && t - end <= 0 ? t : 0;
    }

    private static boolean await(CountDownLatch go) {
        try {
            go.await();
            return true;
        } catch (InterruptedException x) {
            return false;
        }
    }

    /**
     * One borrower thread: its borrows in file order, each when its time comes and the previous
     * one is over. A borrow marks itself done when it starts, so that later borrows at the same
     * time (on other threads) start after it, in file order.
     */
    private void borrowLoop(Res res, List<Rec> mine) {
        long free = h.t0;
        for (Rec r : mine) {
            h.awaitSameAt(r.b);
            long due = h.t0 + r.b.atMs * MS;
            h.sleepUntil(due);
            if (h.ended) {
                return;
            }
            long now = System.nanoTime();
            r.startNanos = now;
            r.lateNanos = now - Math.max(due, free);
            r.b.done = true;
            Lease l;
            try {
                l = res.acquire(r.b);
            } catch (InterruptedException x) {
                r.interrupted = true;
                return;
            } catch (RuntimeException x) {
                warn("borrow " + r.b.id + " threw " + x);
                return;
            }
            long got = System.nanoTime();
            if (l == null) {
                r.failedNanos = got;
                free = got;
                continue;
            }
            r.gotNanos = got;
            r.unit = l.unit();
            if (r.b.holdMs > 0) {
                try {
                    Thread.sleep(r.b.holdMs);
                } catch (InterruptedException x) {
                    r.interrupted = true;
                    return;
                }
            }
            long rel = System.nanoTime();
            r.overrunNanos = rel - got - r.b.holdMs * MS;
            r.releasedNanos = rel;
            try {
                l.release();
            } catch (RuntimeException x) {
                warn("release of borrow " + r.b.id + " threw " + x);
                return;
            }
            free = System.nanoTime();
        }
    }

    private void warn(String w) {
        synchronized (h.warnings) {
            h.warnings.add(w);
        }
    }

    private void controlLoop(Res res, long[] actual, long[] late, String[] detail) {
        for (Script.Event e : s.events) {
            if (!(e instanceof Script.SetEvent)) {
                continue;
            }
            h.awaitSameAt(e);
            long due = h.t0 + e.atMs * MS;
            h.sleepUntil(due);
            if (h.ended) {
                return;
            }
            long now = System.nanoTime();
            actual[e.index] = now;
            late[e.index] = now - due;
            StringBuilder d = new StringBuilder();
            for (Script.Change ch : ((Script.SetEvent) e).changes) {
                res.apply(ch.key, ch.value);
                d.append(d.length() > 0 ? " " : "").append(ch.key).append('=').append(ch.value);
            }
            detail[e.index] = d.toString();
            e.done = true;
        }
    }

    private static SampleRec sample(Res res, long tMs, long due) {
        long start = System.nanoTime();
        SampleRec r = new SampleRec();
        r.tMs = tMs;
        r.lateNanos = start - due;
        r.stats = res.stats();
        r.costNanos = System.nanoTime() - start;
        return r;
    }

    /**
     * Loads and exercises what the run will use, on small resources of the same kind: a borrow
     * served at once, one served by a hand-off to a waiter, a timed-out one (Semaphore), the
     * closing statement, the counts, and HikariCP's connection adder.
     */
    private void warmUp() throws Exception {
        for (int round = 0; round < 3; round++) {
            Script w = new Script(s.file);
            w.kind = s.kind;
            w.maximumPoolSize = 1;
            w.minimumIdle = 0;
            w.connectionTimeoutMs = 250;
            w.idleTimeoutMs = s.idleTimeoutMs;
            w.maxLifetimeMs = 0;
            w.housekeepingMs = s.housekeepingMs;
            w.permits = 1;
            w.fair = s.fair;
            Res r = w.kind == Script.Kind.HIKARI ? new Hikari(w, "warmup-" + round, 1) : new Sem(1, s.fair);
            Script.Borrow untimed = new Script.Borrow();
            Script.Borrow timed = new Script.Borrow();
            timed.timeoutMs = 2;
            Lease first = r.acquire(untimed);
            if (w.kind == Script.Kind.SEMAPHORE && r.acquire(timed) != null) {
                throw new IllegalStateException("warm-up: a second permit of one");
            }
            Lease[] second = new Lease[1];
            Thread waiter = new Thread(() -> {
                try {
                    second[0] = r.acquire(untimed);
                } catch (InterruptedException x) {
                    // the warm-up is over
                }
            }, "warmup-waiter");
            waiter.start();
            Thread.sleep(3);
            r.stats();
            first.release();
            waiter.join(1000);
            if (second[0] != null) {
                second[0].release();
            }
            r.stats();
            r.config();
            r.close();
        }
    }
}
