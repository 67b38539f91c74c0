package tune

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/poolsim/poolsim/internal/lazyre"
	"github.com/poolsim/poolsim/sweep"
)

// Result is a search's outcome.
type Result struct {
	Scenario    string
	Keys        []string // the varied keys, in --vary order
	Constraints []string
	Minimize    string
	// Method is the coarse stage's: "grid" or "latin hypercube".
	Method string
	// Rounds run (1 + refinement rounds); Points every configuration
	// evaluated, in order; Replications the replications they used: these
	// three depend only on the configuration.
	Rounds       int
	Points       []*Point
	Replications int
	// Simulations is what this call ran (resumed points cost none; points
	// run ahead in parallel and not needed count), Cancelled how many more
	// were stopped part-way when their point was decided first, Wall its
	// time.
	Simulations int
	Cancelled   int
	Wall        time.Duration
	// Recommended is the feasible point with the least objective (ties: the
	// nearest the current configuration).
	Recommended *Point
	// Current is the scenario's own configuration; CurrentPlaced reports
	// whether it is one of Points (its values of every varied key known).
	Current       *Point
	CurrentPlaced bool
	// Nearest is the feasible point nearest Current (fewest keys changed,
	// then the smallest change), when Current is not feasible.
	Nearest *Point
	// Frontier are the Pareto-optimal points in (threads at the steady
	// state, wait p99, rejected share), by increasing threads.
	Frontier []*Point
	// Binds are the constraints that keep Recommended from being cheaper.
	Binds []Bind
	// Robust is Recommended at Traffic× the traffic (RobustSets), or nil
	// with RobustNote saying why not.
	Robust     *Point
	Traffic    float64
	RobustSets []string
	RobustNote string
	// Closed is the closed-form answer, when every point has one.
	Closed *ClosedForm
	// Skipped are the points the scenario loader refused, each with why
	// (core above max, a capacity for a SynchronousQueue).
	Skipped []string
	// Partial: a shard of the coarse stage only (Shard, ShardPoints).
	Partial     bool
	Shard       sweep.Shard
	ShardPoints int
	t           *Tuner
}

// Bind is a constraint that binds: the cheaper neighbour At fails it.
type Bind struct {
	Constraint string
	At         *Point
}

// Frontier metrics: threads, wait and rejections.
const (
	ThreadsMetric = "pool_size_mean"
	WaitMetric    = "wait_p99_s"
	RejectMetric  = "rejected_ratio"
)

// result assembles the Result once the search has ended.
func (s *search) result(ctx context.Context) (*Result, error) {
	t := s.t
	r := &Result{
		Scenario: t.base.Name, Keys: t.keys(), Constraints: t.cfg.Constraints, Minimize: t.obj.text,
		Method: s.method, Rounds: s.rounds, Points: s.points, Simulations: s.sims, Cancelled: s.cancels, Traffic: t.cfg.Traffic,
		Current: s.current, CurrentPlaced: s.placed, Skipped: s.skipped, t: t,
	}
	for _, p := range s.points {
		r.Replications += p.Row.Replications
	}
	if !s.placed && s.current != nil {
		r.Replications += s.current.Row.Replications
	}
	ranked := s.ranked(true)
	if len(ranked) == 0 {
		return nil, s.infeasible()
	}
	r.Recommended = ranked[0]
	if r.Current != nil && !r.Current.Feasible {
		// The nearest feasible point may lie between the current
		// configuration and the ranges.
		for _, p := range s.ranked(false) {
			if r.Nearest == nil || s.distance(p) < s.distance(r.Nearest) {
				r.Nearest = p
			}
		}
	}
	r.Frontier = pareto(s.points)
	r.Binds = s.binds(r.Recommended)
	r.Closed = s.closedForms()
	if err := s.robustness(ctx, r); err != nil {
		return nil, err
	}
	return r, nil
}

// infeasible is the error of a search that found no feasible point: it
// names the point that came closest and what it fails.
func (s *search) infeasible() error {
	keys := s.t.keys()
	var best *Point
	fails := func(p *Point) int {
		n := 0
		for _, h := range p.Holds {
			if !h {
				n++
			}
		}
		if !p.Decided {
			n++
		}
		return n
	}
	for _, p := range s.points {
		if !s.t.inRange(p) {
			continue
		}
		if best == nil || fails(p) < fails(best) || (fails(p) == fails(best) && s.violation(p) < s.violation(best)) {
			best = p
		}
	}
	if best == nil {
		return flagErr("--vary", "no point within the --vary ranges could be evaluated", "ranges the scenario accepts")
	}
	what := "fails " + s.failing(best)
	if s.failing(best) == "" {
		what = fmt.Sprintf("is not shown to meet them within %d replications (%s)", s.t.cfg.MaxReplications, s.figures(best))
	}
	return flagErr("--constraint", fmt.Sprintf("no configuration in the --vary ranges meets the constraints (%d points tried); the closest, %s, %s", len(s.points), best.Label(keys), what),
		"widen the --vary ranges or relax the constraints")
}

// boundRE reads a constraint that bounds one metric: NAME < X, NAME >= X.
var boundRE = lazyre.New(`^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(<=?|>=?)\s*([0-9.eE+-]+)\s*$`)

