package explain

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"strings"

	"github.com/poolsim/poolsim/model"
	"github.com/poolsim/poolsim/scenarios"
	"github.com/poolsim/poolsim/sim"
)

// Comparison is two scenarios side by side — typically the same traffic
// on a platform pool and on virtual threads (issue 15), or before and
// after a configuration change: what each delivered, where requests
// waited, and why, in the words of Explain.
type Comparison struct {
	A, B *Explanation
	// SameTraffic: the two scenarios have the same workload and seed, so
	// they saw identical arrivals and service times (one random stream per
	// purpose): every difference is the configuration's.
	SameTraffic bool
	Rows        []CompareRow
	// Moved says in a sentence where the time went from A to B; "" when
	// nothing moved by more than noise.
	Moved string
}

// CompareRow is one line of the side-by-side.
type CompareRow struct {
	Name string
	A, B string
}

// Compare runs a and b (without what-ifs) and sets them side by side.
func Compare(ctx context.Context, a, b *scenarios.Scenario) (*Comparison, error) {
	ea, err := Explain(ctx, a, Options{NoWhatIfs: true})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", a.Name, err)
	}
	eb, err := Explain(ctx, b, Options{NoWhatIfs: true})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name, err)
	}
	c := &Comparison{A: ea, B: eb,
		SameTraffic: a.Seed == b.Seed && reflect.DeepEqual(a.Workload, b.Workload)}
	c.rows()
	c.Moved = moved(queuePlace(a, b), ea.Result.Summary, eb.Result.Summary)
	return c, nil
}

// waits is where a request's time went, in seconds on average over the
// steady state: in the pool's queue, and waiting for each resource.
type waits struct {
	queue float64
	res   map[string]float64
}

func waitsOf(s sim.Summary) waits {
	w := waits{queue: nan0(float64(s.WaitMean)), res: map[string]float64{}}
	for _, r := range s.Resources {
		// WaitMean is the mean over the acquisitions that waited.
		w.res[r.Name] = nan0(float64(r.WaitedShare)) * nan0(float64(r.WaitMean))
	}
	return w
}

// queuePlace names where a summary's queue wait (WaitMean) is spent: the
// pool's queue, or — SimpleAsyncTaskExecutor with a concurrencyLimit,
// which has no queue — the callers blocked for a permit (R143).
func queuePlace(a, b *scenarios.Scenario) string {
	name := func(sc *scenarios.Scenario) string {
		if c := sc.Pool.Config; c.Flavor == model.Virtual && c.Throttle {
			return "the callers waiting for a concurrencyLimit permit"
		}
		return "the pool's queue"
	}
	na, nb := name(a), name(b)
	if na == nb {
		return na
	}
	return na + " (A) / " + nb + " (B)"
}

// moved names the largest shift of waiting from one place to another;
// queue names the place of the queue wait (queuePlace).
func moved(queue string, a, b sim.Summary) string {
	wa, wb := waitsOf(a), waitsOf(b)
	type place struct {
		name string
		a, b float64
	}
	places := []place{{queue, wa.queue, wb.queue}}
	for _, r := range b.Resources {
		places = append(places, place{resourceName(r), wa.res[r.Name], wb.res[r.Name]})
	}
	var from, to place
	for _, p := range places {
		if d := p.a - p.b; d > from.a-from.b {
			from = p
		}
		if d := p.b - p.a; d > to.b-to.a {
			to = p
		}
	}
	// Below a millisecond, or a tenth of the mean response, is not a move.
	floor := math.Max(1e-3, 0.1*nan0(float64(a.ResponseMean)))
	switch {
	case from.name != "" && to.name != "" && from.a-from.b > floor && to.b-to.a > floor:
		return fmt.Sprintf("The wait moved from %s (%s → %s a request on average) to %s (%s → %s).",
			from.name, dur(from.a), dur(from.b), to.name, dur(to.a), dur(to.b))
	case to.name != "" && to.b-to.a > floor:
		return fmt.Sprintf("Requests wait longer at %s (%s → %s on average).", to.name, dur(to.a), dur(to.b))
	case from.name != "" && from.a-from.b > floor:
		return fmt.Sprintf("Requests wait less at %s (%s → %s on average).", from.name, dur(from.a), dur(from.b))
	}
	return ""
}

