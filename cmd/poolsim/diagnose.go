package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/poolsim/poolsim/explain"
	"github.com/poolsim/poolsim/internal/inputerr"
	"github.com/poolsim/poolsim/model"
	"github.com/poolsim/poolsim/scenarios"
	"github.com/poolsim/poolsim/threaddump"
)

func diagnoseCommand() *cli.Command {
	flags := []cli.Flag{
		&cli.StringFlag{Name: "dump", Usage: "a thread dump of the JVM (jstack, jcmd Thread.print, kill -3 log, Thread.dump_to_file)"},
		&cli.StringFlag{Name: "prefix", Usage: "with --dump: the pool's thread name prefix (default: the configured one, else the largest pool)"},
		&cli.IntFlag{Name: "workers", Usage: "observed: workers in the pool (instead of --dump)"},
		&cli.IntFlag{Name: "busy", Usage: "observed: busy workers"},
		&cli.IntFlag{Name: "timed", Usage: "observed: idle workers TIMED_WAITING (in poll)"},
		&cli.IntFlag{Name: "untimed", Usage: "observed: idle workers WAITING (in take)"},
		&cli.StringFlag{Name: "since", Value: "1h", Usage: "how long the traffic has been steady since the pool's last peak"},
		&cli.StringFlag{Name: "wakeup", Value: "calibrated", Usage: "the hand-off timing the candidate rates are simulated with: calibrated (a real machine's, host.wakeup: calibrated) or 0 (the ideal, zero-latency model)"},
		&cli.IntFlag{Name: "peak", Usage: "the pool size at that peak (default: the highest worker number in the dump, else max)"},
		&cli.StringFlag{Name: "service", Usage: "mean service time of the steady traffic (default: busy/rate, else 5ms)"},
		&cli.IntFlag{Name: "replications", Value: 8, Usage: "seeds per candidate rate for Poisson traffic"},
		&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "first seed"},
		&cli.StringSliceFlag{Name: "set", Usage: "with a SCENARIO: override a key, e.g. --set pool.keepAlive=30s"},
		&cli.BoolFlag{Name: "full-grid", Usage: "simulate every candidate rate of the search grid (default: stop scanning once the band is bracketed; the same answer, fewer simulations)"},
		&cli.BoolFlag{Name: "json", Usage: "print the diagnosis as one JSON object (see the README's Outputs)"},
		&cli.StringFlag{Name: "out", Usage: "with --metrics: write overlay.png, report.html, diagnosis.json and fitted.yaml into this directory"},
		&cli.StringFlag{Name: "write-scenario", Usage: "with --metrics: write the fitted scenario YAML to this file (as 'poolsim fit' does)"},
	}
	flags = append(flags, metricsFlags()...)
	return &cli.Command{
		Name:      "diagnose",
		Usage:     "infer the load that explains an observed pool (worker counts, a thread dump, or exported metrics)",
		ArgsUsage: "[SCENARIO]",
		Description: `Given the pool's configuration (--from server.xml / application.properties|yml, or the pool block of
a SCENARIO) and what was observed (--dump a thread dump, or --workers/--busy/--timed/--untimed),
simulates candidate request rates and reports the range consistent with the observation, for periodic
and for Poisson traffic, with the assumptions stated; says whether the pool behaves as designed; then
explains it as 'poolsim explain' does at the best fit.

With --metrics (Micrometer's executor_*, tomcat_threads_* or jetty_threads_* series, exported from
Prometheus or scraped), infers the arrival rate over time instead, re-simulates the observed window,
and compares simulated and observed pool size, busy and queue at the scrape times, with what the
gauges hid (rejections, queue waits, bursts between scrapes).`,
		Flags: append(flags, fromFlags()...),
		Action: func(c *cli.Context) error {
			if c.NArg() > 1 {
				return &usageError{"diagnose takes at most one scenario file"}
			}
			// With --json, what was found goes to stderr: stdout is the object.
			info := c.App.Writer
			if c.Bool("json") {
				info = c.App.ErrWriter
			}
			pool, err := diagnosePool(c, info)
			if err != nil {
				return err
			}
			if c.String("metrics") != "" {
				if c.IsSet("dump") || c.IsSet("workers") {
					return &usageError{"give one observation: --metrics, --dump or the counts"}
				}
				return diagnoseMetrics(c, pool)
			}
			for _, f := range []string{"out", "write-scenario", "metrics-pool"} {
				if c.IsSet(f) {
					return &usageError{fmt.Sprintf("--%s needs --metrics", f)}
				}
			}
			obs, err := observation(c, pool, info)
			if err != nil {
				return err
			}
			opt := explain.DiagnoseOptions{Peak: c.Int("peak"), Replications: c.Int("replications"), Seed: c.Uint64("seed"), FullGrid: c.Bool("full-grid")}
			switch w := c.String("wakeup"); w {
			case "calibrated":
				cal := scenarios.CalibratedWakeup()
				opt.Wakeup = &cal
			case "0", "off":
			default:
				return &usageError{fmt.Sprintf("--wakeup %s: want calibrated (a real machine's hand-off timing) or 0 (the ideal, zero-latency model)", w)}
			}
			if opt.Since, err = scenarios.ParseDuration(c.String("since")); err != nil || opt.Since <= 0 {
				return inputerr.New("--since", 0, 0, "", fmt.Sprintf("not a positive duration: %q", c.String("since")), "e.g. 30m, 1h")
			}
			if s := c.String("service"); s != "" {
				if opt.Service, err = scenarios.ParseDuration(s); err != nil || opt.Service <= 0 {
					return inputerr.New("--service", 0, 0, "", fmt.Sprintf("not a positive duration: %q", s), "e.g. 5ms")
				}
			}
			d, err := explain.Diagnose(c.Context, *pool, obs, opt)
			if err != nil {
				return err
			}
			// The time goes to stderr: stdout is the same for the same inputs.
			fmt.Fprintf(c.App.ErrWriter, "diagnose: %d simulations in %s (%d skipped by the early stop)\n", d.Simulations, d.Wall.Round(time.Millisecond), d.Skipped)
			if c.Bool("json") {
				return printJSON(c.App.Writer, d.JSON())
			}
			fmt.Fprint(c.App.Writer, d.Text())
			return nil
		},
	}
}

