package main

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/poolsim/poolsim/internal/inputerr"
	"github.com/poolsim/poolsim/output"
	"github.com/poolsim/poolsim/scenarios"
	"github.com/poolsim/poolsim/sim"
)

func runCommand() *cli.Command {
	return &cli.Command{
		Name:      "run",
		Usage:     "simulate a scenario and write timeline.csv, summary.json, snapshots.txt, perf.json",
		ArgsUsage: "SCENARIO",
		Description: `Runs the scenario on a virtual clock and writes into --out (default ./out/<scenario name>):
   timeline.csv   one row per sample: pool size, busy, idle by thread state, queue, counts
   summary.json   totals and steady-state statistics
   snapshots.txt  thread-dump-like views of every worker, if the scenario asks for snapshots
   perf.json      how fast the run went
Everything but perf.json is byte-identical for the same scenario, seed and poolsim version.`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "output directory (default ./out/<scenario name>)"},
			&cli.Uint64Flag{Name: "seed", Usage: "override the scenario's seed"},
			&cli.StringSliceFlag{Name: "set", Usage: "override a scenario key, e.g. --set pool.core=20 (repeatable)"},
			&cli.BoolFlag{Name: "json", Usage: "print summary.json to stdout instead of the human summary"},
			&cli.BoolFlag{Name: "plots", Usage: "also write threads.png, queue.png and wait.png"},
		}, append(fromFlags(), workloadFlags()...)...),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return &usageError{fmt.Sprintf("run takes exactly one scenario file, got %d arguments (usage: poolsim run SCENARIO [--out DIR] [--seed N] [--set K=V]... [--json])", c.NArg())}
			}
			sc, err := loadWithFrom(c, c.Args().First(), !c.Bool("json"))
			if err != nil {
				return err
			}
			out := c.String("out")
			if out == "" {
				out = filepath.Join("out", output.DirName(sc.Name))
			}
			res, written, err := output.WriteRun(c.Context, out, sc, output.RunOptions{Plots: c.Bool("plots")})
			if err != nil {
				return outDirError(err)
			}
			if c.Bool("json") {
				err = sim.WriteJSON(c.App.Writer, res.Summary)
			} else {
				err = output.WriteText(c.App.Writer, sc, res, out, written)
			}
			if err != nil {
				return err
			}
			switch {
			case res.Summary.Interrupted:
				return &interruptedError{fmt.Sprintf("run interrupted at t=%v of %v: %s holds what it had, marked \"complete\": false",
					output.Simulated(res), sc.Duration, out)}
			case !res.Complete && !res.Summary.Capped:
				return fmt.Errorf("run incomplete: %s (outputs marked \"complete\": false)", res.StopReason)
			}
			// A limit that capped the run is a finding, not a failure.
			return nil
		},
	}
}

// loadWithFrom loads a scenario whose pool may come from --from (the
// user's server.xml or Spring configuration); --set applies after it.
func loadWithFrom(c *cli.Context, path string, describe bool) (*scenarios.Scenario, error) {
	ip, err := importPool(c)
	if err != nil {
		return nil, err
	}
	wsets, err := workloadSets(c)
	if err != nil {
		return nil, err
	}
	var sets []string
	if ip != nil {
		if describe {
			ip.describe(c.App.Writer)
		}
		sets = append(sets, ip.sets...)
	}
	sets = append(append(sets, wsets...), c.StringSlice("set")...)
	sc, err := loadScenario(path, sets, c)
	if err != nil || ip == nil {
		return sc, err
	}
	// The DataSource goes to the scenario's hikari resource, which only
	// the loaded scenario names; --set still applies after it.
	dsets, err := ip.dataSourceSets(c, sc)
	if err != nil || len(dsets) == 0 {
		return sc, err
	}
	sets = append(append(append(ip.sets, wsets...), dsets...), c.StringSlice("set")...)
	return loadScenario(path, sets, c)
}

// loadScenario loads a scenario with --set and --seed applied.
func loadScenario(path string, sets []string, c *cli.Context) (*scenarios.Scenario, error) {
	sc, err := scenarios.Load(path, sets)
	if err != nil {
		return nil, err
	}
	if c != nil && c.IsSet("seed") {
		sc.Seed = c.Uint64("seed")
	}
	return sc, nil
}

// interruptedError is a run stopped by SIGINT or SIGTERM: exit 130.
type interruptedError struct{ msg string }

func (e *interruptedError) Error() string { return e.msg }

// outDirError reports an output directory that cannot be created as bad
// input for --out.
func outDirError(err error) error {
	var de *output.DirError
	if errors.As(err, &de) {
		return inputerr.New(de.Dir, 0, 0, "--out", fmt.Sprintf("cannot create the output directory: %v", de.Err), "")
	}
	return err
}
