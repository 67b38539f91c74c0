package explain

import (
	"fmt"
	"strings"
	"time"

	"github.com/poolsim/poolsim/model"
	"github.com/poolsim/poolsim/scenarios"
	"github.com/poolsim/poolsim/sim"
)

// window is the part of the run the steady-state analysis describes: after
// the warmup and after the last runtime reconfiguration, before any
// shutdown. cfg is the configuration in force there.
type window struct {
	from, to time.Duration // samples with from <= T <= to (to exclusive when cut)
	cut      bool          // to is a shutdown: samples at T >= to are outside
	cfg      model.Config
	// changed says which keys the runtime events set before the window.
	changed map[string]bool
}

// steadyWindow applies the scenario's runtime events (R21–R24, R27, R28):
// a set event after the warmup moves the start of the window to it, a
// shutdown ends the window.
func steadyWindow(sc *scenarios.Scenario) window {
	w := window{from: sc.Warmup, to: sc.Duration, cfg: sc.Pool.Config, changed: map[string]bool{}}
	for _, ev := range sc.Events {
		if ev.Shutdown != "" {
			if ev.At < w.to {
				w.to, w.cut = ev.At, true
			}
			break
		}
		if ev.At > w.from {
			w.from = ev.At
		}
		if ev.Core != nil {
			w.cfg.Core, w.changed["pool.core"] = *ev.Core, true
		}
		if ev.Max != nil {
			w.cfg.Max, w.changed["pool.max"] = *ev.Max, true
		}
		if ev.KeepAlive != nil {
			w.cfg.KeepAlive, w.changed["pool.keepAlive"] = *ev.KeepAlive, true
		}
		if ev.CoreTimeOut != nil {
			w.cfg.CoreTimeOut, w.changed["pool.allowCoreThreadTimeOut"] = *ev.CoreTimeOut, true
		}
	}
	return w
}

// whole reports whether the window is the whole run after the warmup, so
// the summary's time-weighted means describe it.
func (w window) whole(sc *scenarios.Scenario) bool {
	return w.from == sc.Warmup && !w.cut
}

// overridden reports whether a runtime event before the window sets one of
// the keys of these --set overrides, so changing the starting value would
// not change the steady state.
func (w window) overridden(sets []string) bool {
	for _, s := range sets {
		key, _, _ := strings.Cut(s, "=")
		if w.changed[key] {
			return true
		}
	}
	return false
}

func (w window) contains(t time.Duration) bool {
	if w.cut {
		return t >= w.from && t < w.to
	}
	return t >= w.from && t <= w.to
}

// changes writes one finding on the runtime events: for each, the pool
// just before it and at the next event (or the end), and the rule that
// decides what it does.
func (e *Explanation) changes(samples []sim.Sample) {
	sc := e.Scenario
	if len(sc.Events) == 0 {
		return
	}
	cfg := sc.Pool.Config
	var parts []string
	for i, ev := range sc.Events {
		if i >= len(e.Result.Applied) {
			parts = append(parts, fmt.Sprintf("the run ended before the event at %v (line %d).", ev.At, ev.Line))
			break
		}
		before, beforeOK := lastBefore(samples, ev.At)
		next := sc.Duration
		if i+1 < len(sc.Events) {
			next = sc.Events[i+1].At
		}
		after, afterOK := lastBefore(samples, next)
		if i+1 == len(sc.Events) {
			after, afterOK = lastAtOrBefore(samples, next)
		}
		text := fmt.Sprintf("At %v, %s", ev.At, e.Result.Applied[i].What)
		if beforeOK {
			text += fmt.Sprintf(" (before: %s)", state(before))
		}
		text += ": " + changeRule(cfg, ev, before, beforeOK)
		if beforeOK && before.Queue > 0 {
			if t, ok := emptied(samples, ev.At, next); ok {
				text += fmt.Sprintf(" The queue emptied at %v.", t)
			}
		}
		if afterOK && after.T >= ev.At {
			text += fmt.Sprintf(" At %v: %s.", after.T, state(after))
		}
		parts = append(parts, text)
		cfg = applyEvent(cfg, ev)
	}
	e.add("Runtime changes", "%s The steady state above is the part of the run after the last change%s (%v to %v), with core %d, max %s, keepAlive %v.",
		strings.Join(parts, " "), map[bool]string{true: " and before the shutdown", false: ""}[e.window.cut],
		e.Steady.SteadyFrom, e.Steady.SteadyTo, e.Config.Core, sizeText(e.Config.Max), e.Config.KeepAlive)
}

