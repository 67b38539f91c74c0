package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/poolsim/poolsim/internal/atomicfile"
	"github.com/poolsim/poolsim/internal/inputerr"
	"github.com/poolsim/poolsim/report"
	"github.com/poolsim/poolsim/sim"
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
			var rep report.Report
			rep.Title = c.String("title")
			var out string
			seen := map[string]int{}
			for i, path := range c.Args().Slice() {
				sc, err := loadWithFrom(c, path, false)
				if err != nil {
					return err
				}
				// Two runs of one name (the same file twice, or two files
				// with the same name:) are told apart by their position.
				if seen[sc.Name]++; seen[sc.Name] > 1 {
					sc.Name = fmt.Sprintf("%s #%d", sc.Name, seen[sc.Name])
				}
				if i == 0 {
					out = c.String("out")
					if out == "" {
						out = filepath.Join("out", "report-"+sanitize(sc.Name))
					}
					if err := os.MkdirAll(out, 0o755); err != nil {
						return inputerr.New(out, 0, 0, "--out", fmt.Sprintf("cannot create the output directory: %v", err), "")
					}
				}
				var timeline bytes.Buffer
				res, err := sim.Run(c.Context, sc, sim.Options{Timeline: &timeline})
				if err != nil {
					return err
				}
				tl, charts, err := makeCharts(sc, res, timeline.Bytes())
				if err != nil {
					return err
				}
				var sum bytes.Buffer
				if err := sim.WriteJSON(&sum, res.Summary); err != nil {
					return err
				}
				kv, err := report.SummaryFromJSON(sum.Bytes())
				if err != nil {
					return err
				}
				rs := report.Scenario{Name: sc.Name, YAML: sc.Listing(), Summary: kv, Timeline: tl, Events: runEvents(res), Explain: explainText(c, sc, res)}
				for _, ch := range charts {
					rs.Images = append(rs.Images, report.Image{PNG: ch.png, Caption: ch.caption})
					name := fmt.Sprintf("%02d-%s-%s", i+1, sanitize(sc.Name), ch.file)
					if err := atomicfile.WriteBytes(filepath.Join(out, name), ch.png); err != nil {
						return err
					}
				}
				rep.Scenarios = append(rep.Scenarios, rs)
			}
			var page bytes.Buffer
			if err := report.Write(&page, rep); err != nil {
				return err
			}
			file := filepath.Join(out, "report.html")
			if err := atomicfile.WriteBytes(file, page.Bytes()); err != nil {
				return err
			}
			fmt.Fprintf(c.App.Writer, "wrote %s (%d scenario(s), %d KB)\n", file, len(rep.Scenarios), page.Len()/1024)
			return nil
		},
	}
}
