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
// the warmup and after the last runtime reconfiguration that leaves enough
// samples, before any shutdown. cfg is the configuration in force there.
type window struct {
	from, to time.Duration // samples with from <= T <= to (to exclusive when cut)
	cut      bool          // to is a shutdown: samples at T >= to are outside
	cfg      model.Config
	// changed says which keys the runtime events set before the window.
	changed map[string]bool
	// later are the reconfigurations after the window's start: too close
	// to the end (or the shutdown) to have a steady state of their own.
	later []time.Duration
}

// minSteadySamples is how many timeline samples a reconfiguration must
// leave before the end for the analysis to start at it.
const minSteadySamples = 3

func hasSet(ev scenarios.Event) bool {
	return ev.Core != nil || ev.Max != nil || ev.KeepAlive != nil || ev.CoreTimeOut != nil
}

// steadyWindow applies the scenario's runtime events (R21–R24, R27, R28):
// the window starts at the warmup, or at the latest reconfiguration after
// it that leaves minSteadySamples samples, and a shutdown ends it.
func steadyWindow(sc *scenarios.Scenario) window {
	w := window{from: sc.Warmup, to: sc.Duration, cfg: sc.Pool.Config, changed: map[string]bool{}}
	var sets []scenarios.Event
	for _, ev := range sc.Events {
		if hasSet(ev) {
			sets = append(sets, ev)
		}
		if ev.Shutdown != "" {
			if ev.At < w.to {
				w.to, w.cut = ev.At, true
			}
			break
		}
	}
	for i := len(sets) - 1; i >= 0; i-- {
		if at := sets[i].At; at > sc.Warmup && samplesIn(sc.Sample, at, w.to, w.cut) >= minSteadySamples {
			w.from = at
			break
		}
	}
	for _, ev := range sets {
		if ev.At > w.from {
			w.later = append(w.later, ev.At)
			continue
		}
		w.cfg = applyEvent(w.cfg, ev)
		for key, set := range map[string]bool{"pool.core": ev.Core != nil, "pool.max": ev.Max != nil,
			"pool.keepAlive": ev.KeepAlive != nil, "pool.allowCoreThreadTimeOut": ev.CoreTimeOut != nil} {
			if set {
				w.changed[key] = true
			}
		}
	}
	return w
}

// samplesIn counts the timeline's sample times k·every in [from, to], or
// [from, to) when cut.
func samplesIn(every, from, to time.Duration, cut bool) int {
	if every <= 0 || to < from {
		return 0
	}
	last := to / every
	if cut && last*every == to {
		last--
	}
	first := (from + every - 1) / every
	return max(int(last-first+1), 0)
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
	text := strings.Join(parts, " ")
	switch w := e.window; {
	case e.Steady.Samples == 0:
	case w.from > sc.Warmup:
		text += fmt.Sprintf(" The steady state above is the part of the run after the change at %v%s (%v to %v), with core %d, max %s, keepAlive %v.",
			w.from, map[bool]string{true: " and before the shutdown", false: ""}[w.cut],
			e.Steady.SteadyFrom, e.Steady.SteadyTo, e.Config.Core, model.SizeString(e.Config.Max), e.Config.KeepAlive)
	default:
		text += fmt.Sprintf(" The steady state above runs from %v to %v%s, with core %d, max %s, keepAlive %v.",
			e.Steady.SteadyFrom, e.Steady.SteadyTo, map[bool]string{true: ", before the shutdown", false: ""}[w.cut],
			e.Config.Core, model.SizeString(e.Config.Max), e.Config.KeepAlive)
	}
	if later := e.window.later; len(later) > 0 && e.Steady.Samples > 0 {
		at := make([]string, len(later))
		for i, t := range later {
			at[i] = t.String()
		}
		end := "the end of the run"
		if e.window.cut {
			end = "the shutdown"
		}
		text += fmt.Sprintf(" The change at %s comes too close to %s (fewer than %d samples after it) to have a steady state of its own.",
			strings.Join(at, ", "), end, minSteadySamples)
	}
	e.add("Runtime changes", "%s", text)
}

func applyEvent(c model.Config, ev scenarios.Event) model.Config {
	if ev.Core != nil {
		c.Core = *ev.Core
	}
	if ev.Max != nil {
		c.Max = *ev.Max
	}
	// Jetty's setters drag the other bound along (R100).
	if c.Flavor == model.Jetty && c.Core > c.Max {
		if ev.Max != nil && ev.Core == nil {
			c.Core = c.Max
		} else {
			c.Max = c.Core
		}
	}
	if ev.KeepAlive != nil {
		c.KeepAlive = *ev.KeepAlive
	}
	if ev.CoreTimeOut != nil {
		c.CoreTimeOut = *ev.CoreTimeOut
	}
	return c
}

