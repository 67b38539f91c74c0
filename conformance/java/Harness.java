package poolsim.conformance;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.LockSupport;

/**
 * Runs one script against a real pool and prints what happened as CSV sections on stdout.
 *
 * <pre>
 * java poolsim.conformance.Harness [--name NAME] [--check | --check-many] FILE|-
 * </pre>
 *
 * With --check it only parses and validates the script. With --check-many the input holds
 * several scripts separated by lines "%%", and for each it prints one line on stdout: "ok", or
 * "error " and the error line; the exit status is then 0.
 *
 * Exit status: 0 done; 2 bad script or usage (one line on stderr, FILE:LINE:COL: KEY: msg
 * (allowed)); 1 a failure of the harness itself.
 *
 * <p>Threads: one submitter runs the submit directives in file order (sleep until at, execute);
 * one controller runs set and shutdown directives; one sampler takes the samples; main ends the
 * run. Directives with the same at run in file order across the submitter and the controller. A
 * caller-runs task blocks only the submitter. Everything is printed after the run, so no output
 * competes with the pool while it runs.
 */
public final class Harness {
    private static final long MS = 1_000_000L;

    private final Script s;
    // Shared with ResourceRun, which runs the resource scripts on the same clock and canary.
    volatile boolean ended;
    long t0;
    final List<String> warnings = new ArrayList<>();

    private Harness(Script s) {
        this.s = s;
    }

