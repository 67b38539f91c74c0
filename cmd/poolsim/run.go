package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/poolsim/poolsim/internal/atomicfile"
	"github.com/poolsim/poolsim/internal/inputerr"
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
				out = filepath.Join("out", sanitize(sc.Name))
			}
			res, written, err := runScenario(c, sc, out, c.Bool("plots"))
			if err != nil {
				return err
			}
			if c.Bool("json") {
				if err := sim.WriteJSON(c.App.Writer, res.Summary); err != nil {
					return err
				}
			} else {
				printSummary(c.App.Writer, sc, res, out, written)
			}
			switch {
			case res.Summary.Interrupted:
				return &interruptedError{fmt.Sprintf("run interrupted at t=%v of %v: %s holds what it had, marked \"complete\": false",
					simulated(res), sc.Duration, out)}
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

// sanitize makes a scenario name safe as a directory name.
func sanitize(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteRune('_')
		}
	}
	if b.Len() == 0 || b.String() == "." || b.String() == ".." {
		return "scenario"
	}
	return b.String()
}

// runScenario runs sc and writes its outputs into dir. The timeline and
// snapshots stream to temporary files beside their targets as the run goes,
// so memory does not grow with the run's length. Every file is renamed into
// place only when complete (internal/atomicfile), and summary.json — the
// file that says whether the run is complete — is removed before the first
// rename and written last: a run killed while writing never leaves a
// summary that describes other files. A run cut short by a signal or a
// limit writes what it has, marked "complete": false.
func runScenario(c *cli.Context, sc *scenarios.Scenario, dir string, withPlots bool) (*sim.Result, []string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, inputerr.New(dir, 0, 0, "--out", fmt.Sprintf("cannot create the output directory: %v", err), "")
	}
	summaryPath := filepath.Join(dir, "summary.json")
	var res *sim.Result
	simulate := func(timeline, snaps io.Writer) error {
		var err error
		if res, err = sim.Run(c.Context, sc, sim.Options{Timeline: timeline, Snapshots: snaps}); err != nil {
			return err
		}
		if err := os.Remove(summaryPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("replacing %s: %w", summaryPath, err)
		}
		return nil
	}
	err := atomicfile.Write(filepath.Join(dir, "timeline.csv"), func(tw io.Writer) error {
		if len(sc.Snapshots) == 0 {
			return simulate(tw, nil)
		}
		return atomicfile.Write(filepath.Join(dir, "snapshots.txt"), func(sw io.Writer) error { return simulate(tw, sw) })
	})
	if err != nil {
		if res == nil {
			return nil, nil, err // the run failed: the old outputs stay
		}
		return nil, nil, fmt.Errorf("writing %s: %w", dir, err)
	}
	written := []string{"timeline.csv", "summary.json", "perf.json"}
	if len(sc.Snapshots) > 0 {
		written = append(written, "snapshots.txt")
	}
	files := []struct {
		name string
		fn   func(io.Writer) error
	}{
		{"perf.json", func(w io.Writer) error { return sim.WriteJSON(w, res.Perf) }},
	}
	if withPlots {
		timeline, err := os.ReadFile(filepath.Join(dir, "timeline.csv"))
		if err != nil {
			return nil, nil, err
		}
		_, charts, err := makeCharts(sc, res, timeline)
		if err != nil {
			return nil, nil, err
		}
		for _, ch := range charts {
			png := ch.png
			files = append(files, struct {
				name string
				fn   func(io.Writer) error
			}{ch.file, func(w io.Writer) error { _, err := w.Write(png); return err }})
			written = append(written, ch.file)
		}
	}
	files = append(files, struct {
		name string
		fn   func(io.Writer) error
	}{"summary.json", func(w io.Writer) error { return sim.WriteJSON(w, res.Summary) }})
	for _, f := range files {
		if err := atomicfile.Write(filepath.Join(dir, f.name), f.fn); err != nil {
			return nil, nil, fmt.Errorf("writing %s: %w", filepath.Join(dir, f.name), err)
		}
	}
	return res, written, nil
}

// interruptedError is a run stopped by SIGINT or SIGTERM: exit 130.
type interruptedError struct{ msg string }

func (e *interruptedError) Error() string { return e.msg }

// simulated is how much virtual time the run covered.
func simulated(res *sim.Result) time.Duration {
	return time.Duration(math.Round(res.Summary.SimTime * 1e9))
}

