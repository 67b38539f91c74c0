package tune

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/poolsim/poolsim/sweep"
)

// WriteText writes the human report: the search, the recommendation and
// its figures, what binds, the current configuration and the nearest
// feasible change, what the recommendation costs, its robustness, the
// closed form, and the frontier.
func (r *Result) WriteText(w io.Writer, jobs int) error {
	ew := &errWriter{w: w}
	t := r.t
	quoted := make([]string, len(r.Constraints))
	for i, c := range r.Constraints {
		quoted[i] = "'" + c + "'"
	}
	fmt.Fprintf(ew, "tune %s: minimize %s subject to %s (each held with 95%% confidence)\n", r.Scenario, r.Minimize, strings.Join(quoted, " and "))
	fmt.Fprintf(ew, "  search    %s; %d rounds, %d points, %d replications", r.searchLine(), r.Rounds, len(r.Points), r.Replications)
	if r.Wall > 0 {
		fmt.Fprintf(ew, " (%d simulations run in %s with %d jobs", r.Simulations, r.Wall.Round(time.Millisecond), jobs)
		if r.Cancelled > 0 {
			fmt.Fprintf(ew, ", %d more cancelled part-way", r.Cancelled)
		}
		fmt.Fprint(ew, ")")
	}
	fmt.Fprintln(ew)
	if len(r.Skipped) > 0 {
		fmt.Fprintf(ew, "  skipped   %d points the scenario refuses, e.g. %s\n", len(r.Skipped), r.Skipped[0])
	}
	rec := r.Recommended
	fmt.Fprintf(ew, "  recommend %s    (objective %s)\n", rec.Label(r.Keys), sweep.FormatFigure(rec.Objective, rec.ObjectiveHW))
	fmt.Fprintf(ew, "            %s\n", r.figureLine(rec))
	for _, b := range r.Binds {
		fmt.Fprintf(ew, "  binds     '%s': at %s, %s%s; there %s\n", b.Constraint, b.At.Label(r.Keys), r.constraintFigures(b.Constraint, b.At), undecided(b.At, t.cfg.MaxReplications), pressure(b.At))
	}
	if len(r.Binds) == 0 {
		fmt.Fprintf(ew, "  binds     no constraint: no cheaper neighbour was evaluated (the recommendation is at the edge of the --vary ranges)\n")
	}
	r.writeCurrent(ew)
	r.writeRobustness(ew)
	r.writeClosed(ew)
	r.writeFrontier(ew)
	return ew.err
}

func (r *Result) searchLine() string {
	s := fmt.Sprintf("%s of %d points", r.Method, r.coarsePoints())
	if r.Rounds > 1 {
		s += fmt.Sprintf(", then %d refinement rounds bisecting the feasible boundary", r.Rounds-1)
	}
	return s
}

func (r *Result) coarsePoints() int {
	n := 0
	for _, p := range r.Points {
		if p.Round == 1 {
			n++
		}
	}
	return n
}

// pressure says where a point's pool is short: how busy its threads are,
// its queue, its rejections.
func pressure(p *Point) string {
	u, _ := p.Figure("utilization")
	q, _ := p.Figure("queue_len_mean")
	qm, _ := p.Figure("queue_len_max")
	rj, _ := p.Figure(RejectMetric)
	s := fmt.Sprintf("the threads are busy %s of the time and the queue holds %s tasks on average (%s at most)", percent(u), short(q), short(qm))
	if rj > 0 {
		s += fmt.Sprintf(": it fills and %s of the tasks are rejected", percent(rj))
	}
	return s
}

func percent(x float64) string {
	if math.IsNaN(x) {
		return "n/a"
	}
	return strconv.FormatFloat(100*x, 'g', 3, 64) + "%"
}

func undecided(p *Point, maxReps int) string {
	if p.Decided {
		return ""
	}
	return fmt.Sprintf(" (not decided in %d replications)", maxReps)
}

// constraintFigures prints the figures one constraint reads at p.
func (r *Result) constraintFigures(expr string, p *Point) string {
	for _, g := range r.t.constraints {
		if g.Expr == expr {
			return figuresOf(g, p)
		}
	}
	return ""
}

