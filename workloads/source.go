package workloads

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// Arrival is one task as the workload submits it.
type Arrival struct {
	At       time.Duration // when the submitter wants to submit it
	Service  time.Duration // how long it runs (on an unloaded host; for a split law, CPU + blocking)
	Priority int32         // for a priority queue: lower runs first
	Fails    bool          // it throws at its end
}

// Split is the CPU side of a task with a split service law: the part of
// its Service that needs a processor (the rest blocks) and how many
// alternating CPU and blocking pieces it runs in (see ServiceSplit).
type Split struct {
	CPU    time.Duration
	Slices int16 // 1..MaxSlices; 0: no split (a plain law)
}

// SplitSource is a Source that may yield tasks with a split service law.
// It reports the split apart from Arrival, which it keeps small: an Arrival
// is copied for every task, and a larger one measurably slows every run,
// split or not.
type SplitSource interface {
	Source
	// HasSplits reports whether any task may have a CPU part.
	HasSplits() bool
	// LastSplit returns the split of the arrival Next returned last.
	LastSplit() Split
}

// Source yields arrivals in non-decreasing time order.
type Source interface {
	// Next returns the next arrival, or false when the workload has ended
	// (or failed: see Err).
	Next() (Arrival, bool)
	// Err returns the error that ended the workload early, if any.
	Err() error
	// Close releases files; it is safe to call more than once.
	Close() error
}

// BatchSource is a Source that hands out the arrivals it has drawn ahead
// several at a time: NextBatch returns the arrivals Next would return next
// (at least one; none once the workload has ended) and hands them all out.
// The slice is valid until the next call of NextBatch or Next; a
// SplitSource's LastSplit and a StepSource's LastSteps describe its last
// arrival. The event loop takes each task's arrival from it without a
// call per task.
type BatchSource interface {
	Source
	NextBatch() []Arrival
}

// ArrivalSpec describes an arrival process.
type ArrivalSpec struct {
	Process string        // poisson | constant | onoff | burst
	Rate    float64       // tasks per second: poisson, constant, onoff (while on)
	On, Off time.Duration // onoff: lengths of the on and off periods, starting on
	Count   int           // burst: tasks released at once
	At      time.Duration // burst: offset of the first burst from the phase start
	Every   time.Duration // burst: repeat period; 0 = once
}

// ProcessNames lists the arrival processes by scenario name.
func ProcessNames() []string { return []string{"poisson", "constant", "onoff", "burst"} }

// PrioritySpec draws task priorities uniformly from Min..Max (inclusive).
// The zero value gives every task priority 0.
type PrioritySpec struct {
	Min, Max int32
}

// Phase is a stretch of traffic with one arrival process and service law.
type Phase struct {
	Duration time.Duration // 0: the phase runs to the end of the run
	Arrivals ArrivalSpec
	Service  ServiceSpec
	// Split, when set, replaces Service: each task has a CPU part and a
	// blocking part (see ServiceSplit).
	Split *ServiceSplit
	// Steps, when set, replaces Service: each task runs these steps in
	// order, computing or holding a resource (see Step); its Service is
	// their total time.
	Steps    []Step
	Priority PrioritySpec
}

// MaxSlices bounds ServiceSplit.Slices.
const MaxSlices = 10000

// ServiceSplit is a service law in two parts: CPU, the time a task needs a
// processor (it competes for the host's CPUs when the run has a CPU limit),
// and Blocking, the time it waits without one (I/O, a remote call, a sleep).
// A task runs them in Slices alternating pieces of equal length, CPU first:
// cpu/k, blocking/k, cpu/k, blocking/k, ... With Slices 1 (the default) it
// computes, then blocks.
//
// The CPU part is drawn from its own random stream ("cpu") and the blocking
// part from the service stream, so a split with only a blocking part draws
// exactly the times the same plain law would.
type ServiceSplit struct {
	CPU      *ServiceSpec // nil: no CPU part
	Blocking *ServiceSpec // nil: no blocking part
	Slices   int          // 0 or 1: CPU then blocking
}

