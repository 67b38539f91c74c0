package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"

	"github.com/urfave/cli/v2"

	"github.com/poolsim/poolsim/output"
	"github.com/poolsim/poolsim/sweep"
	"github.com/poolsim/poolsim/tune"
)

func tuneCommand() *cli.Command {
	return &cli.Command{
		Name:      "tune",
		Usage:     "recommend a configuration that meets constraints (an SLO) at the least cost, with the trade-off shown",
		ArgsUsage: "SCENARIO",
		Description: `Searches the --vary keys for the configuration that meets every --constraint
with 95% confidence while minimizing --minimize: a coarse grid (or a Latin
hypercube when the grid is larger than --samples), then rounds that bisect
each numeric key where feasibility changes next to the best points and the
current configuration. Each point runs replications until the confidence
intervals decide every constraint (at most --max-replications).
  --vary KEY=VALUES     the sweep's --param syntax: 8,16,32 or 4:64:7 or 1:1000:7:log
  --constraint EXPR     the sweep's --assert language: 'wait_p99_s < 0.05',
                        'rejected_ratio < 0.001', 'response_p99_s < 0.2'
  --minimize WHAT       a summary metric (pool_size_mean, largest_pool_size,
                        peak_reserved_stack_bytes), a varied key (pool.max),
                        or a cost: 'pool.max + 100 * wait_p99_s'
Writes into --out: rounds/NN/ (one sweep per round), robustness/, tune.json,
points.csv, frontier.png and tune.html. Results do not depend on --jobs;
--shard I/N runs a shard of the coarse stage, --from merges the shards'
directories and continues; --resume continues an interrupted search.
--check exits 1, naming the nearest feasible change, when the scenario's
own configuration does not meet the constraints.`,
		Flags: []cli.Flag{
			&cli.GenericFlag{Name: "vary", Value: &multiFlag{}, Usage: "a key the search may change: `KEY=VALUES`, e.g. pool.max=4:64:7 (repeatable)"},
			&cli.GenericFlag{Name: "constraint", Value: &multiFlag{}, Usage: "a condition every recommendation must meet, e.g. 'wait_p99_s < 0.05' (repeatable)"},
			&cli.StringFlag{Name: "minimize", Usage: "what to minimize: a summary metric, a varied key or a cost expression"},
			&cli.GenericFlag{Name: "set", Value: &multiFlag{}, Usage: "fix a scenario key, e.g. --set pool.core=20 (repeatable)"},
			&cli.Uint64Flag{Name: "seed", Usage: "override the scenario's seed (every point's seeds derive from it)"},
			&cli.IntFlag{Name: "replications", Aliases: []string{"r"}, Value: tune.DefaultReplications, Usage: "replications every point starts with"},
			&cli.IntFlag{Name: "max-replications", Value: tune.DefaultMaxReplications, Usage: "at most this many replications per point to decide the constraints"},
			&cli.IntFlag{Name: "samples", Value: tune.DefaultSamples, Usage: "coarse stage: the full grid up to this many points, else a Latin hypercube of this many"},
			&cli.IntFlag{Name: "max-rounds", Value: tune.DefaultMaxRounds, Usage: "at most this many refinement rounds"},
			&cli.Float64Flag{Name: "traffic", Value: tune.DefaultTraffic, Usage: "check the recommendation at this factor of the traffic"},
			&cli.IntFlag{Name: "jobs", Aliases: []string{"j"}, Value: runtime.NumCPU(), Usage: "simulations run at once"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "output directory (default ./out/<scenario name>-tune)"},
			&cli.BoolFlag{Name: "resume", Usage: "continue the search in --out, reading finished points back"},
			&cli.StringFlag{Name: "shard", Usage: "run only shard `I/N` of the coarse stage, then stop"},
			&cli.GenericFlag{Name: "from", Value: &multiFlag{}, Usage: "a coarse-stage shard's directory to merge, then continue (repeatable)"},
			&cli.BoolFlag{Name: "check", Usage: "exit 1, naming the nearest feasible change, when the scenario's own configuration fails a constraint"},
			&cli.BoolFlag{Name: "json", Usage: "print tune.json to stdout instead of the report"},
			&cli.StringFlag{Name: "progress", Value: "lines", Usage: "progress on stderr: lines or none"},
		},
		Action: tuneAction,
	}
}

