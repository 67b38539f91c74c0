package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/poolsim/poolsim/explain"
	"github.com/poolsim/poolsim/internal/atomicfile"
	"github.com/poolsim/poolsim/internal/inputerr"
	"github.com/poolsim/poolsim/metrics"
	"github.com/poolsim/poolsim/plots"
	"github.com/poolsim/poolsim/report"
	"github.com/poolsim/poolsim/scenarios"
)

// metricsFlags are the flags diagnose --metrics and fit share.
func metricsFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "metrics", Usage: "exported pool metrics: a Prometheus query_range JSON response, text-format scrapes ('# scrape TIME' before each), or a CSV time,series,value"},
		&cli.StringFlag{Name: "metrics-pool", Usage: "with --metrics: which pool's series (a label value like http-nio-8080, a family, or name=…,application=…; default: --pool, else the only pool)"},
		&cli.StringFlag{Name: "service-dist", Value: "exponential", Usage: "with --metrics: the service law of the re-simulation, exponential or constant"},
		&cli.StringFlag{Name: "arrivals", Value: "poisson", Usage: "with --metrics: the arrival process of the re-simulation, poisson or constant (periodic)"},
	}
}

// metricsOptions reads the flags of metricsFlags and the shared ones.
func metricsOptions(c *cli.Context) (explain.MetricsOptions, error) {
	opt := explain.MetricsOptions{ServiceDist: c.String("service-dist"), Arrivals: c.String("arrivals"), Seed: c.Uint64("seed")}
	if c.IsSet("replications") || c.Command.Name == "diagnose" {
		opt.Replications = c.Int("replications")
	}
	switch opt.ServiceDist {
	case "exponential", "constant":
	default:
		return opt, inputerr.New("", 0, 0, "--service-dist", fmt.Sprintf("unknown service law %q", opt.ServiceDist), "exponential or constant")
	}
	switch opt.Arrivals {
	case "poisson", "constant":
	default:
		return opt, inputerr.New("", 0, 0, "--arrivals", fmt.Sprintf("unknown arrival process %q", opt.Arrivals), "poisson or constant")
	}
	if s := c.String("service"); s != "" {
		d, err := scenarios.ParseDuration(s)
		if err != nil || d <= 0 {
			return opt, inputerr.New("", 0, 0, "--service", fmt.Sprintf("not a positive duration: %q", s), "e.g. 120ms")
		}
		opt.Service = d
	}
	return opt, nil
}

// readMetricsPool reads --metrics and picks the pool: --metrics-pool, else
// --pool (the name --from uses, often the same label), else the only one.
func readMetricsPool(c *cli.Context) (*metrics.Set, *metrics.Pool, error) {
	set, err := metrics.ReadFile(c.String("metrics"))
	if err != nil {
		return nil, nil, err
	}
	want := c.String("metrics-pool")
	if want == "" {
		want = c.String("pool")
	}
	mp, err := metrics.Select(set, want)
	if err != nil && c.String("metrics-pool") == "" && c.String("pool") != "" {
		if alone, err2 := metrics.Select(set, ""); err2 == nil {
			return set, alone, nil // --pool named the configuration's pool only
		}
	}
	return set, mp, err
}

// loadMetrics reads --metrics, picks the pool and reads the options.
func loadMetrics(c *cli.Context) (*metrics.Set, *metrics.Pool, explain.MetricsOptions, error) {
	set, mp, err := readMetricsPool(c)
	if err != nil {
		return nil, nil, explain.MetricsOptions{}, err
	}
	opt, err := metricsOptions(c)
	return set, mp, opt, err
}

