package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/poolsim/poolsim/internal/atomicfile"
	"github.com/poolsim/poolsim/internal/inputerr"
	"github.com/poolsim/poolsim/output"
	"github.com/poolsim/poolsim/sweep"
)

// multiFlag is a repeatable flag whose values are kept whole: urfave/cli's
// StringSliceFlag splits values at commas, and --param values are comma
// lists (--set values may be YAML blocks with commas).
type multiFlag struct{ vals []string }

func (m *multiFlag) Set(v string) error { m.vals = append(m.vals, v); return nil }
func (m *multiFlag) String() string     { return strings.Join(m.vals, " ") }

func multi(c *cli.Context, name string) []string {
	if m, ok := c.Generic(name).(*multiFlag); ok && m != nil {
		return m.vals
	}
	return nil
}

// gateFlags are the flags sweep and merge share: gates, JUnit, plots.
func gateFlags() []cli.Flag {
	return []cli.Flag{
		&cli.GenericFlag{Name: "assert", Value: &multiFlag{}, Usage: "a condition every point must meet, e.g. 'rejected == 0 && wait_p99_s < 0.2' (repeatable; exit 1 listing every failing point)"},
		&cli.StringFlag{Name: "junit", Usage: "write a JUnit XML report of the --assert gates to `FILE` (one test case per point)"},
		&cli.BoolFlag{Name: "plots", Usage: "draw DIR/plots/METRIC.png: lines with error bars over one parameter, a heatmap over two"},
		&cli.GenericFlag{Name: "plot-metric", Value: &multiFlag{}, Usage: "a metric to plot (repeatable; default: the --metric, else " + strings.Join(sweep.DefaultPlotMetrics(), ", ") + ")"},
	}
}

func sweepCommand() *cli.Command {
	return &cli.Command{
		Name:      "sweep",
		Usage:     "run a scenario over a grid of parameter values, with replications, confidence intervals, shards and gates",
		ArgsUsage: "SCENARIO",
		Description: `Runs SCENARIO at every point of the grid the --param flags make (the first
varies slowest), --replications times per point with seeds derived from the
scenario's seed and the point's values, and writes into --out:
   sweep.csv, sweep.json  one row per point in grid order: its parameters, the
                          replications and seeds used, and for every metric of
                          summary.json its mean and 95% confidence half-width
                          (Student t; empty/null with one replication)
   points/                one file per finished point, written as it finishes
   manifest.json          what the sweep is, for --resume and merge
VALUES: a list 8,16,32 (or 10s,30s or linked,array), a linear range 10:1000:12,
or a log range 10:1000:12:log. Range ends are kept; points between are rounded
to 4 significant digits in the ends' unit (durations in s, ms or µs; rates in
the ends' unit) and, for integer keys like pool.max, to whole numbers (duplicates
dropped, with a note).
Results do not depend on --jobs or --shard: 'poolsim merge' of the shards'
directories writes exactly what one unsharded sweep writes. An interrupted
sweep (Ctrl-C, SIGTERM, a killed machine) continues with --resume.`,
		Flags: append([]cli.Flag{
			&cli.GenericFlag{Name: "param", Value: &multiFlag{}, Usage: "sweep a scenario key: `KEY=VALUES`, e.g. pool.max=50:800:5:log (repeatable: a grid)"},
			&cli.GenericFlag{Name: "set", Value: &multiFlag{}, Usage: "fix a scenario key at every point, e.g. --set pool.core=20 (repeatable)"},
			&cli.Uint64Flag{Name: "seed", Usage: "override the scenario's seed (each point's seeds derive from it)"},
			&cli.IntFlag{Name: "replications", Aliases: []string{"r"}, Value: 1, Usage: "independent replications per point (with --precision: the first replications, default 5)"},
			&cli.IntFlag{Name: "jobs", Aliases: []string{"j"}, Value: runtime.NumCPU(), Usage: "simulations run at once"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "output directory (default ./out/<scenario name>-sweep)"},
			&cli.BoolFlag{Name: "resume", Usage: "continue the sweep in --out, skipping finished points (starts it if --out holds none)"},
			&cli.StringFlag{Name: "shard", Usage: "run only shard `I/N` of the points (1 <= I <= N), for spreading a sweep over machines"},
			&cli.Float64Flag{Name: "precision", Usage: "add replications until --metric's 95% half-width is below this fraction of its mean, e.g. 0.02"},
			&cli.StringFlag{Name: "metric", Usage: "the metric --precision applies to, e.g. wait_p99_s"},
			&cli.IntFlag{Name: "max-replications", Value: sweep.DefaultMaxReplications, Usage: "at most this many replications per point with --precision"},
			&cli.StringFlag{Name: "progress", Value: "auto", Usage: "progress on stderr: auto (a bar on a terminal, else lines), bar, lines, none"},
		}, gateFlags()...),
		Action: sweepAction,
	}
}

