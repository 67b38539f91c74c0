package sweep

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/poolsim/poolsim/internal/inputerr"
	"github.com/poolsim/poolsim/scenarios"
)

// Config describes a sweep.
type Config struct {
	// Path is the scenario file; Data its contents (nil: read Path).
	Path string
	Data []byte
	// Sets are fixed --set overrides, applied before the swept values.
	Sets []string
	// Seed, if not nil, replaces the scenario's seed (--seed).
	Seed *uint64
	// Params are the swept parameters (none: one point, the scenario).
	Params []Param
	// Design, if not nil, lists the points instead of crossing Params
	// (NewDesign).
	Design [][]int
	// Replications per point (>= 1); with Precision, the replications every
	// point starts with (>= 2).
	Replications int
	// Precision, if > 0, adds replications to each point until the 95%
	// half-width of Metric, relative to its mean, is below Precision, or
	// the point has MaxReplications.
	Precision       float64
	Metric          string
	MaxReplications int
	// Decide, if set, adds replications to each point until the 95%
	// intervals decide every one of these gate expressions (Gate.Decided),
	// or the point has MaxReplications: a constraint held with confidence.
	// Exclusive with Precision.
	Decide []string
	// Version is poolsim's version, recorded in the outputs: results are
	// byte-identical for the same definition and version.
	Version string
}

// DefaultMaxReplications caps the precision loop when Config leaves it 0.
const DefaultMaxReplications = 50

// Sweep is a prepared sweep: its definition and grid, checked.
type Sweep struct {
	def    Definition
	grid   *Grid
	data   []byte
	path   string
	sets   []string
	fields []metricField
	metric int     // index of the precision metric
	gates  []*Gate // the compiled Decide expressions
}

// New checks cfg and prepares the sweep. It loads the scenario once (with
// the fixed overrides); each point is checked when it is run (Run checks
// every point before simulating any).
func New(cfg Config) (*Sweep, error) {
	data, err := ReadScenario(cfg.Path, cfg.Data)
	if err != nil {
		return nil, err
	}
	sc, err := scenarios.Parse(data, cfg.Path, cfg.Sets)
	if err != nil {
		return nil, err
	}
	if cfg.Seed != nil {
		sc.Seed = *cfg.Seed
	}
	setKeys := map[string]string{}
	for _, s := range cfg.Sets {
		k, _, _ := strings.Cut(s, "=")
		setKeys[NormalizeKey(k)] = s
	}
	for _, p := range cfg.Params {
		if s, ok := setKeys[p.Key]; ok {
			return nil, inputerr.New("--param "+p.Key+"="+p.Spec, 0, 0, p.Key, fmt.Sprintf("also fixed by --set %s", s), "sweep a key or fix it, not both")
		}
	}
	grid, err := NewDesign(cfg.Params, cfg.Design)
	if err != nil {
		return nil, err
	}
	fields := summaryMetrics()
	names := Metrics()
	s := &Sweep{grid: grid, data: data, path: cfg.Path, sets: cfg.Sets, fields: fields, metric: -1}
	switch {
	case cfg.Replications < 1:
		return nil, inputerr.New("--replications", 0, 0, "", fmt.Sprintf("%d replications", cfg.Replications), "at least 1")
	case cfg.Precision < 0 || cfg.Precision != cfg.Precision:
		return nil, inputerr.New("--precision", 0, 0, "", fmt.Sprintf("%v is not a relative half-width", cfg.Precision), "a number > 0, e.g. 0.02 for ±2% of the mean")
	case cfg.Precision > 0 && len(cfg.Decide) > 0:
		return nil, inputerr.New("--precision", 0, 0, "", "a sweep stops its replications on a precision target or on decided gates, not both", "one of them")
	case len(cfg.Decide) > 0:
		if err := replicationBounds(&cfg, "deciding gates"); err != nil {
			return nil, err
		}
	case cfg.Precision > 0:
		if cfg.Metric == "" {
			return nil, inputerr.New("--precision", 0, 0, "", "needs --metric: the metric whose half-width it bounds", "--metric NAME, e.g. wait_p99_s")
		}
		if s.metric = indexOf(names, cfg.Metric); s.metric < 0 {
			return nil, unknownMetric("--metric", cfg.Metric, names)
		}
		if err := replicationBounds(&cfg, "--precision"); err != nil {
			return nil, err
		}
	case cfg.Metric != "" && indexOf(names, cfg.Metric) < 0:
		return nil, unknownMetric("--metric", cfg.Metric, names)
	}
	sum := sha256.Sum256(sc.Text)
	d := Definition{
		Format:         Format,
		Version:        cfg.Version,
		Scenario:       sc.Name,
		ScenarioSHA256: hex.EncodeToString(sum[:]),
		Sets:           append([]string{}, cfg.Sets...),
		BaseSeed:       sc.Seed,
		Points:         grid.Len(),
		Replications:   cfg.Replications,
		Confidence:     Confidence,
		Metrics:        names,
		Notes:          []string{},
	}
	if cfg.Precision > 0 {
		d.Precision, d.PrecisionMetric, d.MaxReplications = cfg.Precision, cfg.Metric, cfg.MaxReplications
	}
	if len(cfg.Decide) > 0 {
		d.Decide, d.MaxReplications = append([]string{}, cfg.Decide...), cfg.MaxReplications
	}
	if cfg.Design != nil {
		d.Design = cfg.Design
	}
	for _, p := range cfg.Params {
		d.Params = append(d.Params, ParamDef{Key: p.Key, Spec: p.Spec, Kind: p.Kind.String(), Values: p.Values})
		if p.Note != "" {
			d.Notes = append(d.Notes, p.Note)
		}
	}
	if d.Params == nil {
		d.Params = []ParamDef{}
	}
	for _, e := range d.Decide {
		g, err := CompileGate(e, &d)
		if err != nil {
			return nil, err
		}
		s.gates = append(s.gates, g)
	}
	s.def = d
	return s, nil
}