func applyEvent(c model.Config, ev scenarios.Event) model.Config {
	if ev.Core != nil {
		c.Core = *ev.Core
	}
	if ev.Max != nil {
		c.Max = *ev.Max
	}
	if ev.KeepAlive != nil {
		c.KeepAlive = *ev.KeepAlive
	}
	if ev.CoreTimeOut != nil {
		c.CoreTimeOut = *ev.CoreTimeOut
	}
	return c
}

// changeRule says, in the JDK's terms, what one event does to this pool.
func changeRule(c model.Config, ev scenarios.Event, before sim.Sample, known bool) string {
	var out []string
	switch ev.Shutdown {
	case "graceful":
		return "shutdown() rejects every later task, lets the queued ones run, and lets idle workers exit (R27)."
	case "now":
		return "shutdownNow() rejects every later task, drains the queue (the drained tasks are counted, never run) and interrupts every worker (R28)."
	}
	if ev.Max != nil {
		switch n := *ev.Max; {
		case n != c.Max && c.Flavor == model.Scheduled:
			out = append(out, fmt.Sprintf("max (%s → %s) has no effect on a ScheduledThreadPoolExecutor, which never grows past core (R88)", sizeText(c.Max), sizeText(n)))
		case n > c.Max && c.Queue != model.Synchronous && c.QueueCapacity == model.Unbounded && c.Flavor == model.JDK:
			out = append(out, fmt.Sprintf("a higher max (%s → %s) adds no thread: execute grows the pool past core only when the queue refuses a task, and an unbounded %s never does (R6, R7, R22)", sizeText(c.Max), sizeText(n), c.Queue.JavaName()))
		case n > c.Max:
			out = append(out, fmt.Sprintf("a higher max (%s → %s) starts nothing by itself; the pool may now grow to %s when tasks arrive and no worker can take them (R6, R22)", sizeText(c.Max), sizeText(n), sizeText(n)))
		case n < c.Max:
			out = append(out, fmt.Sprintf("a lower max (%s → %s): idle workers above it exit at once, busy ones when they finish their task (R22)", sizeText(c.Max), sizeText(n)))
		}
	}
	if ev.Core != nil {
		switch n := *ev.Core; {
		case n > c.Core && known && before.Queue > 0:
			out = append(out, fmt.Sprintf("a higher core (%d → %d) starts min(%d, queued) workers at once for the queued tasks (R21)", c.Core, n, n-c.Core))
		case n > c.Core:
			out = append(out, fmt.Sprintf("a higher core (%d → %d) starts no worker while nothing is queued; each later task adds one until core is reached, idle workers or not (R21, R4)", c.Core, n))
		case n < c.Core:
			out = append(out, fmt.Sprintf("a lower core (%d → %d) kills nobody at once: idle workers are interrupted and wait again, now timed, so the excess dies a keepAlive later if still idle (R21, R25)", c.Core, n))
		}
	}
	if ev.KeepAlive != nil {
		switch k := *ev.KeepAlive; {
		case k < c.KeepAlive:
			out = append(out, fmt.Sprintf("a shorter keepAlive (%v → %v) interrupts idle workers, which wait again with the new timeout counted from now (R23)", c.KeepAlive, k))
		case k > c.KeepAlive:
			out = append(out, fmt.Sprintf("a longer keepAlive (%v → %v) interrupts nobody: current waits keep their deadline, the new value applies from each worker's next wait (R23)", c.KeepAlive, k))
		}
	}
	if ev.CoreTimeOut != nil && *ev.CoreTimeOut != c.CoreTimeOut {
		if *ev.CoreTimeOut {
			out = append(out, "allowCoreThreadTimeOut(true) interrupts idle workers: those in take() move to poll(keepAlive) and may die (R24)")
		} else {
			out = append(out, "allowCoreThreadTimeOut(false) interrupts nobody; workers at or below core wait in take() from their next wait (R24)")
		}
	}
	if len(out) == 0 {
		return "nothing changes (the values are the current ones)."
	}
	return strings.Join(out, "; ") + "."
}

func state(s sim.Sample) string {
	return fmt.Sprintf("%d workers, %d busy, %d queued", s.PoolSize, s.Busy, s.Queue)
}

// emptied is the first sample time in [from, to) with nothing queued.
func emptied(samples []sim.Sample, from, to time.Duration) (time.Duration, bool) {
	for _, s := range samples {
		if s.T >= from && s.T < to && s.Queue == 0 {
			return s.T, true
		}
	}
	return 0, false
}

// lastBefore is the last sample taken strictly before t.
func lastBefore(samples []sim.Sample, t time.Duration) (sim.Sample, bool) {
	for i := len(samples) - 1; i >= 0; i-- {
		if samples[i].T < t {
			return samples[i], true
		}
	}
	return sim.Sample{}, false
}

func lastAtOrBefore(samples []sim.Sample, t time.Duration) (sim.Sample, bool) {
	return lastBefore(samples, t+1)
}
