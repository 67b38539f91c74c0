package tune

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/poolsim/poolsim/internal/inputerr"
	"github.com/poolsim/poolsim/scenarios"
	"github.com/poolsim/poolsim/sweep"
)

// Config describes a search.
type Config struct {
	// Path is the scenario file; Data its contents (nil: read Path).
	Path string
	Data []byte
	// Sets are fixed --set overrides.
	Sets []string
	// Seed, if not nil, replaces the scenario's seed.
	Seed *uint64
	// Vary are the keys the search may change, each with its candidate
	// values (sweep.ParseParam: a list, or a range A:B:N[:log] whose N
	// points make the coarse grid and between which refinement bisects).
	Vary []sweep.Param
	// Constraints are conditions in the sweep's --assert language, held
	// with 95% confidence (sweep.Config.Decide).
	Constraints []string
	// Minimize is a summary metric, a varied key, or a cost expression.
	Minimize string
	// Replications every point starts with (>= 2; 0: 5), and at most
	// (0: 20), to decide the constraints.
	Replications, MaxReplications int
	// Samples bounds the coarse stage: the full grid of the Vary values
	// when it has at most this many points, else a Latin hypercube of
	// this many (0: 40).
	Samples int
	// MaxRounds bounds the refinement rounds after the coarse stage (0: 12).
	MaxRounds int
	// Traffic is the factor of the robustness check (0: 1.5).
	Traffic float64
	// Version is poolsim's version, recorded in every round's sweep.
	Version string
}

// Defaults of Config's zero fields.
const (
	DefaultReplications    = 5
	DefaultMaxReplications = 20
	DefaultSamples         = 40
	DefaultMaxRounds       = 12
	DefaultTraffic         = 1.5
)

// dim is one varied key.
type dim struct {
	param   sweep.Param
	numeric bool // every value a finite number: bisected
	lo, hi  float64
}

// objective is what --minimize names.
type objective struct {
	text   string
	metric string      // a metric or derived variable, or ""
	key    int         // a varied key's index, or -1
	cost   *sweep.Gate // a cost expression, or nil
}

// Tuner is a prepared search.
type Tuner struct {
	cfg         Config
	data        []byte
	base        *scenarios.Scenario // the scenario with the fixed --set
	dims        []dim
	probe       sweep.Definition // the definition constraints compile against
	constraints []*sweep.Gate
	obj         objective
	cur         []sweep.Value // the scenario's own values of the varied keys
	curOK       bool          // cur is known
}

func flagErr(flag, msg, allowed string) error {
	return inputerr.New(flag, 0, 0, "", msg, allowed)
}

// New checks cfg — the scenario, every --vary key, constraint and the
// objective — before anything runs, and prepares the search.
func New(cfg Config) (*Tuner, error) {
	if cfg.Replications == 0 {
		cfg.Replications = DefaultReplications
	}
	if cfg.MaxReplications == 0 {
		cfg.MaxReplications = max(DefaultMaxReplications, cfg.Replications)
	}
	if cfg.Samples == 0 {
		cfg.Samples = DefaultSamples
	}
	if cfg.MaxRounds == 0 {
		cfg.MaxRounds = DefaultMaxRounds
	}
	if cfg.Traffic == 0 {
		cfg.Traffic = DefaultTraffic
	}
	switch {
	case len(cfg.Vary) == 0:
		return nil, flagErr("--vary", "nothing to vary", "one or more --vary KEY=VALUES, e.g. --vary pool.max=4:64:7")
	case len(cfg.Constraints) == 0:
		return nil, flagErr("--constraint", "no constraint: every configuration would do", "one or more conditions, e.g. --constraint 'wait_p99_s < 0.05'")
	case strings.TrimSpace(cfg.Minimize) == "":
		return nil, flagErr("--minimize", "nothing to minimize", "a summary metric (pool_size_mean), a varied key (pool.max) or a cost ('pool.max + 100 * wait_p99_s')")
	case cfg.Replications < 2:
		return nil, flagErr("--replications", fmt.Sprintf("%d first replications cannot give an interval", cfg.Replications), "2 or more (5 is a sound start)")
	case cfg.MaxReplications < cfg.Replications:
		return nil, flagErr("--max-replications", fmt.Sprintf("%d is below --replications %d", cfg.MaxReplications, cfg.Replications), "at least --replications")
	case cfg.Samples < 2:
		return nil, flagErr("--samples", fmt.Sprintf("%d coarse points", cfg.Samples), "2 or more")
	case cfg.MaxRounds < 0:
		return nil, flagErr("--max-rounds", fmt.Sprintf("%d rounds", cfg.MaxRounds), "0 or more")
	case !(cfg.Traffic > 0) || math.IsInf(cfg.Traffic, 0):
		return nil, flagErr("--traffic", fmt.Sprintf("%v is not a traffic factor", cfg.Traffic), "a number > 0, e.g. 1.5")
	}
	data, err := sweep.ReadScenario(cfg.Path, cfg.Data)
	if err != nil {
		return nil, err
	}
	base, err := scenarios.Parse(data, cfg.Path, cfg.Sets)
	if err != nil {
		return nil, err
	}
	if cfg.Seed != nil {
		base.Seed = *cfg.Seed
	}
	t := &Tuner{cfg: cfg, data: data, base: base}
	// The round sweeps check --vary against --set and each other; a
	// one-point probe sweep does it now, and gives the definition the
	// expressions compile against.
	probe, err := sweep.New(sweep.Config{Path: cfg.Path, Data: data, Sets: cfg.Sets, Seed: cfg.Seed, Params: cfg.Vary, Replications: 1, Version: cfg.Version})
	if err != nil {
		return nil, asVary(err)
	}
	t.probe = probe.Definition()
	for _, p := range cfg.Vary {
		d := dim{param: p, numeric: p.Kind != sweep.Text, lo: math.Inf(1), hi: math.Inf(-1)}
		for _, v := range p.Values {
			x := v.Num(p.Kind)
			if math.IsNaN(x) {
				d.numeric = false
				continue
			}
			d.lo, d.hi = math.Min(d.lo, x), math.Max(d.hi, x)
		}
		t.dims = append(t.dims, d)
	}
	for _, c := range cfg.Constraints {
		g, err := sweep.CompileExpr("--constraint", c, &t.probe, false)
		if err != nil {
			return nil, err
		}
		t.constraints = append(t.constraints, g)
	}
	if t.obj, err = t.parseObjective(cfg.Minimize); err != nil {
		return nil, err
	}
	t.cur, t.curOK = t.readCurrent()
	return t, nil
}

