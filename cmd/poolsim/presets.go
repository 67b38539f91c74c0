package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/poolsim/poolsim/model"
	"github.com/poolsim/poolsim/scenarios"
)

func presetsCommand() *cli.Command {
	return &cli.Command{
		Name:  "presets",
		Usage: "list the pool presets with their exact parameters and where they come from",
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return &usageError{"presets takes no arguments"}
			}
			w := c.App.Writer
			for i, p := range scenarios.Presets() {
				if i > 0 {
					fmt.Fprintln(w)
				}
				fmt.Fprintf(w, "%s — %s\n", p.Name, p.Summary)
				cfg := p.Config
				if cfg.Flavor == model.Virtual {
					writeVirtualPreset(w, p)
					continue
				}
				core := fmt.Sprint(cfg.Core)
				if p.NeedsCore {
					core = "(required: pool.core)"
				}
				maxS := fmt.Sprint(cfg.Max)
				switch {
				case p.MaxFollows:
					maxS = "= core"
				case p.NeedsCore && cfg.Max == 0:
					maxS = "(required: pool.max)"
				case cfg.Max == model.Unbounded:
					maxS = "unbounded (Integer.MAX_VALUE)"
				}
				if p.CoreKeyName != "" {
					core += " (" + p.CoreKeyName + ")"
					maxS += " (" + p.MaxKeyName + ")"
				}
				capacity := "unbounded (Integer.MAX_VALUE)"
				if cfg.QueueCapacity != model.Unbounded {
					capacity = fmt.Sprint(cfg.QueueCapacity)
				}
				if cfg.Queue == model.Synchronous {
					capacity = "none (hand-off only)"
				}
				fmt.Fprintf(w, "  pool.core                   %s\n", core)
				fmt.Fprintf(w, "  pool.max                    %s\n", maxS)
				fmt.Fprintf(w, "  pool.keepAlive              %v\n", cfg.KeepAlive)
				fmt.Fprintf(w, "  pool.allowCoreThreadTimeOut %v\n", cfg.CoreTimeOut)
				fmt.Fprintf(w, "  pool.prestart               %v\n", cfg.Prestart || cfg.Flavor == model.Tomcat || cfg.Flavor == model.Jetty)
				fmt.Fprintf(w, "  pool.queue                  %s (%s), capacity %s, fair %v; idle workers receive tasks %v\n",
					cfg.Queue, cfg.Queue.JavaName(), capacity, cfg.Fair, cfg.Queue.HandOff(cfg.Fair))
				fmt.Fprintf(w, "  pool.rejection              %s\n", cfg.Rejection)
				switch cfg.Flavor {
				case model.Scheduled:
					fmt.Fprintf(w, "  pool.continueExistingPeriodicTasksAfterShutdown %v\n", cfg.ContinuePeriodicAfterShutdown)
					fmt.Fprintf(w, "  pool.executeExistingDelayedTasksAfterShutdown   %v\n", !cfg.DropDelayedOnShutdown)
					fmt.Fprintf(w, "  pool.removeOnCancelPolicy                       %v\n", cfg.RemoveOnCancel)
				case model.Jetty:
					fmt.Fprintf(w, "  reservedThreads             0 (not modelled)\n")
					fmt.Fprintf(w, "  shrink                      at most one thread per keepAlive (idleTimeout), pool-wide\n")
				}
				fmt.Fprintf(w, "  pool.threadNamePrefix       %s\n", p.Prefix)
				fmt.Fprintf(w, "  Java:   %s\n", p.Java)
				fmt.Fprintf(w, "  Source: %s\n", p.Source)
			}
			return nil
		},
	}
}

// writeVirtualPreset lists a virtual-thread preset: no pool keys apply (a
// VT per task, R130), the scheduler's keys do (R131).
func writeVirtualPreset(w io.Writer, p scenarios.Preset) {
	fmt.Fprintf(w, "  pool                        a new virtual thread per task: no core, max, keepAlive or queue (R130, R145)\n")
	if p.Throttle {
		fmt.Fprintf(w, "  pool.concurrencyLimit       -1 (unbounded); n > 0: the caller of execute waits FIFO while n tasks run; 0: refuses all (R143)\n")
		fmt.Fprintf(w, "  pool.rejectTasksWhenLimitReached false (true: refuse instead of waiting)\n")
	}
	fmt.Fprintf(w, "  jvm.version                 %d (21..25: what pins, R134–R136)\n", scenarios.DefaultJDK)
	fmt.Fprintf(w, "  jvm.parallelism             host.cpus (required if host.cpus is not given: availableProcessors())\n")
	fmt.Fprintf(w, "  jvm.maxPoolSize             max(parallelism, 256) (R131)\n")
	fmt.Fprintf(w, "  jvm.minRunnable             max(parallelism/2, 1) (R131)\n")
	fmt.Fprintf(w, "  pool.threadNamePrefix       %q\n", p.Prefix)
	fmt.Fprintf(w, "  Java:   %s\n", p.Java)
	fmt.Fprintf(w, "  Source: %s\n", p.Source)
}
