package poolsim.conformance;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A parsed and validated harness script: one pool, the timed events that drive it and the sample
 * instants. The text format is documented in the Go package conformance (script.go); this class is
 * its only parser. Validation happens here, before anything runs, so that a bad script exits with
 * status 2 and prints nothing on stdout.
 */
final class Script {
    /** Integer.MAX_VALUE, what "unbounded" means for max and capacity. */
    static final int UNBOUNDED = Integer.MAX_VALUE;

    /** The largest time or duration in ms (about 115 days), so that ms * 1e6 fits a long. */
    static final long MAX_MS = 10_000_000_000L;

    enum Kind {
        JDK, TOMCAT, JETTY, SCHEDULED, HIKARI, SEMAPHORE;

        /** A resource (resource directive: borrowed by threads), not a pool (pool directive). */
        boolean isResource() {
            return this == HIKARI || this == SEMAPHORE;
        }
    }

    final String file;

    // The pool directive.
    Kind kind;
    int core;
    int max;
    long keepAliveMs = 60_000;
    String queue = "linked";
    int capacity = UNBOUNDED;
    boolean fair;
    String rejection = "abort";
    boolean allowCoreThreadTimeOut;
    boolean prestart;
    /** ScheduledThreadPoolExecutor's shutdown policies (R98), with the JDK's defaults. */
    boolean continuePeriodic;
    boolean executeDelayed = true;
    /** ScheduledThreadPoolExecutor.setRemoveOnCancelPolicy (R97), default false. */
    boolean removeOnCancel;
    int poolLine;

    // The resource directive (kind=hikari or kind=semaphore). For HikariCP, -1 leaves
    // setMaximumPoolSize or setMinimumIdle uncalled (HikariConfig's own unset value); the other
    // numbers default to HikariConfig's defaults (R150).
    int maximumPoolSize = -1;
    int minimumIdle = -1;
    long connectionTimeoutMs = 30_000;
    long idleTimeoutMs = 600_000;
    long maxLifetimeMs = 1_800_000;
    /** com.zaxxer.hikari.housekeeping.periodMs (R155). */
    long housekeepingMs = 30_000;
    /** How long the test DataSource takes to open a connection. */
    long connectMs;
    /** Semaphore permits (fair is the field above). */
    int permits;

    /** Submits, sets and shutdowns in file order (which is also time order, see parse). */
    final List<Event> events = new ArrayList<>();
    /** Sample instants in ms, sorted, without duplicates. */
    final TreeSet<Long> samples = new TreeSet<>();
    long endMs = -1;
    int endLine;

    Script(String file) {
        this.file = file;
    }

    /** A timed directive other than sample and end. */
    abstract static class Event {
        long atMs;
        int line;
        int index; // position in events
        volatile boolean done;
    }

    static final class Submit extends Event {
        int id;
        long serviceMs;
        int priority;
        boolean fail;
    }

    /** One key of a set directive, applied in line order. */
    static final class Change {
        final String key;
        final long value; // booleans as 0/1
        final int col;

        Change(String key, long value, int col) {
            this.key = key;
            this.value = value;
            this.col = col;
        }
    }

    static final class SetEvent extends Event {
        final List<Change> changes = new ArrayList<>();
    }

    static final class Shutdown extends Event {
        boolean now;
    }

    /**
     * A borrow directive (resource scripts): thread, when its time comes and its previous borrow is
     * over, calls getConnection() (HikariCP) or acquire() / tryAcquire(timeoutMs) (Semaphore),
     * holds what it got holdMs, then gives it back.
     */
    static final class Borrow extends Event {
        int id;
        String thread;
        long holdMs;
        long timeoutMs = -1; // Semaphore: tryAcquire(timeoutMs); -1: acquire()
    }

    /**
     * A schedule directive (kind=scheduled): schedule(task, delay), scheduleAtFixedRate or
     * scheduleWithFixedDelay, made by the submitter thread. Run k sleeps serviceMs[k-1] (the
     * last value repeats) and run failRun throws.
     */
    static final class Sched extends Event {
        int id;
        String mode; // once, fixed-rate, fixed-delay
        long delayMs;
        long periodMs;
        long[] serviceMs;
        int failRun;
    }

    /**
     * A cancel directive (kind=scheduled): cancel(false) on the future of an earlier schedule
     * directive, made by the controller thread (R97).
     */
    static final class Cancel extends Event {
        int id;
    }

    /** An input error, printed like Go's inputerr: FILE:LINE:COL: KEY: msg (allowed). */
    static final class Error extends Exception {
        private static final long serialVersionUID = 1L;
        final String file;
        final int line;
        final int col;
        final String key;
        final String msg;
        final String allowed;

        Error(String file, int line, int col, String key, String msg, String allowed) {
            super(msg);
            this.file = file;
            this.line = line;
            this.col = col;
            this.key = key;
            this.msg = msg;
            this.allowed = allowed;
        }