func tuneAction(c *cli.Context) error {
	if c.NArg() != 1 {
		return &usageError{fmt.Sprintf("tune takes exactly one scenario file, got %d arguments (usage: poolsim tune SCENARIO --vary KEY=VALUES... --constraint EXPR... --minimize WHAT)", c.NArg())}
	}
	var vary []sweep.Param
	for _, f := range multi(c, "vary") {
		p, err := tune.ParseVary(f)
		if err != nil {
			return err
		}
		vary = append(vary, p)
	}
	shard, err := sweep.ParseShard(c.String("shard"))
	if err != nil {
		return err
	}
	if c.Int("jobs") < 1 {
		return &usageError{fmt.Sprintf("--jobs %d: at least 1", c.Int("jobs"))}
	}
	cfg := tune.Config{
		Path: c.Args().First(), Sets: multi(c, "set"), Vary: vary,
		Constraints: multi(c, "constraint"), Minimize: c.String("minimize"),
		Replications: c.Int("replications"), MaxReplications: c.Int("max-replications"),
		Samples: c.Int("samples"), MaxRounds: c.Int("max-rounds"), Traffic: c.Float64("traffic"),
		Version: version(),
	}
	if c.IsSet("seed") {
		s := c.Uint64("seed")
		cfg.Seed = &s
	}
	tn, err := tune.New(cfg)
	if err != nil {
		return err
	}
	out := c.String("out")
	if out == "" {
		out = filepath.Join("out", output.DirName(tn.Scenario())+"-tune")
	}
	opt := tune.Options{Dir: out, Resume: c.Bool("resume"), Shard: shard, From: multi(c, "from"), Jobs: c.Int("jobs")}
	switch c.String("progress") {
	case "lines":
		opt.Progress = func(s tune.Stage) {
			if s.Done {
				fmt.Fprintf(c.App.ErrWriter, "tune: round %d (%s): %d points, %d simulations\n", s.Round, s.Name, s.Points, s.Simulations)
			}
		}
	case "none":
	default:
		return &usageError{fmt.Sprintf("--progress %q: one of lines, none", c.String("progress"))}
	}
	res, err := tn.Run(c.Context, opt)
	if errors.Is(err, sweep.ErrInterrupted) {
		fmt.Fprintf(c.App.ErrWriter, "poolsim: tune interrupted: every finished point is saved in %s; run the same command with --resume to continue\n", filepath.Join(out, "rounds"))
		return err
	}
	if err != nil {
		return err
	}
	if res.Partial {
		fmt.Fprintf(c.App.Writer, "tune %s: shard %s of the coarse stage: %d points, %d simulations, saved in %s\n  next      when every shard is done: the same command without --shard, with --from DIR for each shard's directory\n",
			tn.Scenario(), shard, res.ShardPoints, res.Simulations, filepath.Join(out, "rounds", "01"))
		return nil
	}
	files, err := res.WriteDir(out)
	if err != nil {
		return err
	}
	if c.Bool("json") {
		if err := res.WriteJSON(c.App.Writer); err != nil {
			return err
		}
	} else {
		if err := res.WriteText(c.App.Writer, c.Int("jobs")); err != nil {
			return err
		}
		fmt.Fprintf(c.App.Writer, "  wrote     %s\n", files)
	}
	if c.Bool("check") {
		if msg := res.CheckFailure(); msg != "" {
			return &expectationError{msg}
		}
	}
	return nil
}