func resourceName(r sim.ResourceSummary) string {
	return fmt.Sprintf("%s (%s, %d)", r.Name, r.Type, r.Size)
}

func (c *Comparison) add(name string, f func(s sim.Summary) string) {
	c.Rows = append(c.Rows, CompareRow{Name: name, A: f(c.A.Result.Summary), B: f(c.B.Result.Summary)})
}

func (c *Comparison) rows() {
	c.Rows = append(c.Rows, CompareRow{Name: "pool", A: poolWords(c.A.Scenario), B: poolWords(c.B.Scenario)})
	c.add("ended/s (errors too)", func(s sim.Summary) string { return f1(nan0(float64(s.Throughput))) })
	c.add("rejected", func(s sim.Summary) string { return fmt.Sprint(s.Rejected) })
	if c.A.Result.Summary.ResourceErrors != nil || c.B.Result.Summary.ResourceErrors != nil {
		c.add("ended by an error (whole run)", func(s sim.Summary) string {
			if s.ResourceErrors == nil {
				return "-"
			}
			return fmt.Sprint(*s.ResourceErrors)
		})
	}
	c.add("response mean", func(s sim.Summary) string { return dur(float64(s.ResponseMean)) })
	c.add("response p50", func(s sim.Summary) string { return dur(float64(s.ResponseP50)) })
	c.add("response p99", func(s sim.Summary) string { return dur(float64(s.ResponseP99)) })
	c.add("queue wait mean", func(s sim.Summary) string { return dur(float64(s.WaitMean)) })
	c.add("queue wait p99", func(s sim.Summary) string { return dur(float64(s.WaitP99)) })
	c.add("queued, most", func(s sim.Summary) string { return fmt.Sprint(s.QueueLenMax) })
	c.add("threads, most", func(s sim.Summary) string { return fmt.Sprint(s.LargestPoolSize) })
	c.add("threads busy, mean", func(s sim.Summary) string { return f1(nan0(float64(s.BusyMean))) })
	c.add("stack reserved, peak", func(s sim.Summary) string { return bytesWords(s.PeakReservedStack) })
	if c.A.Result.Summary.Virtual != nil || c.B.Result.Summary.Virtual != nil {
		vrow := func(name string, f func(v *sim.VirtualSummary) string) {
			c.add(name, func(s sim.Summary) string {
				if s.Virtual == nil {
					return "-"
				}
				return f(s.Virtual)
			})
		}
		vrow("virtual threads, most", func(v *sim.VirtualSummary) string { return fmt.Sprint(v.VTPeak) })
		vrow("their heap, peak", func(v *sim.VirtualSummary) string { return bytesWords(v.HeapPeak) })
		vrow("carriers, most (parallelism)", func(v *sim.VirtualSummary) string {
			return fmt.Sprintf("%d (%d)", v.CarriersPeak, v.Parallelism)
		})
		vrow("carriers busy, mean", func(v *sim.VirtualSummary) string { return f1(nan0(float64(v.MountedMean))) })
		vrow("pinned, mean", func(v *sim.VirtualSummary) string { return f1(nan0(float64(v.PinnedMean))) })
		vrow("carrier wait p99", func(v *sim.VirtualSummary) string { return dur(float64(v.CarrierWaitP99)) })
		vrow("waiting for a carrier, mean", func(v *sim.VirtualSummary) string { return f1(nan0(float64(v.RunnableMean))) })
	}
	names := map[string]bool{}
	for _, e := range []*Explanation{c.A, c.B} {
		for _, r := range e.Result.Summary.Resources {
			if names[r.Name] {
				continue
			}
			names[r.Name] = true
			name := r.Name
			find := func(s sim.Summary) (sim.ResourceSummary, bool) {
				for _, x := range s.Resources {
					if x.Name == name {
						return x, true
					}
				}
				return sim.ResourceSummary{}, false
			}
			row := func(label string, f func(r sim.ResourceSummary) string) {
				c.add(name+": "+label, func(s sim.Summary) string {
					if r, ok := find(s); ok {
						return f(r)
					}
					return "-"
				})
			}
			row("in use, mean", func(r sim.ResourceSummary) string {
				return fmt.Sprintf("%s of %d", f1(nan0(float64(r.InUseMean))), r.Size)
			})
			row("waiters, mean (most)", func(r sim.ResourceSummary) string {
				return fmt.Sprintf("%s (%d)", f1(nan0(float64(r.WaitersMean))), r.WaitersMax)
			})
			row("wait p99", func(r sim.ResourceSummary) string { return dur(float64(r.WaitP99)) })
			row("timeouts", func(r sim.ResourceSummary) string { return fmt.Sprint(r.Timeouts) })
		}
	}
	if c.A.Result.Summary.CPUs > 0 || c.B.Result.Summary.CPUs > 0 {
		c.add("CPU utilization", func(s sim.Summary) string {
			if s.CPUs == 0 {
				return "-"
			}
			return pct(nan0(float64(s.CPUUtilization)))
		})
	}
}