    public static void main(String[] args) {
        String name = null;
        String path = null;
        boolean check = false;
        boolean checkMany = false;
        boolean handoff = false;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--name") && i + 1 < args.length) {
                name = args[++i];
            } else if (args[i].equals("--check")) {
                check = true;
            } else if (args[i].equals("--check-many")) {
                checkMany = true;
            } else if (args[i].equals("--handoff")) {
                handoff = true;
            } else if (path == null && !args[i].startsWith("--")) {
                path = args[i];
            } else {
                usage("unexpected argument " + args[i]);
            }
        }
        if (path == null) {
            usage("missing script file");
        }
        if (name == null) {
            name = path.equals("-") ? "stdin" : path;
        }
        List<String> lines;
        try {
            lines = path.equals("-")
                    ? new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).lines().toList()
                    : Files.readAllLines(Path.of(path), StandardCharsets.UTF_8);
        } catch (IOException | java.io.UncheckedIOException x) {
            System.err.println(name + ": cannot read script: " + x.getMessage());
            System.exit(2);
            return;
        }
        if (checkMany) {
            System.exit(checkMany(name, lines));
            return;
        }
        if (handoff) {
            int rc;
            try {
                rc = new HandOffRun(lines).run();
            } catch (IllegalArgumentException e) {
                System.err.println(e.getMessage());
                rc = 2;
            } catch (Throwable x) {
                System.err.println("harness: " + x);
                x.printStackTrace();
                rc = 1;
            }
            System.out.flush();
            System.exit(rc);
        }
        Script script;
        try {
            script = Script.parse(name, lines);
        } catch (Script.Error e) {
            System.err.println(e.format());
            System.exit(2);
            return;
        }
        if (check) {
            System.exit(0);
        }
        int rc;
        try {
            rc = new Harness(script).run();
        } catch (Throwable x) {
            System.err.println("harness: " + x);
            x.printStackTrace();
            rc = 1;
        }
        System.out.flush();
        System.exit(rc);
    }

    /** Validates each "%%"-separated script; line numbers count from each script's first line. */
    private static int checkMany(String name, List<String> lines) {
        List<String> one = new ArrayList<>();
        StringBuilder out = new StringBuilder();
        for (int i = 0; i <= lines.size(); i++) {
            if (i < lines.size() && !lines.get(i).equals("%%")) {
                one.add(lines.get(i));
                continue;
            }
            try {
                Script.parse(name, one);
                out.append("ok\n");
            } catch (Script.Error e) {
                out.append("error ").append(e.format().replace('\n', ' ')).append('\n');
            }
            one.clear();
        }
        System.out.print(out);
        System.out.flush();
        return 0;
    }

    private static void usage(String msg) {
        System.err.println("harness: " + msg + " (usage: java poolsim.conformance.Harness [--name NAME] [--check | --check-many] FILE|-)");
        System.exit(2);
    }

    // ----------------------------------------------------------------------------------------

    /** One sample as printed. */
    private static final class SampleRec {
        long tMs;
        long lateNanos;
        long costNanos;
        int poolSize;
        int queueLen;
        long completed;
        long rejected;
        int largest;
        int busyCounter;
        int active;
        int submittedCount;
        Recorder.Census census;
    }

    private int run() throws Exception {
        if (s.kind.isResource()) {
            return new ResourceRun(this, s).run();
        }
        // Jetty 9.4 logs through StdErrLog when no SLF4J is present; silence it (job failures are
        // scripted and expected, R108).
        System.setProperty("org.eclipse.jetty.util.log.class", "org.eclipse.jetty.util.log.StdErrLog");
        System.setProperty("org.eclipse.jetty.LEVEL", "OFF");
        System.setProperty("org.eclipse.jetty.util.log.announce", "false");
        Thread.setDefaultUncaughtExceptionHandler((th, e) -> {
            if (!(e instanceof Task.ScriptedFailure)) {
                synchronized (warnings) {
                    warnings.add("uncaught in " + th.getName() + ": " + e);
                }
            }
        });

        long w0 = System.nanoTime();
        warmUp();
        long warmupNanos = System.nanoTime() - w0;

        Recorder rec = new Recorder();
        Map<Integer, Task> tasks = new LinkedHashMap<>();
        Map<Integer, SchedTask> scheds = new LinkedHashMap<>();
        for (Script.Event e : s.events) {
            if (e instanceof Script.Submit) {
                Script.Submit sub = (Script.Submit) e;
                tasks.put(sub.id, new Task(sub.id, sub.serviceMs, sub.priority, sub.fail, rec));
            } else if (e instanceof Script.Sched) {
                Script.Sched sc = (Script.Sched) e;
                scheds.put(sc.id, new SchedTask(sc.id, sc.mode, sc.serviceMs, sc.failRun, rec));
            }
        }
        long[] eventActual = new long[s.events.size()];
        long[] eventLate = new long[s.events.size()];
        String[] eventDetail = new String[s.events.size()];
        List<SampleRec> samples = new ArrayList<>(s.samples.size());
        System.gc();
        long[] gc0 = gcStats();

        // The driver threads start before t=0 and wait for the pool, so that starting them does not
        // delay the first events. t=0 is taken just before the pool is built: Tomcat's prestarted
        // threads (R65) and Jetty's minThreads (R101) are created at t >= 0.
        java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
        Pools.Pool[] poolRef = new Pools.Pool[1];
        Thread submitter = new Thread(() -> {
            if (await(go)) {
                submitLoop(poolRef[0], tasks, scheds, eventActual, eventLate);
            }
        }, "harness-submitter");
        Thread controller = new Thread(() -> {
            if (await(go)) {
                controlLoop(poolRef[0], scheds, eventActual, eventLate, eventDetail);
            }
        }, "harness-controller");
        Thread sampler = new Thread(() -> {
            if (await(go)) {
                sampleLoop(poolRef[0], rec, samples);
            }
        }, "harness-sampler");
        startDrivers(List.of(submitter, controller, sampler));

        t0 = System.nanoTime();
        Pools.Pool pool;
        try {
            pool = Pools.create(s, rec);
        } catch (IllegalArgumentException x) {
            System.err.println(new Script.Error(s.file, s.poolLine, 0, "pool", "the constructor refused it: " + x, null).format());
            return 2;
        }
        poolRef[0] = pool;
        go.countDown();

        long endDue = t0 + s.endMs * MS;
        sleepUntil(endDue);
        // Everything scheduled at or before end happens before it: wait for the sampler and the
        // controller (which never block for long), and briefly for the submitter, which a
        // caller-runs task may hold.
        sampler.join();
        controller.join(1000);
        submitter.join(200);
        ended = true;
        long endNanos = System.nanoTime();
        long endLate = endNanos - endDue;
        for (SchedTask st : scheds.values()) {
            st.noteState();
        }
        List<Runnable> drained = pool.shutdownNow();
        markDrained(drained);
        submitter.interrupt();
        // Running tasks were interrupted by shutdownNow; give them a moment to finish.
        long stopBy = System.nanoTime() + 2000 * MS;
        while (System.nanoTime() < stopBy) {
            boolean running = submitter.isAlive() || controller.isAlive();
            for (Task t : tasks.values()) {
                if (t.startNanos != 0 && t.endNanos == 0) {
                    running = true;
                    break;
                }
            }
            if (!running) {
                break;
            }
            LockSupport.parkNanos(MS);
        }
        long[] gc1 = gcStats();

        PrintWriter out = new PrintWriter(new java.io.BufferedWriter(
                new java.io.OutputStreamWriter(System.out, StandardCharsets.UTF_8)), false);
        out.println("# poolsim conformance harness, kind=" + s.kind.name().toLowerCase(Locale.ROOT) + ", java "
                + System.getProperty("java.version"));
        out.println("# sample,t_ms,pool_size,busy,idle_timed,idle_untimed,queue_len,completed,rejected,largest,"
                + "busy_counter,active,other,submitted_count,late_ms");
        long maxSampleLate = 0;
        long maxSampleCost = 0;
        int mismatches = 0;
        long sumLate = 0;
        int nLate = 0;
        for (SampleRec r : samples) {
            Recorder.Census c = r.census;
            out.println("sample," + r.tMs + "," + r.poolSize + "," + c.busy + "," + c.idleTimed + "," + c.idleUntimed + ","
                    + r.queueLen + "," + r.completed + "," + r.rejected + "," + r.largest + "," + r.busyCounter + ","
                    + r.active + "," + c.other + "," + r.submittedCount + "," + ms(r.lateNanos));
            maxSampleLate = Math.max(maxSampleLate, r.lateNanos);
            maxSampleCost = Math.max(maxSampleCost, r.costNanos);
            mismatches += c.stateCallMismatch;
            sumLate += r.lateNanos;
            nLate++;
        }
        out.println("# task,id,worker,submit_ms,start_ms,end_ms,outcome,note");
        long maxSubmitLate = 0;
        long maxSubmitDelay = 0;
        long maxOverrun = 0;
        for (Script.Event e : s.events) {
            if (!(e instanceof Script.Submit)) {
                continue;
            }
            Task t = tasks.get(((Script.Submit) e).id);
            if (t.submitNanos != 0) {
                maxSubmitLate = Math.max(maxSubmitLate, eventLate[e.index]);
                maxSubmitDelay = Math.max(maxSubmitDelay, t.submitNanos - (t0 + e.atMs * MS));
                sumLate += eventLate[e.index];
                nLate++;
            }
            if (t.endNanos != 0 && !t.interrupted) {
                maxOverrun = Math.max(maxOverrun, t.endNanos - t.startNanos - t.serviceMs * MS);
            }
            out.println("task," + t.id + "," + (t.startNanos != 0 ? t.worker : -1) + "," + time(t.submitNanos) + ","
                    + time(t.startNanos) + "," + time(t.endNanos) + "," + t.outcome() + "," + t.note());
        }
        if (!scheds.isEmpty()) {
            out.println("# scheduled,id,mode,submit_ms,state,drained,runs");
            out.println("# run,id,run,worker,start_ms,end_ms,note");
        }
        for (Script.Event e : s.events) {
            if (!(e instanceof Script.Sched)) {
                continue;
            }
            SchedTask st = scheds.get(((Script.Sched) e).id);
            if (st.submitNanos != 0) {
                maxSubmitLate = Math.max(maxSubmitLate, eventLate[e.index]);
                sumLate += eventLate[e.index];
                nLate++;
            }
            List<SchedTask.Run> runs = st.runs();
            out.println("scheduled," + st.id + "," + st.mode + "," + time(st.submitNanos) + "," + st.stateAtEnd + ","
                    + st.drained + "," + runs.size());
            for (SchedTask.Run r : runs) {
                if (r.endNanos != 0 && !r.interrupted) {
                    maxOverrun = Math.max(maxOverrun, r.endNanos - r.startNanos - st.serviceOf(r.n) * MS);
                }
                StringBuilder note = new StringBuilder();
                if (r.endNanos == 0) {
                    note.append("unfinished");
                }
                if (r.interrupted) {
                    note.append(note.length() > 0 ? ";" : "").append("interrupted");
                }
                if (r.failed) {
                    note.append(note.length() > 0 ? ";" : "").append("failed");
                }
                out.println("run," + st.id + "," + r.n + "," + r.worker + "," + time(r.startNanos) + "," + time(r.endNanos)
                        + "," + note);
            }
        }
        out.println("# worker,index,created_ms,exited_ms,name");
        List<Recorder.WorkerRec> ws = new ArrayList<>(rec.workers);
        ws.sort((a, b) -> Integer.compare(a.index, b.index));
        for (Recorder.WorkerRec w : ws) {
            long exit = w.exitNanos;
            String exited = exit != 0 && exit - endNanos <= 0 ? time(exit) : "";
            out.println("worker," + w.index + "," + time(w.createdNanos) + "," + exited + "," + w.thread.getName());
        }
        out.println("# event,at_ms,actual_ms,kind,detail");
        long maxEventLate = 0;
        for (Script.Event e : s.events) {
            if (e instanceof Script.Submit || e instanceof Script.Sched) {
                continue;
            }
            String kind = e instanceof Script.SetEvent ? "set"
                    : e instanceof Script.Cancel ? "cancel"
                    : ((Script.Shutdown) e).now ? "shutdownNow" : "shutdown";
            if (eventActual[e.index] != 0) {
                maxEventLate = Math.max(maxEventLate, eventLate[e.index]);
                sumLate += eventLate[e.index];
                nLate++;
            }
            out.println("event," + e.atMs + "," + time(eventActual[e.index]) + "," + kind + ","
                    + (eventDetail[e.index] == null ? "" : eventDetail[e.index]));
        }
        out.println("event," + s.endMs + "," + time(endNanos) + ",end,drained=" + drained.size());
        long maxLate = Math.max(Math.max(maxSampleLate, maxSubmitLate), Math.max(maxEventLate, endLate));
        out.println("# timing,key,value");
        out.println("timing,max_lateness_ms," + ms(maxLate));
        out.println("timing,mean_lateness_ms," + (nLate == 0 ? "0.0" : ms(sumLate / nLate)));
        out.println("timing,max_submit_lateness_ms," + ms(maxSubmitLate));
        out.println("timing,max_event_lateness_ms," + ms(maxEventLate));
        out.println("timing,max_sample_lateness_ms," + ms(maxSampleLate));
        out.println("timing,end_lateness_ms," + ms(endLate));
        out.println("timing,max_submit_delay_ms," + ms(maxSubmitDelay));
        out.println("timing,max_sample_cost_ms," + ms(maxSampleCost));
        out.println("timing,max_service_overrun_ms," + ms(maxOverrun));
        out.println("timing,max_hiccup_ms," + ms(maxHiccup));
        out.println("timing,hiccups_over_10ms," + hiccupsOver10ms);
        long maxStart = 0;
        for (Recorder.WorkerRec w : rec.workers) {
            if (w.runNanos != 0) {
                maxStart = Math.max(maxStart, w.runNanos - w.createdNanos);
            }
        }
        out.println("timing,max_thread_start_ms," + ms(maxStart));
        out.println("timing,idle_state_call_mismatches," + mismatches);
        out.println("timing,gc_count," + (gc1[0] - gc0[0]));
        out.println("timing,gc_ms," + (gc1[1] - gc0[1]));
        out.println("timing,warmup_ms," + ms(warmupNanos));
        out.println("timing,java_version," + System.getProperty("java.version"));
        out.println("timing,vm," + System.getProperty("java.vm.name").replace(',', ';'));
        synchronized (warnings) {
            warnings.addAll(rec.warnings);
            for (String w : warnings) {
                out.println("warning," + w.replace(',', ';').replace('\n', ' '));
            }
        }
        out.flush();
        return 0;
    }

    String time(long nanos) {
        return nanos == 0 ? "" : ms(nanos - t0);
    }

    static String ms(long nanos) {
        return String.format(Locale.ROOT, "%.1f", nanos / 1e6);
    }

    static long[] gcStats() {
        long count = 0;
        long time = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            count += Math.max(0, gc.getCollectionCount());
            time += Math.max(0, gc.getCollectionTime());
        }
        return new long[] {count, time};
    }

    private static boolean await(java.util.concurrent.CountDownLatch go) {
        try {
            go.await();
            return true;
        } catch (InterruptedException x) {
            return false;
        }
    }

    /**
     * Starts the threads that drive the run, as daemons, and the canary, and gives them time to
     * reach the latch that releases them at t=0.
     */
    void startDrivers(List<Thread> drivers) throws InterruptedException {
        for (Thread th : drivers) {
            th.setDaemon(true);
            th.start();
        }
        Thread canary = new Thread(this::canaryLoop, "harness-canary");
        canary.setDaemon(true);
        canary.start();
        Thread.sleep(5); // let them reach the latch
    }

    private static final long CANARY_PERIOD = 5 * MS;
    volatile long maxHiccup;
    volatile int hiccupsOver10ms;

    /**
     * Measures how long any thread may be kept from running: sleeps 5 ms again and again and
     * records the largest oversleep (the idea of jHiccup). Pool threads suffer the same delays
     * when they wake or start, which the harness's own lateness does not show.
     */
    void canaryLoop() {
        while (!ended) {
            long before = System.nanoTime();
            LockSupport.parkNanos(CANARY_PERIOD);
            long over = System.nanoTime() - before - CANARY_PERIOD;
            if (over > maxHiccup) {
                maxHiccup = over;
            }
            if (over > 10 * MS) {
                hiccupsOver10ms++;
            }
        }
    }

    /** Parks until deadline (System.nanoTime), or until the run has ended. */
    void sleepUntil(long deadline) {
        for (;;) {
            long d = deadline - System.nanoTime();
            if (d <= 0) {
                return;
            }
            LockSupport.parkNanos(d);
            if (Thread.interrupted() && ended) {
                return;
            }
        }
    }

    /** Waits until every earlier directive with the same at is done (file order across threads). */
    void awaitSameAt(Script.Event e) {
        for (int j = e.index - 1; j >= 0; j--) {
            Script.Event p = s.events.get(j);
            if (p.atMs != e.atMs) {
                break;
            }
            while (!p.done && !ended) {
                LockSupport.parkNanos(20_000);
            }
        }
    }

    private void submitLoop(Pools.Pool pool, Map<Integer, Task> tasks, Map<Integer, SchedTask> scheds, long[] actual,
            long[] late) {
        long prevReturn = t0;
        for (Script.Event e : s.events) {
            if (!(e instanceof Script.Submit) && !(e instanceof Script.Sched)) {
                continue;
            }
            awaitSameAt(e);
            long due = t0 + e.atMs * MS;
            sleepUntil(due);
            if (ended) {
                return;
            }
            if (e instanceof Script.Sched) {
                SchedTask st = scheds.get(((Script.Sched) e).id);
                long now = System.nanoTime();
                actual[e.index] = now;
                late[e.index] = now - Math.max(due, prevReturn);
                st.submitNanos = now;
                try {
                    pool.schedule(st, (Script.Sched) e);
                } catch (RejectedExecutionException x) {
                    st.rejected = true;
                } catch (RuntimeException | Error x) {
                    synchronized (warnings) {
                        warnings.add("schedule of task " + st.id + " threw " + x);
                    }
                }
                prevReturn = System.nanoTime();
                e.done = true;
                continue;
            }
            Task t = tasks.get(((Script.Submit) e).id);
            long now = System.nanoTime();
            actual[e.index] = now;
            // Lateness counts only the harness's own delay, not a caller-runs task that held us.
            late[e.index] = now - Math.max(due, prevReturn);
            t.submitNanos = now;
            try {
                pool.execute(t);
            } catch (RejectedExecutionException x) {
                if (t.startNanos == 0) {
                    t.rejected = true;
                }
                pool.onExecuteRejected();
            } catch (Task.ScriptedFailure x) {
                // a failing task run by the caller (CallerRunsPolicy): its exception reaches us (R33)
            } catch (RuntimeException | Error x) {
                synchronized (warnings) {
                    warnings.add("execute of task " + t.id + " threw " + x);
                }
            }
            prevReturn = System.nanoTime();
            e.done = true;
        }
    }

    private void controlLoop(Pools.Pool pool, Map<Integer, SchedTask> scheds, long[] actual, long[] late, String[] detail) {
        for (Script.Event e : s.events) {
            if (e instanceof Script.Submit || e instanceof Script.Sched) {
                continue;
            }
            awaitSameAt(e);
            long due = t0 + e.atMs * MS;
            sleepUntil(due);
            if (ended) {
                return;
            }
            long now = System.nanoTime();
            actual[e.index] = now;
            late[e.index] = now - due;
            if (e instanceof Script.SetEvent) {
                StringBuilder d = new StringBuilder();
                for (Script.Change ch : ((Script.SetEvent) e).changes) {
                    try {
                        pool.apply(ch.key, ch.value);
                    } catch (IllegalArgumentException x) {
                        // checkSets should have caught it; never print a partial result.
                        System.err.println(s.runtimeError(e, ch.key, ch.col, "the setter threw " + x).format());
                        System.out.flush();
                        Runtime.getRuntime().halt(2);
                    }
                    if (d.length() > 0) {
                        d.append(' ');
                    }
                    d.append(ch.key).append('=').append(ch.key.equals("allowCoreThreadTimeOut") ? String.valueOf(ch.value == 1)
                            : ch.value == Script.UNBOUNDED && ch.key.equals("max") ? "unbounded" : String.valueOf(ch.value));
                }
                detail[e.index] = d.toString();
            } else if (e instanceof Script.Cancel) {
                // cancel(false) on the future the submitter's schedule call returned (R97).
                SchedTask st = scheds.get(((Script.Cancel) e).id);
                java.util.concurrent.ScheduledFuture<?> f = st.future;
                if (f == null) {
                    synchronized (warnings) {
                        warnings.add("cancel of schedule " + st.id + ": no future (the call was rejected or not made yet)");
                    }
                    detail[e.index] = "cancelled=false";
                } else {
                    detail[e.index] = "cancelled=" + f.cancel(false);
                }
            } else if (((Script.Shutdown) e).now) {
                List<Runnable> drained = pool.shutdownNow();
                markDrained(drained);
                detail[e.index] = "drained=" + drained.size();
            } else {
                pool.shutdown();
                detail[e.index] = "";
            }
            e.done = true;
        }
    }

    /** Flags the scripted Runnables that shutdownNow returned unrun. */
    private static void markDrained(List<Runnable> drained) {
        for (Runnable r : drained) {
            if (r instanceof Task) {
                ((Task) r).drained = true;
            } else if (r instanceof SchedTask) {
                ((SchedTask) r).drained = true;
            }
        }
    }

    private void sampleLoop(Pools.Pool pool, Recorder rec, List<SampleRec> out) {
        for (long tMs : s.samples) {
            long due = t0 + tMs * MS;
            sleepUntil(due);
            out.add(takeSample(pool, rec, tMs, due));
        }
    }

    private static SampleRec takeSample(Pools.Pool pool, Recorder rec, long tMs, long due) {
        long start = System.nanoTime();
        SampleRec r = new SampleRec();
        r.tMs = tMs;
        r.lateNanos = start - due;
        r.busyCounter = rec.busy.get();
        r.census = rec.census();
        r.poolSize = pool.poolSize();
        r.queueLen = pool.queueLen();
        r.completed = pool.completed();
        r.rejected = pool.rejected();
        r.largest = pool.largest();
        r.active = pool.active();
        r.submittedCount = pool.submittedCount();
        r.costNanos = System.nanoTime() - start;
        return r;
    }

    /**
     * Loads and exercises every class the run will use, on a small pool of the same kind, queue and
     * rejection policy: thread creation, queueing, hand-off, rejection, sampling, shutdownNow.
     */
    private void warmUp() throws Exception {
        Script w = new Script(s.file);
        w.kind = s.kind;
        w.core = 1;
        w.max = 2;
        w.keepAliveMs = 1000;
        w.queue = s.queue;
        w.capacity = s.capacity == Script.UNBOUNDED || s.capacity == 0 ? s.capacity : 1;
        w.fair = s.fair;
        w.rejection = s.rejection;
        w.prestart = s.prestart;
        w.continuePeriodic = s.continuePeriodic;
        w.executeDelayed = s.executeDelayed;
        w.removeOnCancel = s.removeOnCancel;
        for (int round = 0; round < 3; round++) {
            Recorder r = new Recorder();
            Pools.Pool p = Pools.create(w, r);
            long start = System.nanoTime();
            for (int i = 0; i < 6; i++) {
                // Task 0 fails (the abrupt-exit path, R14/R17, or Jetty's catch, R108); task 5
                // is still sleeping when the pool is closed (the interrupted path, R28).
                Task t = new Task(-1 - i, i == 5 ? 30 : 2, i % 3, i == 0, r);
                t.submitNanos = System.nanoTime();
                try {
                    p.execute(t);
                } catch (RejectedExecutionException x) {
                    t.rejected = true;
                    p.onExecuteRejected();
                } catch (Task.ScriptedFailure x) {
                    // run by the caller
                }
            }
            if (s.kind == Script.Kind.SCHEDULED) {
                // The delayed, periodic and failing paths of the DelayedWorkQueue (R93–R96).
                for (String mode : new String[] {"once", "fixed-rate", "fixed-delay"}) {
                    Script.Sched sc = new Script.Sched();
                    sc.mode = mode;
                    sc.delayMs = 1;
                    sc.periodMs = 2;
                    sc.serviceMs = new long[] {1};
                    sc.failRun = 3;
                    SchedTask st = new SchedTask(-10, mode, sc.serviceMs, sc.failRun, r);
                    p.schedule(st, sc);
                    if (mode.equals("fixed-rate")) {
                        // The cancel path (R97): queued, then skipped when due or removed.
                        sc.delayMs = 3;
                        SchedTask c = new SchedTask(-11, mode, sc.serviceMs, 0, r);
                        p.schedule(c, sc);
                        c.future.cancel(false);
                    }
                }
            }
            sleepUntil(start + MS);
            takeSample(p, r, 0, start);
            sleepUntil(start + 15 * MS);
            takeSample(p, r, 0, start);
            ms(System.nanoTime() - start);
            p.close();
        }
    }
}