func mergeCommand() *cli.Command {
	return &cli.Command{
		Name:      "merge",
		Usage:     "combine the directories of a sharded sweep into what the unsharded sweep writes",
		ArgsUsage: "DIR...",
		Description: `Reads the directories written by 'poolsim sweep --shard I/N' (or partial runs of
one sweep) and writes into --out exactly what the unsharded sweep would have
written, byte for byte: manifest.json, points/, sweep.csv, sweep.json. Every
point must be finished in some directory. --assert, --junit and --plots work as
for sweep, on the whole grid.`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Required: true, Usage: "the merged sweep's directory"},
		}, gateFlags()...),
		Action: func(c *cli.Context) error {
			if c.NArg() < 1 {
				return &usageError{"merge takes one or more sweep directories (usage: poolsim merge DIR... --out DIR [--assert EXPR]... [--junit FILE] [--plots])"}
			}
			res, err := sweep.Merge(c.Args().Slice(), c.String("out"))
			if err != nil {
				return err
			}
			fmt.Fprintf(c.App.Writer, "merged %d directories: %d points of sweep %s\n  wrote %s\n", c.NArg(), len(res.Rows), res.Definition.Scenario, outputsOf(c.String("out")))
			return finishSweep(c, res, c.String("out"))
		},
	}
}

func outputsOf(dir string) string {
	return filepath.Join(dir, "sweep.csv") + ", " + filepath.Join(dir, "sweep.json")
}

func sweepAction(c *cli.Context) error {
	if c.NArg() != 1 {
		return &usageError{fmt.Sprintf("sweep takes exactly one scenario file, got %d arguments (usage: poolsim sweep SCENARIO --param KEY=VALUES... [--replications N] [--out DIR])", c.NArg())}
	}
	var params []sweep.Param
	for _, f := range multi(c, "param") {
		p, err := sweep.ParseParam(f)
		if err != nil {
			return err
		}
		params = append(params, p)
	}
	shard, err := sweep.ParseShard(c.String("shard"))
	if err != nil {
		return err
	}
	if c.Int("jobs") < 1 {
		return &usageError{fmt.Sprintf("--jobs %d: at least 1", c.Int("jobs"))}
	}
	reps := c.Int("replications")
	if c.IsSet("precision") && !c.IsSet("replications") {
		reps = 5
	}
	cfg := sweep.Config{
		Path:            c.Args().First(),
		Sets:            multi(c, "set"),
		Params:          params,
		Replications:    reps,
		Precision:       c.Float64("precision"),
		Metric:          c.String("metric"),
		MaxReplications: c.Int("max-replications"),
		Version:         version(),
	}
	if c.IsSet("precision") && c.Float64("precision") <= 0 {
		return inputerr.New("--precision", 0, 0, "", fmt.Sprintf("%v is not a relative half-width", c.Float64("precision")), "a number > 0, e.g. 0.02 for ±2% of the mean")
	}
	if c.IsSet("seed") {
		s := c.Uint64("seed")
		cfg.Seed = &s
	}
	sw, err := sweep.New(cfg)
	if err != nil {
		return err
	}
	def := sw.Definition()
	// Check the gates and plot metrics before running anything.
	if _, err := compileGates(c, &def); err != nil {
		return err
	}
	if _, err := plotMetrics(c, &def); err != nil {
		return err
	}
	out := c.String("out")
	if out == "" {
		out = filepath.Join("out", output.DirName(def.Scenario)+"-sweep")
	}
	mode := c.String("progress")
	if mode == "auto" {
		mode = "lines"
		if f, ok := c.App.ErrWriter.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			mode = "bar"
		}
	}
	var prog sweep.Progress
	switch mode {
	case "bar":
		prog = &barProgress{w: c.App.ErrWriter}
	case "lines":
		prog = &lineProgress{w: c.App.ErrWriter, every: 5 * time.Second, jobs: c.Int("jobs")}
	case "none":
	default:
		return &usageError{fmt.Sprintf("--progress %q: one of auto, bar, lines, none", c.String("progress"))}
	}
	for _, n := range def.Notes {
		fmt.Fprintf(c.App.ErrWriter, "poolsim: note: %s\n", n)
	}
	o, err := sw.Run(c.Context, sweep.RunOptions{Dir: out, Resume: c.Bool("resume"), Shard: shard, Jobs: c.Int("jobs"), Progress: prog})
	if b, ok := prog.(*barProgress); ok {
		b.finish()
	}
	if errors.Is(err, sweep.ErrInterrupted) {
		fmt.Fprintf(c.App.ErrWriter, "poolsim: sweep interrupted: %d of %d points finished and saved in %s; run the same command with --resume to continue\n",
			o.Resumed+o.Ran, o.Points, filepath.Join(out, "points"))
		return err
	}
	if err != nil {
		return err
	}
	printSweep(c.App.Writer, sw, o, out, shard, c.Int("jobs"))
	return finishSweep(c, o.Results, out)
}

