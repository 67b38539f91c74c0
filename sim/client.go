package sim

import (
	"math"
	"time"

	"github.com/poolsim/poolsim/model"
	"github.com/poolsim/poolsim/scenarios"
	"github.com/poolsim/poolsim/workloads"
)

// This file models the callers (workload.client, workload.users): a request
// is one caller waiting for an answer, and each of its attempts is a task.
// A caller gives up after its timeout — the task goes on running, or waits
// in the queue and runs later, and its work is wasted — and may retry after
// a timeout, a rejection or an error, with an exponential back-off, within a
// retry budget. Closed-loop users send a request, wait for its end, think,
// and send the next. What the pool sees is only tasks: the caller's
// patience is invisible to a ThreadPoolExecutor.

// request is one caller's request and its attempts.
type request struct {
	first    time.Duration // when the caller first sent it
	attempts int           // attempts made
	gen      uint32        // the current attempt's number among all attempts (its deadline carries it)
	task     uint64        // the current attempt's task
	live     bool          // the caller waits for the current attempt
	done     bool          // answered, or given up for good
	pending  int           // its tasks not ended yet (attempts it gave up on still run)
	user     int32         // 1 + its user, for closed-loop users (0: open loop)

	service  time.Duration
	steps    []workloads.DrawnStep
	priority int32
	fails    bool
}

// Client event kinds, the order of their events at one instant.
const (
	clientDeadline = iota // a caller's patience ends
	clientSend            // a retry, or a user's next request, is sent
)

type clientState struct {
	spec    scenarios.Client
	timeout workloads.Distribution // nil: callers wait however long
	users   int
	think   workloads.Distribution
	drawer  *workloads.ServiceDrawer

	reqs    []request
	free    []int32
	taskReq map[uint64]int32 // task → 1 + its request
	heap    resHeap          // client events: res holds the kind's argument, arg the request and attempt

	// gens numbers the attempts, so that a deadline outliving its
	// request (whose slot serves another since) is known stale; planned
	// counts the retries decided (the budget's count), retries those sent.
	gens    uint32
	planned int64
	// Counts over the whole run.
	requests, attempts, retries, timeouts, rejected, errors int64
	succeeded, failed, wasted                               int64
	wastedWork                                              time.Duration
	// Steady state: successful answers, and the callers' response times.
	nOK     int64
	respSum float64
	respMax time.Duration
	// silent counts the attempts dropped without a word to their caller.
	silent int64
}

// newClient prepares the callers, with their streams ("client-timeout",
// "think", and the users' service streams).
func (e *Engine) newClient(sc *scenarios.Scenario) error {
	if sc.Client == nil && sc.Users == nil {
		return nil
	}
	c := &clientState{taskReq: map[uint64]int32{}}
	if sc.Client != nil {
		c.spec = *sc.Client
		if sc.Client.Timeout != nil {
			d, err := workloads.NewDistribution(*sc.Client.Timeout, workloads.NewStream(sc.Seed, "client-timeout"))
			if err != nil {
				return prefix(err, "client.timeout.")
			}
			c.timeout = d
		}
	}
	if u := sc.Users; u != nil {
		d, err := workloads.NewDistribution(u.Think, workloads.NewStream(sc.Seed, "think"))
		if err != nil {
			return prefix(err, "users.think.")
		}
		c.think, c.users = d, u.Count
		if c.drawer, err = workloads.NewServiceDrawer(sc.Workload.Phases[0], sc.Seed); err != nil {
			return prefix(err, "service.")
		}
	}
	e.cl = c
	e.rec.clientResponse = histograms.Get().(*durHist)
	for u := 1; u <= c.users; u++ { // each user starts after a think time
		e.pushClient(c.think.Sample(), clientSend, c.newRequest(int32(u)))
	}
	return nil
}

func prefix(err error, p string) error {
	if pe, ok := err.(*workloads.ParamError); ok {
		pe.Field = p + pe.Field
	}
	return err
}

// newRequest returns the handle of a new request (1 + its index).
func (c *clientState) newRequest(user int32) int32 {
	var k int
	if n := len(c.free); n > 0 {
		k = int(c.free[n-1])
		c.free = c.free[:n-1]
	} else {
		c.reqs = append(c.reqs, request{})
		k = len(c.reqs) - 1
	}
	r := &c.reqs[k]
	*r = request{steps: r.steps[:0], user: user}
	return int32(k + 1)
}

func (e *Engine) pushClient(at time.Duration, kind uint8, h int32) {
	c := e.cl
	gen := uint64(c.reqs[h-1].gen)
	c.heap.push(resEntry{at: at, kind: kind, arg: uint64(h)<<32 | gen})
	e.setDue(phaseClient, c.heap.es[0].at)
}