// poolWords names a scenario's pool in a few words: its size, or for
// virtual threads the carriers and any concurrencyLimit (R131, R143).
func poolWords(sc *scenarios.Scenario) string {
	c := sc.Pool.Config
	if c.Flavor == model.Virtual {
		w := fmt.Sprintf("%s, JDK %d, %d carriers", sc.Pool.Preset, sc.JVM.Version, sc.JVM.Parallelism)
		if c.Throttle {
			w += fmt.Sprintf(", limit %d", c.ConcurrencyLimit)
		}
		return w
	}
	return fmt.Sprintf("%s, max %s", sc.Pool.Preset, model.SizeString(c.Max))
}

// bytesWords prints a byte count as KiB, MiB or GiB.
func bytesWords(n int64) string {
	switch {
	case n <= 0:
		return "0"
	case n >= 1<<30:
		return trim(fmt.Sprintf("%.1f", float64(n)/(1<<30))) + " GiB"
	case n >= 1<<20:
		return trim(fmt.Sprintf("%.1f", float64(n)/(1<<20))) + " MiB"
	case n >= 1<<10:
		return trim(fmt.Sprintf("%.1f", float64(n)/(1<<10))) + " KiB"
	}
	return fmt.Sprintf("%d B", n)
}

// verdict is the one finding that says what limits a run.
func verdict(e *Explanation) string {
	if _, v, ok := Saturated(e.Result.Summary); ok {
		return v
	}
	// On virtual threads the first findings describe the run (Steady
	// state, Load): the verdict is where the wait went, else the limit
	// in front of the threads, else what holds the carriers.
	if e.Result.Summary.Virtual != nil {
		for _, title := range []string{"Where the wait went", "Concurrency limit", "Pinned carriers"} {
			for _, f := range e.Findings {
				if f.Title == title {
					return f.Title + ": " + f.Text
				}
			}
		}
	}
	if len(e.Findings) > 0 {
		f := e.Findings[0]
		return f.Title + ": " + f.Text
	}
	return "nothing notable"
}

// Text prints the side-by-side, where the wait moved, and each side's
// verdict.
func (c *Comparison) Text() string {
	var b strings.Builder
	a, bb := c.A.Scenario, c.B.Scenario
	fmt.Fprintf(&b, "A: %s — %s\nB: %s — %s\n", a.Name, a.Description, bb.Name, bb.Description)
	if c.SameTraffic {
		fmt.Fprintf(&b, "Same traffic (workload and seed %d): every difference below is the configuration's.\n", a.Seed)
	} else {
		b.WriteString(wrap("The two scenarios do not have the same traffic (their workloads or seeds differ): the differences below include the traffic's.", 100, ""))
	}
	rows := [][]string{{"", "A", "B"}}
	for _, r := range c.Rows {
		rows = append(rows, []string{r.Name, r.A, r.B})
	}
	b.WriteString("\n" + table(rows))
	if c.Moved != "" {
		b.WriteString("\n" + wrap(c.Moved, 100, ""))
	}
	b.WriteString("\n" + wrap("Why A: "+verdict(c.A), 100, ""))
	b.WriteString(wrap("Why B: "+verdict(c.B), 100, ""))
	return b.String()
}
