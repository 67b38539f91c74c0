package sweep

import (
	"context"
	"fmt"
	"math"
	"sync"

	"github.com/poolsim/poolsim/scenarios"
	"github.com/poolsim/poolsim/sim"
)

// How a sweep runs: one coordinator goroutine (execute's loop) owns every
// point's state and hands out replications, jobs worker goroutines run
// them (sim.Run, one at a time each), and one saver goroutine writes each
// finished point and reports progress. Replications are the unit of work,
// so a sweep of few points with many replications still uses every job.
//
// Which replications a point uses depends only on its results, never on
// timing: without a precision target a point uses its first
// Replications; with one, the rule is checked after replication n =
// Replications, Replications+1, ... in order, and the point uses the first
// n at which it holds (or the cap). Replications run ahead in parallel
// and not needed are discarded.

type workItem struct {
	ps   *pointState
	rep  int
	sc   *scenarios.Scenario
	seed uint64
}

type workResult struct {
	ps        *pointState
	rep       int
	r         rep
	err       error
	cancelled bool
}

// pointState is an unfinished point, owned by the coordinator.
type pointState struct {
	idx     int
	sc      *scenarios.Scenario
	seed    uint64 // the point's seed
	results []*rep // by replication; nil: not back yet
	have    int    // results[:have] are all back
	issued  int    // replications handed out
	need    int    // replications required so far
	checked int    // the precision rule was checked up to this many
	decided bool
}

// execute runs the points todo on jobs workers, the coordinator loop here
// handing out replications as described above, and saves each finished
// point (into opt.Dir, or into mem without one). It returns how many
// simulations ran and how many points finished; on an error or
// cancellation it waits for every goroutine before returning.
func (s *Sweep) execute(ctx context.Context, todo []int, jobs int, opt RunOptions, id string, mem map[int]*pointRecord) (sims, cancelled, ran int, err error) {
	if len(todo) == 0 {
		return 0, 0, 0, nil
	}
	runCtx, cancelRuns := context.WithCancel(ctx)
	defer cancelRuns()

	work := make(chan workItem)
	results := make(chan workResult, jobs)
	workers := s.startJobs(runCtx, jobs, work, results)

	saves := make(chan *pointRecord, 2*jobs)
	saveErr := make(chan error, 1)
	saver := s.startSaver(saves, saveErr, opt, id, mem)

	var open []*pointState
	next, inflight, decided := 0, 0, 0
	stopping := false
	ctxDone := ctx.Done()
	stop := func(e error) {
		if err == nil {
			err = e
		}
		stopping = true
		cancelRuns()
	}
	for {
		if decided == len(todo) && !stopping {
			// Every point is finished: what still runs was run ahead and
			// is not needed.
			stopping = true
			cancelRuns()
		}
		if stopping && inflight == 0 {
			break
		}
		var send chan workItem
		var it workItem
		if !stopping {
			ps, lerr := s.pick(&open, todo, &next, jobs)
			if lerr != nil {
				stop(lerr)
				continue
			}
			if ps != nil {
				send = work
				it = workItem{ps: ps, rep: ps.issued, sc: ps.sc, seed: ReplicationSeed(ps.seed, ps.issued)}
			} else if inflight == 0 {
				panic(fmt.Sprintf("sweep: scheduler stalled with %d of %d points finished", decided, len(todo)))
			}
		}
		select {
		case send <- it:
			it.ps.issued++
			inflight++
		case r := <-results:
			inflight--
			switch {
			case r.cancelled:
				cancelled++
			case r.err != nil:
				stop(r.err)
			default:
				sims++
				if rec := s.record(r); rec != nil {
					open = removePoint(open, r.ps)
					decided++
					ran++
					saves <- rec
				}
			}
		case e := <-saveErr:
			stop(e)
		case <-ctxDone:
			ctxDone = nil
			stop(ErrInterrupted)
		}
	}
	close(work)
	workers.Wait()
	close(saves)
	saver.Wait()
	select {
	case e := <-saveErr:
		if err == nil {
			err = e
		}
	default:
	}
	if err == nil && decided < len(todo) {
		err = ErrInterrupted
	}
	return sims, cancelled, ran, err
}

// startJobs starts the jobs worker goroutines: each runs the replications
// it receives on work, one at a time, and sends their results; they end
// when work is closed.
func (s *Sweep) startJobs(ctx context.Context, jobs int, work <-chan workItem, results chan<- workResult) *sync.WaitGroup {
	var workers sync.WaitGroup
	for range jobs {
		workers.Add(1)
		go func() {
			defer workers.Done()
			for it := range work {
				results <- s.simulate(ctx, it)
			}
		}()
	}
	return &workers
}

// startSaver starts the saver goroutine: it writes each finished point it
// receives on saves (into opt.Dir, or into mem without one) and reports
// progress. The first failed write goes to saveErr, and the points after
// it are only drained. It ends when saves is closed.
func (s *Sweep) startSaver(saves <-chan *pointRecord, saveErr chan<- error, opt RunOptions, id string, mem map[int]*pointRecord) *sync.WaitGroup {
	var saver sync.WaitGroup
	saver.Add(1)
	go func() {
		defer saver.Done()
		failed := false
		for rec := range saves {
			if failed {
				continue
			}
			if opt.Dir != "" {
				if err := writePoint(opt.Dir, encodePoint(id, s.grid, s.def.reachedKey(), rec), rec.Point); err != nil {
					failed = true
					saveErr <- err
					continue
				}
			} else {
				mem[rec.Point] = rec
			}
			if opt.Progress != nil {
				opt.Progress.Done(aggregate(rec, s.grid, len(s.def.Metrics)))
			}
		}
	}()
	return &saver
}