// fireClient handles the earliest client event.
func (e *Engine) fireClient() {
	c := e.cl
	x := c.heap.pop()
	next := never
	if len(c.heap.es) > 0 {
		next = c.heap.es[0].at
	}
	e.setDue(phaseClient, next)
	h, gen := int32(x.arg>>32), uint32(x.arg)
	r := &c.reqs[h-1]
	switch x.kind {
	case clientDeadline:
		if r.live && r.gen == gen {
			r.live = false
			c.timeouts++
			e.retryOrFail(h, "timeout")
		}
	case clientSend:
		if r.user != 0 && r.attempts == 0 {
			// A user's new request: its service is drawn now.
			c.requests++
			r.first = e.now
			var steps []workloads.DrawnStep
			r.service, steps = c.drawer.Draw()
			r.steps = append(r.steps[:0], steps...)
		} else {
			c.retries++
		}
		e.sendAttempt(h)
	}
}

// openRequest makes a request of the arrival being submitted as t, its
// first attempt (open-loop traffic with client behaviour).
func (e *Engine) openRequest(t *model.Task, steps []workloads.DrawnStep) {
	c := e.cl
	h := c.newRequest(0)
	r := &c.reqs[h-1]
	r.first, r.service, r.priority, r.fails = t.Arrival, t.Service, t.Priority, t.Fails
	r.steps = append(r.steps, steps...)
	c.requests++
	e.attemptStarts(h, t)
}

// attemptStarts notes attempt t of request h: the caller waits for it, at
// most its timeout.
func (e *Engine) attemptStarts(h int32, t *model.Task) {
	c := e.cl
	r := &c.reqs[h-1]
	r.attempts++
	c.gens++
	r.task, r.live, r.gen = t.ID, true, c.gens
	r.pending++
	c.attempts++
	c.taskReq[t.ID] = h
	if c.timeout != nil {
		e.pushClient(e.now+c.timeout.Sample(), clientDeadline, h)
	}
}

// sendAttempt submits the next attempt of request h now.
func (e *Engine) sendAttempt(h int32) {
	r := &e.cl.reqs[h-1]
	e.nextTaskID++
	t := &e.submitting
	*t = model.Task{ID: e.nextTaskID, Arrival: e.now, Submit: e.now, Service: r.service, Priority: r.priority, Fails: r.fails}
	if len(r.steps) > 0 {
		t.Program = e.newProgram(r.steps)
	} else if e.vt != nil {
		e.vtPlainProgram(t)
	}
	e.attemptStarts(h, t)
	e.rec.onSubmit(e.now, t)
	if len(e.observers) > 0 {
		e.report(model.Submitted, nil, *t)
	}
	e.pool.Execute(e.now, t)
}

// taskEnded tells the caller of task t how it ended: answered ("ok"),
// refused ("rejected": an exception thrown to the submitter), with an error
// ("error": a failed acquisition, a task that throws), or dropped without
// a word ("silent": the caller goes on waiting, until its timeout).
func (e *Engine) taskEnded(now time.Duration, t *model.Task, how string) {
	c := e.cl
	h, ok := c.taskReq[t.ID]
	if !ok {
		return // not a caller's task (a periodic run)
	}
	delete(c.taskReq, t.ID)
	r := &c.reqs[h-1]
	r.pending--
	current := r.live && r.task == t.ID
	switch {
	case !current && how == "ok":
		c.wasted++ // the caller had given up: the work answered nobody
		c.wastedWork += t.Service
	case how == "silent":
		c.silent++
	case !current:
	case how == "ok":
		r.live, r.done = false, true
		c.succeeded++
		if e.rec.steady(now) {
			d := now - r.first
			c.nOK++
			c.respSum += float64(d)
			c.respMax = max(c.respMax, d)
			e.rec.clientResponse.record(d)
		}
		e.requestOver(h)
	default:
		r.live = false
		if how == "rejected" {
			c.rejected++
		} else {
			c.errors++
		}
		e.retryOrFail(h, how)
	}
	e.maybeFree(h)
}

// retryOrFail sends request h again after its back-off, if its caller
// retries on this reason, it has attempts left and the budget allows;
// else the request has failed.
func (e *Engine) retryOrFail(h int32, reason string) {
	c := e.cl
	r := &c.reqs[h-1]
	budget := c.spec.RetryBudget == 0 || float64(c.planned+1) <= c.spec.RetryBudget*float64(c.requests)
	if c.spec.RetryOn[reason] && r.attempts <= c.spec.Retries && budget {
		c.planned++
		wait := float64(c.spec.Backoff) * math.Pow(c.spec.BackoffMultiplier, float64(r.attempts-1))
		e.pushClient(e.now+time.Duration(min(wait, float64(never-e.now-1))), clientSend, h)
		return
	}
	r.done = true
	c.failed++
	e.requestOver(h)
}