// virtualDiagnoseError refuses to infer a load from a virtual-thread
// executor: diagnose reads a pool's idle and busy workers, and a virtual
// thread per task has no idle ones (R130).
func virtualDiagnoseError(file string) error {
	return inputerr.New(file, 0, 0, "pool", "diagnose infers the load from a pool's idle and busy workers, and virtual threads (a new one per task, R130) have no idle ones: "+
		"read the dump with 'poolsim jstack DUMP' (where the virtual threads wait, which carriers are pinned) and simulate with 'poolsim explain'", "")
}

// diagnosePool finds the pool's configuration: --from, else the scenario.
func diagnosePool(c *cli.Context, info io.Writer) (*scenarios.Pool, error) {
	ip, err := importPool(c)
	if err != nil {
		return nil, err
	}
	if ip != nil {
		ip.describe(info)
		if ip.pool.VirtualThreads {
			return nil, virtualDiagnoseError(c.String("from"))
		}
		// Load the imported pool through the scenario loader, so it gets the
		// same presets and checks as a scenario file.
		text := []byte("duration: 1s\nworkload: {arrivals: {process: poisson, rate: 1}, service: {dist: constant, value: 1ms}}\npool: {preset: jdk, core: 1, max: 1}\n")
		sc, err := scenarios.Parse(text, c.String("from"), ip.sets)
		if err != nil {
			return nil, err
		}
		return &sc.Pool, nil
	}
	if c.NArg() == 1 {
		sc, err := loadScenario(c.Args().First(), c.StringSlice("set"), nil)
		if err != nil {
			return nil, err
		}
		if sc.Pool.Config.Flavor == model.Virtual {
			return nil, virtualDiagnoseError(sc.Path)
		}
		return &sc.Pool, nil
	}
	return nil, &usageError{c.Command.Name + " needs the pool's configuration: --from server.xml|application.properties|application.yml, or a SCENARIO file"}
}

