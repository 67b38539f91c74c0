package conformance

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Sample is one snapshot of the real pool at a scheduled time.
//
// Busy, IdleTimed, IdleUntimed and Other classify every live pool thread from one thread dump
// (ThreadMXBean, one safepoint): a thread with the scripted task on its stack is busy; a thread
// in getTask (JDK, Tomcat) or QueuedThreadPool$Runner.idleJobPoll (Jetty) is idle, timed when
// TIMED_WAITING and untimed when WAITING (R57–R59), or by its queue call (poll or take) when
// caught RUNNABLE (R52); anything else (starting, between two tasks, exiting) is Other.
type Sample struct {
	TMs         int64 // the scheduled time
	PoolSize    int   // getPoolSize() (Jetty: getThreads())
	Busy        int   // threads running a task, from the dump
	IdleTimed   int   // idle in poll(keepAlive): TIMED_WAITING
	IdleUntimed int   // idle in take(): WAITING
	QueueLen    int   // getQueue().size() (Jetty: getQueueSize())
	Completed   int64 // getCompletedTaskCount() (Jetty: the harness's count of finished tasks)
	Rejected    int64 // rejection handler invocations (Tomcat abort, Jetty: RejectedExecutionException from execute)
	Largest     int   // getLargestPoolSize() (Jetty: the harness's largest count of live threads)
	// BusyCounter counts tasks inside their run method on pool threads, a cross-check of Busy.
	BusyCounter int
	// Active is getActiveCount() (Jetty: getBusyThreads()).
	Active int
	// Other counts live pool threads neither busy nor idle at the dump.
	Other int
	// SubmittedCount is Tomcat's submittedCount (R64); -1 for the other pools.
	SubmittedCount int
	// LateMs is how late the sample was taken.
	LateMs float64
}

// Outcome is what became of a submitted task.
type Outcome string

// Task outcomes.
const (
	OutcomePool        Outcome = "pool"        // ran on a pool thread
	OutcomeCaller      Outcome = "caller"      // ran on the submitter (CallerRunsPolicy, R33)
	OutcomeRejected    Outcome = "rejected"    // execute threw RejectedExecutionException
	OutcomeDiscarded   Outcome = "discarded"   // accepted but never run (DiscardPolicy, DiscardOldestPolicy's victim, CallerRuns after shutdown)
	OutcomeDrained     Outcome = "drained"     // returned by shutdownNow (R28), mid-run or at the end
	OutcomeUnsubmitted Outcome = "unsubmitted" // the run ended before its submission (a caller-runs task held the submitter)
)

// Task is what happened to one submitted task. Times are milliseconds from t=0 with 0.1 ms
// resolution; NaN when the thing did not happen.
type Task struct {
	ID int
	// Worker is the 1-based creation index of the thread that ran it, 0 for the submitter
	// (caller-runs), -1 if it never ran.
	Worker   int
	SubmitMs float64 // when execute was called
	StartMs  float64
	EndMs    float64
	Outcome  Outcome
	// Interrupted: its sleep was cut short by an interrupt (shutdownNow).
	Interrupted bool
	// Failed: it threw its scripted RuntimeException.
	Failed bool
	// Unfinished: it was still running when the harness printed its results.
	Unfinished bool
}

// Worker is one thread of the pool, by creation order.
type Worker struct {
	Index     int
	CreatedMs float64 // when the pool's thread factory was called
	ExitedMs  float64 // when its run method returned; NaN if it was alive at the end
	Name      string
}

// Alive reports whether the worker was still alive at the end of the run.
func (w Worker) Alive() bool { return math.IsNaN(w.ExitedMs) }

// Event is a set, cancel, shutdown, shutdownNow or end directive as it happened.
type Event struct {
	AtMs     int64
	ActualMs float64 // NaN if it never happened (the run ended first)
	Kind     string  // set, cancel, shutdown, shutdownNow, end
	Detail   string  // set: the changes; cancel: cancelled=true|false; shutdownNow and end: drained=N
}

// ScheduleState is what became of a schedule directive's future, just before the end of the
// run (the final shutdownNow would cancel everything).
type ScheduleState string

// Schedule states.
const (
	ScheduleActive      ScheduleState = "active"      // still scheduled: a run queued or running
	ScheduleDone        ScheduleState = "done"        // a one-shot task that ran
	ScheduleFailed      ScheduleState = "failed"      // a run threw: the future holds the exception (R96)
	ScheduleCancelled   ScheduleState = "cancelled"   // cancelled: by a cancel directive (R97), or shutdown's policies (R98)
	ScheduleRejected    ScheduleState = "rejected"    // the schedule call threw RejectedExecutionException (R90)
	ScheduleUnsubmitted ScheduleState = "unsubmitted" // the run ended before the call
)