// Spec is a workload: either phases played in order, or a trace.
type Spec struct {
	Phases []Phase
	// Trace is the path of a CSV trace (see OpenTrace); exclusive with Phases.
	Trace string
	// AccessLog replays a web server's access log; exclusive with the others.
	AccessLog *AccessLogSpec
	// Failure is the probability that a task throws (0 ≤ Failure ≤ 1). A
	// trace's fail column, when present, decides instead.
	Failure float64
}

// New returns the source for spec, with its random streams derived from
// seed (see NewStream).
func New(spec Spec, seed uint64) (Source, error) {
	if !(spec.Failure >= 0 && spec.Failure <= 1) {
		return nil, &ParamError{"failure", fmt.Sprintf("must be a probability, got %v", spec.Failure), "0 <= failure <= 1"}
	}
	if spec.AccessLog != nil {
		if len(spec.Phases) > 0 || spec.Trace != "" {
			return nil, &ParamError{"accesslog", "a workload has one of phases/arrivals, a trace or an access log", "one of them"}
		}
		return OpenAccessLog(*spec.AccessLog, spec.Failure, seed)
	}
	if spec.Trace != "" {
		if len(spec.Phases) > 0 {
			return nil, &ParamError{"trace", "a workload has either phases/arrivals or a trace", "one of them"}
		}
		return OpenTrace(spec.Trace, spec.Failure, seed)
	}
	if len(spec.Phases) == 0 {
		return nil, &ParamError{"phases", "no traffic", "phases, arrivals+service, or trace"}
	}
	arrivals := NewStream(seed, StreamArrivals)
	s := &phaseSource{
		arrivalSrc: arrivals,
		arrivals:   rand.New(arrivals),
		failures:   rand.New(NewStream(seed, StreamFailures)),
		priorities: rand.New(NewStream(seed, StreamPriorities)),
		failure:    spec.Failure,
	}
	service := NewStream(seed, StreamService)
	cpu := NewStream(seed, StreamCPU)
	stepStreams := map[string]rand.Source{}
	var start time.Duration
	for i, ph := range spec.Phases {
		if ph.Duration < 0 {
			return nil, &ParamError{fmt.Sprintf("phases[%d].duration", i), fmt.Sprintf("must be >= 0, got %v", ph.Duration), "a duration"}
		}
		if ph.Duration == 0 && i != len(spec.Phases)-1 {
			return nil, &ParamError{fmt.Sprintf("phases[%d].duration", i), "only the last phase may run to the end", "a duration > 0"}
		}
		if err := checkArrivals(ph.Arrivals); err != nil {
			err.Field = fmt.Sprintf("phases[%d].arrivals.%s", i, err.Field)
			return nil, err
		}
		if ph.Priority.Max < ph.Priority.Min {
			return nil, &ParamError{fmt.Sprintf("phases[%d].priority.max", i), fmt.Sprintf("%d < min %d", ph.Priority.Max, ph.Priority.Min), "min <= max"}
		}
		st := phaseState{Phase: ph, process: processOf(ph.Arrivals.Process), priorities: int64(ph.Priority.Max) - int64(ph.Priority.Min) + 1}
		if st.process == poissonProcess && ph.Arrivals.Rate > 0 {
			st.poisson = ph.Arrivals.Rate
		}
		if ph.Steps != nil {
			laws, err := newStepLaws(ph.Steps, seed, stepStreams)
			if err != nil {
				if pe, ok := err.(*ParamError); ok {
					pe.Field = fmt.Sprintf("phases[%d].service.%s", i, pe.Field)
				}
				return nil, err
			}
			st.steps, st.dist = laws, stepsDist{laws}
			s.hasSteps = true
		} else if ph.Split != nil {
			sp, err := newSplit(*ph.Split, cpu, service, &s.last)
			if err != nil {
				if pe, ok := err.(*ParamError); ok {
					pe.Field = fmt.Sprintf("phases[%d].service.%s", i, pe.Field)
				}
				return nil, err
			}
			st.dist, st.split = sp, true
			s.splits = true
		} else {
			d, err := NewDistribution(ph.Service, service)
			if err != nil {
				if pe, ok := err.(*ParamError); ok {
					pe.Field = fmt.Sprintf("phases[%d].service.%s", i, pe.Field)
				}
				return nil, err
			}
			st.dist = d
			switch d := d.(type) {
			case *expDist:
				if d.pcg != nil {
					st.exp = d
				}
			case *rander:
				st.logNormal = d.logNormal
			}
		}
		// A split law leaves its draw in s.last and steps theirs in
		// s.lastSteps, for the arrival just returned: those phases are
		// drawn one arrival at a time.
		st.batch = !st.split && st.steps == nil
		st.start = start
		st.end = time.Duration(math.MaxInt64)
		if ph.Duration > 0 {
			st.end = start + ph.Duration
		}
		s.phases = append(s.phases, st)
		start = st.end
	}
	s.enter(0)
	return s, nil
}