func printSummary(w io.Writer, sc *scenarios.Scenario, res *sim.Result, dir string, written []string) {
	s := res.Summary
	span := fmt.Sprint(sc.Duration)
	if !res.Complete {
		span = fmt.Sprintf("%v of %v", simulated(res), sc.Duration)
	}
	fmt.Fprintf(w, "%s: %s simulated (seed %d) in %.3fs, %d events\n", sc.Name, span, s.Seed, res.Perf.WallS, s.Events)
	fmt.Fprintf(w, "  pool      %s: %s\n", sc.Pool.Preset, scenarios.Describe(sc.Pool.Config))
	fmt.Fprintf(w, "  tasks     %d submitted: %d completed, %d rejected", s.Submitted, s.Completed, s.Rejected)
	if s.RejectedAfterShutdown > 0 {
		fmt.Fprintf(w, " (%d after shutdown)", s.RejectedAfterShutdown)
	}
	if s.CallerRan > 0 {
		fmt.Fprintf(w, " (%d ran on the caller)", s.CallerRan)
	}
	if s.Discarded > 0 {
		fmt.Fprintf(w, ", %d lost", s.Discarded)
	}
	fmt.Fprintf(w, "; %d queued and %d running at the end\n", s.QueuedEnd, s.RunningEnd)
	fmt.Fprintf(w, "  threads   largest %d; at the end %d (%d busy, %d TIMED_WAITING, %d WAITING); %d created, %d exited\n",
		s.LargestPoolSize, s.FinalPoolSize, s.FinalBusy, s.FinalIdleTimed, s.FinalIdleUntime, s.ThreadsCreated, s.ThreadsExited)
	if sc.Host.ThreadStart > 0 {
		fmt.Fprintf(w, "  costs     Thread.start() %v each: %s in all, %s of it on the submitter; peak reserved stack %s (%d × %s); the last task ended at %s\n",
			sc.Host.ThreadStart, secs(s.ThreadStart), secs(s.ThreadStartSubmitter), mib(s.PeakReservedStack), s.LargestPoolSize, mib(sc.Host.StackSize), secs(s.LastTaskEnd))
	}
	from := "whole run"
	if sc.Warmup > 0 {
		from = fmt.Sprintf("after warmup %v", sc.Warmup)
	}
	fmt.Fprintf(w, "  steady    (%s) pool size mean %s (max %d), busy %s, idle timed %s, idle untimed %s, queue %s (max %d)\n",
		from, num(s.PoolSizeMean), s.PoolSizeMax, num(s.BusyMean), num(s.IdleTimedMean), num(s.IdleUntimedMean), num(s.QueueLenMean), s.QueueLenMax)
	if s.CPUs > 0 {
		fmt.Fprintf(w, "  cpus      %d: busy %s (%s%%), runnable threads mean %s (max %d), CPU delay per task mean %s; throughput %s/s\n",
			s.CPUs, num(s.CPUBusyMean), num(s.CPUUtilization*100), num(s.CPURunnableMean), s.CPURunnableMax, secs(s.CPUDelayMean), num(s.Throughput))
	}
	fmt.Fprintf(w, "  wait      mean %s  p50 %s  p90 %s  p99 %s  max %s\n", secs(s.WaitMean), secs(s.WaitP50), secs(s.WaitP90), secs(s.WaitP99), secs(s.WaitMax))
	fmt.Fprintf(w, "  response  mean %s  p99 %s  max %s\n", secs(s.ResponseMean), secs(s.ResponseP99), secs(s.ResponseMax))
	for _, p := range s.Periodic {
		fmt.Fprintf(w, "  periodic  %s (%s", p.Name, p.Mode)
		if p.Every > 0 {
			fmt.Fprintf(w, " every %s", secs(sim.Stat(p.Every)))
		}
		fmt.Fprintf(w, "): %d run%s, %d late", p.Runs, map[bool]string{true: "", false: "s"}[p.Runs == 1], p.LateRuns)
		if p.LateRuns > 0 {
			fmt.Fprintf(w, " (max %s late)", secs(sim.Stat(p.MaxLateness)))
		}
		switch {
		case p.StoppedByException:
			fmt.Fprintf(w, "; STOPPED by an exception in run %d at %s", p.LastRun, secs(p.StoppedAt))
		case p.CancelledByShutdown:
			fmt.Fprintf(w, "; ended by shutdown at %s", secs(p.StoppedAt))
		case p.Cancelled:
			fmt.Fprintf(w, "; CANCELLED at %s", secs(p.CancelledAt))
			switch {
			case p.CancelledRunning:
				fmt.Fprintf(w, " during run %d, which finished; no run followed", p.CancelledRun)
			case p.SkippedRuns > 0:
				fmt.Fprintf(w, ": its queued run %d stayed queued until due, then was skipped at %s", p.CancelledRun, secs(p.SkippedAt))
			case p.RemovedAfterCancel:
				fmt.Fprintf(w, ": its queued run %d was removed at %s", p.CancelledRun, secs(p.RemovedAt))
			case p.Drained:
				fmt.Fprintf(w, ": its queued run %d was drained by shutdownNow", p.CancelledRun)
			default:
				fmt.Fprintf(w, ": its queued run %d was still queued at the end", p.CancelledRun)
			}
		}
		fmt.Fprintln(w)
	}
	if s.CancelledByShutdown > 0 {
		fmt.Fprintf(w, "  shutdown  cancelled %d queued scheduled tasks (R98)\n", s.CancelledByShutdown)
	}
	if s.SkippedCancelled+s.RemovedAfterCancel > 0 {
		fmt.Fprintf(w, "  cancel    %d cancelled tasks skipped when due (counted as completed), %d removed from the queue unrun (R97)\n", s.SkippedCancelled, s.RemovedAfterCancel)
	}
	for _, e := range res.Applied {
		fmt.Fprintf(w, "  event     at %v: %s\n", e.At, e.What)
	}
	for _, f := range res.Findings {
		fmt.Fprintf(w, "  finding   %s\n", f)
	}
	fmt.Fprintf(w, "  wrote     %s/{%s}\n", dir, strings.Join(written, ","))
}

// mib formats a byte count in MiB.
func mib(b int64) string { return fmt.Sprintf("%.4g MiB", float64(b)/(1<<20)) }

func num(s sim.Stat) string {
	x := float64(s)
	if x != x {
		return "n/a"
	}
	return fmt.Sprintf("%.3g", x)
}

func secs(s sim.Stat) string {
	x := float64(s)
	if x != x {
		return "n/a"
	}
	switch {
	case x == 0:
		return "0"
	case x < 1e-3:
		return fmt.Sprintf("%.3gµs", x*1e6)
	case x < 1:
		return fmt.Sprintf("%.3gms", x*1e3)
	}
	return fmt.Sprintf("%.3gs", x)
}