// printSweep prints what the sweep did.
func printSweep(w io.Writer, sw *sweep.Sweep, o *sweep.Outcome, out string, shard sweep.Shard, jobs int) {
	def := sw.Definition()
	part := ""
	if !shard.Whole() {
		part = fmt.Sprintf(" (shard %s of %d points)", shard, def.Points)
	}
	fmt.Fprintf(w, "sweep %s: %d points%s, %d simulations in %s with %d jobs", def.Scenario, o.Points, part, o.Simulations, o.Wall.Round(time.Millisecond), jobs)
	if o.Cancelled > 0 {
		// Run ahead for a point that --precision decided first.
		fmt.Fprintf(w, " (and %d cancelled part-way, no longer needed)", o.Cancelled)
	}
	if o.Resumed > 0 {
		fmt.Fprintf(w, "; %d points were already finished (resumed)", o.Resumed)
	}
	fmt.Fprintln(w)
	rows := o.Results.Rows
	if def.Precision > 0 && len(rows) > 0 {
		ns := make([]int, len(rows))
		reached := 0
		var missed []string
		j, _ := o.Results.MetricIndex(def.PrecisionMetric)
		for i, r := range rows {
			ns[i] = r.Replications
			if r.Reached {
				reached++
			} else if len(missed) < 5 {
				rel := r.HalfWidth[j] / math.Abs(r.Mean[j])
				missed = append(missed, fmt.Sprintf("point %d %s (%d replications, ±%.3g%%)", r.Point, sw.Grid().Label(r.Point), r.Replications, rel*100))
			}
		}
		sort.Ints(ns)
		fmt.Fprintf(w, "  precision ±%g%% on %s reached at %d of %d points; replications per point %d–%d (median %d)\n",
			def.Precision*100, def.PrecisionMetric, reached, len(rows), ns[0], ns[len(ns)-1], ns[len(ns)/2])
		for _, m := range missed {
			fmt.Fprintf(w, "  not reached: %s\n", m)
		}
	}
	inc, at := 0, 0
	for _, r := range rows {
		if r.Incomplete > 0 {
			inc += r.Incomplete
			at++
		}
	}
	if inc > 0 {
		fmt.Fprintf(w, "  note      %d replications at %d points stopped early (a scenario limit); their metrics cover the time they ran\n", inc, at)
	}
	fmt.Fprintf(w, "  wrote     %s\n", outputsOf(out))
}

func compileGates(c *cli.Context, def *sweep.Definition) ([]*sweep.Gate, error) {
	var gates []*sweep.Gate
	for _, e := range multi(c, "assert") {
		g, err := sweep.CompileGate(e, def)
		if err != nil {
			return nil, err
		}
		gates = append(gates, g)
	}
	return gates, nil
}

func plotMetrics(c *cli.Context, def *sweep.Definition) ([]string, error) {
	ms := multi(c, "plot-metric")
	if len(ms) == 0 {
		if def.PrecisionMetric != "" {
			ms = []string{def.PrecisionMetric}
		} else {
			ms = sweep.DefaultPlotMetrics()
		}
	}
	for _, m := range ms {
		if !slicesContains(def.Metrics, m) {
			msg := fmt.Sprintf("unknown metric %q", m)
			if s := inputerr.Suggest(m, def.Metrics); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
			}
			return nil, inputerr.New("--plot-metric", 0, 0, "", msg, "a numeric field of summary.json")
		}
	}
	return ms, nil
}