func checkArrivals(a ArrivalSpec) *ParamError {
	rate := func() *ParamError {
		if !(a.Rate >= 0) || math.IsInf(a.Rate, 0) {
			return &ParamError{"rate", fmt.Sprintf("must be >= 0, got %v", a.Rate), "tasks per second, e.g. 300, 2/s, 90/min"}
		}
		return nil
	}
	switch a.Process {
	case "poisson", "constant":
		return rate()
	case "onoff":
		if err := rate(); err != nil {
			return err
		}
		if a.On <= 0 || a.Off < 0 {
			return &ParamError{"on", fmt.Sprintf("need on > 0 and off >= 0, got on %v off %v", a.On, a.Off), "durations"}
		}
	case "burst":
		if a.Count < 0 {
			return &ParamError{"count", fmt.Sprintf("must be >= 0, got %d", a.Count), "tasks released at once"}
		}
		if a.At < 0 || a.Every < 0 {
			return &ParamError{"at", fmt.Sprintf("need at >= 0 and every >= 0, got at %v every %v", a.At, a.Every), "durations"}
		}
	default:
		return &ParamError{"process", fmt.Sprintf("unknown arrival process %q", a.Process), "one of poisson, constant, onoff, burst"}
	}
	return nil
}

type phaseState struct {
	Phase
	start, end time.Duration
	process    process      // Arrivals.Process, decoded once
	dist       Distribution // the service law (a split law: a *splitDist)
	exp        *expDist     // dist, when it is an exponential law drawn from a stream (Next draws it directly)
	logNormal  *logNormal   // dist's, when it is a lognormal law drawn from a stream (likewise)
	poisson    float64      // Arrivals.Rate for a Poisson process with traffic, else 0 (Next draws it directly)
	priorities int64        // how many priorities the tasks draw from (Priority.Min up): 1 draws none
	split      bool
	steps      *stepLaws // Steps' laws (nil: dist)
	batch      bool      // Next draws the phase's arrivals batchSize at a time (see fill)
}

// process is an arrival process, decoded from its name once per phase
// rather than compared as a string at every arrival.
type process uint8

const (
	poissonProcess process = iota
	constantProcess
	onOffProcess
	burstProcess
)

func processOf(name string) process {
	switch name {
	case "constant":
		return constantProcess
	case "onoff":
		return onOffProcess
	case "burst":
		return burstProcess
	}
	return poissonProcess // checkArrivals has refused any other name
}