// Scheduled is what happened to one schedule directive.
type Scheduled struct {
	ID       int
	Mode     ScheduleMode
	SubmitMs float64 // when the schedule call was made; NaN if never
	State    ScheduleState
	// Drained: shutdownNow returned its queued run (mid-run or at the end).
	Drained bool
	Runs    int
}

// TaskRun is one run of a scheduled task. Times are milliseconds from t=0.
type TaskRun struct {
	ID, N       int // the schedule's id; the run's number from 1
	Worker      int // creation index of the worker that ran it
	StartMs     float64
	EndMs       float64 // NaN if it had not ended
	Failed      bool    // it threw its scripted exception
	Interrupted bool
}

// ResourceSample is one snapshot of a real resource (a resource script) at a scheduled time:
// for HikariCP its HikariPoolMXBean's getTotalConnections, getActiveConnections,
// getIdleConnections and getThreadsAwaitingConnection; for a Semaphore its permits, those taken
// (permits − availablePermits), availablePermits and getQueueLength.
type ResourceSample struct {
	TMs                          int64
	Total, Active, Idle, Waiting int
	LateMs                       float64 // how late the sample was taken
}

// BorrowResult is what happened to one borrow directive. Times are milliseconds from t=0,
// NaN when the thing did not happen by the end.
type BorrowResult struct {
	ID     int
	Thread string
	// StartMs is when getConnection, acquire or tryAcquire was called.
	StartMs float64
	GotMs   float64 // when it returned a connection or a permit
	// Unit is the connection's number in creation order (from 1; the constructor's first
	// connection is 1), 0 for a permit, -1 if nothing was got.
	Unit int
	// FailedMs is when it gave up: SQLTransientConnectionException after connectionTimeout
	// (R151), or tryAcquire returning false (R160).
	FailedMs   float64
	ReleasedMs float64 // when close or release was called
	// Unfinished: it was still waiting or holding at the end.
	Unfinished bool
}

// Got reports whether the borrow got its connection or permit by the end.
func (b BorrowResult) Got() bool { return !math.IsNaN(b.GotMs) }

// Failed reports whether the borrow gave up by the end.
func (b BorrowResult) Failed() bool { return !math.IsNaN(b.FailedMs) }

// Connection is one connection the test database opened for HikariCP, by creation order.
type Connection struct {
	Unit      int
	ConnectMs float64 // when the pool asked the database for it (negative: before t=0)
	OpenedMs  float64 // when the database returned it
	ClosedMs  float64 // when the pool closed it; NaN if it was open at the end
}

// Result is everything one harness run printed.
type Result struct {
	Samples []Sample
	Tasks   []Task // in submission (file) order
	// Scheduled and Runs report the schedule directives (KindScheduled), in file order, and
	// each of their runs in order.
	Scheduled []Scheduled
	Runs      []TaskRun
	Workers   []Worker
	Events    []Event
	// MaxLatenessMs is the largest delay between a scheduled time (submit, set, shutdown,
	// sample, end) and when it happened. A submit held back by a caller-runs task is measured
	// from when the submitter was free again.
	MaxLatenessMs float64
	// Timing holds every timing line by key: max_lateness_ms, mean_lateness_ms,
	// max_submit_lateness_ms, max_event_lateness_ms, max_sample_lateness_ms, end_lateness_ms,
	// max_submit_delay_ms, max_sample_cost_ms, max_service_overrun_ms (how much longer than
	// serviceMs a task slept), max_hiccup_ms and hiccups_over_10ms (the stalls of a canary
	// thread that sleeps 5 ms again and again: what any thread, the pool's included, may have
	// suffered), max_thread_start_ms (from the thread factory call to the thread running),
	// idle_state_call_mismatches, gc_count, gc_ms, warmup_ms, java_version, vm.
	Timing map[string]string
	// ResourceSamples, Borrows (in file order) and Connections (in creation order) report a
	// resource script; Config is the resource's configuration as the real class reports it
	// once built: for HikariCP its getters after validateNumerics (R150), maximumPoolSize,
	// minimumIdle, connectionTimeoutMs, idleTimeoutMs, maxLifetimeMs, and housekeepingMs;
	// for a Semaphore permits and fair (0 or 1).
	ResourceSamples []ResourceSample
	Borrows         []BorrowResult
	Connections     []Connection
	Config          map[string]int64
	// Warnings are anomalies the harness noticed (an unexpected exception, …).
	Warnings []string
	// Output is the harness's stdout, for logs.
	Output string
}

