package poolsim.conformance;

/**
 * A scripted task: it sleeps serviceMs (Thread.sleep, so a thread dump shows it TIMED_WAITING,
 * R56), then throws {@link ScriptedFailure} if fail=true. It is handed to the pools with execute,
 * never submit, so a throw ends its worker abruptly (R14, R17). Tasks compare by priority for
 * PriorityBlockingQueue (R53); ties are left to the JDK's heap.
 */
final class Task implements Runnable, Comparable<Task> {
    final int id;
    final long serviceMs;
    final int priority;
    final boolean fail;
    private final Recorder rec;

    volatile long submitNanos; // when execute was called; 0 if never submitted
    volatile long startNanos; // 0 if it never started
    volatile long endNanos; // 0 if it has not ended
    volatile int worker = -1; // creation index of the thread that ran it; 0 = the submitter
    volatile boolean interrupted; // its sleep was interrupted (shutdownNow)
    volatile boolean rejected; // execute threw RejectedExecutionException for it
    volatile boolean drained; // returned by shutdownNow (or drained from Jetty's queue at end)

    Task(int id, long serviceMs, int priority, boolean fail, Recorder rec) {
        this.id = id;
        this.serviceMs = serviceMs;
        this.priority = priority;
        this.fail = fail;
        this.rec = rec;
    }

    /** Thrown by a task with fail=true at its end. */
    static final class ScriptedFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ScriptedFailure(int id) {
            super("scripted failure of task " + id, null, false, false);
        }
    }

    @Override
    public void run() {
        startNanos = System.nanoTime();
        Recorder.WorkerRec w = Recorder.current();
        worker = w == null ? 0 : w.index;
        if (w != null) {
            rec.busy.incrementAndGet();
        }
        try {
            if (serviceMs > 0) {
                try {
                    Thread.sleep(serviceMs);
                } catch (InterruptedException x) {
                    interrupted = true;
                    Thread.currentThread().interrupt(); // a well-behaved task keeps the status
                }
            }
        } finally {
            endNanos = System.nanoTime();
            if (w != null) {
                rec.busy.decrementAndGet();
                rec.completed.incrementAndGet();
            }
        }
        if (fail) {
            throw new ScriptedFailure(id);
        }
    }

    @Override
    public int compareTo(Task o) {
        return Integer.compare(priority, o.priority);
    }

    /**
     * The task's fate, decided after the run: pool or caller if it started, else rejected
     * (execute threw), drained (returned by shutdownNow), unsubmitted (the run ended first), or
     * discarded (accepted by execute but never run: DiscardPolicy, DiscardOldestPolicy's victim,
     * CallerRunsPolicy after shutdown).
     */
    String outcome() {
        if (startNanos != 0) {
            return worker == 0 ? "caller" : "pool";
        }
        if (submitNanos == 0) {
            return "unsubmitted";
        }
        if (rejected) {
            return "rejected";
        }
        if (drained) {
            return "drained";
        }
        return "discarded";
    }

    /** Extra facts about a task that ran: interrupted, failed, unfinished, joined by ';'. */
    String note() {
        StringBuilder b = new StringBuilder();
        if (startNanos != 0 && endNanos == 0) {
            b.append("unfinished");
        }
        if (interrupted) {
            b.append(b.length() > 0 ? ";" : "").append("interrupted");
        }
        if (fail && endNanos != 0) {
            b.append(b.length() > 0 ? ";" : "").append("failed");
        }
        return b.toString();
    }
}
