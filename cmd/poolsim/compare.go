package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/poolsim/poolsim/explain"
)

func compareCommand() *cli.Command {
	return &cli.Command{
		Name:      "compare",
		Usage:     "run two scenarios (or one and a variant) side by side: throughput, latency, where requests wait, why",
		ArgsUsage: "SCENARIO_A [SCENARIO_B]",
		Description: `Runs both scenarios and prints them side by side: completed requests per second, rejections,
response and queue-wait percentiles, threads, the stack they reserve, each resource (connection
pool, semaphore, executor) with its waiters and waits, then says where the wait moved and, for each,
what limits it (as 'poolsim explain' would). With one scenario, B is A with the --vs edits
(e.g. --vs 'pool={preset: spring-boot-virtual}' --vs jvm.parallelism=2: the whole pool block is
replaced, as a platform pool's sizes do not apply to virtual threads). Give both the same workload and seed to compare on
identical traffic; the report says whether they are.`,
		Flags: []cli.Flag{
			&cli.Uint64Flag{Name: "seed", Usage: "override both scenarios' seed"},
			&cli.StringSliceFlag{Name: "set", Usage: "override a scenario key in both, e.g. --set workload.arrivals.rate=400/s (repeatable)"},
			&cli.StringSliceFlag{Name: "vs", Usage: "with one scenario: B is A with this key overridden (repeatable)"},
		},
		Action: func(c *cli.Context) error {
			n := c.NArg()
			vs := c.StringSlice("vs")
			switch {
			case n == 1 && len(vs) == 0:
				return &usageError{"compare with one scenario needs --vs KEY=VALUE to make the second (usage: poolsim compare A [B] [--vs K=V]...)"}
			case n == 2 && len(vs) > 0:
				return &usageError{"compare takes two scenarios or one with --vs, not both"}
			case n != 1 && n != 2:
				return &usageError{"compare takes one or two scenario files (usage: poolsim compare A [B] [--set K=V]... [--vs K=V]...)"}
			}
			sets := c.StringSlice("set")
			a, err := loadScenario(c.Args().Get(0), sets, c)
			if err != nil {
				return err
			}
			bPath, bSets := c.Args().Get(1), sets
			if n == 1 {
				bPath, bSets = c.Args().Get(0), append(append([]string(nil), sets...), vs...)
			}
			b, err := loadScenario(bPath, bSets, c)
			if err != nil {
				return err
			}
			if n == 1 {
				b.Description = strings.TrimPrefix(b.Description+"; with "+strings.Join(vs, ", "), "; ")
			}
			cmp, err := explain.Compare(c.Context, a, b)
			if err != nil {
				return err
			}
			fmt.Fprint(c.App.Writer, cmp.Text())
			return nil
		},
	}
}