// figureLine prints a point's figures, each constraint's verdict first.
func (r *Result) figureLine(p *Point) string {
	var parts []string
	for i, g := range r.t.constraints {
		mark := "holds"
		if !p.Holds[i] {
			mark = "FAILS"
		}
		parts = append(parts, fmt.Sprintf("%s %s", figuresOf(g, p), mark))
	}
	s := strings.Join(parts, "; ")
	s += fmt.Sprintf(" (%d replications)", p.Row.Replications)
	th, _ := p.Figure(ThreadsMetric)
	peak, _ := p.Figure("largest_pool_size")
	stack, _ := p.Figure("peak_reserved_stack_bytes")
	return s + fmt.Sprintf("; threads %s at the steady state, %s at the peak, %s of stack reserved", short(th), short(peak), mib(stack))
}

func short(x float64) string {
	if math.IsNaN(x) {
		return "n/a"
	}
	return strconv.FormatFloat(x, 'g', 4, 64)
}

func mib(b float64) string {
	if math.IsNaN(b) {
		return "n/a"
	}
	return strconv.FormatFloat(b/(1<<20), 'g', 4, 64) + " MiB"
}

// writeCurrent describes the current configuration, the nearest feasible
// change and what the recommendation costs against it.
func (r *Result) writeCurrent(w io.Writer) {
	cur := r.Current
	if cur == nil {
		return
	}
	verdict := "meets every constraint"
	if !cur.Feasible {
		verdict = "does not meet the constraints: " + r.currentFailure()
	}
	fmt.Fprintf(w, "  current   %s %s\n", cur.Label(r.Keys), verdict)
	if r.Nearest != nil {
		fmt.Fprintf(w, "  change    %s (the nearest feasible change)\n", r.changeText(r.Nearest))
	}
	rec := r.Recommended
	var costs []string
	for _, m := range []struct{ name, what string }{{ThreadsMetric, "threads at the steady state"}, {"largest_pool_size", "peak threads"}, {"peak_reserved_stack_bytes", "reserved stack"}} {
		a, _ := rec.Figure(m.name)
		b, _ := cur.Figure(m.name)
		if math.IsNaN(a) || math.IsNaN(b) {
			continue
		}
		if m.name == "peak_reserved_stack_bytes" {
			costs = append(costs, fmt.Sprintf("%s %s vs %s", m.what, mib(a), mib(b)))
			continue
		}
		costs = append(costs, fmt.Sprintf("%s %s (%s vs %s)", m.what, signed(a-b), short(a), short(b)))
	}
	if len(costs) > 0 {
		fmt.Fprintf(w, "  costs     the recommendation against the current: %s\n", strings.Join(costs, ", "))
	}
}

func signed(x float64) string {
	if x > 0 {
		return "+" + short(x)
	}
	return short(x)
}

// currentFailure lists what the current configuration fails.
func (r *Result) currentFailure() string {
	var parts []string
	for i, g := range r.t.constraints {
		if !r.Current.Holds[i] {
			parts = append(parts, fmt.Sprintf("fails '%s' (%s)", g.Expr, figuresOf(g, r.Current)))
		}
	}
	if len(parts) == 0 {
		return fmt.Sprintf("not shown to meet them within %d replications (%s)", r.Current.Row.Replications, (&search{t: r.t}).figures(r.Current))
	}
	return strings.Join(parts, ", ")
}

// changeText is "pool.max 8 → 11, pool.keepAlive 60s → 30s".
func (r *Result) changeText(p *Point) string {
	var parts []string
	for k, v := range p.Values {
		if r.Current.Values == nil {
			parts = append(parts, r.Keys[k]+"="+v.Text)
		} else if c := r.Current.Values[k]; c.Canon != v.Canon {
			parts = append(parts, fmt.Sprintf("%s %s → %s", r.Keys[k], c.Text, v.Text))
		}
	}
	return strings.Join(parts, ", ")
}

