package poolsim.conformance;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledFuture;

/**
 * The Runnable of a schedule directive (kind=scheduled): schedule(task, delay) runs it once,
 * scheduleAtFixedRate and scheduleWithFixedDelay again and again (R94, R95). Run k sleeps
 * serviceMs[k-1] (the last value repeats) and run failRun then throws {@link Task.ScriptedFailure},
 * which the ScheduledFutureTask keeps: the series stops and the worker lives on (R96). Runs never
 * overlap, so they are recorded one after another.
 */
final class SchedTask implements Runnable {
    final int id;
    final String mode;
    final long[] serviceMs;
    final int failRun;
    private final Recorder rec;

    volatile long submitNanos; // when the schedule call was made; 0 if never
    volatile boolean rejected; // the schedule call threw RejectedExecutionException
    volatile ScheduledFuture<?> future;
    /** The series' state just before the end of the run: active, failed, cancelled, done. */
    volatile String stateAtEnd = "";
    volatile boolean drained; // its queued run was returned by shutdownNow

    /** One run: when it started and ended, on which worker, and what happened. */
    static final class Run {
        final int n;
        final int worker;
        final long startNanos;
        volatile long endNanos;
        volatile boolean interrupted;
        volatile boolean failed;

        Run(int n, int worker, long startNanos) {
            this.n = n;
            this.worker = worker;
            this.startNanos = startNanos;
        }
    }

    private final List<Run> runs = new ArrayList<>();

    SchedTask(int id, String mode, long[] serviceMs, int failRun, Recorder rec) {
        this.id = id;
        this.mode = mode;
        this.serviceMs = serviceMs.clone();
        this.failRun = failRun;
        this.rec = rec;
    }

    /** The runs so far, in order. */
    List<Run> runs() {
        synchronized (runs) {
            return new ArrayList<>(runs);
        }
    }

    @Override
    public void run() {
        long start = System.nanoTime();
        Recorder.WorkerRec w = Recorder.current();
        Run r;
        synchronized (runs) {
            r = new Run(runs.size() + 1, w == null ? 0 : w.index, start);
            runs.add(r);
        }
        if (w != null) {
            rec.busy.incrementAndGet();
        }
        long sleep = serviceMs[Math.min(r.n, serviceMs.length) - 1];
        try {
            if (sleep > 0) {
                try {
                    Thread.sleep(sleep);
                } catch (InterruptedException x) {
                    r.interrupted = true;
                    Thread.currentThread().interrupt();
                }
            }
        } finally {
            r.endNanos = System.nanoTime();
            if (w != null) {
                rec.busy.decrementAndGet();
                rec.completed.incrementAndGet();
            }
        }
        if (r.n == failRun) {
            r.failed = true;
            throw new Task.ScriptedFailure(id);
        }
    }

    /** The planned sleep of run n, for the harness's overrun measure. */
    long serviceOf(int n) {
        return serviceMs[Math.min(n, serviceMs.length) - 1];
    }

    /** Records the future's state before the run ends (shutdownNow would change it). */
    void noteState() {
        ScheduledFuture<?> f = future;
        if (f == null) {
            stateAtEnd = rejected ? "rejected" : "unsubmitted";
        } else if (f.isCancelled()) {
            stateAtEnd = "cancelled";
        } else if (f.isDone()) {
            boolean threw;
            try {
                f.get();
                threw = false;
            } catch (java.util.concurrent.ExecutionException x) {
                threw = true;
            } catch (InterruptedException | java.util.concurrent.CancellationException x) {
                threw = false;
            }
            stateAtEnd = threw ? "failed" : "done";
        } else {
            stateAtEnd = "active";
        }
    }
}