// Sample returns the sample scheduled at tMs.
func (r *Result) Sample(tMs int64) (Sample, bool) {
	for _, s := range r.Samples {
		if s.TMs == tMs {
			return s, true
		}
	}
	return Sample{}, false
}

// Task returns the task with the given id.
func (r *Result) Task(id int) (Task, bool) {
	for _, t := range r.Tasks {
		if t.ID == id {
			return t, true
		}
	}
	return Task{}, false
}

// TimingMs returns a numeric timing value, or NaN if it is missing or not a number.
func (r *Result) TimingMs(key string) float64 {
	v, err := strconv.ParseFloat(r.Timing[key], 64)
	if err != nil {
		return math.NaN()
	}
	return v
}

// ParseOutput reads the harness's stdout: CSV lines whose first field names the section
// (sample, task, scheduled, run, worker, event, rsample, borrow, conn, config, timing, warning);
// lines starting with # are comments.
func ParseOutput(r io.Reader) (*Result, error) {
	res := &Result{Timing: map[string]string{}}
	var raw strings.Builder
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		raw.WriteString(line)
		raw.WriteByte('\n')
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, ",")
		var err error
		switch f[0] {
		case "sample":
			err = parseSample(res, f)
		case "task":
			err = parseTask(res, f)
		case "worker":
			err = parseWorker(res, f)
		case "event":
			err = parseEvent(res, f)
		case "scheduled":
			err = parseScheduled(res, f)
		case "run":
			err = parseRun(res, f)
		case "rsample":
			err = parseResourceSample(res, f)
		case "borrow":
			err = parseBorrow(res, f)
		case "conn":
			err = parseConnection(res, f)
		case "config":
			err = parseConfig(res, f)
		case "timing":
			if len(f) != 3 {
				err = fmt.Errorf("want 3 fields, got %d", len(f))
				break
			}
			res.Timing[f[1]] = f[2]
		case "warning":
			res.Warnings = append(res.Warnings, strings.Join(f[1:], ","))
		default:
			err = fmt.Errorf("unknown section %q", f[0])
		}
		if err != nil {
			return nil, fmt.Errorf("conformance: parse output: line %d: %w", n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("conformance: parse output: %w", err)
	}
	v, ok := res.Timing["max_lateness_ms"]
	if !ok {
		return nil, fmt.Errorf("conformance: parse output: no timing,max_lateness_ms line (truncated output?)")
	}
	var err error
	if res.MaxLatenessMs, err = strconv.ParseFloat(v, 64); err != nil {
		return nil, fmt.Errorf("conformance: parse output: max_lateness_ms: %w", err)
	}
	res.Output = raw.String()
	return res, nil
}

// fields converts CSV fields with one parse error at most, remembering the first.
type fields struct {
	f   []string
	err error
}

func (p *fields) atoi(i int, name string) int {
	v, err := strconv.Atoi(p.f[i])
	if err != nil && p.err == nil {
		p.err = fmt.Errorf("%s: %w", name, err)
	}
	return v
}

func (p *fields) atoi64(i int, name string) int64 {
	v, err := strconv.ParseInt(p.f[i], 10, 64)
	if err != nil && p.err == nil {
		p.err = fmt.Errorf("%s: %w", name, err)
	}
	return v
}

// ms parses a time; an empty field is NaN (did not happen).
func (p *fields) ms(i int, name string) float64 {
	if p.f[i] == "" {
		return math.NaN()
	}
	v, err := strconv.ParseFloat(p.f[i], 64)
	if err != nil && p.err == nil {
		p.err = fmt.Errorf("%s: %w", name, err)
	}
	return v
}