// phaseSource plays phases in order. Each process restarts at its phase's
// start: memoryless processes lose nothing by it.
type phaseSource struct {
	phases     []phaseState
	cur        int
	ph         *phaseState // &phases[cur]; nil once done
	arrivalSrc *rand.PCG   // the arrivals' stream, drawn directly on the Poisson path (expFloat64)
	arrivals   *rand.Rand  // the same stream, for the other processes
	failures   *rand.Rand
	priorities *rand.Rand
	failure    float64

	last   Split // the split of the last arrival drawn from a split law
	splits bool  // some phase has a split law

	lastSteps []DrawnStep // the steps of the last arrival (nil: none)
	hasSteps  bool        // some phase has steps

	t       time.Duration // last arrival time (or the phase start)
	k       int64         // constant: arrivals so far in this phase; burst: tasks left in the current burst
	burstAt time.Duration // burst: time of the current burst

	buf   []Arrival // a batched phase's arrivals drawn ahead (see fill); buf[bi:] are still to come
	bi    int
	ended bool // fill drew past the phase's end: once buf is handed out, the next phase starts
	store [batchSize]Arrival
}

// batchSize is how many arrivals fill draws at a time.
const batchSize = 128

func (s *phaseSource) enter(i int) {
	s.cur = i
	if i >= len(s.phases) {
		s.ph = nil
		return
	}
	ph := &s.phases[i]
	s.ph = ph
	s.t, s.k = ph.start, 0
	if ph.process == burstProcess {
		s.burstAt = ph.start + ph.Arrivals.At
		s.k = int64(ph.Arrivals.Count)
	}
}

// nextTime returns the next arrival time within the current phase, or false
// if the phase has no more arrivals.
func (s *phaseSource) nextTime() (time.Duration, bool) {
	ph := &s.phases[s.cur]
	a := &ph.Arrivals
	switch ph.process {
	case poissonProcess:
		if a.Rate <= 0 {
			return 0, false
		}
		return addSat(s.t, seconds(expFloat64(s.arrivalSrc)/a.Rate)), true
	case constantProcess:
		if a.Rate <= 0 {
			return 0, false
		}
		// t_k = start + k/rate, computed from k so no rounding accumulates.
		d := math.Round(float64(s.k) * 1e9 / a.Rate)
		s.k++
		if d >= float64(never-ph.start) {
			return never, true
		}
		return ph.start + time.Duration(d), true
	case onOffProcess:
		if a.Rate <= 0 {
			return 0, false
		}
		return s.nextOnOff(ph, a), true
	case burstProcess:
		if s.k == 0 {
			if a.Every <= 0 || a.Count == 0 {
				return 0, false
			}
			s.burstAt = addSat(s.burstAt, a.Every)
			s.k = int64(a.Count)
		}
		s.k--
		return s.burstAt, true
	}
	return 0, false
}

// onOffTries is how many on periods nextOnOff tries one by one before it
// skips the empty ones in one step.
const onOffTries = 64

// nextOnOff returns the next arrival of an on/off process: Poisson at
// a.Rate during the on periods. A draw landing in an off period restarts at
// the next on period (memoryless). When on periods are so short that many
// in a row stay empty, the rest are skipped in one step by drawing the gap
// in on-time, so each arrival costs bounded work; times saturate at the end
// of the clock instead of overflowing.
func (s *phaseSource) nextOnOff(ph *phaseState, a *ArrivalSpec) time.Duration {
	t := addSat(s.t, seconds(s.arrivals.ExpFloat64()/a.Rate))
	cycle := a.On + a.Off
	if cycle <= 0 { // on + off overflows the clock: one on period, then off to the end
		if t-ph.start >= a.On {
			return never
		}
		return t
	}
	for try := 0; ; try++ {
		off := (t - ph.start) % cycle
		if off < a.On {
			return t
		}
		onStart := addSat(t-off, cycle)
		if onStart == never {
			return never
		}
		if try < onOffTries {
			t = addSat(onStart, seconds(s.arrivals.ExpFloat64()/a.Rate))
			continue
		}
		// The on-time gap g covers k whole on periods and r of the next.
		g := s.arrivals.ExpFloat64() / a.Rate * 1e9
		on := float64(a.On)
		k := math.Floor(g / on)
		r := min(time.Duration(g-k*on), a.On-1)
		if k*float64(cycle) >= float64(never-onStart) {
			return never
		}
		return addSat(onStart+time.Duration(k)*cycle, r)
	}
}

