package main

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/poolsim/poolsim/explain"
)

func explainCommand() *cli.Command {
	return &cli.Command{
		Name:      "explain",
		Usage:     "explain in plain words why the pool looks the way it does, with what-ifs",
		ArgsUsage: "SCENARIO",
		Description: `Runs the scenario and explains its steady state: the pool size and its spread, how many
workers are TIMED_WAITING vs WAITING and why, which idle worker receives the next task and the
equilibrium that implies (compared with the simulated figure), how the pool grew, why tasks were
rejected; then re-simulates the what-ifs that matter for this configuration (a shorter keepAlive, a
lower max, a LIFO hand-off, less traffic, a bounded queue, ...) on the same traffic.`,
		Flags: append([]cli.Flag{
			&cli.Uint64Flag{Name: "seed", Usage: "override the scenario's seed"},
			&cli.StringSliceFlag{Name: "set", Usage: "override a scenario key, e.g. --set pool.keepAlive=30s (repeatable)"},
			&cli.BoolFlag{Name: "no-what-ifs", Usage: "skip the what-ifs (faster)"},
		}, append(fromFlags(), workloadFlags()...)...),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return &usageError{"explain takes exactly one scenario file (usage: poolsim explain SCENARIO [--set K=V]... [--seed N])"}
			}
			sc, err := loadWithFrom(c, c.Args().First(), true)
			if err != nil {
				return err
			}
			start := time.Now()
			e, err := explain.Explain(c.Context, sc, explain.Options{NoWhatIfs: c.Bool("no-what-ifs")})
			if err != nil {
				return err
			}
			// On stderr: stdout is explain's text, the same for the same inputs.
			fmt.Fprintf(c.App.ErrWriter, "explain: %d simulations (the scenario and %d what-ifs) in %s\n", e.Simulations, e.Simulations-1, time.Since(start).Round(time.Millisecond))
			fmt.Fprint(c.App.Writer, e.Text())
			return nil
		},
	}
}