func parseSample(res *Result, f []string) error {
	if len(f) != 15 {
		return fmt.Errorf("sample: want 15 fields, got %d", len(f))
	}
	p := fields{f: f}
	s := Sample{
		TMs:            p.atoi64(1, "t_ms"),
		PoolSize:       p.atoi(2, "pool_size"),
		Busy:           p.atoi(3, "busy"),
		IdleTimed:      p.atoi(4, "idle_timed"),
		IdleUntimed:    p.atoi(5, "idle_untimed"),
		QueueLen:       p.atoi(6, "queue_len"),
		Completed:      p.atoi64(7, "completed"),
		Rejected:       p.atoi64(8, "rejected"),
		Largest:        p.atoi(9, "largest"),
		BusyCounter:    p.atoi(10, "busy_counter"),
		Active:         p.atoi(11, "active"),
		Other:          p.atoi(12, "other"),
		SubmittedCount: p.atoi(13, "submitted_count"),
		LateMs:         p.ms(14, "late_ms"),
	}
	if p.err != nil {
		return fmt.Errorf("sample: %w", p.err)
	}
	res.Samples = append(res.Samples, s)
	return nil
}

func parseTask(res *Result, f []string) error {
	if len(f) != 8 {
		return fmt.Errorf("task: want 8 fields, got %d", len(f))
	}
	p := fields{f: f}
	t := Task{
		ID:       p.atoi(1, "id"),
		Worker:   p.atoi(2, "worker"),
		SubmitMs: p.ms(3, "submit_ms"),
		StartMs:  p.ms(4, "start_ms"),
		EndMs:    p.ms(5, "end_ms"),
		Outcome:  Outcome(f[6]),
	}
	if p.err != nil {
		return fmt.Errorf("task: %w", p.err)
	}
	switch t.Outcome {
	case OutcomePool, OutcomeCaller, OutcomeRejected, OutcomeDiscarded, OutcomeDrained, OutcomeUnsubmitted:
	default:
		return fmt.Errorf("task: unknown outcome %q", f[6])
	}
	if f[7] != "" {
		for _, note := range strings.Split(f[7], ";") {
			switch note {
			case "interrupted":
				t.Interrupted = true
			case "failed":
				t.Failed = true
			case "unfinished":
				t.Unfinished = true
			default:
				return fmt.Errorf("task: unknown note %q", note)
			}
		}
	}
	res.Tasks = append(res.Tasks, t)
	return nil
}

func parseScheduled(res *Result, f []string) error {
	if len(f) != 7 {
		return fmt.Errorf("scheduled: want 7 fields, got %d", len(f))
	}
	p := fields{f: f}
	sc := Scheduled{ID: p.atoi(1, "id"), Mode: ScheduleMode(f[2]), SubmitMs: p.ms(3, "submit_ms"),
		State: ScheduleState(f[4]), Drained: f[5] == "true", Runs: p.atoi(6, "runs")}
	if p.err != nil {
		return fmt.Errorf("scheduled: %w", p.err)
	}
	switch sc.Mode {
	case ScheduleOnce, ScheduleFixedRate, ScheduleFixedDelay:
	default:
		return fmt.Errorf("scheduled: unknown mode %q", f[2])
	}
	switch sc.State {
	case ScheduleActive, ScheduleDone, ScheduleFailed, ScheduleCancelled, ScheduleRejected, ScheduleUnsubmitted:
	default:
		return fmt.Errorf("scheduled: unknown state %q", f[4])
	}
	if f[5] != "true" && f[5] != "false" {
		return fmt.Errorf("scheduled: drained: want true or false, got %q", f[5])
	}
	res.Scheduled = append(res.Scheduled, sc)
	return nil
}

func parseRun(res *Result, f []string) error {
	if len(f) != 7 {
		return fmt.Errorf("run: want 7 fields, got %d", len(f))
	}
	p := fields{f: f}
	r := TaskRun{ID: p.atoi(1, "id"), N: p.atoi(2, "run"), Worker: p.atoi(3, "worker"), StartMs: p.ms(4, "start_ms"), EndMs: p.ms(5, "end_ms")}
	if p.err != nil {
		return fmt.Errorf("run: %w", p.err)
	}
	if f[6] != "" {
		for _, note := range strings.Split(f[6], ";") {
			switch note {
			case "failed":
				r.Failed = true
			case "interrupted":
				r.Interrupted = true
			case "unfinished":
			default:
				return fmt.Errorf("run: unknown note %q", note)
			}
		}
	}
	res.Runs = append(res.Runs, r)
	return nil
}

// RunsOf returns the runs of the scheduled task id, in order.
func (r *Result) RunsOf(id int) []TaskRun {
	var out []TaskRun
	for _, x := range r.Runs {
		if x.ID == id {
			out = append(out, x)
		}
	}
	return out
}

// ScheduledTask returns the schedule directive with the given id.
func (r *Result) ScheduledTask(id int) (Scheduled, bool) {
	for _, s := range r.Scheduled {
		if s.ID == id {
			return s, true
		}
	}
	return Scheduled{}, false
}

