package explain

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/poolsim/poolsim/model"
)

// whatIfs chooses the configuration changes that matter for this pool.
func (e *Explanation) whatIfs() []WhatIf {
	s, st := e.Result.Summary, e.Steady
	c := e.Config
	var out []WhatIf
	add := func(name, why string, sets ...string) { out = append(out, WhatIf{Name: name, Why: why, Sets: sets}) }
	if c.Flavor == model.Jetty && s.LargestPoolSize > c.Core {
		// Jetty shrinks one thread per idleTimeout: only a shorter
		// idleTimeout speeds it up (R105).
		if k := shorterKeepAlive(c.KeepAlive); k > 0 {
			add(fmt.Sprintf("idleTimeout %v → %v", c.KeepAlive, k), "one thread leaves per idleTimeout, so the pool shrinks that much faster (R105)",
				"pool.keepAlive="+k.String())
		}
	}
	lambda, svc := float64(s.ArrivalRate), float64(s.ServiceMean)
	idle := st.IdleTimed + st.Untimed
	e.resourceWhatIfs(add)
	e.clientWhatIfs(add)
	e.handOffWhatIf(add)
	e.virtualWhatIfs(add)

	fifo := c.HandOff() == model.FIFO
	// A plateau worth discussing: more idle workers than core explains and
	// than are busy.
	plateau := c.KeepAlive > 0 && st.Mean > float64(c.Core)+1 && idle >= 3 && idle > st.Busy &&
		(c.Flavor == model.JDK || c.Flavor == model.Tomcat)
	if plateau {
		if k := shorterKeepAlive(c.KeepAlive); k > 0 {
			why := "idle workers die sooner after a peak (R16)"
			if fifo && e.Process != "burst" {
				why = "idle workers die sooner; with a FIFO hand-off the plateau scales with keepAlive (R79)"
			}
			add(fmt.Sprintf("keepAlive %v → %v", c.KeepAlive, k), why, "pool.keepAlive="+k.String())
		}
		if fifo && e.Process != "burst" {
			add("LIFO hand-off (a custom queue)",
				"the most recently idle worker gets each task, so the others expire and the pool follows the concurrency actually needed (R55, R79); stock JDK and Tomcat queues cannot do this",
				"pool.queue.handOff=lifo")
		}
		// A lower max caps the pool (R79), but only matters below the
		// plateau; if the peak needed more threads, peak requests queue.
		if m := int(math.Round(st.Mean / 2)); m >= max(c.Core, 1) && m < c.Max {
			why := "caps the pool at that value (R79)"
			if float64(m) < e.Base.PeakBusy {
				if c.Queue == model.Synchronous || (c.QueueCapacity != model.Unbounded && c.Flavor == model.JDK) {
					why += fmt.Sprintf("; but the peak kept up to %s workers busy, so peak requests would be rejected (see rejected)", f0(e.Base.PeakBusy))
				} else {
					why += fmt.Sprintf("; but the peak kept up to %s workers busy, so peak requests would queue (see the peak wait p99)", f0(e.Base.PeakBusy))
				}
			}
			add(fmt.Sprintf("max %s → %d", model.SizeString(c.Max), m), why, fmt.Sprintf("pool.max=%d", m))
		}
		if key := e.rateKey(); key != "" && lambda > 0 {
			add("half the steady traffic", "fewer background requests (health checks, probes): the plateau scales with the rate (R79)",
				fmt.Sprintf("%s=%s", key, trim(fmt.Sprintf("%.6f", e.steadyRate()/2))))
		}
	}
	unboundedQueue := c.Queue != model.Synchronous && c.Queue != model.Priority && c.QueueCapacity == model.Unbounded
	if unboundedQueue && c.Max > c.Core && s.QueueLenMax > 0 && c.Flavor == model.JDK {
		capacity := max(2*c.Core, 10)
		add(fmt.Sprintf("bounded queue of %d", capacity),
			"a full bounded queue makes execute add threads up to max (R6); beyond that, tasks are rejected",
			fmt.Sprintf("pool.queue.capacity=%d", capacity))
	}
	if s.Rejected > s.RejectedAfterShutdown {
		if c.Queue != model.Synchronous && c.QueueCapacity != model.Unbounded {
			add(fmt.Sprintf("queue capacity %d → %d", c.QueueCapacity, 2*c.QueueCapacity), "more room before rejecting, at the cost of waiting",
				fmt.Sprintf("pool.queue.capacity=%d", 2*c.QueueCapacity))
		}
		if c.Max != model.Unbounded && c.Max < model.Unbounded/2 {
			add(fmt.Sprintf("max %d → %d", c.Max, 2*c.Max), "more threads before rejecting", fmt.Sprintf("pool.max=%d", 2*c.Max))
		}
		if c.Rejection != model.CallerRunsPolicy {
			add("CallerRunsPolicy", "the submitter runs rejected tasks itself, slowing its own submissions instead of losing tasks (R33)",
				"pool.rejection=caller-runs")
		}
	}
	if lambda > 0 && svc > 0 && float64(s.WaitP99) > 10*svc && !plateau && !e.resourceBound() && c.Flavor != model.ThreadPerTask && c.Flavor != model.Virtual {
		n := int(math.Ceil(lambda * svc * 1.3))
		load := "λ·S"
		if retryStorm(s.Client) {
			load = "λ·S, the callers' retries included"
		}
		if n > c.Core && n <= c.Max {
			add(fmt.Sprintf("core %d → %d", c.Core, n), "enough threads for 1.3 × the offered load "+load+", so tasks rarely wait",
				fmt.Sprintf("pool.core=%d", n))
		} else if n > c.Core && c.Max != model.Unbounded {
			add(fmt.Sprintf("core and max → %d", n), "enough threads for 1.3 × the offered load "+load,
				fmt.Sprintf("pool.max=%d", n), fmt.Sprintf("pool.core=%d", n))
		}
	}
	return out
}