        String format() {
            StringBuilder b = new StringBuilder();
            if (!file.isEmpty()) {
                b.append(file);
                if (line > 0) {
                    b.append(':').append(line);
                    if (col > 0) {
                        b.append(':').append(col);
                    }
                }
                b.append(": ");
            }
            if (key != null && !key.isEmpty()) {
                b.append(key).append(": ");
            }
            b.append(msg);
            if (allowed != null && !allowed.isEmpty()) {
                b.append(" (").append(allowed).append(')');
            }
            return b.toString();
        }
    }

    /** A key=value token with the 1-based column where it starts. */
    private static final class Token {
        final String key;
        final String value;
        final int col;

        Token(String key, String value, int col) {
            this.key = key;
            this.value = value;
            this.col = col;
        }
    }

    // ----------------------------------------------------------------------------------------
    // Parsing

    /** The timed directives that only a pool script has. */
    private static final Set<String> POOL_ONLY = Set.of("submit", "schedule", "cancel", "shutdown", "shutdownNow");

    private static final String DIRECTIVES = "pool, submit, schedule, cancel, set, shutdown, shutdownNow, resource, borrow, sample, end";

    /** Schedule directives by id, and the ids already cancelled, while parsing. */
    private final Map<Integer, Sched> schedById = new java.util.HashMap<>();
    private final Set<Integer> cancelledIds = new HashSet<>();

    static Script parse(String file, List<String> lines) throws Error {
        Script s = new Script(file);
        Set<Integer> ids = new HashSet<>();
        long lastAt = 0;
        int lastAtLine = 0;
        for (int i = 0; i < lines.size(); i++) {
            int lineNo = i + 1;
            String raw = lines.get(i);
            int hash = raw.indexOf('#');
            String text = hash >= 0 ? raw.substring(0, hash) : raw;
            List<String> words = new ArrayList<>();
            List<Integer> cols = new ArrayList<>();
            split(text, words, cols);
            if (words.isEmpty()) {
                continue;
            }
            String directive = words.get(0);
            int dcol = cols.get(0);
            Map<String, Token> kv = new LinkedHashMap<>();
            for (int w = 1; w < words.size(); w++) {
                String word = words.get(w);
                int eq = word.indexOf('=');
                if (eq <= 0) {
                    throw new Error(file, lineNo, cols.get(w), word, "expected key=value", null);
                }
                String key = word.substring(0, eq);
                if (kv.containsKey(key)) {
                    throw new Error(file, lineNo, cols.get(w), key, "given twice", null);
                }
                kv.put(key, new Token(key, word.substring(eq + 1), cols.get(w)));
            }
            if (s.endMs >= 0 && !directive.equals("sample")) {
                throw new Error(file, lineNo, dcol, directive, "after end", "only sample lines and comments may follow end");
            }
            if (s.kind == null && !directive.equals("pool") && !directive.equals("resource")) {
                throw new Error(file, lineNo, dcol, directive, "before the pool directive", "pool or resource must come first");
            }
            switch (directive) {
                case "pool":
                case "resource":
                    if (s.kind != null) {
                        throw new Error(file, lineNo, dcol, directive, "given twice (pool or resource first on line " + s.poolLine + ")",
                                "one pool or one resource directive");
                    }
                    if (directive.equals("pool")) {
                        s.parsePool(lineNo, dcol, kv);
                    } else {
                        s.parseResource(lineNo, dcol, kv);
                    }
                    continue;
                case "sample":
                    s.parseSample(lineNo, dcol, kv);
                    continue;
                default:
                    break;
            }
            Event e;
            if (s.kind.isResource() && POOL_ONLY.contains(directive)) {
                throw new Error(file, lineNo, dcol, directive, "not for a resource script", "borrow, set, sample, end");
            }
            switch (directive) {
                case "borrow":
                    if (!s.kind.isResource()) {
                        throw new Error(file, lineNo, dcol, "borrow", "only in a resource script", "submit");
                    }
                    e = s.parseBorrow(lineNo, dcol, kv, ids);
                    break;
                case "submit":
                    e = s.parseSubmit(lineNo, dcol, kv, ids);
                    break;
                case "schedule":
                    e = s.parseSchedule(lineNo, dcol, kv, ids);
                    s.schedById.put(((Sched) e).id, (Sched) e);
                    break;
                case "cancel":
                    e = s.parseCancel(lineNo, dcol, kv);
                    break;
                case "set":
                    e = s.kind.isResource() ? s.parseResourceSet(lineNo, dcol, kv) : s.parseSet(lineNo, dcol, kv);
                    break;
                case "shutdown":
                case "shutdownNow": {
                    if (s.kind == Kind.JETTY) {
                        throw new Error(file, lineNo, dcol, directive, "not supported for kind=jetty",
                                "QueuedThreadPool has no shutdown; use end");
                    }
                    Shutdown sd = new Shutdown();
                    sd.now = directive.equals("shutdownNow");
                    sd.atMs = s.at(lineNo, dcol, kv);
                    s.noOtherKeys(lineNo, kv, "at");
                    e = sd;
                    break;
                }
                case "end":
                    s.endMs = s.at(lineNo, dcol, kv);
                    s.noOtherKeys(lineNo, kv, "at");
                    s.endLine = lineNo;
                    e = null;
                    break;
                default: {
                    throw new Error(file, lineNo, dcol, directive, "unknown directive", DIRECTIVES);
                }
            }
            long at = e != null ? e.atMs : s.endMs;
            if (at < lastAt) {
                throw new Error(file, lineNo, kv.get("at").col, "at",
                        "at=" + at + " is earlier than at=" + lastAt + " on line " + lastAtLine,
                        "timed directives in time order");
            }
            lastAt = at;
            lastAtLine = lineNo;
            if (e != null) {
                e.line = lineNo;
                e.index = s.events.size();
                s.events.add(e);
            }
        }
        if (s.kind == null) {
            throw new Error(file, 0, 0, "pool", "missing", "one pool or resource directive on the first line");
        }
        if (s.endMs < 0) {
            throw new Error(file, 0, 0, "end", "missing", "end at=MS after the last event");
        }
        if (!s.samples.isEmpty() && s.samples.last() > s.endMs) {
            throw new Error(file, s.endLine, 0, "sample", "sample at " + s.samples.last() + " ms is after end at=" + s.endMs,
                    "samples at or before end");
        }
        if (!s.kind.isResource()) {
            s.checkSets();
        }
        return s;
    }

