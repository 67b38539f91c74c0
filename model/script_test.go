package model

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Scripted model tests, one JDK behaviour per file in testdata/*.txt, in the
// style of cockroachdb/datadriven: each case is a command, a line "----",
// and the output the command must produce, then a blank line. A file opens
// by quoting the rule it checks. Run with -rewrite to regenerate expected
// output after a deliberate change, then read every diff before committing.
//
// Commands:
//
//	new core=N max=N|unbounded keepAlive=D queue=KIND [capacity=N|unbounded]
//	    [fair] [rejection=POLICY] [flavor=jdk|tomcat|scheduled|jetty|thread-per-task|virtual] [acto]
//	    [concurrencyLimit=N] [rejectLimited]   SimpleAsyncTaskExecutor's limit (virtual)
//	    [prestart] [limit=N] [handoff=fifo|lifo] [keepPeriodic] [dropDelayed] [removeOnCancel]
//	    [wakeup=D]   Config.Wakeup: a signalled worker is Woken D later; a
//	                 SynchronousQueue hand-off starts its task D later
//	execute id=N service=D [fails] [priority=N]   (at the current time; a throttled
//	                           virtual executor's waiting caller is printed instead)
//	schedule id=N service=D delay=D [fails]        schedule(task, delay)
//	fixedRate|fixedDelay id=N service=D[,D...] initial=D every=D [failRun=N]
//	    scheduleAtFixedRate / scheduleWithFixedDelay; run k takes the k-th
//	    service time (the last one repeats); run failRun throws
//	cancel id=N                future.cancel(false) on the future of schedule,
//	                           fixedRate or fixedDelay id=N; prints what it returned
//	advance D | advance to=T   fire completions and keepAlive timers in
//	                           (time, completions-before-timers, arming order)
//	set core=N | max=N | keepAlive=D | acto=true|false
//	shutdown | shutdownNow | prestart
//	dump                       workers, wait list and queue
var rewrite = flag.Bool("rewrite", false, "rewrite the expected output of scripted tests")

func TestScripts(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) { runScript(t, file) })
	}
}

type scriptCase struct {
	cmd      string
	want     string
	lineNo   int
	preamble string // comments and blank lines before the command
}

func parseScript(t *testing.T, file string) []scriptCase {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	var cases []scriptCase
	var pre []string
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, "#") || strings.TrimSpace(l) == "" {
			pre = append(pre, l)
			continue
		}
		c := scriptCase{cmd: l, lineNo: i + 1, preamble: strings.Join(pre, "\n")}
		pre = nil
		i++
		if i >= len(lines) || lines[i] != "----" {
			t.Fatalf("%s:%d: want ---- after command", file, i+1)
		}
		var out []string
		for i++; i < len(lines) && lines[i] != ""; i++ {
			out = append(out, lines[i])
		}
		c.want = strings.Join(out, "\n")
		cases = append(cases, c)
	}
	return cases
}

func runScript(t *testing.T, file string) { runScriptWith(t, file, false) }

// runScriptWith runs a script; with notify, the pools report to the
// script's event loop through a Notifier (notifyingEnv) instead of a plain
// Observer.
func runScriptWith(t *testing.T, file string, notify bool) {
	cases := parseScript(t, file)
	env := &scriptEnv{t: t, notify: notify}
	var b strings.Builder
	for _, c := range cases {
		got := env.do(c.cmd)
		if env.pool != nil {
			env.pool.CheckInvariants()
		}
		if *rewrite {
			if c.preamble != "" {
				b.WriteString(c.preamble + "\n")
			}
			b.WriteString(c.cmd + "\n----\n")
			if got != "" {
				b.WriteString(got + "\n")
			}
			b.WriteString("\n")
			continue
		}
		if got != c.want {
			t.Errorf("%s:%d: %s\ngot:\n%s\nwant:\n%s", file, c.lineNo, c.cmd, got, c.want)
		}
	}
	if *rewrite {
		if err := os.WriteFile(file, []byte(strings.TrimRight(b.String(), "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// scriptEnv is a minimal event loop for the model: completions and
// keepAlive timers, ordered by (time, kind, arming order) as package sim
// orders them (completions before timers at the same instant, M3).
type scriptEnv struct {
	t       *testing.T
	pool    Executor
	now     time.Duration
	pending []pendingEvent
	seq     int
	log     []string
	// periodic series by task ID: per-run service times and the failing run.
	series map[uint64]scriptSeries
	// futures of the schedule calls, by task ID.
	futures map[uint64]Future

	// A resource (resource_script_test.go) and what its connections cost.
	res     Resource
	connect time.Duration
	jitter  float64

	// wakeup is the wake-up latency of a pool made with wakeup=D.
	wakeup time.Duration
	// notify: pools report through notifyingEnv, a Notifier.
	notify bool
}

type scriptSeries struct {
	services []time.Duration
	failRun  int32
}

type pendingEvent struct {
	at      time.Duration
	kind    int // 0 completion, 1 keepAlive, 2 a resource's timer, 3 a resource wait's deadline, 4 a wake-up
	seq     int
	w       *Worker
	taskID  uint64
	expired bool
	id      uint64 // kind 2: the timer; kind 3: the borrower
}

func (e *scriptEnv) logf(format string, args ...any) {
	e.log = append(e.log, fmt.Sprintf("%v: ", e.now)+fmt.Sprintf(format, args...))
}

// Observe logs the model's events in the script's words and schedules
// completions and timers.
func (e *scriptEnv) Observe(ev *Event) {
	switch ev.Kind {
	case WorkerChanged:
		e.logf("worker %d %v -> %v", ev.Worker.ID, ev.From, ev.To)
	case Started:
		w, t := ev.Worker, ev.Task
		start := ev.At
		if ev.Handoff {
			start += e.wakeup
			e.logf("worker %d matched with task %d: wakes at %v", w.ID, t.ID, start)
		}
		e.logf("worker %d runs task %d until %v (waited %v)", w.ID, t.ID, start+t.Service, start-t.Arrival)
		e.seq++
		e.pending = append(e.pending, pendingEvent{at: start + t.Service, kind: 0, seq: e.seq, w: w, taskID: t.ID})
	case Signalled:
		e.logf("worker %d signalled: wakes at %v", ev.Worker.ID, ev.At+e.wakeup)
		e.seq++
		e.pending = append(e.pending, pendingEvent{at: ev.At + e.wakeup, kind: 4, seq: e.seq, w: ev.Worker})
	case HandOffMissed:
		e.logf("worker %d woke to an empty queue: waits again", ev.Worker.ID)
	case TimerArmed:
		e.seq++
		e.pending = append(e.pending, pendingEvent{at: ev.Worker.Deadline(), kind: 1, seq: e.seq, w: ev.Worker})
	case Rejected:
		e.logf("task %d rejected", ev.Task.ID)
	case CallerRan:
		e.logf("task %d runs on the caller until %v", ev.Task.ID, ev.At+ev.Task.Service)
	case Lost:
		e.logf("task %d lost: %v", ev.Task.ID, ev.Outcome)
	case RunStateChanged:
		e.logf("pool %v -> %v", ev.RunFrom, ev.RunTo)
	case Rescheduled:
		// The next run's service time.
		t := ev.Task
		s := e.series[t.ID]
		t.Service = s.services[min(int(t.Run), len(s.services))-1]
		t.Fails = t.Run == s.failRun
		e.logf("task %d run %d queued, due at %v", t.ID, t.Run, t.Arrival)
	case PeriodicEnded:
		e.logf("task %d series ended after run %d: %v", ev.Task.ID, ev.Task.Run, ev.End)
	case ResourceGranted, ResourceWaiting, ResourceTimedOut, ResourceTimer, ConnectionCreating, ConnectionOpened, ConnectionClosed:
		e.observeResource(ev)
	case SkippedCancelled:
		run := ""
		if ev.Task.Run > 0 {
			run = fmt.Sprintf(" run %d", ev.Task.Run)
		}
		e.logf("worker %d takes cancelled task %d%s: returns at once", ev.Worker.ID, ev.Task.ID, run)
	}
}

// scheduler returns the pool as a ScheduledThreadPoolExecutor.
func (e *scriptEnv) scheduler() Scheduler {
	s, ok := e.pool.(Scheduler)
	if !ok {
		e.t.Fatalf("%T does not schedule", e.pool)
	}
	return s
}

func (e *scriptEnv) do(cmd string) string {
	e.log = nil
	fields := strings.Fields(cmd)
	args := map[string]string{}
	for _, f := range fields[1:] {
		k, v, _ := strings.Cut(f, "=")
		args[k] = v
	}
	switch fields[0] {
	case "new":
		// A fresh pool starts a fresh clock; the old pool's events are dropped.
		e.now, e.pending, e.pool, e.futures = 0, nil, nil, map[uint64]Future{}
		cfg := Config{
			Core:          e.atoi(args["core"]),
			Max:           e.atoi(args["max"]),
			KeepAlive:     e.dur(args["keepAlive"]),
			QueueCapacity: Unbounded,
		}
		if q, ok := ParseQueueKind(args["queue"]); ok {
			cfg.Queue = q
		} else {
			e.t.Fatalf("bad queue %q", args["queue"])
		}
		if c, ok := args["capacity"]; ok {
			cfg.QueueCapacity = e.atoi(c)
		}
		_, cfg.Fair = args["fair"]
		_, cfg.CoreTimeOut = args["acto"]
		_, cfg.Prestart = args["prestart"]
		if r, ok := args["rejection"]; ok {
			pol, ok := ParsePolicy(r)
			if !ok {
				e.t.Fatalf("bad policy %q", r)
			}
			cfg.Rejection = pol
		}
		switch args["flavor"] {
		case "tomcat":
			cfg.Flavor = Tomcat
		case "scheduled":
			cfg.Flavor = Scheduled
		case "jetty":
			cfg.Flavor = Jetty
		case "thread-per-task":
			cfg.Flavor = ThreadPerTask
		case "virtual":
			cfg.Flavor = Virtual
		}
		if l, ok := args["concurrencyLimit"]; ok {
			cfg.Throttle, cfg.ConcurrencyLimit = true, e.atoi(l)
		}
		_, cfg.RejectWhenLimited = args["rejectLimited"]
		_, cfg.ContinuePeriodicAfterShutdown = args["keepPeriodic"]
		_, cfg.DropDelayedOnShutdown = args["dropDelayed"]
		_, cfg.RemoveOnCancel = args["removeOnCancel"]
		switch args["handoff"] {
		case "lifo":
			cfg.HandOffOverride = ForceLIFO
		case "fifo":
			cfg.HandOffOverride = ForceFIFO
		}
		if l, ok := args["limit"]; ok {
			cfg.ThreadLimit = e.atoi(l)
		}
		e.wakeup = 0
		if d, ok := args["wakeup"]; ok {
			cfg.Wakeup, e.wakeup = true, e.dur(d)
		}
		var obs Observer = e
		if e.notify {
			obs = notifyingEnv{e}
		}
		p, err := New(e.now, cfg, obs)
		if err != nil {
			return "error: " + err.Error()
		}
		e.pool = p
	case "execute":
		id := uint64(e.atoi(args["id"]))
		task := Task{ID: id, Arrival: e.now, Submit: e.now, Service: e.dur(args["service"])}
		_, task.Fails = args["fails"]
		if pr, ok := args["priority"]; ok {
			task.Priority = int32(e.atoi(pr))
		}
		if th, ok := e.pool.(interface{ CallerMustWait() bool }); ok && th.CallerMustWait() {
			return fmt.Sprintf("%v: the caller of execute(task %d) waits for a permit (CallerMustWait)", e.now, id)
		}
		e.pool.Execute(e.now, &task)
	case "schedule":
		task := Task{ID: uint64(e.atoi(args["id"])), Arrival: e.now, Submit: e.now, Service: e.dur(args["service"])}
		_, task.Fails = args["fails"]
		f, err := e.scheduler().Schedule(e.now, task, e.dur(args["delay"]))
		if err != nil {
			e.log = append(e.log, "error: "+err.Error())
		}
		e.futures[task.ID] = f
	case "fixedRate", "fixedDelay":
		var ss scriptSeries
		for _, v := range strings.Split(args["service"], ",") {
			ss.services = append(ss.services, e.dur(v))
		}
		if f, ok := args["failRun"]; ok {
			ss.failRun = int32(e.atoi(f))
		}
		id := uint64(e.atoi(args["id"]))
		if e.series == nil {
			e.series = map[uint64]scriptSeries{}
		}
		e.series[id] = ss
		task := Task{ID: id, Arrival: e.now, Submit: e.now, Service: ss.services[0], Periodic: 1, Run: 1, Fails: ss.failRun == 1}
		call := e.scheduler().ScheduleAtFixedRate
		if fields[0] == "fixedDelay" {
			call = e.scheduler().ScheduleWithFixedDelay
		}
		f, err := call(e.now, task, e.dur(args["initial"]), e.dur(args["every"]))
		if err != nil {
			e.log = append(e.log, "error: "+err.Error())
		}
		e.futures[id] = f
	case "cancel":
		id := uint64(e.atoi(args["id"]))
		ok := e.scheduler().Cancel(e.now, e.futures[id])
		e.log = append(e.log, fmt.Sprintf("cancel(false) returned %v", ok))
	case "advance":
		target := e.now
		if to, ok := args["to"]; ok {
			target = e.dur(to)
		} else {
			target += e.dur(fields[1])
		}
		e.advance(target)
	case "set":
		// One setter call per key, in the order written.
		for _, f := range fields[1:] {
			k, v, _ := strings.Cut(f, "=")
			var c Change
			switch k {
			case "core":
				n := e.atoi(v)
				c.Core = &n
			case "max":
				n := e.atoi(v)
				c.Max = &n
			case "keepAlive":
				d := e.dur(v)
				c.KeepAlive = &d
			case "acto":
				b := v == "true"
				c.CoreTimeOut = &b
			default:
				e.t.Fatalf("bad set key %q", k)
			}
			if err := e.pool.Apply(e.now, c); err != nil {
				e.log = append(e.log, "error: "+err.Error())
			}
		}
	case "shutdown", "shutdownNow":
		c := Change{Shutdown: Graceful}
		if fields[0] == "shutdownNow" {
			c.Shutdown = Immediate
		}
		if err := e.pool.Apply(e.now, c); err != nil {
			e.log = append(e.log, "error: "+err.Error())
		}
	case "prestart":
		n := e.pool.(interface{ PrestartAllCoreThreads(time.Duration) int }).PrestartAllCoreThreads(e.now)
		e.log = append(e.log, fmt.Sprintf("started %d", n))
	case "dump":
		if e.res != nil {
			e.log = append(e.log, e.dumpResource())
			break
		}
		e.log = append(e.log, e.dump())
	default:
		if !e.resourceCommand(fields[0], args) {
			e.t.Fatalf("unknown command %q", fields[0])
		}
	}
	return strings.Join(e.log, "\n")
}

func (e *scriptEnv) advance(target time.Duration) {
	for {
		sort.SliceStable(e.pending, func(i, j int) bool {
			a, b := e.pending[i], e.pending[j]
			if a.at != b.at {
				return a.at < b.at
			}
			if a.kind != b.kind {
				return a.kind < b.kind
			}
			return a.seq < b.seq
		})
		if len(e.pending) == 0 || e.pending[0].at > target {
			break
		}
		ev := e.pending[0]
		e.pending = e.pending[1:]
		e.now = ev.at
		switch ev.kind {
		case 0:
			e.logf("worker %d finishes task %d", ev.w.ID, ev.taskID)
			e.pool.TaskDone(e.now, ev.w)
		case 1:
			if e.pool.TimedWaitExpired(e.now, ev.w) {
				e.logf("worker %d keepAlive expired", ev.w.ID)
			}
		case 2:
			e.res.TimerFired(e.now, ev.id)
		case 3:
			e.res.WaitExpired(e.now, Borrower(ev.id))
		case 4:
			e.logf("worker %d awake", ev.w.ID)
			e.pool.Woken(e.now, ev.w)
		}
		if e.pool != nil {
			e.pool.CheckInvariants()
		}
		if e.res != nil {
			e.res.CheckInvariants()
		}
	}
	e.now = target
}

func (e *scriptEnv) dump() string {
	p := e.pool
	var b strings.Builder
	cfg := p.Config()
	fmt.Fprintf(&b, "%v wc=%d core=%d max=%d busy=%d timed=%d untimed=%d largest=%d completed=%d",
		p.RunState(), p.PoolSize(), cfg.Core, cfg.Max, p.Count(Running), p.Count(IdleTimed), p.Count(IdleUntimed),
		p.LargestPoolSize(), p.CompletedTaskCount())
	if t, ok := p.(*TomcatThreadPoolExecutor); ok {
		fmt.Fprintf(&b, " submitted=%d", t.SubmittedCount())
	}
	var leader *Worker
	if s, ok := p.(*ScheduledThreadPoolExecutor); ok {
		leader = s.Leader()
	}
	p.Workers(func(w *Worker) {
		fmt.Fprintf(&b, "\n  worker %d %v since %v", w.ID, w.State(), w.Since())
		if t, ok := w.Task(); ok {
			fmt.Fprintf(&b, " task %d", t.ID)
		}
		if w.State() == IdleTimed {
			fmt.Fprintf(&b, " deadline %v", w.Deadline())
		}
		if w.Signalled() {
			b.WriteString(" (signalled)")
		}
		if leader != nil && w == leader {
			b.WriteString(" (leader)")
		}
	})
	var parked []string
	p.Parked(func(w *Worker) { parked = append(parked, strconv.Itoa(w.ID)) })
	fmt.Fprintf(&b, "\n  next to receive a task: [%s]", strings.Join(parked, " "))
	var queued []string
	p.Queued(func(t *Task) { queued = append(queued, strconv.FormatUint(t.ID, 10)) })
	fmt.Fprintf(&b, "\n  queue: [%s]", strings.Join(queued, " "))
	switch p := p.(type) {
	case *ScheduledThreadPoolExecutor:
		var due []string
		p.Queued(func(t *Task) { due = append(due, fmt.Sprintf("%d@%v", t.ID, t.Arrival)) })
		fmt.Fprintf(&b, "\n  due: [%s]", strings.Join(due, " "))
		if n := p.CancelledQueued(); n > 0 {
			fmt.Fprintf(&b, "\n  cancelled in the queue: %d", n)
		}
	case *QueuedThreadPool:
		fmt.Fprintf(&b, "\n  lastShrink: %v", p.LastShrink())
	}
	return b.String()
}

func (e *scriptEnv) atoi(s string) int {
	if s == "unbounded" {
		return Unbounded
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		e.t.Fatalf("bad integer %q", s)
	}
	return n
}

func (e *scriptEnv) dur(s string) time.Duration {
	d, err := time.ParseDuration(s)
	if err != nil {
		e.t.Fatalf("bad duration %q", s)
	}
	return d
}