func parseResourceSample(res *Result, f []string) error {
	if len(f) != 7 {
		return fmt.Errorf("rsample: want 7 fields, got %d", len(f))
	}
	p := fields{f: f}
	s := ResourceSample{TMs: p.atoi64(1, "t_ms"), Total: p.atoi(2, "total"), Active: p.atoi(3, "active"),
		Idle: p.atoi(4, "idle"), Waiting: p.atoi(5, "waiting"), LateMs: p.ms(6, "late_ms")}
	if p.err != nil {
		return fmt.Errorf("rsample: %w", p.err)
	}
	res.ResourceSamples = append(res.ResourceSamples, s)
	return nil
}

func parseBorrow(res *Result, f []string) error {
	if len(f) != 9 {
		return fmt.Errorf("borrow: want 9 fields, got %d", len(f))
	}
	p := fields{f: f}
	b := BorrowResult{ID: p.atoi(1, "id"), Thread: f[2], StartMs: p.ms(3, "start_ms"), GotMs: p.ms(4, "got_ms"),
		Unit: p.atoi(5, "unit"), FailedMs: p.ms(6, "failed_ms"), ReleasedMs: p.ms(7, "released_ms")}
	if p.err != nil {
		return fmt.Errorf("borrow: %w", p.err)
	}
	switch f[8] {
	case "":
	case "unfinished":
		b.Unfinished = true
	default:
		return fmt.Errorf("borrow: unknown note %q", f[8])
	}
	res.Borrows = append(res.Borrows, b)
	return nil
}

func parseConnection(res *Result, f []string) error {
	if len(f) != 5 {
		return fmt.Errorf("conn: want 5 fields, got %d", len(f))
	}
	p := fields{f: f}
	c := Connection{Unit: p.atoi(1, "unit"), ConnectMs: p.ms(2, "connect_ms"), OpenedMs: p.ms(3, "opened_ms"), ClosedMs: p.ms(4, "closed_ms")}
	if p.err != nil {
		return fmt.Errorf("conn: %w", p.err)
	}
	res.Connections = append(res.Connections, c)
	return nil
}

func parseConfig(res *Result, f []string) error {
	if len(f) != 3 {
		return fmt.Errorf("config: want 3 fields, got %d", len(f))
	}
	p := fields{f: f}
	v := p.atoi64(2, f[1])
	if p.err != nil {
		return fmt.Errorf("config: %w", p.err)
	}
	if res.Config == nil {
		res.Config = map[string]int64{}
	}
	res.Config[f[1]] = v
	return nil
}

// Borrow returns the borrow directive with the given id's result.
func (r *Result) Borrow(id int) (BorrowResult, bool) {
	for _, b := range r.Borrows {
		if b.ID == id {
			return b, true
		}
	}
	return BorrowResult{}, false
}

// Connection returns the connection with the given number.
func (r *Result) Connection(unit int) (Connection, bool) {
	for _, c := range r.Connections {
		if c.Unit == unit {
			return c, true
		}
	}
	return Connection{}, false
}

// ResourceSample returns the resource sample scheduled at tMs.
func (r *Result) ResourceSample(tMs int64) (ResourceSample, bool) {
	for _, s := range r.ResourceSamples {
		if s.TMs == tMs {
			return s, true
		}
	}
	return ResourceSample{}, false
}

func parseWorker(res *Result, f []string) error {
	if len(f) != 5 {
		return fmt.Errorf("worker: want 5 fields, got %d", len(f))
	}
	p := fields{f: f}
	w := Worker{
		Index:     p.atoi(1, "index"),
		CreatedMs: p.ms(2, "created_ms"),
		ExitedMs:  p.ms(3, "exited_ms"),
		Name:      f[4],
	}
	if p.err != nil {
		return fmt.Errorf("worker: %w", p.err)
	}
	res.Workers = append(res.Workers, w)
	return nil
}

func parseEvent(res *Result, f []string) error {
	if len(f) != 5 {
		return fmt.Errorf("event: want 5 fields, got %d", len(f))
	}
	p := fields{f: f}
	e := Event{AtMs: p.atoi64(1, "at_ms"), ActualMs: p.ms(2, "actual_ms"), Kind: f[3], Detail: f[4]}
	if p.err != nil {
		return fmt.Errorf("event: %w", p.err)
	}
	res.Events = append(res.Events, e)
	return nil
}