// never is a time beyond every run: the end of the clock.
const never = time.Duration(math.MaxInt64)

// addSat is t+d for d >= 0, saturating at the end of the clock.
func addSat(t, d time.Duration) time.Duration {
	if d > never-t {
		return never
	}
	return t + d
}

// Next returns the next arrival. Most phases are drawn ahead, batchSize
// arrivals at a time (fill), and Next hands them out; the rest draw one
// arrival per call (refill).
func (s *phaseSource) Next() (Arrival, bool) {
	if s.bi == len(s.buf) && !s.refill() {
		return Arrival{}, false
	}
	i := s.bi
	s.bi = i + 1
	return s.buf[i], true
}

// NextBatch returns the arrivals Next would return next, as many as are
// drawn ahead (at least one; none when the workload has ended), and
// hands them all out: the next call returns those that follow. The slice
// is valid until the next call of NextBatch or Next. LastSplit and
// LastSteps describe its last arrival (a phase with split laws or steps
// is drawn one arrival at a time).
func (s *phaseSource) NextBatch() []Arrival {
	if s.bi == len(s.buf) && !s.refill() {
		return nil
	}
	b := s.buf[s.bi:]
	s.bi = len(s.buf)
	return b
}

// refill draws the next arrivals once buf is handed out: it fills buf
// again for a batched phase, or draws one arrival into it. It reports
// false when the workload has ended. The common cases — a Poisson phase
// with an exponential or lognormal law drawn from its stream — draw both
// straight from the streams; every test on the way is decided once per
// phase (New, enter), not once per arrival.
func (s *phaseSource) refill() bool {
	for ph := s.ph; ph != nil; ph = s.ph {
		if s.ended {
			s.ended = false
			s.enter(s.cur + 1)
			continue
		}
		if ph.batch {
			s.fill(ph)
			if len(s.buf) > 0 {
				return true
			}
			continue // the phase had no more arrivals: s.ended
		}
		t, ok := s.nextAt(ph)
		if !ok {
			s.enter(s.cur + 1)
			continue
		}
		s.store[0] = s.draw(ph, t)
		s.buf, s.bi = s.store[:1], 0
		if s.hasSteps {
			s.lastSteps = nil
			if ph.steps != nil {
				s.lastSteps = ph.steps.drawn
			}
		}
		return true
	}
	s.buf, s.bi = nil, 0
	return false
}

// nextAt draws the phase's next arrival time, or false when it lands at or
// beyond the phase's end (that draw is discarded, and the next phase
// starts afresh).
func (s *phaseSource) nextAt(ph *phaseState) (time.Duration, bool) {
	var t time.Duration
	if ph.poisson > 0 {
		t = addSat(s.t, seconds(expFloat64(s.arrivalSrc)/ph.poisson)) // nextTime's Poisson case, inline
	} else if nt, ok := s.nextTime(); ok {
		t = nt
	} else {
		t = never // no more arrivals in this phase (end ≤ never)
	}
	if t >= ph.end {
		return 0, false
	}
	s.t = t
	return t, true
}

// draw draws the rest of the arrival at t: its service time, whether it
// fails, its priority.
func (s *phaseSource) draw(ph *phaseState, t time.Duration) Arrival {
	a := Arrival{At: t, Priority: ph.Priority.Min}
	if e := ph.exp; e != nil {
		a.Service = seconds(expFloat64(e.pcg) / e.rate) // e.Sample(), without the interface call
	} else if l := ph.logNormal; l != nil {
		a.Service = l.sample() // likewise
	} else if ph.steps != nil {
		a.Service = ph.steps.draw()
	} else {
		a.Service = ph.dist.Sample()
	}
	if s.failure > 0 {
		a.Fails = s.failures.Float64() < s.failure
	}
	if ph.priorities > 1 {
		a.Priority += int32(s.priorities.Int64N(ph.priorities))
	}
	return a
}