func (r *Result) writeRobustness(w io.Writer) {
	label := fmt.Sprintf("at %g×", r.Traffic)
	if r.Robust == nil {
		fmt.Fprintf(w, "  %-9s not checked: %s\n", label, r.RobustNote)
		return
	}
	verdict := "still meets every constraint: headroom for " + strconv.FormatFloat(r.Traffic, 'g', -1, 64) + "× the traffic"
	if !r.Robust.Feasible {
		var parts []string
		for i, g := range r.t.constraints {
			if !r.Robust.Holds[i] {
				parts = append(parts, fmt.Sprintf("fails '%s' (%s)", g.Expr, figuresOf(g, r.Robust)))
			}
		}
		if len(parts) == 0 {
			parts = append(parts, "is not shown to meet the constraints ("+(&search{t: r.t}).figures(r.Robust)+")")
		}
		verdict = strings.Join(parts, ", ") + ": no headroom for " + strconv.FormatFloat(r.Traffic, 'g', -1, 64) + "× the traffic"
	}
	fmt.Fprintf(w, "  %-9s the recommendation with %s %s\n", label, strings.Join(r.RobustSets, " "), verdict)
}

func (r *Result) writeClosed(w io.Writer) {
	c := r.Closed
	if c == nil {
		return
	}
	head := fmt.Sprintf("  closed    %s, λ = %s/s, μ = %s/s per thread: ", c.Model, short(c.Lambda), short(c.Mu))
	switch {
	case c.Why != "":
		fmt.Fprintf(w, "%sno answer: %s\n", head, c.Why)
	case c.Size == 0:
		fmt.Fprintf(w, "%sno %s in the range meets the constraints\n", head, c.Key)
	default:
		var figs []string
		for _, g := range r.t.constraints {
			for _, n := range gateNames(g) {
				figs = append(figs, n+" = "+short(closedFigure(c.Figures, n)))
			}
		}
		agree := "agrees"
		if recSize := r.Recommended.Values[r.keyIndex(c.Key)].Text; recSize != strconv.Itoa(c.Size) {
			agree = "recommends " + recSize
		}
		fmt.Fprintf(w, "%sthe smallest %s meeting the constraints is %d (%s); tune %s\n", head, c.Key, c.Size, strings.Join(figs, ", "), agree)
	}
}

func closedFigure(f map[string]float64, name string) float64 {
	if name == RejectMetric {
		return f["rejected"] / f["submitted"]
	}
	if x, ok := f[name]; ok {
		return x
	}
	return math.NaN()
}

func (r *Result) keyIndex(key string) int {
	for k, kk := range r.Keys {
		if kk == key {
			return k
		}
	}
	return -1
}

func (r *Result) writeFrontier(w io.Writer) {
	fmt.Fprintf(w, "  frontier  %d Pareto-optimal points in (threads, wait p99, rejected share) of %d evaluated:\n", len(r.Frontier), len(r.Points))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	closed := r.Closed != nil
	fmt.Fprintf(tw, "    threads\twait_p99_s\trejected_ratio\tfeasible\t")
	if closed {
		fmt.Fprintf(tw, "closed form (wait_p99_s, rejected_ratio)\t")
	}
	fmt.Fprintf(tw, "configuration\n")
	for _, p := range r.Frontier {
		th, _ := p.Figure(ThreadsMetric)
		wt, whw := p.Figure(WaitMetric)
		rj, rhw := p.Figure(RejectMetric)
		feas := "yes"
		if !p.Feasible {
			feas = "no"
		}
		fmt.Fprintf(tw, "    %s\t%s\t%s\t%s\t", short(th), sweep.FormatFigure(wt, whw), sweep.FormatFigure(rj, rhw), feas)
		if closed {
			if p.closed != nil {
				fmt.Fprintf(tw, "%s, %s\t", short(closedFigure(p.closed.figures, WaitMetric)), short(closedFigure(p.closed.figures, RejectMetric)))
			} else {
				fmt.Fprintf(tw, "\t")
			}
		}
		fmt.Fprintf(tw, "%s%s\n", p.Label(r.Keys), r.mark(p))
	}
	tw.Flush()
}

// mark names a point's role: " (recommended)", " (current)".
func (r *Result) mark(p *Point) string {
	var m []string
	if p == r.Recommended {
		m = append(m, "recommended")
	}
	if p == r.Current {
		m = append(m, "current")
	}
	if len(m) == 0 {
		return ""
	}
	return " (" + strings.Join(m, ", ") + ")"
}

// errWriter keeps the first write error.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return len(p), nil
	}
	_, e.err = e.w.Write(p)
	return len(p), nil
}