// violation is how far p is from meeting the constraints it fails: for a
// bound on one metric, the metric's distance to it relative to the bound;
// 1 for any other failing constraint.
func (s *search) violation(p *Point) float64 {
	v := 0.0
	for i, g := range s.t.constraints {
		if p.Holds[i] {
			continue
		}
		m := boundRE.FindStringSubmatch(g.Expr)
		if m == nil {
			v++
			continue
		}
		x, err := strconv.ParseFloat(m[3], 64)
		mean, _ := p.Figure(m[1])
		if err != nil || math.IsNaN(mean) || x == 0 {
			v++
			continue
		}
		v += math.Abs(mean-x) / math.Abs(x)
	}
	return v
}

// failing lists the constraints p fails with the figures they read.
func (s *search) failing(p *Point) string {
	var parts []string
	for i, g := range s.t.constraints {
		if !p.Holds[i] {
			parts = append(parts, fmt.Sprintf("'%s' (%s)", g.Expr, figuresOf(g, p)))
		}
	}
	return strings.Join(parts, ", ")
}

// figures lists every constraint's figures at p.
func (s *search) figures(p *Point) string {
	var parts []string
	for _, g := range s.t.constraints {
		parts = append(parts, figuresOf(g, p))
	}
	return strings.Join(parts, "; ")
}

func figuresOf(g *sweep.Gate, p *Point) string {
	var parts []string
	for _, name := range gateNames(g) {
		m, hw := p.Figure(name)
		parts = append(parts, name+" = "+sweep.FormatFigure(m, hw))
	}
	return strings.Join(parts, ", ")
}

// gateNames are the metrics and derived variables a gate reads: its
// metrics, with rejected and submitted shown as rejected_ratio when the
// gate reads that.
func gateNames(g *sweep.Gate) []string {
	ms := g.Metrics()
	if strings.Contains(g.Expr, "rejected_ratio") {
		var out []string
		for _, m := range ms {
			if m != "rejected" && m != "submitted" {
				out = append(out, m)
			}
		}
		return append(out, "rejected_ratio")
	}
	return ms
}

// pareto returns the points no other point beats in all of threads, wait
// p99 and rejected share (points missing one are left out), by
// increasing threads.
func pareto(points []*Point) []*Point {
	type fig struct{ x [3]float64 }
	var cand []*Point
	var figs []fig
	for _, p := range points {
		var f fig
		ok := true
		for i, m := range []string{ThreadsMetric, WaitMetric, RejectMetric} {
			f.x[i], _ = p.Figure(m)
			ok = ok && !math.IsNaN(f.x[i])
		}
		if ok {
			cand, figs = append(cand, p), append(figs, f)
		}
	}
	var out []*Point
	for i, p := range cand {
		dominated := false
		for j := range cand {
			le, lt := true, false
			for k := range 3 {
				le = le && figs[j].x[k] <= figs[i].x[k]
				lt = lt || figs[j].x[k] < figs[i].x[k]
			}
			if j != i && le && lt {
				dominated = true
				break
			}
		}
		if !dominated {
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(a, b int) bool {
		xa, _ := out[a].Figure(ThreadsMetric)
		xb, _ := out[b].Figure(ThreadsMetric)
		return xa < xb
	})
	return out
}

// binds returns the constraints that keep rec from being cheaper: those
// its cheaper neighbours along a numeric key fail (or do not decide).
func (s *search) binds(rec *Point) []Bind {
	var out []Bind
	seen := map[string]bool{}
	for k, d := range s.t.dims {
		if !d.numeric {
			continue
		}
		lo, hi := s.neighbours(rec, k)
		for _, n := range []*Point{lo, hi} {
			if n == nil || n.Feasible || !(n.Objective < rec.Objective || (n.Objective == rec.Objective && s.t.obj.key < 0)) {
				continue
			}
			for i, g := range s.t.constraints {
				if !n.Holds[i] || !n.Decided {
					if !seen[g.Expr] {
						seen[g.Expr] = true
						out = append(out, Bind{Constraint: g.Expr, At: n})
					}
				}
			}
		}
	}
	return out
}

// robustness evaluates the recommendation at Traffic× the traffic.
func (s *search) robustness(ctx context.Context, r *Result) error {
	sets, why := trafficSets(s.t.base, s.t.cfg.Traffic)
	if why != "" {
		r.RobustNote = why
		return nil
	}
	for _, set := range sets {
		k, _, _ := strings.Cut(set, "=")
		for _, key := range s.t.keys() {
			if key == k {
				r.RobustNote = "the traffic is a varied key"
				return nil
			}
		}
	}
	sw, err := sweep.New(s.roundConfig([][]sweep.Value{r.Recommended.Values}, sets))
	if err != nil {
		r.RobustNote = oneLine(err.Error())
		return nil
	}
	if s.opt.Progress != nil {
		s.opt.Progress(Stage{Round: s.rounds + 1, Name: "robustness", Points: 1})
	}
	o, err := sw.Run(ctx, sweep.RunOptions{Dir: s.dir("robustness"), Resume: s.opt.Resume || len(s.opt.From) > 0, Jobs: s.opt.Jobs})
	if err != nil {
		return err
	}
	s.sims += o.Simulations
	s.cancels += o.Cancelled
	r.Simulations, r.Cancelled = s.sims, s.cancels
	r.Replications += o.Results.Rows[0].Replications
	def := sw.Definition()
	r.Robust = s.t.evaluate(&def, o.Results.Rows[0], s.rounds+1)
	r.RobustSets = sets
	if s.opt.Progress != nil {
		s.opt.Progress(Stage{Round: s.rounds + 1, Name: "robustness", Points: 1, Done: true, Simulations: o.Simulations})
	}
	return nil
}
