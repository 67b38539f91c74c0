package main

import (
	"fmt"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/poolsim/poolsim/output"
	"github.com/poolsim/poolsim/scenarios"
)

func reportCommand() *cli.Command {
	return &cli.Command{
		Name:      "report",
		Usage:     "run scenarios and write a self-contained report.html (charts, summary, the scenario)",
		ArgsUsage: "SCENARIO...",
		Description: `Runs each scenario and writes DIR/report.html: its charts embedded as images, the summary
table, the explanation, and the exact scenario text. Given several scenarios it also overlays them
(e.g. the same load under a LIFO and a FIFO hand-off). The page has no external references and opens
offline in any browser. The charts are also written as PNG files beside it.`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "output directory (default ./out/report-<first scenario name>)"},
			&cli.Uint64Flag{Name: "seed", Usage: "override every scenario's seed"},
			&cli.StringSliceFlag{Name: "set", Usage: "override a key in every scenario, e.g. --set pool.core=20 (repeatable)"},
			&cli.StringFlag{Name: "title", Usage: "the page title"},
		}, append(fromFlags(), workloadFlags()...)...),
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return &usageError{"report needs at least one scenario file (usage: poolsim report SCENARIO... [--out DIR])"}
			}
			var scs []*scenarios.Scenario
			for _, path := range c.Args().Slice() {
				sc, err := loadWithFrom(c, path, false)
				if err != nil {
					return err
				}
				scs = append(scs, sc)
			}
			out := c.String("out")
			if out == "" {
				out = filepath.Join("out", "report-"+output.DirName(scs[0].Name))
			}
			files, err := output.WriteReport(c.Context, out, scs, output.ReportOptions{Title: c.String("title")})
			if err != nil {
				return outDirError(err)
			}
			fmt.Fprintf(c.App.Writer, "wrote %s (%d scenario(s), %d KB)\n", files.Page, len(scs), files.Size/1024)
			return nil
		},
	}
}
