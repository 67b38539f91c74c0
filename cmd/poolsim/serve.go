package main

import (
	"fmt"
	"log"
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/poolsim/poolsim/internal/inputerr"
	"github.com/poolsim/poolsim/scenarios"
	"github.com/poolsim/poolsim/serve"
)

// fromConfigScenario is the traffic poolsim serve gives a pool read with
// --from when no scenario is named: a morning peak, then light steady
// traffic, both to be tuned in the page.
const fromConfigScenario = `# The traffic poolsim serve puts on a pool read with --from when no
# scenario is named: a 10-minute peak, then light steady traffic.
name: from-config
description: the pool of your configuration under a peak, then light traffic (tune both in the page)
seed: 1
duration: 1h
warmup: 30m
sample: 10s
pool: {preset: jdk, core: 10, max: 200}
workload:
  phases:
    - duration: 10m
      arrivals: {process: poisson, rate: 200/s}
      service: {dist: lognormal, mean: 200ms, cv: 1}
    - arrivals: {process: poisson, rate: 2/s}
      service: {dist: exponential, mean: 50ms}
`

func serveCommand() *cli.Command {
	return &cli.Command{
		Name:      "serve",
		Usage:     "an interactive what-if page for a scenario: move a control, watch the pool re-simulate",
		ArgsUsage: "[SCENARIO]",
		Description: `Serves a local web page (http://127.0.0.1:8080/ by default; the URL is the first line printed)
showing the scenario's verdict, headline figures, timeline charts, explanation and what-ifs, with a
control for every pool key and for the traffic. Each change re-simulates the scenario with the
matching --set override and redraws, the previous run faint behind; the URL holds the overrides, and
the page offers the scenario YAML and the poolsim run command that reproduce the view. With --from
and no SCENARIO, the pool of your configuration runs under a peak and then light traffic. The page
loads nothing from outside the server; Ctrl-C stops it.`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "addr", Value: "127.0.0.1:8080", Usage: "the address to listen on (port 0 picks a free one); 127.0.0.1 keeps the page to this machine"},
			&cli.Uint64Flag{Name: "seed", Usage: "override the scenario's seed"},
			&cli.StringSliceFlag{Name: "set", Usage: "override a scenario key before the page's own changes, e.g. --set pool.core=20 (repeatable)"},
		}, append(fromFlags(), workloadFlags()...)...),
		Action: func(c *cli.Context) error {
			if c.NArg() > 1 || c.NArg() == 0 && c.String("from") == "" {
				return &usageError{"serve takes one scenario file, or --from CONFIG (usage: poolsim serve [SCENARIO | --from CONFIG] [--addr 127.0.0.1:8080])"}
			}
			sc, args, err := serveScenario(c)
			if err != nil {
				return err
			}
			opt := serve.Options{Command: args, Log: log.New(c.App.ErrWriter, "poolsim: ", 0)}
			if c.IsSet("seed") {
				seed := c.Uint64("seed")
				opt.Seed = &seed
			}
			srv, err := serve.New(sc, opt)
			if err != nil {
				return err
			}
			ln, url, err := srv.Listen(c.String("addr"))
			if err != nil {
				return inputerr.New("--addr", 0, 0, "", fmt.Sprintf("cannot listen on %s: %v", c.String("addr"), err), "a free host:port, e.g. 127.0.0.1:8080, or 127.0.0.1:0 for any free port")
			}
			fmt.Fprintln(c.App.Writer, url)
			fmt.Fprintf(c.App.Writer, "serving %s (%s); Ctrl-C to stop\n", sc.Name, sourceOf(sc, c))
			return srv.Serve(c.Context, ln)
		},
	}
}

// serveScenario loads the page's base scenario as poolsim run would, and
// the run command line that loads it the same way (nil when the scenario
// is the built-in traffic for --from).
func serveScenario(c *cli.Context) (*scenarios.Scenario, []string, error) {
	if c.NArg() == 0 {
		ip, err := importPool(c)
		if err != nil {
			return nil, nil, err
		}
		wsets, err := workloadSets(c)
		if err != nil {
			return nil, nil, err
		}
		ip.describe(c.App.ErrWriter)
		sets := append(append(append([]string(nil), ip.sets...), wsets...), c.StringSlice("set")...)
		sc, err := scenarios.Parse([]byte(fromConfigScenario), "from-config.yaml", sets)
		return sc, nil, err
	}
	path := c.Args().First()
	sc, err := loadWithFrom(c, path, false)
	if err != nil {
		return nil, nil, err
	}
	args := []string{"poolsim", "run", path}
	for _, f := range []string{"from", "pool", "tomcat-version", "accesslog", "pattern", "d-unit", "trace"} {
		if v := c.String(f); v != "" {
			args = append(args, "--"+f, v)
		}
	}
	for _, p := range c.StringSlice("profile") {
		args = append(args, "--profile", p)
	}
	if c.IsSet("seed") {
		args = append(args, "--seed", strconv.FormatUint(c.Uint64("seed"), 10))
	}
	for _, s := range c.StringSlice("set") {
		args = append(args, "--set", s)
	}
	return sc, args, nil
}

func sourceOf(sc *scenarios.Scenario, c *cli.Context) string {
	if c.NArg() == 0 {
		return "the pool of " + c.String("from") + " under built-in traffic"
	}
	return sc.Path
}
