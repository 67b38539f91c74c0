package tune

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/poolsim/poolsim/internal/inputerr"
	"github.com/poolsim/poolsim/scenarios"
	"github.com/poolsim/poolsim/sweep"
)

// Options say where and how a search runs. None of them changes results.
type Options struct {
	// Dir receives one sweep directory per round (rounds/01, ...), the
	// robustness check's and the results; "" keeps everything in memory.
	Dir string
	// Resume continues the search in Dir: finished points are read back.
	Resume bool
	// Shard runs only this shard of the coarse stage, then stops: the
	// refinement needs every coarse point (see From).
	Shard sweep.Shard
	// From are the directories of the coarse stage's shards: they are
	// merged into Dir (byte for byte what one machine writes) and the
	// search continues from them.
	From []string
	// Jobs is how many simulations run at once (<= 0: every CPU).
	Jobs int
	// Progress, if set, hears about each round.
	Progress func(Stage)
}

// Stage is a round of the search, started or done.
type Stage struct {
	Round       int    // 1: the coarse stage; then refinement rounds
	Name        string // "grid", "latin hypercube", "refine", "current", "robustness"
	Points      int
	Done        bool
	Simulations int // when Done: run by this round
}

// Point is one evaluated configuration.
type Point struct {
	// Values are its value of each varied key, in --vary order.
	Values []sweep.Value
	// Round is the round that evaluated it (0: the scenario as it is, run
	// apart because its values of the varied keys are unknown).
	Round int
	Row   sweep.Row
	def   *sweep.Definition
	// Decided: the 95% intervals decided every constraint (within
	// MaxReplications); Holds: each constraint's verdict on the means.
	Decided  bool
	Holds    []bool
	Feasible bool
	// Objective and its half-width (NaN: none).
	Objective, ObjectiveHW float64
	closed                 *closedPoint
}

// Figure returns a metric's (or rejected_ratio's) mean and half-width at
// the point.
func (p *Point) Figure(name string) (mean, hw float64) { return sweep.Figure(p.def, &p.Row, name) }

// Sets returns the point as --set overrides.
func (p *Point) Sets(keys []string) []string {
	out := make([]string, len(p.Values))
	for k, v := range p.Values {
		out[k] = keys[k] + "=" + v.Text
	}
	return out
}

// Label names the point: "pool.max=12 pool.keepAlive=30s".
func (p *Point) Label(keys []string) string {
	if p.Values == nil {
		return "(the scenario as it is)"
	}
	return strings.Join(p.Sets(keys), " ")
}

// search is one run of the search: what has been evaluated.
type search struct {
	t       *Tuner
	opt     Options
	points  []*Point
	byKey   map[string]*Point
	tried   map[string]bool // evaluated or refused by the scenario loader
	skipped []string        // points the loader refused, each with why
	current *Point
	placed  bool // the current configuration is a point of the search
	sims    int
	cancels int // runs stopped part-way (sweep.Outcome.Cancelled)
	rounds  int
	method  string
}

func pointKey(vals []sweep.Value) string {
	parts := make([]string, len(vals))
	for k, v := range vals {
		parts[k] = v.Canon
	}
	return strings.Join(parts, "\x00")
}

