package poolsim.conformance;

import java.io.BufferedReader;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.RandomAccessFile;
import java.lang.foreign.AddressLayout;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Runs tasks on {@code Executors.newVirtualThreadPerTaskExecutor()} (spec §13, R130–R136) and
 * records where each step ran: {@code java -Djdk.virtualThreadScheduler.parallelism=P
 * -Djdk.virtualThreadScheduler.maxPoolSize=M --enable-native-access=ALL-UNNAMED
 * poolsim.conformance.VirtualRun -}. It needs JDK 22+ (the FFM API) and is compiled apart from
 * the harness, with {@code --release 25}. The input, one directive per line, '#' comments:
 *
 * <pre>
 * virtual endMs=3000
 * task id=1 atMs=0 steps=compute:50,block:200,block@native:100,compute:20
 * </pre>
 *
 * Tasks come in time order with ids 1, 2, … A step is {@code compute:MS} (a busy spin on
 * System.nanoTime until MS have passed: CPU on the carrier, never a park), {@code block:MS}
 * (Thread.sleep: a timed park, R133) or {@code block@IN:MS}, the same sleep made inside
 * <ul>
 * <li>{@code synchronized}: a monitor of the task's own (no contention); 24+ unmount (R135);</li>
 * <li>{@code object-wait}: Object.wait(MS) on such a monitor (R134, R135);</li>
 * <li>{@code native}: a native frame: libc {@code qsort} called through the FFM API on two ints,
 *     whose comparator, an upcall into Java, sleeps on its first call (R134, R135: pins);</li>
 * <li>{@code clinit}: the static initializer of a class not initialised before (R135: pins);
 *     at most 8 such steps per run;</li>
 * <li>{@code file-io}: FileInputStream.read of a named FIFO (made with mkfifo, only when the
 *     script has such steps) whose one byte a platform thread writes MS after the read began
 *     (R136: on 25 held, not compensated).</li>
 * </ul>
 *
 * Before t=0 the program warms up (each kind of step, a few times, on throwaway virtual
 * threads), then one platform submitter thread makes each task's execute at its time (parkNanos
 * until shortly before it, then a spin) while a platform canary thread wakes every 5 ms to
 * measure how much the machine stalls it. The output, JSON lines after all tasks ended (or
 * endMs passed), times in microseconds from t=0, carriers as the N of ForkJoinPool-1-worker-N
 * (what a mounted virtual thread's toString names; 0 if none):
 *
 * <pre>
 * {"kind":"task","id":1,"submit":12,"start":40,"end":300200,"carrier":1}
 * {"kind":"step","id":1,"index":0,"step":"compute","in":"","begin":41,"end":50041,"carrierBegin":1,"carrierEnd":1}
 * {"kind":"carriers","count":2,"maxIndex":2}          # ForkJoinPool-1-worker-* alive at the end
 * {"kind":"timing","submitLateMax":35,"canaryStallMax":1200,"unfinished":0}
 * </pre>
 *
 * A bad input line exits with status 2 and one line {@code script:LINE: KEY: message}.
 */
public final class VirtualRun {
    static final String[] INS = {"", "synchronized", "object-wait", "native", "clinit", "file-io"};

    record Step(boolean compute, String in, long nanos) {}

    record Task(int id, long atNanos, List<Step> steps) {}

    /** What one task did; written by its own virtual thread, read after the latch. */
    static final class Rec {
        long submit, start, end;
        int carrier;
        long[] begin, stop;
        int[] cBegin, cEnd;
        boolean done;
    }

    static long t0;

    static long us(long nanos) {
        return (nanos - t0) / 1000;
    }

    /** The N of ForkJoinPool-1-worker-N the current (virtual) thread is mounted on, else 0. */
    static int carrier() {
        String s = Thread.currentThread().toString();
        int i = s.lastIndexOf("-worker-");
        if (i < 0) {
            return 0;
        }
        int j = i + 8, k = j;
        while (k < s.length() && Character.isDigit(s.charAt(k))) {
            k++;
        }
        return k > j ? Integer.parseInt(s.substring(j, k)) : 0;
    }

    static void spin(long nanos) {
        long until = System.nanoTime() + nanos;
        while (System.nanoTime() < until) {
            Thread.onSpinWait();
        }
    }

    static void sleepNanos(long nanos) {
        long until = System.nanoTime() + nanos;
        for (long left = nanos; left > 0; left = until - System.nanoTime()) {
            try {
                Thread.sleep(left / 1_000_000, (int) (left % 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    // ---- native: qsort with a sleeping comparator (upcall) ----

    static final ThreadLocal<long[]> NATIVE_SLEEP = new ThreadLocal<>();
    static MethodHandle qsort;
    static MemorySegment comparator;

    static int compare(MemorySegment a, MemorySegment b) {
        long[] left = NATIVE_SLEEP.get();
        if (left != null && left[0] > 0) {
            long n = left[0];
            left[0] = 0;
            sleepNanos(n); // on a virtual thread inside an upcall: pinned (R135)
        }
        int x = a.get(ValueLayout.JAVA_INT, 0), y = b.get(ValueLayout.JAVA_INT, 0);
        return Integer.compare(x, y);
    }

    static void linkNative() throws Throwable {
        Linker linker = Linker.nativeLinker();
        qsort = linker.downcallHandle(linker.defaultLookup().find("qsort").orElseThrow(),
                FunctionDescriptor.ofVoid(ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                        ValueLayout.ADDRESS));
        MethodHandle cmp = MethodHandles.lookup().findStatic(VirtualRun.class, "compare",
                MethodType.methodType(int.class, MemorySegment.class, MemorySegment.class));
        AddressLayout intPtr = ValueLayout.ADDRESS.withTargetLayout(ValueLayout.JAVA_INT);
        comparator = linker.upcallStub(cmp, FunctionDescriptor.of(ValueLayout.JAVA_INT, intPtr, intPtr),
                Arena.global());
    }

    static void blockNative(long nanos) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment arr = arena.allocate(ValueLayout.JAVA_INT, 2);
            arr.setAtIndex(ValueLayout.JAVA_INT, 0, 2);
            arr.setAtIndex(ValueLayout.JAVA_INT, 1, 1);
            NATIVE_SLEEP.set(new long[] {nanos});
            qsort.invokeExact(arr, 2L, 4L, comparator);
            NATIVE_SLEEP.remove();
        } catch (Throwable e) {
            throw new RuntimeException(e);
        }
    }

    // ---- clinit: classes whose static initializer sleeps ----

    static final ThreadLocal<Long> CLINIT_SLEEP = ThreadLocal.withInitial(() -> 0L);
    static final AtomicInteger nextClinit = new AtomicInteger();

    static void clinitBody() {
        sleepNanos(CLINIT_SLEEP.get()); // on a virtual thread in <clinit>: pinned (R135)
    }

    static final class W { static { clinitBody(); } static void touch() {} }
    static final class C0 { static { clinitBody(); } static void touch() {} }
    static final class C1 { static { clinitBody(); } static void touch() {} }
    static final class C2 { static { clinitBody(); } static void touch() {} }
    static final class C3 { static { clinitBody(); } static void touch() {} }
    static final class C4 { static { clinitBody(); } static void touch() {} }
    static final class C5 { static { clinitBody(); } static void touch() {} }
    static final class C6 { static { clinitBody(); } static void touch() {} }
    static final class C7 { static { clinitBody(); } static void touch() {} }

    static final int CLINITS = 8;

    static void blockClinit(long nanos, int k) {
        CLINIT_SLEEP.set(nanos);
        switch (k) {
            case -1 -> W.touch();
            case 0 -> C0.touch();
            case 1 -> C1.touch();
            case 2 -> C2.touch();
            case 3 -> C3.touch();
            case 4 -> C4.touch();
            case 5 -> C5.touch();
            case 6 -> C6.touch();
            case 7 -> C7.touch();
            default -> throw new IllegalStateException("no class initializer left");
        }
    }

    // ---- file-io: a named FIFO written by a platform thread ----

    static Path fifoDir;
    static final AtomicInteger nextFifo = new AtomicInteger();
    static final List<FileInputStream> fifoIn = new ArrayList<>();
    static final List<RandomAccessFile> fifoOut = new ArrayList<>();
    static ScheduledExecutorService writer;

    static void makeFifos(int n) throws Exception {
        fifoDir = Files.createTempDirectory("poolsim-vt-fifo");
        for (int i = 0; i < n; i++) {
            Path p = fifoDir.resolve("f" + i);
            Process pr = new ProcessBuilder("mkfifo", p.toString()).inheritIO().start();
            if (pr.waitFor() != 0) {
                throw new IOException("mkfifo " + p + " failed");
            }
            fifoOut.add(new RandomAccessFile(p.toFile(), "rw")); // O_RDWR: opens a FIFO at once
            fifoIn.add(new FileInputStream(p.toFile())); // a writer exists: does not block
        }
        writer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "fifo-writer");
            t.setDaemon(true);
            return t;
        });
    }

    static void blockFileIo(long nanos, int k) {
        RandomAccessFile out = fifoOut.get(k);
        writer.schedule(() -> {
            try {
                out.write(1);
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        }, nanos, TimeUnit.NANOSECONDS);
        try {
            if (fifoIn.get(k).read() < 0) { // FileInputStream.read on 25: carrier held (R136)
                throw new IOException("fifo closed");
            }
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
    }

    // ---- steps ----

    static void runStep(Step s, int clinit, int fifo) {
        if (s.compute) {
            spin(s.nanos);
            return;
        }
        switch (s.in) {
            case "" -> sleepNanos(s.nanos);
            case "synchronized" -> {
                Object lock = new Object();
                synchronized (lock) {
                    sleepNanos(s.nanos);
                }
            }
            case "object-wait" -> {
                Object lock = new Object();
                long until = System.nanoTime() + s.nanos;
                synchronized (lock) {
                    for (long left = s.nanos; left > 0; left = until - System.nanoTime()) {
                        try {
                            lock.wait(left / 1_000_000, (int) (left % 1_000_000));
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            return;
                        }
                    }
                }
            }
            case "native" -> blockNative(s.nanos);
            case "clinit" -> blockClinit(s.nanos, clinit);
            case "file-io" -> blockFileIo(s.nanos, fifo);
            default -> throw new IllegalStateException(s.in);
        }
    }

    static void runTask(Task t, Rec r, int[] clinits, int[] fifos) {
        r.start = System.nanoTime();
        r.carrier = carrier();
        for (int i = 0; i < t.steps.size(); i++) {
            r.cBegin[i] = carrier();
            r.begin[i] = System.nanoTime();
            runStep(t.steps.get(i), clinits[i], fifos[i]);
            r.stop[i] = System.nanoTime();
            r.cEnd[i] = carrier();
        }
        r.end = System.nanoTime();
        r.done = true;
    }

    // ---- input ----

    static IllegalArgumentException bad(int line, String key, String msg) {
        return new IllegalArgumentException("script:" + line + ": " + key + ": " + msg);
    }

    static long endMs;

    static List<Task> parse(List<String> lines) {
        List<Task> tasks = new ArrayList<>();
        boolean header = false;
        long lastAt = 0;
        int clinits = 0;
        for (int ln = 1; ln <= lines.size(); ln++) {
            String l = lines.get(ln - 1);
            int hash = l.indexOf('#');
            if (hash >= 0) {
                l = l.substring(0, hash);
            }
            l = l.strip();
            if (l.isEmpty()) {
                continue;
            }
            String[] f = l.split("\\s+");
            Set<String> seen = new HashSet<>();
            java.util.Map<String, String> kv = new java.util.HashMap<>();
            for (int i = 1; i < f.length; i++) {
                int eq = f[i].indexOf('=');
                if (eq <= 0) {
                    throw bad(ln, f[i], "not key=value");
                }
                String k = f[i].substring(0, eq);
                if (!seen.add(k)) {
                    throw bad(ln, k, "repeated");
                }
                kv.put(k, f[i].substring(eq + 1));
            }
            switch (f[0]) {
                case "virtual" -> {
                    if (header) {
                        throw bad(ln, "virtual", "repeated");
                    }
                    header = true;
                    for (String k : kv.keySet()) {
                        if (!k.equals("endMs")) {
                            throw bad(ln, k, "unknown key (endMs)");
                        }
                    }
                    endMs = num(ln, "endMs", kv.get("endMs"));
                }
                case "task" -> {
                    if (!header) {
                        throw bad(ln, "task", "before the virtual line");
                    }
                    for (String k : kv.keySet()) {
                        if (!Set.of("id", "atMs", "steps").contains(k)) {
                            throw bad(ln, k, "unknown key (id, atMs, steps)");
                        }
                    }
                    long id = num(ln, "id", kv.get("id"));
                    if (id != tasks.size() + 1) {
                        throw bad(ln, "id", "want " + (tasks.size() + 1) + " (ids count from 1 in order)");
                    }
                    long at = num(ln, "atMs", kv.get("atMs"));
                    if (at < lastAt) {
                        throw bad(ln, "atMs", "before the previous task's");
                    }
                    lastAt = at;
                    String ss = kv.get("steps");
                    if (ss == null || ss.isEmpty()) {
                        throw bad(ln, "steps", "missing");
                    }
                    List<Step> steps = new ArrayList<>();
                    for (String s : ss.split(",")) {
                        int c = s.indexOf(':');
                        if (c < 0) {
                            throw bad(ln, "steps", "step " + s + " has no :MS");
                        }
                        String kind = s.substring(0, c), in = "";
                        int a = kind.indexOf('@');
                        if (a >= 0) {
                            in = kind.substring(a + 1);
                            kind = kind.substring(0, a);
                        }
                        long ms = num(ln, "steps", s.substring(c + 1));
                        if (!kind.equals("compute") && !kind.equals("block")) {
                            throw bad(ln, "steps", "step kind " + kind + " (compute, block)");
                        }
                        if (!List.of(INS).contains(in) || (kind.equals("compute") && !in.isEmpty())) {
                            throw bad(ln, "steps", "where " + in
                                    + " (block@synchronized|object-wait|native|clinit|file-io)");
                        }
                        if (in.equals("clinit") && ++clinits > CLINITS) {
                            throw bad(ln, "steps", "more than " + CLINITS + " clinit steps");
                        }
                        steps.add(new Step(kind.equals("compute"), in, ms * 1_000_000));
                    }
                    tasks.add(new Task((int) id, at * 1_000_000, steps));
                }
                default -> throw bad(ln, f[0], "unknown directive (virtual, task)");
            }
        }
        if (!header) {
            throw bad(1, "virtual", "missing");
        }
        return tasks;
    }

    static long num(int ln, String key, String v) {
        if (v == null) {
            throw bad(ln, key, "missing");
        }
        try {
            long n = Long.parseLong(v);
            if (n < 0) {
                throw bad(ln, key, "negative");
            }
            return n;
        } catch (NumberFormatException e) {
            throw bad(ln, key, "not an integer: " + v);
        }
    }

    // ---- run ----

    static void warmUp(int fifoWarm) throws Exception {
        // Each kind of step a few times on throwaway virtual threads, so that the
        // downcall and upcall stubs are linked, the code compiled and the carriers started.
        for (int round = 0; round < 3; round++) {
            try (ExecutorService ex = Executors.newVirtualThreadPerTaskExecutor()) {
                for (int i = 0; i < 4; i++) {
                    ex.execute(() -> {
                        spin(2_000_000);
                        sleepNanos(1_000_000);
                        runStep(new Step(false, "synchronized", 1_000_000), 0, 0);
                        runStep(new Step(false, "object-wait", 1_000_000), 0, 0);
                        blockNative(1_000_000);
                        spin(1_000_000);
                    });
                }
            }
        }
        Thread.ofVirtual().start(() -> blockClinit(1_000_000, -1)).join(); // class W, kept for this
        if (fifoWarm >= 0) {
            for (int i = 0; i < 3; i++) {
                Thread vt = Thread.ofVirtual().start(() -> blockFileIo(1_000_000, fifoWarm));
                vt.join();
            }
        }
    }

    public static void main(String[] args) throws Throwable {
        if (args.length != 1 || !args[0].equals("-")) {
            System.err.println("usage: VirtualRun -   (the script on stdin)");
            System.exit(2);
        }
        List<String> lines = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            for (String l; (l = in.readLine()) != null;) {
                lines.add(l);
            }
        }
        List<Task> tasks;
        try {
            tasks = parse(lines);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        int n = tasks.size();
        int[][] clinits = new int[n][], fifos = new int[n][];
        int fifoCount = 0;
        for (int i = 0; i < n; i++) {
            List<Step> st = tasks.get(i).steps;
            clinits[i] = new int[st.size()];
            fifos[i] = new int[st.size()];
            for (int j = 0; j < st.size(); j++) {
                if (st.get(j).in.equals("clinit")) {
                    clinits[i][j] = nextClinit.getAndIncrement();
                }
                if (st.get(j).in.equals("file-io")) {
                    fifos[i][j] = fifoCount++;
                }
            }
        }
        linkNative();
        if (fifoCount > 0) {
            makeFifos(fifoCount + 1); // the last one is the warm-up's
        }
        try {
            warmUp(fifoCount > 0 ? fifoCount : -1);
            run(tasks, clinits, fifos);
        } finally {
            for (RandomAccessFile f : fifoOut) {
                f.close();
            }
            for (FileInputStream f : fifoIn) {
                f.close();
            }
            if (fifoDir != null) {
                for (int i = 0; i <= fifoCount; i++) {
                    Files.deleteIfExists(fifoDir.resolve("f" + i));
                }
                Files.deleteIfExists(fifoDir);
            }
        }
        System.exit(0); // the carriers and the writer are daemons, but do not wait for them
    }

    static void run(List<Task> tasks, int[][] clinits, int[][] fifos) throws Exception {
        int n = tasks.size();
        Rec[] recs = new Rec[n];
        for (int i = 0; i < n; i++) {
            Rec r = recs[i] = new Rec();
            int s = tasks.get(i).steps.size();
            r.begin = new long[s];
            r.stop = new long[s];
            r.cBegin = new int[s];
            r.cEnd = new int[s];
        }
        CountDownLatch done = new CountDownLatch(n);
        long[] canaryMax = {0};
        Thread canary = new Thread(() -> {
            long next = System.nanoTime();
            while (!Thread.currentThread().isInterrupted()) {
                next += 5_000_000;
                LockSupport.parkNanos(next - System.nanoTime());
                long late = System.nanoTime() - next;
                if (late > canaryMax[0]) {
                    canaryMax[0] = late;
                }
            }
        }, "canary");
        canary.setDaemon(true);
        ExecutorService ex = Executors.newVirtualThreadPerTaskExecutor();
        Thread.sleep(20); // let the warm-up's carriers go idle and the canary start
        long lateMax = 0;
        t0 = System.nanoTime();
        canary.start();
        for (int i = 0; i < n; i++) {
            Task t = tasks.get(i);
            Rec r = recs[i];
            int[] cl = clinits[i], fi = fifos[i];
            long due = t0 + t.atNanos;
            long left = due - System.nanoTime();
            if (left > 1_000_000) {
                LockSupport.parkNanos(left - 1_000_000);
            }
            while (System.nanoTime() < due) {
                Thread.onSpinWait();
            }
            r.submit = System.nanoTime();
            lateMax = Math.max(lateMax, r.submit - due);
            ex.execute(() -> {
                try {
                    runTask(t, r, cl, fi);
                } finally {
                    done.countDown();
                }
            });
        }
        done.await(Math.max(endMs * 1_000_000 - (System.nanoTime() - t0), 0), TimeUnit.NANOSECONDS);
        canary.interrupt();
        int carriers = 0, maxIndex = 0;
        for (Thread th : Thread.getAllStackTraces().keySet()) {
            String name = th.getName();
            if (name.startsWith("ForkJoinPool-1-worker-")) {
                carriers++;
                maxIndex = Math.max(maxIndex, Integer.parseInt(name.substring("ForkJoinPool-1-worker-".length())));
            }
        }
        PrintWriter out = new PrintWriter(System.out);
        int unfinished = 0;
        for (int i = 0; i < n; i++) {
            Rec r = recs[i];
            if (!r.done) {
                unfinished++;
                continue;
            }
            out.printf(Locale.ROOT, "{\"kind\":\"task\",\"id\":%d,\"submit\":%d,\"start\":%d,\"end\":%d,\"carrier\":%d}%n",
                    i + 1, us(r.submit), us(r.start), us(r.end), r.carrier);
            List<Step> st = tasks.get(i).steps;
            for (int j = 0; j < st.size(); j++) {
                Step s = st.get(j);
                out.printf(Locale.ROOT,
                        "{\"kind\":\"step\",\"id\":%d,\"index\":%d,\"step\":\"%s\",\"in\":\"%s\",\"begin\":%d,\"end\":%d,\"carrierBegin\":%d,\"carrierEnd\":%d}%n",
                        i + 1, j, s.compute ? "compute" : "block", s.in, us(r.begin[j]), us(r.stop[j]), r.cBegin[j], r.cEnd[j]);
            }
        }
        out.printf(Locale.ROOT, "{\"kind\":\"carriers\",\"count\":%d,\"maxIndex\":%d}%n", carriers, maxIndex);
        out.printf(Locale.ROOT, "{\"kind\":\"timing\",\"submitLateMax\":%d,\"canaryStallMax\":%d,\"unfinished\":%d}%n",
                lateMax / 1000, canaryMax[0] / 1000, unfinished);
        out.flush();
    }
}