// pick returns the point whose next replication should run: first the
// replications open points need, in grid order; then a new point; then,
// with a precision target, replications run ahead for open points so that
// no job idles at the end of a sweep. nil: nothing to hand out now.
func (s *Sweep) pick(open *[]*pointState, todo []int, next *int, jobs int) (*pointState, error) {
	for _, ps := range *open {
		if ps.issued < ps.need {
			return ps, nil
		}
	}
	if *next < len(todo) {
		i := todo[*next]
		*next++
		sc, err := s.load(i)
		if err != nil {
			return nil, err
		}
		ps := &pointState{idx: i, sc: sc, seed: PointSeed(s.def.BaseSeed, s.grid.Key(i)), need: s.def.Replications}
		*open = append(*open, ps)
		return ps, nil
	}
	if s.def.adaptive() {
		for _, ps := range *open {
			if ps.issued < s.def.MaxReplications && ps.issued < ps.need+jobs {
				return ps, nil
			}
		}
	}
	return nil, nil
}

func removePoint(open []*pointState, ps *pointState) []*pointState {
	for i, p := range open {
		if p == ps {
			return append(open[:i], open[i+1:]...)
		}
	}
	return open
}

// runSim is how a sweep runs a simulation: sim.Run, the one engine. Tests
// replace it to count the runs Outcome.Simulations claims.
var runSim = sim.Run

// simulate runs one replication.
func (s *Sweep) simulate(ctx context.Context, it workItem) workResult {
	sc := *it.sc
	sc.Seed = it.seed
	res, err := runSim(ctx, &sc, sim.Options{})
	if ctx.Err() != nil {
		return workResult{ps: it.ps, rep: it.rep, cancelled: true}
	}
	if err != nil {
		return workResult{ps: it.ps, rep: it.rep, err: fmt.Errorf("sweep: point %d (%s), replication %d (seed %d): %w", it.ps.idx, s.grid.Label(it.ps.idx), it.rep+1, it.seed, err)}
	}
	return workResult{ps: it.ps, rep: it.rep, r: rep{Seed: it.seed, Complete: res.Complete, Values: metricValues(s.fields, &res.Summary)}}
}

// record stores a replication's result and returns the point's record if
// the point is now finished.
func (s *Sweep) record(r workResult) *pointRecord {
	ps := r.ps
	if ps.decided {
		return nil // run ahead, not needed
	}
	for len(ps.results) <= r.rep {
		ps.results = append(ps.results, nil)
	}
	res := r.r
	ps.results[r.rep] = &res
	for ps.have < len(ps.results) && ps.results[ps.have] != nil {
		ps.have++
	}
	n, reached, ok := s.decide(ps)
	if !ok {
		return nil
	}
	ps.decided = true
	rec := &pointRecord{Point: ps.idx, Reached: reached, Reps: make([]rep, n)}
	for k := range n {
		rec.Reps[k] = *ps.results[k]
	}
	ps.results, ps.sc = nil, nil
	return rec
}

// decide applies the stopping rule to the replications back so far: it
// returns how many replications the point uses, whether the precision
// target was reached, and ok when the point is finished.
func (s *Sweep) decide(ps *pointState) (n int, reached, ok bool) {
	d := &s.def
	if len(s.gates) > 0 {
		return s.decideGates(ps)
	}
	if d.Precision <= 0 {
		return ps.need, false, ps.have >= ps.need
	}
	xs := make([]float64, 0, ps.have)
	for k := 0; k < ps.have; k++ {
		xs = append(xs, ps.results[k].Values[s.metric])
	}
	for n := max(ps.checked+1, d.Replications); n <= ps.have; n++ {
		ps.checked = n
		rel := relativeHalfWidth(MeanHalfWidth(xs[:n]))
		switch {
		case rel < d.Precision:
			return n, true, true
		case math.IsNaN(rel):
			// The metric is undefined in some replication (no task in the
			// steady state): more replications cannot define it.
			return n, false, true
		case n >= d.MaxReplications:
			return n, false, true
		}
	}
	ps.need = max(ps.need, ps.checked+1)
	return 0, false, false
}

// decideGates is decide's rule for Decide gates: the point is finished at
// the first n (from Replications on, in order) at which the intervals of
// its first n replications decide every gate, or at MaxReplications.
func (s *Sweep) decideGates(ps *pointState) (n int, reached, ok bool) {
	d := &s.def
	for n := max(ps.checked+1, d.Replications); n <= ps.have; n++ {
		ps.checked = n
		rec := &pointRecord{Point: ps.idx, Reps: make([]rep, n)}
		for k := range n {
			rec.Reps[k] = *ps.results[k]
		}
		row := aggregate(rec, s.grid, len(d.Metrics))
		all := true
		for _, g := range s.gates {
			// The gates compiled in New; a run-time error (a type clash on
			// a text parameter) leaves the gate undecided.
			_, decided, err := g.Decided(d, &row)
			all = all && decided && err == nil
		}
		if all {
			return n, true, true
		}
		if n >= d.MaxReplications {
			return n, false, true
		}
	}
	ps.need = max(ps.need, ps.checked+1)
	return 0, false, false
}