// Run searches: the coarse stage (a grid, or a Latin hypercube when the
// grid is larger than Samples), then refinement rounds that bisect each
// numeric key where feasibility changes next to the best points (and the
// current configuration), until nothing is left to bisect or MaxRounds;
// then the recommendation's robustness at Traffic× the traffic. Each
// round is a sweep (package sweep) with seeds derived from the points'
// values, so the result depends on nothing but the configuration: not
// Jobs, the shards, nor interruptions.
//
// With opt.Shard, Run evaluates that shard of the coarse stage and returns
// a Result with Partial set.
func (t *Tuner) Run(ctx context.Context, opt Options) (*Result, error) {
	start := time.Now()
	s := &search{t: t, opt: opt, byKey: map[string]*Point{}, tried: map[string]bool{}}
	if err := s.prepareDir(); err != nil {
		return nil, err
	}
	coarse, method := t.coarse()
	s.method = method
	cur, curOK := t.currentValues()
	if curOK && s.valid(cur) == nil {
		s.placed = true
		if !containsKey(coarse, cur) {
			coarse = append(coarse, cur)
		}
	}
	coarse = s.filter(coarse)
	if len(coarse) == 0 {
		return nil, flagErr("--vary", fmt.Sprintf("the scenario refuses all %d coarse points, e.g. %s", len(s.skipped), s.skipped[0]), "ranges the scenario accepts")
	}
	if !opt.Shard.Whole() {
		o, err := s.round(ctx, 1, method, coarse, opt.Shard)
		if err != nil {
			return nil, err
		}
		return &Result{Partial: true, Shard: opt.Shard, ShardPoints: o.Points, Simulations: o.Simulations, Cancelled: o.Cancelled, Wall: time.Since(start), t: t}, nil
	}
	if len(opt.From) > 0 {
		if err := s.merge(); err != nil {
			return nil, err
		}
	}
	if _, err := s.round(ctx, 1, method, coarse, sweep.Shard{}); err != nil {
		return nil, err
	}
	for r := 2; r <= t.cfg.MaxRounds+1; r++ {
		next := s.filter(s.proposals())
		if len(next) == 0 {
			break
		}
		if _, err := s.round(ctx, r, "refine", next, sweep.Shard{}); err != nil {
			return nil, err
		}
	}
	if s.placed {
		s.current = s.byKey[pointKey(cur)]
	} else if err := s.runCurrent(ctx); err != nil {
		return nil, err
	}
	res, err := s.result(ctx)
	if err != nil {
		return nil, err
	}
	res.Wall = time.Since(start)
	return res, nil
}

// prepareDir refuses a directory holding a search unless resuming.
func (s *search) prepareDir() error {
	if s.opt.Dir == "" {
		if len(s.opt.From) > 0 {
			return flagErr("--from", "merging shards needs a directory to merge into", "--out DIR")
		}
		return nil
	}
	_, err := os.Stat(filepath.Join(s.opt.Dir, "rounds"))
	if err == nil && !s.opt.Resume && len(s.opt.From) == 0 {
		return inputerr.New(s.opt.Dir, 0, 0, "--out", "this directory already holds a search", "add --resume to continue it, or choose another --out")
	}
	return nil
}

func containsKey(pts [][]sweep.Value, p []sweep.Value) bool {
	k := pointKey(p)
	for _, q := range pts {
		if pointKey(q) == k {
			return true
		}
	}
	return false
}

// valid loads the scenario with the point's values.
func (s *search) valid(vals []sweep.Value) error {
	_, err := scenarios.Parse(s.t.data, s.t.cfg.Path, append(append([]string{}, s.t.cfg.Sets...), s.sets(vals)...))
	return err
}

func (s *search) sets(vals []sweep.Value) []string { return (&Point{Values: vals}).Sets(s.t.keys()) }