// fill draws up to batchSize arrivals of the batched phase ph into buf,
// stopping at its end as next does (the time drawn at or beyond it is
// discarded, and s.ended starts the next phase once buf is handed out).
// Drawing ahead changes no value: each stream (arrivals, service,
// failures, priorities) is drawn in the same order as one arrival at a
// time, nothing outside the source draws from them, and a batched phase
// leaves nothing behind for the arrival just returned (no LastSplit, no
// LastSteps). The draws of one arrival do not wait for the previous
// arrival's (but for its time, an addition), so the processor overlaps
// the divisions and table look-ups of several arrivals.
func (s *phaseSource) fill(ph *phaseState) {
	if s.hasSteps {
		s.lastSteps = nil
	}
	buf := s.store[:]
	n := 0
	if ph.poisson >= minFastRate && (ph.exp != nil && ph.exp.rate >= minFastRate || ph.logNormal != nil) {
		n = s.fillPoisson(ph, buf)
	} else {
		for ; n < len(buf); n++ {
			t, ok := s.nextAt(ph)
			if !ok {
				s.ended = true
				break
			}
			buf[n] = s.draw(ph, t)
		}
	}
	s.buf, s.bi = buf[:n], 0
}

// minFastRate is the least rate at which fillPoisson draws: every value
// of the exponential ziggurat's rectangles (below zigRe, under 8) over such
// a rate is at most MaxSeconds, a time seconds does not clamp, so that
// seconds(x/rate) is roundNanos(x/rate*1e9), without seconds' two tests
// (TestMinFastRateNeedsNoClamp).
const minFastRate = 8.0 / MaxSeconds

// fillPoisson is fill for the common case, a Poisson phase with an
// exponential or lognormal law drawn from its stream, at rates of at least
// minFastRate: nextAt and draw written out, one stream at a time. It
// returns how many arrivals it drew into buf.
func (s *phaseSource) fillPoisson(ph *phaseState, buf []Arrival) int {
	src, rate, end, prio := s.arrivalSrc, ph.poisson, ph.end, ph.Priority.Min
	t := s.t
	n := 0
	for ; n < len(buf); n++ {
		x, layer, ok := expTry(src.Uint64()) // expFloat64(src), which does not inline here
		var d time.Duration
		if ok {
			d = roundNanos(x / rate * 1e9) // seconds(x/rate): see minFastRate
		} else {
			d = seconds(expRetry(src, layer, x) / rate)
		}
		u := addSat(t, d)
		if u >= end {
			s.ended = true
			break
		}
		t = u
		buf[n] = Arrival{At: t, Priority: prio}
	}
	s.t = t
	buf = buf[:n]
	if e := ph.exp; e != nil {
		src, rate := e.pcg, e.rate
		for i := range buf {
			x, layer, ok := expTry(src.Uint64()) // likewise
			if ok {
				buf[i].Service = roundNanos(x / rate * 1e9)
			} else {
				buf[i].Service = seconds(expRetry(src, layer, x) / rate)
			}
		}
	} else {
		l := ph.logNormal
		src, mu, sigma := l.pcg, l.mu, l.sigma
		for i := range buf {
			z, j, layer, ok := normTry(src.Uint64()) // l.sample(), likewise
			if !ok {
				z = normRetry(src, j, layer, z)
			}
			buf[i].Service = seconds(math.Exp(z*sigma + mu))
		}
	}
	if s.failure > 0 {
		for i := range buf {
			buf[i].Fails = s.failures.Float64() < s.failure
		}
	}
	if ph.priorities > 1 {
		for i := range buf {
			buf[i].Priority += int32(s.priorities.Int64N(ph.priorities))
		}
	}
	return n
}

// HasSteps reports whether some phase's tasks run steps.
func (s *phaseSource) HasSteps() bool { return s.hasSteps }

// LastSteps returns the steps of the last arrival (nil: a plain service).
func (s *phaseSource) LastSteps() []DrawnStep { return s.lastSteps }