// ParseVary reads one --vary KEY=VALUES: the sweep's --param syntax.
func ParseVary(flag string) (sweep.Param, error) {
	p, err := sweep.ParseParam(flag)
	return p, asVary(err)
}

// asVary makes an input error about a --param flag name --vary, the flag
// the user wrote.
func asVary(err error) error {
	var ie *inputerr.Error
	if !errors.As(err, &ie) {
		return err
	}
	if rest, ok := strings.CutPrefix(ie.File, "--param "); ok {
		e := *ie
		e.File = "--vary " + rest
		e.Msg = strings.ReplaceAll(e.Msg, "sweep a key or fix it", "vary a key or fix it")
		e.Allowed = strings.ReplaceAll(e.Allowed, "sweep a key or fix it", "vary a key or fix it")
		return &e
	}
	return err
}

// parseObjective reads --minimize: a metric, a derived variable, a varied
// key, or a cost expression.
func (t *Tuner) parseObjective(text string) (objective, error) {
	text = strings.TrimSpace(text)
	o := objective{text: text, key: -1}
	for _, m := range append(sweep.Metrics(), sweep.DerivedNames()...) {
		if m == text {
			o.metric = m
			return o, nil
		}
	}
	for k, d := range t.dims {
		if d.param.Key == sweep.NormalizeKey(text) {
			if !d.numeric {
				return o, flagErr("--minimize "+text, fmt.Sprintf("%s takes %s values, which have no order", d.param.Key, d.param.Kind), "a numeric key, a summary metric or a cost")
			}
			o.key = k
			return o, nil
		}
	}
	if isName(text) {
		names := append(append(sweep.Metrics(), sweep.DerivedNames()...), t.keys()...)
		msg := fmt.Sprintf("%q is neither a summary metric nor a varied key", text)
		if s := inputerr.Suggest(text, names); s != "" {
			msg += fmt.Sprintf("; did you mean %q?", s)
		}
		return o, flagErr("--minimize "+text, msg, "a summary metric (pool_size_mean, largest_pool_size, peak_reserved_stack_bytes, ...), a varied key, or a cost expression")
	}
	g, err := sweep.CompileExpr("--minimize", text, &t.probe, true)
	if err != nil {
		return o, err
	}
	o.cost = g
	return o, nil
}

// isName reports whether s is a bare name or dotted key, not an expression.
func isName(s string) bool {
	for _, r := range s {
		if !(r == '_' || r == '.' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

func (t *Tuner) keys() []string {
	out := make([]string, len(t.dims))
	for k, d := range t.dims {
		out[k] = d.param.Key
	}
	return out
}

// value is the objective at a point: its mean and half-width (NaN: none).
func (o objective) value(d *sweep.Definition, vals []sweep.Value, kinds []sweep.Kind, row *sweep.Row) (float64, float64) {
	switch {
	case o.metric != "":
		return sweep.Figure(d, row, o.metric)
	case o.key >= 0:
		return vals[o.key].Num(kinds[o.key]), math.NaN()
	}
	x, err := o.cost.Number(d, row)
	if err != nil {
		return math.NaN(), math.NaN()
	}
	return x, math.NaN()
}

// Scenario returns the scenario's name.
func (t *Tuner) Scenario() string { return t.base.Name }