// filter drops points already tried, duplicates, and points the scenario
// loader refuses (core above max, a capacity for a SynchronousQueue),
// noting why.
func (s *search) filter(pts [][]sweep.Value) [][]sweep.Value {
	var out [][]sweep.Value
	for _, p := range pts {
		k := pointKey(p)
		if s.tried[k] {
			continue
		}
		s.tried[k] = true
		if err := s.valid(p); err != nil {
			s.skipped = append(s.skipped, strings.Join(s.sets(p), " ")+": "+oneLine(err.Error()))
			continue
		}
		out = append(out, p)
	}
	return out
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// roundConfig is the sweep that evaluates pts with the extra --set sets.
func (s *search) roundConfig(pts [][]sweep.Value, sets []string) sweep.Config {
	t := s.t
	params := make([]sweep.Param, len(t.dims))
	index := make([]map[string]int, len(t.dims))
	for k, d := range t.dims {
		params[k] = sweep.Param{Key: d.param.Key, Spec: d.param.Spec, Kind: d.param.Kind}
		index[k] = map[string]int{}
	}
	// Each parameter's values in increasing order (numbers) or as listed.
	for k, d := range t.dims {
		var vs []sweep.Value
		for _, p := range pts {
			if _, ok := index[k][p[k].Canon]; !ok {
				index[k][p[k].Canon] = -1
				vs = append(vs, p[k])
			}
		}
		if d.numeric {
			sort.SliceStable(vs, func(a, b int) bool { return num(vs[a], d) < num(vs[b], d) })
		}
		for i, v := range vs {
			index[k][v.Canon] = i
		}
		params[k].Values = vs
	}
	design := make([][]int, len(pts))
	for i, p := range pts {
		design[i] = make([]int, len(p))
		for k, v := range p {
			design[i][k] = index[k][v.Canon]
		}
	}
	return sweep.Config{
		Path: t.cfg.Path, Data: t.data, Sets: append(append([]string{}, t.cfg.Sets...), sets...), Seed: t.cfg.Seed,
		Params: params, Design: design, Replications: t.cfg.Replications, MaxReplications: t.cfg.MaxReplications,
		Decide: t.cfg.Constraints, Version: t.cfg.Version,
	}
}

// num is a value's number, +Inf for a numeric key's non-numbers (unbounded).
func num(v sweep.Value, d dim) float64 {
	x := v.Num(d.param.Kind)
	if math.IsNaN(x) {
		return math.Inf(1)
	}
	return x
}

func (s *search) dir(name string) string {
	if s.opt.Dir == "" {
		return ""
	}
	return filepath.Join(s.opt.Dir, name)
}

func roundDir(r int) string { return filepath.Join("rounds", fmt.Sprintf("%02d", r)) }

// round evaluates pts (shard sh of them) as round r and records them.
func (s *search) round(ctx context.Context, r int, name string, pts [][]sweep.Value, sh sweep.Shard) (*sweep.Outcome, error) {
	sw, err := sweep.New(s.roundConfig(pts, nil))
	if err != nil {
		return nil, asVary(err)
	}
	if s.opt.Progress != nil {
		s.opt.Progress(Stage{Round: r, Name: name, Points: len(pts)})
	}
	resume := s.opt.Resume || len(s.opt.From) > 0
	o, err := sw.Run(ctx, sweep.RunOptions{Dir: s.dir(roundDir(r)), Resume: resume, Shard: sh, Jobs: s.opt.Jobs})
	if err != nil {
		return o, err
	}
	s.sims += o.Simulations
	s.cancels += o.Cancelled
	if s.opt.Progress != nil {
		s.opt.Progress(Stage{Round: r, Name: name, Points: len(pts), Done: true, Simulations: o.Simulations})
	}
	if !sh.Whole() {
		return o, nil
	}
	s.rounds = r
	def := sw.Definition()
	for _, row := range o.Results.Rows {
		p := s.t.evaluate(&def, row, r)
		s.points = append(s.points, p)
		s.byKey[pointKey(p.Values)] = p
	}
	return o, nil
}

// merge combines the coarse stage's shards into Dir's round 1.
func (s *search) merge() error {
	var dirs []string
	for _, d := range s.opt.From {
		dirs = append(dirs, filepath.Join(d, roundDir(1)))
	}
	_, err := sweep.Merge(dirs, s.dir(roundDir(1)))
	return err
}

// evaluate makes a Point of a round's row.
func (t *Tuner) evaluate(def *sweep.Definition, row sweep.Row, round int) *Point {
	p := &Point{Values: row.Values, Round: round, Row: row, def: def, Decided: row.Reached, Feasible: row.Reached}
	if len(def.Params) == 0 {
		p.Values = nil
	}
	for _, g := range t.constraints {
		ok, err := g.Check(def, &row)
		ok = ok && err == nil
		p.Holds = append(p.Holds, ok)
		p.Feasible = p.Feasible && ok
	}
	kinds := make([]sweep.Kind, len(t.dims))
	for k, d := range t.dims {
		kinds[k] = d.param.Kind
	}
	if p.Values != nil || t.obj.key < 0 {
		p.Objective, p.ObjectiveHW = t.obj.value(def, p.Values, kinds, &row)
	} else {
		p.Objective, p.ObjectiveHW = math.NaN(), math.NaN()
	}
	return p
}

// runCurrent evaluates the scenario as it is, apart: some varied key's
// current value is unknown (set by nothing the loader reports).
func (s *search) runCurrent(ctx context.Context) error {
	cfg := sweep.Config{Path: s.t.cfg.Path, Data: s.t.data, Sets: s.t.cfg.Sets, Seed: s.t.cfg.Seed,
		Replications: s.t.cfg.Replications, MaxReplications: s.t.cfg.MaxReplications, Decide: s.t.cfg.Constraints, Version: s.t.cfg.Version}
	sw, err := sweep.New(cfg)
	if err != nil {
		return err
	}
	o, err := sw.Run(ctx, sweep.RunOptions{Dir: s.dir("current"), Resume: s.opt.Resume || len(s.opt.From) > 0, Jobs: s.opt.Jobs})
	if err != nil {
		return err
	}
	s.sims += o.Simulations
	s.cancels += o.Cancelled
	def := sw.Definition()
	s.current = s.t.evaluate(&def, o.Results.Rows[0], 0)
	return nil
}