    private static void split(String text, List<String> words, List<Integer> cols) {
        int i = 0;
        int n = text.length();
        while (i < n) {
            while (i < n && Character.isWhitespace(text.charAt(i))) {
                i++;
            }
            int start = i;
            while (i < n && !Character.isWhitespace(text.charAt(i))) {
                i++;
            }
            if (i > start) {
                words.add(text.substring(start, i));
                cols.add(start + 1);
            }
        }
    }

    private void noOtherKeys(int line, Map<String, Token> kv, String... allowed) throws Error {
        Set<String> ok = Set.of(allowed);
        for (Token t : kv.values()) {
            if (!ok.contains(t.key)) {
                throw new Error(file, line, t.col, t.key, "unknown key", String.join(", ", allowed));
            }
        }
    }

    private long at(int line, int dcol, Map<String, Token> kv) throws Error {
        Token t = kv.get("at");
        if (t == null) {
            throw new Error(file, line, dcol, "at", "missing", "at=MS, integer milliseconds from t=0");
        }
        return nonNegLong(line, t);
    }

    private long nonNegLong(int line, Token t) throws Error {
        long v;
        try {
            v = Long.parseLong(t.value);
        } catch (NumberFormatException x) {
            throw new Error(file, line, t.col, t.key, "\"" + t.value + "\" is not an integer", "integer >= 0");
        }
        if (v < 0) {
            throw new Error(file, line, t.col, t.key, t.value + " is negative", "integer >= 0");
        }
        if (v > MAX_MS) {
            throw new Error(file, line, t.col, t.key, t.value + " is too large", "integer <= " + MAX_MS);
        }
        return v;
    }