// shorterKeepAlive proposes a keepAlive about a sixth of k, rounded to a
// readable value (60s → 10s), or 0 if k is already short.
func shorterKeepAlive(k time.Duration) time.Duration {
	t := k / 6
	for _, step := range []time.Duration{time.Minute, 10 * time.Second, time.Second, 100 * time.Millisecond, 10 * time.Millisecond} {
		if t >= step {
			return t.Round(step)
		}
	}
	return 0
}

// rateKey is the --set key of the steady phase's arrival rate, or "" if it
// has none (bursts, traces).
func (e *Explanation) rateKey() string {
	sc := e.Scenario
	switch e.Process {
	case "poisson", "constant", "onoff":
	default:
		return ""
	}
	switch sc.WorkloadForm {
	case "single":
		return "workload.arrivals.rate"
	case "phases":
		return fmt.Sprintf("workload.phases.%d.arrivals.rate", e.steadyPhase())
	}
	return ""
}

func (e *Explanation) steadyPhase() int {
	var t time.Duration
	ph := e.Scenario.Workload.Phases
	for i, p := range ph {
		if p.Duration == 0 || t+p.Duration >= e.Scenario.Duration {
			return i
		}
		t += p.Duration
	}
	return len(ph) - 1
}

func (e *Explanation) steadyRate() float64 {
	ph := e.Scenario.Workload.Phases
	if len(ph) == 0 {
		return 0
	}
	return ph[e.steadyPhase()].Arrivals.Rate
}

// Text renders the explanation, wrapped at 100 columns.
func (e *Explanation) Text() string {
	var b strings.Builder
	sc := e.Scenario
	fmt.Fprintf(&b, "%s", sc.Name)
	if sc.Description != "" {
		fmt.Fprintf(&b, " — %s", sc.Description)
	}
	b.WriteString("\n")
	c := sc.Pool.Config
	if c.Flavor == model.Virtual {
		j := sc.JVM
		limit := "no queue, no limit"
		if c.Throttle {
			// SimpleAsyncTaskExecutor's concurrencyLimit is a limit (R143).
			limit = fmt.Sprintf("no queue; at most %d at once, concurrencyLimit %d", c.ConcurrencyLimit, c.ConcurrencyLimit)
		}
		fmt.Fprintf(&b, "pool %s: a new virtual thread per task (%s); JDK %d, parallelism %d, maxPoolSize %d, minRunnable %d\n",
			sc.Pool.Preset, limit, j.Version, j.Parallelism, j.MaxPoolSize, j.MinRunnable)
	} else {
		fmt.Fprintf(&b, "pool %s: core %d, max %s, keepAlive %v, %s (capacity %s), %v hand-off, rejection %s\n",
			sc.Pool.Preset, c.Core, model.SizeString(c.Max), c.KeepAlive, c.Queue.JavaName(), model.SizeString(c.QueueCapacity), c.HandOff(), c.Rejection)
	}
	for _, f := range e.Findings {
		b.WriteString("\n")
		b.WriteString(wrap(f.Title+": "+f.Text, 100, ""))
	}
	if len(e.WhatIfs) > 0 {
		means := "steady-state means"
		if !e.window.whole(sc) {
			// The what-ifs change the starting configuration; the runtime
			// events still apply, so they compare whole runs.
			means = "means over the whole run after the warmup, runtime events included"
		}
		b.WriteString("\n" + wrap(fmt.Sprintf("What would change it (the same traffic, seed %d, re-simulated; %s, and the worst per-interval p99 wait over the whole run):", sc.Seed, means), 100, ""))
		row := func(name string, m Metrics) []string { return metricRow(name, m, e.Base, len(sc.Resources) > 0) }
		rows := [][]string{{"", "pool", "idle TIMED", "idle WAITING", "busy", "wait p99", "peak wait p99", "rejected", "threads created"}}
		if len(sc.Resources) > 0 {
			rows[0] = append(rows[0], "response p99")
		}
		if e.Base.Goodput == e.Base.Goodput {
			rows[0] = append(rows[0], "goodput/s")
		}
		if e.Base.Virtual != nil {
			// Virtual threads: no idle workers, no queue; where they are.
			rows = [][]string{{"", "virtual threads", "mounted", "runnable", "pinned", "carrier wait p99", "response p99", "completed/s", "errors"}}
			row = func(name string, m Metrics) []string { return virtualRow(name, m, e.Base) }
		}
		rows = append(rows, row("as configured", e.Base))
		var failed []string
		for _, w := range e.WhatIfs {
			if w.Error != "" {
				rows = append(rows, []string{w.Name, "could not simulate (below)"})
				failed = append(failed, fmt.Sprintf("- %s could not be simulated: %s", w.Name, w.Error))
				continue
			}
			rows = append(rows, row(w.Name, w.Alt))
		}
		b.WriteString(table(rows))
		for _, f := range failed {
			b.WriteString(wrap(f, 100, "  "))
		}
		for _, w := range e.WhatIfs {
			b.WriteString(wrap(fmt.Sprintf("- %s: %s (--set %s).", w.Name, w.Why, strings.Join(w.Sets, " --set ")), 100, "  "))
		}
	}
	return b.String()
}

