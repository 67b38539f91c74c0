package tune

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"

	"github.com/poolsim/poolsim/model"
	"github.com/poolsim/poolsim/scenarios"
	"github.com/poolsim/poolsim/sweep"
	"github.com/poolsim/poolsim/workloads"
)

// ErlangB is the blocking probability of the loss system M/G/c/c with
// offered load a = λ/μ: B(0, a) = 1, B(k, a) = a·B(k−1, a) / (k + a·B(k−1, a))
// (the stable recursion). A pool of c threads on a SynchronousQueue with
// AbortPolicy or DiscardPolicy rejects this share of its tasks, whatever
// the service law (insensitivity).
func ErlangB(c int, a float64) float64 {
	b := 1.0
	for k := 1; k <= c; k++ {
		b = a * b / (float64(k) + a*b)
	}
	return b
}

// ErlangC is the probability that a task waits in M/M/c with offered load
// a: C = B / (1 − ρ(1 − B)), ρ = a/c; 1 when ρ >= 1.
func ErlangC(c int, a float64) float64 {
	rho := a / float64(c)
	if rho >= 1 {
		return 1
	}
	b := ErlangB(c, a)
	return b / (1 - rho*(1-b))
}

// MMcWaitQuantile is the q-quantile of the wait in M/M/c: the wait exceeds
// t with probability C·exp(−(cμ − λ)t), so the quantile is
// ln(C / (1 − q)) / (cμ − λ), or 0 when C <= 1 − q; +Inf when λ >= cμ.
func MMcWaitQuantile(c int, lambda, mu, q float64) float64 {
	if lambda >= float64(c)*mu {
		return math.Inf(1)
	}
	cc := ErlangC(c, lambda/mu)
	if cc <= 1-q {
		return 0
	}
	return math.Log(cc/(1-q)) / (float64(c)*mu - lambda)
}

// closedModel is a configuration with a closed form: Poisson arrivals at
// Lambda per second, service rate Mu per thread, C threads.
type closedModel struct {
	erlangB    bool // M/G/c/c (Erlang B); else M/M/c (Erlang C)
	Lambda, Mu float64
	C          int
	duration   float64 // s, for the counts
}

// Name names the model and its formula.
func (m closedModel) Name() string {
	if m.erlangB {
		return "M/G/c/c (Erlang B)"
	}
	return "M/M/c (Erlang C)"
}

func (m closedModel) same(o closedModel) bool {
	return m.erlangB == o.erlangB && m.Lambda == o.Lambda && m.Mu == o.Mu && m.duration == o.duration
}

// closedFormOf returns the closed-form model of a configuration, or why it
// has none. Both need core = max threads that never time out, one phase
// of Poisson arrivals and nothing else going on (no events, CPU limit,
// failures or periodic jobs): then a SynchronousQueue that aborts or
// discards is M/G/c/c, and an unbounded FIFO queue with exponential
// service is M/M/c.
func closedFormOf(sc *scenarios.Scenario) (closedModel, string) {
	w := sc.Workload
	c := sc.Pool.Config
	var why string
	switch {
	case w.Trace != "" || w.AccessLog != nil:
		why = "recorded traffic"
	case len(w.Phases) != 1:
		why = "several phases"
	case w.Phases[0].Arrivals.Process != "poisson":
		why = "arrivals not Poisson"
	case w.Phases[0].Split != nil:
		why = "a split service law"
	case w.Failure > 0:
		why = "failing tasks"
	case len(sc.Events) > 0 || len(sc.Periodic) > 0:
		why = "runtime events or periodic jobs"
	case sc.Host.CPUs > 0:
		why = "a CPU limit"
	case c.Flavor != model.JDK && c.Flavor != model.Tomcat:
		why = "a " + c.Flavor.String() + " pool"
	case c.Core != c.Max:
		why = "core ≠ max"
	case c.CoreTimeOut:
		why = "core threads time out"
	case c.ThreadLimit > 0 && c.ThreadLimit < c.Core:
		why = "a thread limit below core"
	}
	if why != "" {
		return closedModel{}, why
	}
	ph := w.Phases[0]
	dist, err := workloads.NewDistribution(ph.Service, rand.NewPCG(1, 1))
	if err != nil || !(dist.Mean() > 0) || math.IsInf(dist.Mean(), 0) {
		return closedModel{}, "no finite mean service time"
	}
	m := closedModel{Lambda: ph.Arrivals.Rate, Mu: 1 / dist.Mean(), C: c.Core, duration: sc.Duration.Seconds()}
	switch {
	case c.Queue == model.Synchronous && (c.Rejection == model.AbortPolicy || c.Rejection == model.DiscardPolicy):
		m.erlangB = true
		return m, ""
	case (c.Queue == model.Linked || c.Queue == model.TaskQueue || c.Queue == model.BlockingArrayQueue) && c.QueueCapacity == model.Unbounded:
		if ph.Service.Dist != "exponential" {
			return closedModel{}, "service not exponential (M/G/c has no closed form)"
		}
		return m, ""
	}
	return closedModel{}, "a bounded queue or another policy"
}