func slicesContains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// finishSweep draws the plots, checks the gates and writes the JUnit
// report: what sweep and merge do once the results are written.
func finishSweep(c *cli.Context, res *sweep.Results, out string) error {
	def := res.Definition
	gates, err := compileGates(c, &def)
	if err != nil {
		return err
	}
	if c.Bool("plots") {
		ms, err := plotMetrics(c, &def)
		if err != nil {
			return err
		}
		for _, m := range ms {
			files, err := sweep.WritePlots(res, out, []string{m})
			if err != nil {
				// A sweep whose shape has no chart still succeeded.
				fmt.Fprintf(c.App.ErrWriter, "poolsim: no plot of %s: %v\n", m, err)
				continue
			}
			fmt.Fprintf(c.App.Writer, "  plot      %s\n", strings.Join(files, ", "))
		}
	}
	if len(gates) == 0 && c.String("junit") == "" {
		return nil
	}
	verdicts, err := sweep.Evaluate(res, gates)
	if err != nil {
		return err
	}
	if f := c.String("junit"); f != "" {
		if dir := filepath.Dir(f); dir != "." {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return inputerr.New(f, 0, 0, "--junit", fmt.Sprintf("cannot create its directory: %v", err), "")
			}
		}
		if err := atomicfile.Write(f, func(w io.Writer) error { return sweep.WriteJUnit(w, res, verdicts, gates) }); err != nil {
			return fmt.Errorf("writing the JUnit report %s: %w", f, err)
		}
		fmt.Fprintf(c.App.Writer, "  junit     %s\n", f)
	}
	if rep := sweep.FailureReport(res, verdicts); rep != "" {
		return &expectationError{rep}
	}
	if len(gates) > 0 {
		exprs := make([]string, len(gates))
		for i, g := range gates {
			exprs[i] = "'" + g.Expr + "'"
		}
		fmt.Fprintf(c.App.Writer, "  gates     all %d points pass %s\n", len(res.Rows), strings.Join(exprs, " and "))
	}
	return nil
}

// lineProgress prints plain progress lines (stderr is not a terminal: CI
// logs): one at the start, then at most one every `every`, and the last.
type lineProgress struct {
	w                    io.Writer
	every                time.Duration
	jobs                 int
	start, last          time.Time
	total, resumed, done int
}

func (p *lineProgress) Start(total, resumed int) {
	p.start, p.last = time.Now(), time.Now()
	p.total, p.resumed, p.done = total, resumed, resumed
	fmt.Fprintf(p.w, "sweep: %d points to run", total-resumed)
	if resumed > 0 {
		fmt.Fprintf(p.w, " (%d of %d already finished)", resumed, total)
	}
	fmt.Fprintf(p.w, ", %d jobs\n", p.jobs)
}

func (p *lineProgress) Done(sweep.Row) {
	p.done++
	now := time.Now()
	if now.Sub(p.last) < p.every && p.done < p.total {
		return
	}
	p.last = now
	el := now.Sub(p.start)
	fmt.Fprintf(p.w, "sweep: %d/%d points (%d%%), %s elapsed", p.done, p.total, 100*p.done/max(p.total, 1), el.Round(time.Second))
	if ran := p.done - p.resumed; ran > 0 && p.done < p.total {
		eta := time.Duration(float64(el) / float64(ran) * float64(p.total-p.done))
		fmt.Fprintf(p.w, ", about %s left", eta.Round(time.Second))
	}
	fmt.Fprintln(p.w)
}

// barProgress draws a progress bar with the rate and the time left
// (stderr is a terminal).
type barProgress struct {
	w   io.Writer
	bar *progressbar.ProgressBar
}

func (p *barProgress) Start(total, resumed int) {
	desc := "sweep"
	if resumed > 0 {
		desc = fmt.Sprintf("sweep (%d resumed)", resumed)
	}
	p.bar = progressbar.NewOptions(total-resumed,
		progressbar.OptionSetWriter(p.w),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("points"),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetWidth(40),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionShowElapsedTimeOnFinish(),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(p.w) }),
	)
}

func (p *barProgress) Done(sweep.Row) {
	if p.bar != nil {
		p.bar.Add(1)
	}
}

// finish ends the bar's line when the sweep stopped before the bar filled.
func (p *barProgress) finish() {
	if p.bar != nil && !p.bar.IsFinished() {
		p.bar.Exit()
		fmt.Fprintln(p.w)
	}
}