// observation reads the dump, or the counts given as flags.
func observation(c *cli.Context, pool *scenarios.Pool, info io.Writer) (explain.Observation, error) {
	if path := c.String("dump"); path != "" {
		if c.IsSet("workers") || c.IsSet("timed") || c.IsSet("untimed") || c.IsSet("busy") {
			return explain.Observation{}, &usageError{"give either --dump or the counts (--workers/--busy/--timed/--untimed), not both"}
		}
		d, err := threaddump.ParseFile(path)
		if err != nil {
			return explain.Observation{}, err
		}
		pools := threaddump.Summarise(d)
		want := c.String("prefix")
		if want == "" {
			want = pool.ThreadNamePrefix
		}
		var pick *threaddump.Pool
		var names []string
		for i := range pools {
			names = append(names, pools[i].Prefix)
			if pools[i].Prefix == want {
				pick = &pools[i]
			}
		}
		// The virtual-thread scheduler's carriers (R131) are a ForkJoinPool
		// whose busy workers carry virtual threads: fitting a pool of
		// platform workers to them would be a confident wrong answer.
		carriers := ""
		if v := threaddump.SummariseVirtual(d); v != nil {
			carriers = v.CarrierPool
		}
		if pick == nil && c.String("prefix") == "" {
			// The configured prefix is absent: take the largest pool whose
			// workers sit in a pool's queue.
			for i := range pools {
				if pools[i].Prefix != carriers && pools[i].IdleTimed+pools[i].IdleUntimed+pools[i].Busy > 0 {
					pick = &pools[i]
					break
				}
			}
		}
		if pick != nil && carriers != "" && pick.Prefix == carriers {
			return explain.Observation{}, inputerr.New(path, 0, 0, "--prefix", fmt.Sprintf("%s* are the virtual-thread scheduler's carriers (R131), not workers of a thread pool: diagnose does not fit a pool to them", carriers), "read the dump with 'poolsim jstack DUMP'")
		}
		if pick == nil {
			msg := fmt.Sprintf("no pool %q in the dump", want)
			if carriers != "" {
				msg += fmt.Sprintf(" (%s* are the virtual-thread scheduler's carriers, R131, not a thread pool: read the dump with 'poolsim jstack DUMP')", carriers)
			}
			return explain.Observation{}, inputerr.New(path, 0, 0, "--prefix", msg, "one of "+strings.Join(names, ", "))
		}
		fmt.Fprintf(info, "pool in the dump: %s (%s): %d threads: %d busy, %d idle TIMED_WAITING, %d idle WAITING, %d other\n\n",
			pick.Prefix, pick.Family, pick.Threads, pick.Busy, pick.IdleTimed, pick.IdleUntimed, pick.Other)
		return explain.Observation{
			Source:      fmt.Sprintf("thread dump %s, pool %s", path, pick.Prefix),
			Total:       pick.Busy + pick.IdleTimed + pick.IdleUntimed + pick.Other,
			IdleTimed:   pick.IdleTimed,
			IdleUntimed: pick.IdleUntimed,
			Busy:        pick.Busy + pick.Other,
			MaxNumber:   pick.MaxNumber,
		}, nil
	}
	obs := explain.Observation{Source: "counts given on the command line", Total: c.Int("workers"), Busy: c.Int("busy"),
		IdleTimed: c.Int("timed"), IdleUntimed: c.Int("untimed")}
	for _, f := range []string{"workers", "busy", "timed", "untimed"} {
		if c.Int(f) < 0 {
			return obs, inputerr.New("--"+f, 0, 0, "", fmt.Sprintf("must be >= 0, got %d", c.Int(f)), "a count of threads")
		}
	}
	parts := obs.Busy + obs.IdleTimed + obs.IdleUntimed
	if obs.Total == 0 {
		obs.Total = parts
	}
	if obs.Total == 0 {
		return obs, &usageError{"diagnose needs an observation: --dump DUMP, or --workers N (and optionally --busy, --timed, --untimed)"}
	}
	if parts > obs.Total {
		return obs, inputerr.New("--workers", 0, 0, "", fmt.Sprintf("%d workers, but busy + timed + untimed = %d", obs.Total, parts), "busy + timed + untimed <= workers")
	}
	return obs, nil
}