// figures are the model's values of the summary metrics it gives.
func (m closedModel) figures() map[string]float64 {
	c, a := float64(m.C), m.Lambda/m.Mu
	sub := m.Lambda * m.duration
	f := map[string]float64{
		"submitted": sub, "pool_size_mean": c, "pool_size_max": c, "largest_pool_size": c,
		"arrival_rate_per_s": m.Lambda, "service_mean_s": 1 / m.Mu,
	}
	if m.erlangB {
		b := ErlangB(m.C, a)
		f["rejected"], f["discarded"] = b*sub, b*sub
		for _, k := range []string{"wait_mean_s", "wait_p50_s", "wait_p90_s", "wait_p99_s", "queue_len_mean"} {
			f[k] = 0
		}
		f["busy_mean"], f["utilization"] = a*(1-b), a*(1-b)/c
		f["response_mean_s"], f["throughput_per_s"] = 1/m.Mu, m.Lambda*(1-b)
		return f
	}
	f["rejected"], f["discarded"] = 0, 0
	w := math.Inf(1)
	if a < c {
		w = ErlangC(m.C, a) / (c*m.Mu - m.Lambda)
	}
	f["wait_mean_s"], f["queue_len_mean"], f["response_mean_s"] = w, m.Lambda*w, w+1/m.Mu
	f["wait_p50_s"] = MMcWaitQuantile(m.C, m.Lambda, m.Mu, 0.5)
	f["wait_p90_s"] = MMcWaitQuantile(m.C, m.Lambda, m.Mu, 0.9)
	f["wait_p99_s"] = MMcWaitQuantile(m.C, m.Lambda, m.Mu, 0.99)
	f["busy_mean"], f["utilization"] = math.Min(a, c), math.Min(a/c, 1)
	f["throughput_per_s"] = math.Min(m.Lambda, c*m.Mu)
	return f
}

// closedPoint is a point's closed form.
type closedPoint struct {
	model   closedModel
	figures map[string]float64
}

// ClosedForm is the closed-form answer to the search's question, when
// every point searched has one: the smallest pool size meeting every
// constraint by the formula.
type ClosedForm struct {
	Model      string
	Lambda, Mu float64
	Key        string // the varied key that sets the size
	// Size is the smallest size in the key's range meeting the
	// constraints (0: none in the range); Figures the model's metrics there.
	Size    int
	Figures map[string]float64
	// Why, when Size is 0 for another reason than the range: a constraint
	// reads a metric the model does not give.
	Why string
}

// closedForms attaches each point's closed form and returns the search's,
// or nil when some point has none, they differ in more than the size, or
// no varied key sets the size.
func (s *search) closedForms() *ClosedForm {
	var first *closedModel
	sizeKey := -1
	for _, p := range s.points {
		sc, err := scenarios.Parse(s.t.data, s.t.cfg.Path, append(append([]string{}, s.t.cfg.Sets...), s.sets(p.Values)...))
		if err != nil {
			return nil
		}
		m, why := closedFormOf(sc)
		if why != "" {
			return nil
		}
		p.closed = &closedPoint{model: m, figures: m.figures()}
		if first == nil {
			first = &m
		} else if !first.same(m) {
			return nil
		}
	}
	for k, d := range s.t.dims {
		if d.param.Key == "pool.core" || d.param.Key == "pool.max" {
			sizeKey = k
		}
	}
	if first == nil || sizeKey < 0 || s.t.dims[sizeKey].lo < 1 {
		return nil
	}
	d := s.t.dims[sizeKey]
	cf := &ClosedForm{Model: first.Name(), Lambda: first.Lambda, Mu: first.Mu, Key: d.param.Key}
	known := first.figures()
	for _, g := range s.t.constraints {
		for _, m := range g.Metrics() {
			if _, ok := known[m]; !ok {
				cf.Why = fmt.Sprintf("%q reads %s, which %s does not give", g.Expr, m, first.Name())
				return cf
			}
		}
	}
	ref := s.points[0]
	for c := int(d.lo); c <= int(d.hi); c++ {
		m := *first
		m.C = c
		f := m.figures()
		if s.t.closedHolds(ref, sizeKey, c, f) {
			cf.Size, cf.Figures = c, f
			break
		}
	}
	return cf
}

// closedHolds evaluates the constraints on a row of the closed form's
// figures at size c (the other keys as at ref).
func (t *Tuner) closedHolds(ref *Point, sizeKey, c int, f map[string]float64) bool {
	vals := append([]sweep.Value(nil), ref.Values...)
	vals[sizeKey] = sweep.Value{Text: strconv.Itoa(c), Canon: strconv.Itoa(c)}
	row := sweep.Row{Values: vals, Replications: 1, Mean: make([]float64, len(ref.def.Metrics)), HalfWidth: make([]float64, len(ref.def.Metrics))}
	for j, m := range ref.def.Metrics {
		x, ok := f[m]
		if !ok {
			x = math.NaN()
		}
		row.Mean[j] = x
	}
	for _, g := range t.constraints {
		if ok, err := g.Check(ref.def, &row); err != nil || !ok {
			return false
		}
	}
	return true
}

// closedNames lists, in order, the figures a closed form gives.
func closedNames(f map[string]float64) []string {
	var out []string
	for k := range f {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