// requestOver: request h is answered or given up; a user thinks, then
// sends its next request.
func (e *Engine) requestOver(h int32) {
	c := e.cl
	r := &c.reqs[h-1]
	if r.user == 0 {
		return
	}
	next := c.newRequest(r.user)
	r = &c.reqs[h-1] // newRequest may have grown the slice
	r.user = 0       // the user moves on to its next request
	e.pushClient(e.now+c.think.Sample(), clientSend, next)
}

// maybeFree forgets request h once it is over and none of its tasks runs.
func (e *Engine) maybeFree(h int32) {
	c := e.cl
	if r := &c.reqs[h-1]; r.done && r.pending == 0 {
		c.free = append(c.free, h-1)
	}
}

// ClientSummary is the callers' report (summary.json "client"): requests
// and their attempts, what became of them, the work done for callers that
// had given up, and the answers' response times as the callers saw them
// (from the first attempt, retries included).
type ClientSummary struct {
	Users         int   `json:"users,omitempty"`
	Requests      int64 `json:"requests"`
	Attempts      int64 `json:"attempts"`
	Retries       int64 `json:"retries"`
	Amplification Stat  `json:"amplification"`
	Timeouts      int64 `json:"timeouts"`
	Rejected      int64 `json:"rejected"`
	Errors        int64 `json:"errors"`
	Succeeded     int64 `json:"succeeded"`
	Failed        int64 `json:"failed"`
	// Unfinished requests were still waiting or retrying at the end;
	// Dropped attempts were discarded without a word to their caller
	// (DiscardPolicy, after shutdown), who waited until its timeout.
	Unfinished int64 `json:"unfinished"`
	Dropped    int64 `json:"dropped"`
	// WastedTasks ran to their end after their caller had given up, for
	// WastedWork seconds of service.
	WastedTasks  int64 `json:"wasted_tasks"`
	WastedWork   Stat  `json:"wasted_work_s"`
	Goodput      Stat  `json:"goodput_per_s"`
	ResponseMean Stat  `json:"response_mean_s"`
	ResponseP99  Stat  `json:"response_p99_s"`
	ResponseMax  Stat  `json:"response_max_s"`
}

func (e *Engine) clientSummary(st steady) *ClientSummary {
	c := e.cl
	s := &ClientSummary{Users: c.users, Requests: c.requests, Attempts: c.attempts, Retries: c.retries,
		Timeouts: c.timeouts, Rejected: c.rejected, Errors: c.errors, Succeeded: c.succeeded, Failed: c.failed,
		Unfinished: c.requests - c.succeeded - c.failed, Dropped: c.silent,
		WastedTasks: c.wasted, WastedWork: Stat(c.wastedWork.Seconds()), Goodput: st.rate(c.nOK),
		ResponseMean: avg(c.respSum, c.nOK), ResponseP99: Stat(quantile(e.rec.clientResponse, c.nOK, 0.99, c.respMax)),
		ResponseMax: maxOf(c.respMax, c.nOK), Amplification: Stat(math.NaN())}
	if c.requests > 0 {
		s.Amplification = Stat(float64(c.attempts) / float64(c.requests))
	}
	return s
}

// answered: w's task has ended at now, with an error if failed (or if the
// task throws); its caller, if it still waits, has its answer.
func (e *Engine) answered(now time.Duration, w *model.Worker, failed bool) {
	t := w.Running()
	how := "ok"
	if failed || t.Fails {
		how = "error"
	}
	e.taskEnded(now, t, how)
}

// notAnswered: task t will never run. A caller hears of an exception
// thrown to it (RejectedExecutionException, a thread that could not start,
// the StackOverflowError of DiscardOldestPolicy's recursion); a task
// dropped silently (DiscardPolicy, after shutdown, shutdownNow's drain)
// leaves its caller waiting until its timeout, or for ever.
func (e *Engine) notAnswered(now time.Duration, t *model.Task, why model.Outcome) {
	switch why {
	case model.Aborted, model.ThreadStartFailed:
		e.taskEnded(now, t, "rejected")
	case model.RetryExhausted:
		e.taskEnded(now, t, "error")
	default:
		e.taskEnded(now, t, "silent")
	}
}