// replicationBounds checks the replications of a sweep that chooses how
// many each point runs (what names the rule): at least 2 first ones (an
// interval), and a cap (default DefaultMaxReplications) not below them.
func replicationBounds(cfg *Config, what string) error {
	if cfg.Replications < 2 {
		return inputerr.New("--replications", 0, 0, "", fmt.Sprintf("%s needs at least 2 first replications per point, got %d", what, cfg.Replications), "2 or more (5 is a sound start)")
	}
	if cfg.MaxReplications == 0 {
		cfg.MaxReplications = DefaultMaxReplications
	}
	if cfg.MaxReplications < cfg.Replications {
		return inputerr.New("--max-replications", 0, 0, "", fmt.Sprintf("%d is below --replications %d", cfg.MaxReplications, cfg.Replications), "at least --replications")
	}
	return nil
}

func indexOf(xs []string, x string) int {
	for i, y := range xs {
		if y == x {
			return i
		}
	}
	return -1
}

func unknownMetric(flag, name string, names []string) error {
	msg := fmt.Sprintf("unknown metric %q", name)
	if sug := inputerr.Suggest(name, names); sug != "" {
		msg += fmt.Sprintf("; did you mean %q?", sug)
	}
	return inputerr.New(flag, 0, 0, "", msg, "a numeric field of summary.json: "+strings.Join(names, ", "))
}

// ReadScenario returns data, or when it is nil the scenario file at path;
// a file that cannot be read is an input error naming it.
func ReadScenario(path string, data []byte) ([]byte, error) {
	if data != nil {
		return data, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, inputerr.New(path, 0, 0, "", fmt.Sprintf("cannot read scenario: %v", err), "")
	}
	return data, nil
}

// Definition returns the sweep's definition.
func (s *Sweep) Definition() Definition { return s.def }

// Grid returns the sweep's grid.
func (s *Sweep) Grid() *Grid { return s.grid }

// Progress hears about a running sweep. Its methods are called from one
// goroutine at a time.
type Progress interface {
	// Start: total points in this run (this shard), of which resumed were
	// already finished.
	Start(total, resumed int)
	// Done: a point finished and, with a directory, was saved.
	Done(row Row)
}

// RunOptions say where and how a sweep runs. None of them changes results.
type RunOptions struct {
	// Dir receives manifest.json, points/ and, at the end, sweep.csv and
	// sweep.json; "" keeps results in memory only.
	Dir string
	// Resume continues the sweep already in Dir, skipping finished points.
	// Without it, a Dir holding a sweep is an error.
	Resume bool
	// Shard restricts the run to part of the grid.
	Shard Shard
	// Jobs is how many simulations run at once (<= 0: every CPU).
	Jobs int
	// Progress, if set, hears about progress.
	Progress Progress
}

// Outcome is what Run did.
type Outcome struct {
	Results *Results // this shard's rows, in grid order; nil if interrupted
	// Points of this shard; Resumed of them were finished before; Ran were
	// finished by this run.
	Points, Resumed, Ran int
	// Simulations run by this call (including replications beyond a
	// point's final count, run ahead in parallel and not used); Cancelled
	// more were started and stopped part-way, when their point (or the
	// sweep) was decided or interrupted before they ended.
	Simulations int
	Cancelled   int
	Wall        time.Duration
}

// ErrInterrupted wraps context.Canceled when a sweep is interrupted.
var ErrInterrupted = fmt.Errorf("sweep interrupted: %w", context.Canceled)