    private int intOrUnbounded(int line, Token t, boolean unboundedOK) throws Error {
        if (unboundedOK && t.value.equals("unbounded")) {
            return UNBOUNDED;
        }
        String allowed = unboundedOK ? "integer or \"unbounded\"" : "integer";
        long v;
        try {
            v = Long.parseLong(t.value);
        } catch (NumberFormatException x) {
            throw new Error(file, line, t.col, t.key, "\"" + t.value + "\" is not an integer", allowed);
        }
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
            throw new Error(file, line, t.col, t.key, t.value + " is out of range", "a 32-bit integer");
        }
        return (int) v;
    }

    private boolean bool(int line, Token t) throws Error {
        if (t.value.equals("true")) {
            return true;
        }
        if (t.value.equals("false")) {
            return false;
        }
        throw new Error(file, line, t.col, t.key, "\"" + t.value + "\" is not a boolean", "true, false");
    }

    private String oneOf(int line, Token t, String... allowed) throws Error {
        for (String a : allowed) {
            if (a.equals(t.value)) {
                return a;
            }
        }
        throw new Error(file, line, t.col, t.key, "unknown value \"" + t.value + "\"", String.join(", ", allowed));
    }

    private void parsePool(int line, int dcol, Map<String, Token> kv) throws Error {
        poolLine = line;
        Token kt = kv.get("kind");
        if (kt == null) {
            throw new Error(file, line, dcol, "kind", "missing", "jdk, tomcat, jetty, scheduled");
        }
        kind = Kind.valueOf(oneOf(line, kt, "jdk", "tomcat", "jetty", "scheduled").toUpperCase(java.util.Locale.ROOT));
        switch (kind) {
            case JDK:
                noOtherKeys(line, kv, "kind", "core", "max", "keepAliveMs", "queue", "capacity", "fair", "rejection",
                        "allowCoreThreadTimeOut", "prestart");
                break;
            case TOMCAT:
                noOtherKeys(line, kv, "kind", "core", "max", "keepAliveMs", "queue", "capacity", "rejection",
                        "allowCoreThreadTimeOut", "prestart");
                break;
            case JETTY:
                noOtherKeys(line, kv, "kind", "core", "max", "keepAliveMs", "rejection");
                break;
            case SCHEDULED:
                // The constructor fixes max (Integer.MAX_VALUE), keepAlive (10 ms) and the queue (R88).
                noOtherKeys(line, kv, "kind", "core", "rejection", "allowCoreThreadTimeOut", "prestart",
                        "continuePeriodic", "executeDelayed", "removeOnCancel");
                max = UNBOUNDED;
                keepAliveMs = 10;
                queue = "delayed";
                capacity = UNBOUNDED;
                if (kv.containsKey("prestart")) {
                    prestart = bool(line, kv.get("prestart"));
                }
                if (kv.containsKey("continuePeriodic")) {
                    continuePeriodic = bool(line, kv.get("continuePeriodic"));
                }
                if (kv.containsKey("executeDelayed")) {
                    executeDelayed = bool(line, kv.get("executeDelayed"));
                }
                if (kv.containsKey("removeOnCancel")) {
                    removeOnCancel = bool(line, kv.get("removeOnCancel"));
                }
                break;
        }
        for (String req : kind == Kind.SCHEDULED ? new String[] {"core"} : new String[] {"core", "max"}) {
            if (!kv.containsKey(req)) {
                throw new Error(file, line, dcol, req, "missing", "integer" + (req.equals("max") ? " or \"unbounded\"" : ""));
            }
        }
        Token coreT = kv.get("core");
        Token maxT = kv.get("max");
        core = intOrUnbounded(line, coreT, false);
        if (maxT != null) {
            max = intOrUnbounded(line, maxT, true);
        }
        Token kaT = kv.get("keepAliveMs");
        if (kaT != null) {
            keepAliveMs = nonNegLong(line, kaT);
        }
        if (kv.containsKey("rejection")) {
            rejection = kind == Kind.JETTY
                    ? oneOf(line, kv.get("rejection"), "abort")
                    : oneOf(line, kv.get("rejection"), "abort", "caller-runs", "discard", "discard-oldest");
        }
        if (kv.containsKey("allowCoreThreadTimeOut")) {
            allowCoreThreadTimeOut = bool(line, kv.get("allowCoreThreadTimeOut"));
        }
        Token qT = kv.get("queue");
        Token capT = kv.get("capacity");
        Token fairT = kv.get("fair");
        switch (kind) {
            case JDK:
                if (qT != null) {
                    queue = oneOf(line, qT, "linked", "array", "synchronous", "priority");
                }
                if (fairT != null) {
                    fair = bool(line, fairT);
                    if (fair && !queue.equals("synchronous") && !queue.equals("array")) {
                        throw new Error(file, line, fairT.col, "fair", "queue=" + queue + " has no fair mode",
                                "fair=true only with queue=synchronous or queue=array");
                    }
                }
                switch (queue) {
                    case "linked":
                        if (capT != null) {
                            capacity = positive(line, capT, true);
                        }
                        break;
                    case "array":
                        if (capT == null) {
                            throw new Error(file, line, dcol, "capacity", "missing for queue=array", "integer >= 1");
                        }
                        capacity = positive(line, capT, false);
                        break;
                    case "synchronous":
                        if (capT != null) {
                            throw new Error(file, line, capT.col, "capacity", "queue=synchronous has no capacity", "leave it out");
                        }
                        capacity = 0;
                        break;
                    case "priority":
                        if (capT != null && !capT.value.equals("unbounded")) {
                            throw new Error(file, line, capT.col, "capacity", "PriorityBlockingQueue is unbounded",
                                    "\"unbounded\" or leave it out");
                        }
                        break;
                    default:
                        break;
                }
                if (kv.containsKey("prestart")) {
                    prestart = bool(line, kv.get("prestart"));
                }
                break;
            case TOMCAT:
                if (qT != null) {
                    queue = oneOf(line, qT, "tomcat");
                }
                queue = "tomcat";
                if (capT != null) {
                    capacity = positive(line, capT, true);
                }
                if (kv.containsKey("prestart")) {
                    Token pt = kv.get("prestart");
                    if (!bool(line, pt)) {
                        throw new Error(file, line, pt.col, "prestart", "Tomcat's constructor always prestarts core threads (R65)",
                                "true, or leave it out");
                    }
                    prestart = true;
                }
                prestart = true;
                break;
            case JETTY:
                queue = "jetty";
                if (keepAliveMs > Integer.MAX_VALUE) {
                    throw new Error(file, line, kaT.col, "keepAliveMs", "too large for Jetty's int idleTimeout", "<= 2147483647");
                }
                break;
        }
        // Constructor checks (R2 for JDK and Tomcat; QueuedThreadPool for Jetty).
        if (core < 0) {
            throw new Error(file, line, coreT.col, "core", core + " is negative", "integer >= 0");
        }
        if (max <= 0) {
            throw new Error(file, line, maxT.col, "max", max + " is not positive", "integer >= 1 or \"unbounded\"");
        }
        if (max < core) {
            throw new Error(file, line, maxT == null ? coreT.col : maxT.col, "max", "max=" + max + " is below core=" + core,
                    "max >= core");
        }
        if (allowCoreThreadTimeOut && keepAliveMs <= 0) {
            throw new Error(file, line, kv.get("allowCoreThreadTimeOut").col, "allowCoreThreadTimeOut",
                    "needs keepAliveMs > 0 (R24)", "keepAliveMs >= 1, or allowCoreThreadTimeOut=false");
        }
    }

    /**
     * The resource directive: kind=hikari (HikariCP's HikariDataSource over the test DataSource,
     * spec §14.1) or kind=semaphore (java.util.concurrent.Semaphore, §14.2).
     */
    private void parseResource(int line, int dcol, Map<String, Token> kv) throws Error {
        poolLine = line;
        Token kt = kv.get("kind");
        if (kt == null) {
            throw new Error(file, line, dcol, "kind", "missing", "hikari, semaphore");
        }
        kind = Kind.valueOf(oneOf(line, kt, "hikari", "semaphore").toUpperCase(java.util.Locale.ROOT));
        if (kind == Kind.SEMAPHORE) {
            noOtherKeys(line, kv, "kind", "permits", "fair");
            Token pt = kv.get("permits");
            if (pt == null) {
                throw new Error(file, line, dcol, "permits", "missing", "integer >= 0");
            }
            permits = intOrUnbounded(line, pt, false);
            if (permits < 0) {
                throw new Error(file, line, pt.col, "permits", permits + " is negative", "integer >= 0");
            }
            if (kv.containsKey("fair")) {
                fair = bool(line, kv.get("fair"));
            }
            return;
        }
        noOtherKeys(line, kv, "kind", "maximumPoolSize", "minimumIdle", "connectionTimeoutMs", "idleTimeoutMs",
                "maxLifetimeMs", "housekeepingMs", "connectMs");
        // What HikariConfig's setters refuse (IllegalArgumentException) is refused here, with its
        // position; what validateNumerics corrects is left to it (R150).
        Token t = kv.get("maximumPoolSize");
        if (t != null) {
            maximumPoolSize = intOrUnbounded(line, t, false);
            if (maximumPoolSize < 1 && maximumPoolSize != -1) {
                throw new Error(file, line, t.col, t.key, "setMaximumPoolSize(" + maximumPoolSize + ") throws IllegalArgumentException",
                        "integer >= 1, or -1 to leave it unset");
            }
        }
        t = kv.get("minimumIdle");
        if (t != null) {
            minimumIdle = intOrUnbounded(line, t, false);
            if (minimumIdle < -1) {
                throw new Error(file, line, t.col, t.key, "setMinimumIdle(" + minimumIdle + ") throws IllegalArgumentException",
                        "integer >= 0, or -1 to leave it unset");
            }
        }
        t = kv.get("connectionTimeoutMs");
        if (t != null) {
            connectionTimeoutMs = nonNegLong(line, t);
            if (connectionTimeoutMs > 0 && connectionTimeoutMs < 250) {
                throw new Error(file, line, t.col, t.key, "setConnectionTimeout(" + connectionTimeoutMs + ") throws IllegalArgumentException",
                        "0 (Integer.MAX_VALUE) or >= 250");
            }
        }
        t = kv.get("idleTimeoutMs");
        if (t != null) {
            idleTimeoutMs = nonNegLong(line, t);
        }
        t = kv.get("maxLifetimeMs");
        if (t != null) {
            maxLifetimeMs = nonNegLong(line, t);
        }
        t = kv.get("housekeepingMs");
        if (t != null) {
            housekeepingMs = nonNegLong(line, t);
            if (housekeepingMs == 0) {
                throw new Error(file, line, t.col, t.key, "0 is not a period", "integer >= 1");
            }
        }
        t = kv.get("connectMs");
        if (t != null) {
            connectMs = nonNegLong(line, t);
        }
    }

    private Borrow parseBorrow(int line, int dcol, Map<String, Token> kv, Set<Integer> ids) throws Error {
        if (kind == Kind.SEMAPHORE) {
            noOtherKeys(line, kv, "at", "id", "thread", "holdMs", "timeoutMs");
        } else {
            noOtherKeys(line, kv, "at", "id", "thread", "holdMs");
        }
        Borrow b = new Borrow();
        b.atMs = at(line, dcol, kv);
        b.id = newId(line, dcol, kv, ids);
        Token th = kv.get("thread");
        if (th == null) {
            throw new Error(file, line, dcol, "thread", "missing", "a name of letters, digits, '_' and '-'");
        }
        if (!th.value.matches("[A-Za-z0-9_-]+")) {
            throw new Error(file, line, th.col, "thread", "\"" + th.value + "\" is not a name", "letters, digits, '_' and '-'");
        }
        b.thread = th.value;
        Token h = kv.get("holdMs");
        if (h == null) {
            throw new Error(file, line, dcol, "holdMs", "missing", "integer >= 0");
        }
        b.holdMs = nonNegLong(line, h);
        Token to = kv.get("timeoutMs");
        if (to != null) {
            b.timeoutMs = nonNegLong(line, to);
        }
        return b;
    }

    /** A set directive of a HikariCP script: HikariConfigMXBean setters, which skip validateNumerics. */
    private SetEvent parseResourceSet(int line, int dcol, Map<String, Token> kv) throws Error {
        if (kind != Kind.HIKARI) {
            throw new Error(file, line, dcol, "set", "a Semaphore has no setters", "leave it out");
        }
        SetEvent e = new SetEvent();
        e.atMs = at(line, dcol, kv);
        noOtherKeys(line, kv, "at", "idleTimeoutMs", "maxLifetimeMs");
        for (Token t : kv.values()) {
            if (!t.key.equals("at")) {
                e.changes.add(new Change(t.key, nonNegLong(line, t), t.col));
            }
        }
        if (e.changes.isEmpty()) {
            throw new Error(file, line, dcol, "set", "changes nothing", "idleTimeoutMs=, maxLifetimeMs=");
        }
        return e;
    }

    private int positive(int line, Token t, boolean unboundedOK) throws Error {
        int v = intOrUnbounded(line, t, unboundedOK);
        if (v <= 0) {
            throw new Error(file, line, t.col, t.key, v + " is not positive",
                    unboundedOK ? "integer >= 1 or \"unbounded\"" : "integer >= 1");
        }
        return v;
    }

    private void parseSample(int line, int dcol, Map<String, Token> kv) throws Error {
        noOtherKeys(line, kv, "every", "from", "until", "at");
        Token atT = kv.get("at");
        if (atT != null) {
            for (String part : atT.value.split(",", -1)) {
                long v;
                try {
                    v = Long.parseLong(part);
                } catch (NumberFormatException x) {
                    throw new Error(file, line, atT.col, "at", "\"" + part + "\" is not an integer", "comma-separated integers >= 0");
                }
                if (v < 0 || v > MAX_MS) {
                    throw new Error(file, line, atT.col, "at", part + " is out of range",
                            "comma-separated integers from 0 to " + MAX_MS);
                }
                samples.add(v);
            }
        }
        Token everyT = kv.get("every");
        Token fromT = kv.get("from");
        Token untilT = kv.get("until");
        if (everyT == null && (fromT != null || untilT != null)) {
            throw new Error(file, line, dcol, "every", "missing", "every=MS with from= and until=");
        }
        if (everyT != null) {
            long every = nonNegLong(line, everyT);
            if (every == 0) {
                throw new Error(file, line, everyT.col, "every", "0 is not positive", "integer >= 1");
            }
            if (untilT == null) {
                throw new Error(file, line, dcol, "until", "missing", "until=MS with every=");
            }
            long from = fromT == null ? 0 : nonNegLong(line, fromT);
            long until = nonNegLong(line, untilT);
            if (until < from) {
                throw new Error(file, line, untilT.col, "until", "until=" + until + " is before from=" + from, "until >= from");
            }
            if ((until - from) / every > 1_000_000) {
                throw new Error(file, line, everyT.col, "every", "more than 1000000 samples", "fewer samples");
            }
            for (long t = from; t <= until; t += every) {
                samples.add(t);
            }
        }
        if (atT == null && everyT == null) {
            throw new Error(file, line, dcol, "sample", "needs at= or every=", "at=T1,T2,... or every= from= until=");
        }
    }

    /** The id= of a submit or schedule directive: present, >= 1, and not used before. */
    private int newId(int line, int dcol, Map<String, Token> kv, Set<Integer> ids) throws Error {
        Token idT = kv.get("id");
        if (idT == null) {
            throw new Error(file, line, dcol, "id", "missing", "a unique integer >= 1");
        }
        int id = intOrUnbounded(line, idT, false);
        if (id <= 0) {
            throw new Error(file, line, idT.col, "id", id + " is not positive", "a unique integer >= 1");
        }
        if (!ids.add(id)) {
            throw new Error(file, line, idT.col, "id", "id " + id + " used twice", "a unique integer >= 1");
        }
        return id;
    }

    private Sched parseSchedule(int line, int dcol, Map<String, Token> kv, Set<Integer> ids) throws Error {
        if (kind != Kind.SCHEDULED) {
            throw new Error(file, line, dcol, "schedule", "only for kind=scheduled", "submit");
        }
        noOtherKeys(line, kv, "at", "id", "mode", "delayMs", "periodMs", "serviceMs", "failRun");
        Sched s = new Sched();
        s.atMs = at(line, dcol, kv);
        s.id = newId(line, dcol, kv, ids);
        Token mT = kv.get("mode");
        if (mT == null) {
            throw new Error(file, line, dcol, "mode", "missing", "once, fixed-rate, fixed-delay");
        }
        s.mode = oneOf(line, mT, "once", "fixed-rate", "fixed-delay");
        Token dT = kv.get("delayMs");
        s.delayMs = dT == null ? 0 : nonNegLong(line, dT);
        Token pT = kv.get("periodMs");
        if (s.mode.equals("once")) {
            if (pT != null) {
                throw new Error(file, line, pT.col, "periodMs", "mode=once has no period", "leave it out");
            }
        } else {
            if (pT == null) {
                throw new Error(file, line, dcol, "periodMs", "missing for mode=" + s.mode, "integer >= 1");
            }
            s.periodMs = nonNegLong(line, pT);
            if (s.periodMs == 0) {
                throw new Error(file, line, pT.col, "periodMs", "0 is not positive (R94, R95: IllegalArgumentException)",
                        "integer >= 1");
            }
        }
        Token svT = kv.get("serviceMs");
        if (svT == null) {
            throw new Error(file, line, dcol, "serviceMs", "missing", "integers >= 0, comma-separated: run k sleeps the k-th");
        }
        String[] parts = svT.value.split(",", -1);
        s.serviceMs = new long[parts.length];
        for (int i = 0; i < parts.length; i++) {
            try {
                s.serviceMs[i] = Long.parseLong(parts[i]);
            } catch (NumberFormatException x) {
                throw new Error(file, line, svT.col, "serviceMs", "\"" + parts[i] + "\" is not an integer",
                        "integers >= 0, comma-separated");
            }
            if (s.serviceMs[i] < 0 || s.serviceMs[i] > MAX_MS) {
                throw new Error(file, line, svT.col, "serviceMs", parts[i] + " is out of range", "integers from 0 to " + MAX_MS);
            }
        }
        Token fT = kv.get("failRun");
        if (fT != null) {
            s.failRun = intOrUnbounded(line, fT, false);
            if (s.failRun <= 0) {
                throw new Error(file, line, fT.col, "failRun", s.failRun + " is not positive", "the run that throws, from 1");
            }
        }
        return s;
    }

    private Cancel parseCancel(int line, int dcol, Map<String, Token> kv) throws Error {
        if (kind != Kind.SCHEDULED) {
            throw new Error(file, line, dcol, "cancel", "only for kind=scheduled", "schedule directives have futures to cancel");
        }
        noOtherKeys(line, kv, "at", "id");
        Cancel c = new Cancel();
        c.atMs = at(line, dcol, kv);
        Token idT = kv.get("id");
        if (idT == null) {
            throw new Error(file, line, dcol, "id", "missing", "the id of an earlier schedule directive");
        }
        c.id = intOrUnbounded(line, idT, false);
        if (!schedById.containsKey(c.id)) {
            throw new Error(file, line, idT.col, "id", "no earlier schedule directive has id " + c.id,
                    "the id of an earlier schedule directive");
        }
        if (!cancelledIds.add(c.id)) {
            throw new Error(file, line, idT.col, "id", "schedule " + c.id + " is cancelled twice", "one cancel per schedule");
        }
        return c;
    }

    private Submit parseSubmit(int line, int dcol, Map<String, Token> kv, Set<Integer> ids) throws Error {
        noOtherKeys(line, kv, "at", "id", "serviceMs", "priority", "fail");
        Submit s = new Submit();
        s.atMs = at(line, dcol, kv);
        s.id = newId(line, dcol, kv, ids);
        Token svT = kv.get("serviceMs");
        if (svT == null) {
            throw new Error(file, line, dcol, "serviceMs", "missing", "integer >= 0");
        }
        s.serviceMs = nonNegLong(line, svT);
        Token prT = kv.get("priority");
        if (prT != null) {
            if (!queue.equals("priority")) {
                throw new Error(file, line, prT.col, "priority", "only used with queue=priority", "leave it out");
            }
            s.priority = intOrUnbounded(line, prT, false);
        }
        Token fT = kv.get("fail");
        if (fT != null) {
            s.fail = bool(line, fT);
        }
        return s;
    }

    private SetEvent parseSet(int line, int dcol, Map<String, Token> kv) throws Error {
        SetEvent e = new SetEvent();
        e.atMs = at(line, dcol, kv);
        if (kind == Kind.JETTY) {
            noOtherKeys(line, kv, "at", "core", "max", "keepAliveMs");
        } else {
            noOtherKeys(line, kv, "at", "core", "max", "keepAliveMs", "allowCoreThreadTimeOut");
        }
        for (Token t : kv.values()) {
            switch (t.key) {
                case "at":
                    break;
                case "core":
                    e.changes.add(new Change("core", intOrUnbounded(line, t, false), t.col));
                    break;
                case "max":
                    e.changes.add(new Change("max", intOrUnbounded(line, t, true), t.col));
                    break;
                case "keepAliveMs": {
                    long v = nonNegLong(line, t);
                    if (kind == Kind.JETTY && v > Integer.MAX_VALUE) {
                        throw new Error(file, line, t.col, "keepAliveMs", "too large for Jetty's int idleTimeout", "<= 2147483647");
                    }
                    e.changes.add(new Change("keepAliveMs", v, t.col));
                    break;
                }
                case "allowCoreThreadTimeOut":
                    e.changes.add(new Change("allowCoreThreadTimeOut", bool(line, t) ? 1 : 0, t.col));
                    break;
                default:
                    break;
            }
        }
        if (e.changes.isEmpty()) {
            throw new Error(file, line, dcol, "set", "changes nothing",
                    kind == Kind.JETTY ? "core=, max=, keepAliveMs=" : "core=, max=, keepAliveMs=, allowCoreThreadTimeOut=");
        }
        return e;
    }

    /**
     * Replays the set directives against the setters' argument checks (R21–R24 for JDK and
     * Tomcat), so that a setter that would throw is reported before the run, with its position.
     * Jetty's setters never throw: setMinThreads/setMaxThreads drag the other bound along (R100).
     */
    private void checkSets() throws Error {
        int c = core;
        int m = max;
        long k = keepAliveMs;
        boolean acto = allowCoreThreadTimeOut;
        for (Event ev : events) {
            if (!(ev instanceof SetEvent)) {
                continue;
            }
            for (Change ch : ((SetEvent) ev).changes) {
                switch (ch.key) {
                    case "core": {
                        long n = ch.value;
                        if (kind == Kind.JETTY) {
                            if (n < 0) {
                                throw new Error(file, ev.line, ch.col, "core", n + " is negative", "integer >= 0");
                            }
                            c = (int) n;
                            m = Math.max(m, c);
                        } else {
                            if (n < 0 || n > m) {
                                throw new Error(file, ev.line, ch.col, "core",
                                        "setCorePoolSize(" + n + ") throws IllegalArgumentException with max=" + m + " (R21)",
                                        "0 <= core <= max at that point; order the keys on the line");
                            }
                            c = (int) n;
                        }
                        break;
                    }
                    case "max": {
                        long n = ch.value;
                        if (kind == Kind.JETTY) {
                            if (n <= 0) {
                                throw new Error(file, ev.line, ch.col, "max", n + " is not positive", "integer >= 1");
                            }
                            m = (int) n;
                            c = Math.min(c, m);
                        } else {
                            if (n <= 0 || n < c) {
                                throw new Error(file, ev.line, ch.col, "max",
                                        "setMaximumPoolSize(" + n + ") throws IllegalArgumentException with core=" + c + " (R22)",
                                        "max >= 1 and max >= core at that point; order the keys on the line");
                            }
                            m = (int) n;
                        }
                        break;
                    }
                    case "keepAliveMs":
                        if (ch.value == 0 && acto) {
                            throw new Error(file, ev.line, ch.col, "keepAliveMs",
                                    "setKeepAliveTime(0) throws IllegalArgumentException while allowCoreThreadTimeOut (R23)",
                                    "keepAliveMs >= 1");
                        }
                        k = ch.value;
                        break;
                    case "allowCoreThreadTimeOut":
                        if (ch.value == 1 && k <= 0) {
                            throw new Error(file, ev.line, ch.col, "allowCoreThreadTimeOut",
                                    "allowCoreThreadTimeOut(true) throws IllegalArgumentException with keepAliveMs=0 (R24)",
                                    "set keepAliveMs >= 1 first");
                        }
                        acto = ch.value == 1;
                        break;
                    default:
                        break;
                }
            }
        }
    }

    /** The pool line as the Go side prints it; used in error messages at run time. */
    Error runtimeError(Event e, String key, int col, String msg) {
        return new Error(file, e.line, col, key, msg, null);
    }
}