func metricRow(name string, m, base Metrics, response bool) []string {
	rel := func(v, b float64) string {
		s := f1(v)
		if r := 100 * (v - b) / b; name != "as configured" && b >= 1 && math.Abs(r) >= 0.5 {
			s += fmt.Sprintf(" (%+.0f%%)", r)
		}
		return s
	}
	row := []string{name, rel(m.PoolMean, base.PoolMean), rel(m.IdleTimed, base.IdleTimed), rel(m.IdleUntimed, base.IdleUntimed),
		f2(m.Busy), dur(m.WaitP99), dur(m.PeakWaitP99), fmt.Sprint(m.Rejected), fmt.Sprint(m.ThreadsCreated)}
	if response {
		row = append(row, dur(m.ResponseP99))
	}
	if base.Goodput == base.Goodput {
		row = append(row, rel(m.Goodput, base.Goodput))
	}
	return row
}

// virtualRow is a what-if's row when the scenario runs virtual threads;
// a what-if on platform threads shows "-" for what they do not have.
func virtualRow(name string, m, base Metrics) []string {
	rel := func(v, b float64) string {
		s := f1(v)
		if r := 100 * (v - b) / b; name != "as configured" && b >= 1 && math.Abs(r) >= 0.5 {
			s += fmt.Sprintf(" (%+.0f%%)", r)
		}
		return s
	}
	row := []string{name, rel(m.PoolMean, base.PoolMean)}
	if v := m.Virtual; v != nil {
		row = append(row, f2(v.Mounted), f1(v.Runnable), f2(v.Pinned), dur(v.CarrierWaitP99))
	} else {
		row = append(row, "-", "-", "-", "-")
	}
	return append(row, dur(m.ResponseP99), f1(m.Throughput), fmt.Sprint(m.Errors))
}

func table(rows [][]string) string {
	widths := map[int]int{}
	for _, r := range rows {
		for i, c := range r {
			if len([]rune(c)) > widths[i] {
				widths[i] = len([]rune(c))
			}
		}
	}
	var b strings.Builder
	for _, r := range rows {
		b.WriteString("  ")
		for i, c := range r {
			if i > 0 {
				b.WriteString("  ")
			}
			b.WriteString(c)
			if i < len(r)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-len([]rune(c))))
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// wrap breaks s into lines of at most width runes; continuation lines are
// indented by indent plus two spaces.
func wrap(s string, width int, indent string) string {
	var b strings.Builder
	line := indent
	prefix := indent
	for _, w := range strings.Fields(s) {
		if len([]rune(line))+1+len([]rune(w)) > width && strings.TrimSpace(line) != "" {
			b.WriteString(strings.TrimRight(line, " "))
			b.WriteString("\n")
			prefix = indent + "  "
			line = prefix
		}
		if strings.TrimSpace(line) != "" {
			line += " "
		}
		line += w
	}
	if strings.TrimSpace(line) != "" {
		b.WriteString(line)
		b.WriteString("\n")
	}
	return b.String()
}