// Run runs the sweep's points (those of opt.Shard not already finished in
// opt.Dir), opt.Jobs simulations at a time. Each replication's seed
// derives from the point (PointSeed, ReplicationSeed), never from the
// order points run in, so results are the same for any Jobs and any
// sharding. Each point is saved atomically when it finishes; at the end
// sweep.csv and sweep.json are assembled from the saved points, in grid
// order. If ctx is cancelled, Run stops within a moment, keeps every
// finished point, and returns an error wrapping ErrInterrupted.
func (s *Sweep) Run(ctx context.Context, opt RunOptions) (*Outcome, error) {
	start := time.Now()
	jobs := opt.Jobs
	if jobs <= 0 {
		jobs = runtime.NumCPU()
	}
	points := s.grid.ShardPoints(opt.Shard)
	out := &Outcome{Points: len(points)}
	id := s.def.ID()

	done := map[int]*pointRecord{}
	var todo []int
	if opt.Dir != "" {
		unlock, err := s.prepareDir(opt)
		if err != nil {
			return nil, err
		}
		defer unlock()
		for _, i := range points {
			_, ok, err := readPoint(opt.Dir, &s.def, id, s.grid, i)
			if err != nil {
				// A torn or foreign point file: never trust it, redo it.
				if rmErr := os.Remove(pointPath(opt.Dir, i)); rmErr != nil {
					return nil, fmt.Errorf("%w (and removing it failed: %v)", err, rmErr)
				}
				ok = false
			}
			if ok {
				out.Resumed++
			} else {
				todo = append(todo, i)
			}
		}
	} else {
		todo = points
	}
	// Check every point before simulating any, so that a bad value fails
	// the sweep at once, not hours in.
	for _, i := range todo {
		if _, err := s.load(i); err != nil {
			return nil, err
		}
	}
	if opt.Progress != nil {
		opt.Progress.Start(len(points), out.Resumed)
	}
	sims, cancelled, ran, err := s.execute(ctx, todo, jobs, opt, id, done)
	out.Simulations, out.Cancelled, out.Ran = sims, cancelled, ran
	out.Wall = time.Since(start)
	if err != nil {
		return out, err
	}
	if opt.Dir != "" {
		res, err := assemble(opt.Dir, &s.def, s.grid, opt.Shard, points)
		if err != nil {
			return out, err
		}
		if err := res.Write(opt.Dir); err != nil {
			return out, err
		}
		out.Results = res
	} else {
		res := &Results{Definition: s.def, Shard: opt.Shard, grid: s.grid}
		for _, i := range points {
			res.Rows = append(res.Rows, aggregate(done[i], s.grid, len(s.def.Metrics)))
		}
		out.Results = res
	}
	out.Wall = time.Since(start)
	return out, nil
}

// prepareDir creates and locks opt.Dir and checks or writes its manifest.
func (s *Sweep) prepareDir(opt RunOptions) (_ func(), err error) {
	if err := os.MkdirAll(filepath.Join(opt.Dir, pointsDir), 0o755); err != nil {
		return nil, inputerr.New(opt.Dir, 0, 0, "--out", fmt.Sprintf("cannot create the sweep directory: %v", err), "")
	}
	unlock, err := lockDir(opt.Dir)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			unlock()
		}
	}()
	m, ok, err := readManifest(opt.Dir)
	if err != nil {
		return nil, err
	}
	mpath := filepath.Join(opt.Dir, manifestName)
	switch {
	case ok && !opt.Resume:
		return nil, inputerr.New(mpath, 0, 0, "", "this directory already holds a sweep", "add --resume to continue it, or choose another --out")
	case ok && m.ID != s.def.ID():
		return nil, inputerr.New(mpath, 0, 0, "", "--resume: this directory holds another sweep ("+m.Definition.diff(&s.def)+")", "the same scenario, flags and poolsim version as the interrupted sweep, or another --out")
	case ok && m.Shard != opt.Shard.String():
		return nil, inputerr.New(mpath, 0, 0, "", fmt.Sprintf("--resume: this directory holds shard %q, not %q", m.Shard, opt.Shard.String()), "the same --shard as the interrupted sweep")
	}
	if err := removeTemps(opt.Dir); err != nil {
		return nil, err
	}
	if !ok {
		if err := writeManifest(opt.Dir, &s.def, opt.Shard); err != nil {
			return nil, err
		}
	}
	return unlock, nil
}

// load parses the scenario with point i's values.
func (s *Sweep) load(i int) (*scenarios.Scenario, error) {
	sets := append(append([]string{}, s.sets...), s.grid.Sets(i)...)
	sc, err := scenarios.Parse(s.data, s.path, sets)
	if err != nil {
		var ie *inputerr.Error
		if !errors.As(err, &ie) || len(s.grid.Params) == 0 {
			return nil, err
		}
		e := *ie
		if set, ok := strings.CutPrefix(ie.File, "--set "); ok {
			// Name the --param flag, not the --set it became.
			k, _, _ := strings.Cut(set, "=")
			for _, p := range s.grid.Params {
				if NormalizeKey(k) == p.Key {
					e.File = "--param " + p.Key + "=" + p.Spec
				}
			}
		}
		e.Msg += fmt.Sprintf(" [sweep point %d: %s]", i, s.grid.Label(i))
		return nil, &e
	}
	return sc, nil
}