// HasSplits reports whether some phase has a split service law.
func (s *phaseSource) HasSplits() bool { return s.splits }

// LastSplit returns the split of the arrival Next returned last: its phase's
// split law drew it.
func (s *phaseSource) LastSplit() Split {
	if s.cur >= len(s.phases) || !s.phases[s.cur].split {
		return Split{}
	}
	return s.last
}

func (s *phaseSource) Err() error   { return nil }
func (s *phaseSource) Close() error { return nil }

// Distributions returns each phase's service distribution, for
// explanations and closed-form checks.
func Distributions(src Source) []Distribution {
	ps, ok := src.(*phaseSource)
	if !ok {
		return nil
	}
	out := make([]Distribution, len(ps.phases))
	for i := range ps.phases {
		out[i] = ps.phases[i].dist
	}
	return out
}

// newSplit builds a split service law: its CPU part draws from cpuSrc and
// its blocking part from blockSrc; either may be absent, not both. Each
// draw leaves its split in *last.
func newSplit(sp ServiceSplit, cpuSrc, blockSrc rand.Source, last *Split) (*splitDist, error) {
	if sp.CPU == nil && sp.Blocking == nil {
		return nil, &ParamError{"cpu", "a split service needs a cpu part, a blocking part or both", "cpu: {dist: ...}, blocking: {dist: ...}"}
	}
	if sp.Slices < 0 || sp.Slices > MaxSlices {
		return nil, &ParamError{"slices", fmt.Sprintf("must be in 1..%d, got %d", MaxSlices, sp.Slices), "how many alternating CPU and blocking pieces a task runs"}
	}
	d := &splitDist{slices: int16(max(sp.Slices, 1)), last: last}
	var err error
	if sp.CPU != nil {
		if d.cpu, err = NewDistribution(*sp.CPU, cpuSrc); err != nil {
			if pe, ok := err.(*ParamError); ok {
				pe.Field = "cpu." + pe.Field
			}
			return nil, err
		}
	}
	if sp.Blocking != nil {
		if d.blocking, err = NewDistribution(*sp.Blocking, blockSrc); err != nil {
			if pe, ok := err.(*ParamError); ok {
				pe.Field = "blocking." + pe.Field
			}
			return nil, err
		}
	}
	return d, nil
}

// CheckSplit checks a split service law's parameters without drawing.
func CheckSplit(sp ServiceSplit) error {
	_, err := newSplit(sp, NewStream(0, "check"), NewStream(0, "check"), new(Split))
	return err
}

// splitDist is a split law as a Distribution of the total service time:
// CPU + blocking, drawn independently (either part may be nil). Each
// Sample also leaves the CPU part and the slices in *last, for LastSplit.
type splitDist struct {
	cpu, blocking Distribution
	slices        int16
	last          *Split
}

func (d *splitDist) parts() []Distribution {
	var out []Distribution
	for _, p := range []Distribution{d.cpu, d.blocking} {
		if p != nil {
			out = append(out, p)
		}
	}
	return out
}

func (d *splitDist) Sample() time.Duration {
	var cpu, blocking time.Duration
	if d.cpu != nil {
		cpu = d.cpu.Sample()
	}
	if d.blocking != nil {
		blocking = d.blocking.Sample()
	}
	*d.last = Split{CPU: cpu, Slices: d.slices}
	return cpu + blocking
}

func (d *splitDist) Mean() float64 {
	m := 0.0
	for _, p := range d.parts() {
		m += p.Mean()
	}
	return m
}

func (d *splitDist) Variance() float64 {
	v := 0.0
	for _, p := range d.parts() {
		v += p.Variance()
	}
	return v
}

func (d *splitDist) String() string {
	s := ""
	if d.cpu != nil {
		s = "cpu " + d.cpu.String()
	}
	if d.blocking != nil {
		if s != "" {
			s += " + "
		}
		s += "blocking " + d.blocking.String()
	}
	return s
}