// changeRule says, in the JDK's terms, what one event does to this pool:
// its settings first, then a shutdown made by the same event.
func changeRule(c model.Config, ev scenarios.Event, before sim.Sample, known bool) string {
	var out []string
	if c.Flavor == model.Jetty {
		out = jettyChangeRule(c, ev)
	} else {
		out = tpeChangeRule(c, ev, before, known)
	}
	switch ev.Shutdown {
	case "graceful":
		out = append(out, "shutdown() rejects every later task, lets the queued ones run, and lets idle workers exit (R27)")
	case "now":
		out = append(out, "shutdownNow() rejects every later task, drains the queue (the drained tasks are counted, never run) and interrupts every worker (R28)")
	}
	if len(out) == 0 {
		return "nothing changes (the values are the current ones)."
	}
	return strings.Join(out, "; then ") + "."
}

// tpeChangeRule is what the setters of ThreadPoolExecutor (and Tomcat's
// and ScheduledThreadPoolExecutor's, which inherit them) do (R21–R24).
func tpeChangeRule(c model.Config, ev scenarios.Event, before sim.Sample, known bool) []string {
	var out []string
	if ev.Max != nil {
		switch n := *ev.Max; {
		case n != c.Max && c.Flavor == model.Scheduled:
			out = append(out, fmt.Sprintf("max (%s → %s) has no effect on a ScheduledThreadPoolExecutor, which never grows past core (R88)", model.SizeString(c.Max), model.SizeString(n)))
		case n > c.Max && c.Queue != model.Synchronous && c.QueueCapacity == model.Unbounded && c.Flavor == model.JDK:
			out = append(out, fmt.Sprintf("a higher max (%s → %s) adds no thread: execute grows the pool past core only when the queue refuses a task, and an unbounded %s never does (R6, R7, R22)", model.SizeString(c.Max), model.SizeString(n), c.Queue.JavaName()))
		case n > c.Max:
			out = append(out, fmt.Sprintf("a higher max (%s → %s) starts nothing by itself; the pool may now grow to %s when tasks arrive and no worker can take them (R6, R22)", model.SizeString(c.Max), model.SizeString(n), model.SizeString(n)))
		case n < c.Max:
			out = append(out, fmt.Sprintf("a lower max (%s → %s): idle workers above it exit at once, busy ones when they finish their task (R22)", model.SizeString(c.Max), model.SizeString(n)))
		}
	}
	if ev.Core != nil {
		switch n := *ev.Core; {
		case n > c.Core && !known:
			out = append(out, fmt.Sprintf("a higher core (%d → %d) starts min(%d, queued) workers at once for the tasks queued at that moment, none if nothing is queued (R21)", c.Core, n, n-c.Core))
		case n > c.Core && before.Queue > 0:
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
	return out
}

// jettyChangeRule is what QueuedThreadPool's setters do (R100, R104,
// R107): setMinThreads starts threads up to the new minimum at once, and
// no setter stops a thread — threads above the bounds leave only through
// the idle shrink, one per idleTimeout.
func jettyChangeRule(c model.Config, ev scenarios.Event) []string {
	var out []string
	if ev.Max != nil {
		switch n := *ev.Max; {
		case n < c.Max:
			out = append(out, fmt.Sprintf("setMaxThreads (%s → %s) stops no thread: threads above it leave only through the idle shrink, at most one per idleTimeout (R100, R104)", model.SizeString(c.Max), model.SizeString(n)))
		case n > c.Max:
			out = append(out, fmt.Sprintf("setMaxThreads (%s → %s) lets the pool grow further whenever no thread is idle (R102)", model.SizeString(c.Max), model.SizeString(n)))
		}
	}
	if ev.Core != nil {
		switch n := *ev.Core; {
		case n > c.Core:
			out = append(out, fmt.Sprintf("setMinThreads (%d → %d) starts threads at once up to the new minimum (ensureThreads, R107)", c.Core, n))
		case n < c.Core:
			out = append(out, fmt.Sprintf("setMinThreads (%d → %d) stops no thread: those above it leave one per idleTimeout (R104)", c.Core, n))
		}
	}
	if ev.KeepAlive != nil && *ev.KeepAlive != c.KeepAlive {
		out = append(out, fmt.Sprintf("setIdleTimeout (%v → %v) interrupts nobody: it applies from each thread's next wait and shrink check (R104)", c.KeepAlive, *ev.KeepAlive))
	}
	return out
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