// diagnoseMetrics is diagnose --metrics: the diagnosis as text or JSON, and
// with --out the overlay chart, report.html, diagnosis.json and the fitted
// scenario.
func diagnoseMetrics(c *cli.Context, pool *scenarios.Pool) error {
	set, mp, opt, err := loadMetrics(c)
	if err != nil {
		return err
	}
	md, err := explain.DiagnoseMetrics(c.Context, *pool, set, mp, opt)
	if err != nil {
		return err
	}
	// The time goes to stderr: stdout is the same for the same inputs.
	fmt.Fprintf(c.App.ErrWriter, "diagnose: %d simulations in %s\n", md.Simulations, md.Wall.Round(time.Millisecond))
	if path := c.String("write-scenario"); path != "" {
		if err := atomicfile.WriteBytes(path, md.ScenarioYAML()); err != nil {
			return err
		}
	}
	if dir := c.String("out"); dir != "" {
		if err := writeDiagnosis(dir, md); err != nil {
			return err
		}
	}
	if c.Bool("json") {
		return printJSON(c.App.Writer, md.JSON())
	}
	fmt.Fprint(c.App.Writer, md.Text())
	if dir := c.String("out"); dir != "" {
		fmt.Fprintf(c.App.Writer, "\nWrote %s (overlay.png, report.html, diagnosis.json, fitted.yaml).\n", dir)
	}
	return nil
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// overlayOf is the overlay chart's data: pool size, busy and, where the
// pool exports it, the queue.
func overlayOf(md *explain.MetricsDiagnosis) plots.Overlay {
	var ov plots.Overlay
	type gauge struct {
		name     string
		obs      func(explain.ScrapeCompare) float64
		sim      func(explain.ScrapeCompare) explain.RunSpread
		exported bool
	}
	gauges := []gauge{
		{"pool size (threads)", func(s explain.ScrapeCompare) float64 { return s.Size }, func(s explain.ScrapeCompare) explain.RunSpread { return s.SimSize }, true},
		{"busy threads", func(s explain.ScrapeCompare) float64 { return s.Busy }, func(s explain.ScrapeCompare) explain.RunSpread { return s.SimBusy }, md.Metrics.Series[metrics.Busy] != nil},
		{"queued tasks", func(s explain.ScrapeCompare) float64 { return s.Queue }, func(s explain.ScrapeCompare) explain.RunSpread { return s.SimQueue }, md.Metrics.Series[metrics.Queue] != nil},
	}
	for _, sc := range md.Compare {
		ov.T = append(ov.T, sc.T.Seconds())
	}
	for _, g := range gauges {
		p := plots.OverlayPanel{Name: g.name, ObservedLabel: "observed", SimLabel: "simulated mean", BandName: "simulated ± 2 SD"}
		if !g.exported {
			p.ObservedLabel = "not exported"
		}
		for _, sc := range md.Compare {
			s := g.sim(sc)
			p.Observed = append(p.Observed, g.obs(sc))
			p.SimMean = append(p.SimMean, s.Mean)
			p.SimLow = append(p.SimLow, math.Max(0, s.Mean-2*s.SD))
			p.SimHigh = append(p.SimHigh, s.Mean+2*s.SD)
		}
		ov.Panels = append(ov.Panels, p)
	}
	return ov
}

// writeDiagnosis writes the overlay chart, a report page, the JSON and the
// fitted scenario into dir.
func writeDiagnosis(dir string, md *explain.MetricsDiagnosis) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("diagnose: output directory: %w", err)
	}
	var png bytes.Buffer
	title := fmt.Sprintf("%s · %s", md.Metrics.ID(), filepath.Base(md.Metrics.File))
	if err := plots.DrawOverlay(&png, overlayOf(md), plots.Options{Title: title}); err != nil {
		return err
	}
	var js bytes.Buffer
	if err := printJSON(&js, md.JSON()); err != nil {
		return err
	}
	var page bytes.Buffer
	err := report.Write(&page, report.Report{Title: "poolsim diagnose --metrics", Scenarios: []report.Scenario{{
		Name: "fitted " + md.Metrics.ID(), YAML: string(md.ScenarioYAML()), Explain: md.Text(),
		Images: []report.Image{{PNG: png.Bytes(), Caption: "Observed gauges and the re-simulation at the scrape times (mean ± 2 SD over the runs)"}},
	}}})
	if err != nil {
		return err
	}
	for name, data := range map[string][]byte{"overlay.png": png.Bytes(), "diagnosis.json": js.Bytes(), "report.html": page.Bytes(), "fitted.yaml": md.ScenarioYAML()} {
		if err := atomicfile.WriteBytes(filepath.Join(dir, name), data); err != nil {
			return err
		}
	}
	return nil
}

func fitCommand() *cli.Command {
	flags := append(metricsFlags(),
		&cli.StringFlag{Name: "service", Usage: "mean service time (default: busy / rate, R180; required without a completed-tasks counter)"},
		&cli.StringFlag{Name: "out", Usage: "write the scenario to this file instead of stdout"},
		&cli.StringSliceFlag{Name: "set", Usage: "with a SCENARIO: override a key of its pool"},
		&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "the fitted scenario's seed"},
	)
	return &cli.Command{
		Name:      "fit",
		Usage:     "write a scenario whose traffic reproduces exported pool metrics",
		ArgsUsage: "[SCENARIO]",
		Description: `Reads the pool's metrics (--metrics), infers the arrival rate over time in segments of steady
traffic (from the completed-tasks counter, else busy / --service), and writes a scenario YAML with the
pool's configuration (--from, or a SCENARIO's pool block) and one phase per segment, so that run,
explain, report and sweep can replay the observed day. 'diagnose --metrics' also re-simulates it.`,
		Flags: append(flags, fromFlags()...),
		Action: func(c *cli.Context) error {
			if c.NArg() > 1 {
				return &usageError{"fit takes at most one scenario file"}
			}
			if c.String("metrics") == "" {
				return &usageError{"fit needs --metrics FILE"}
			}
			pool, err := diagnosePool(c, c.App.ErrWriter)
			if err != nil {
				return err
			}
			set, mp, opt, err := loadMetrics(c)
			if err != nil {
				return err
			}
			md, err := explain.FitMetrics(*pool, set, mp, opt)
			if err != nil {
				return err
			}
			if path := c.String("out"); path != "" {
				return atomicfile.WriteBytes(path, md.ScenarioYAML())
			}
			_, err = c.App.Writer.Write(md.ScenarioYAML())
			return err
		},
	}
}
