package explain

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/poolsim/poolsim/model"
	"github.com/poolsim/poolsim/scenarios"
	"github.com/poolsim/poolsim/sim"
	"github.com/poolsim/poolsim/workloads"
)

// Observation is what the user saw of a pool: worker counts by state, from
// a thread dump or typed in.
type Observation struct {
	Source      string `json:"source"`       // where it came from, for the text
	Total       int    `json:"workers"`      // workers in the pool
	IdleTimed   int    `json:"idle_timed"`   // idle in poll(keepAlive): TIMED_WAITING
	IdleUntimed int    `json:"idle_untimed"` // idle in take(): WAITING
	Busy        int    `json:"busy"`         // running tasks
	MaxNumber   int    `json:"max_number"`   // the highest worker number seen (threads created, at least); 0 if unknown
}

// DiagnoseOptions state the assumptions of a diagnosis.
type DiagnoseOptions struct {
	// Since is how long the traffic has been steady since the pool's last
	// peak (default 1h).
	Since time.Duration
	// Peak is the pool size at that peak (default: the highest worker
	// number seen, capped by max, else max).
	Peak int
	// Service is the mean service time of the steady traffic (default: from
	// the busy count, busy/λ, else 5ms).
	Service time.Duration
	// Replications per candidate rate for random arrivals (default 8).
	Replications int
	Seed         uint64
	// Wakeup is the hand-off timing the candidates are simulated with: nil
	// for the ideal zero-latency model, or scenarios.CalibratedWakeup()
	// (the command line's default), under which a real pool's plateau is
	// lower at a given rate (spec §12). It is not applied to a Jetty or a
	// scheduled pool, whose queues have no modelled latency.
	Wakeup *scenarios.Wakeup
	// FullGrid simulates every rate of the search grid. By default the
	// scan starts at the grid point nearest the first guess and walks
	// outward, and stops walking in a direction once two successive rates
	// there are decisively inconsistent and moving away from the
	// observation (see stopsAt): the pool size grows with the rate (R78),
	// so the rates beyond cannot fit, and the band, the best fit and the
	// notes come out as on the full grid.
	FullGrid bool
}

// RateRange is the range of request rates consistent with the observation
// under one arrival process.
type RateRange struct {
	Process   string  // constant (periodic) or poisson
	Low, High float64 // requests per second; consistent for Low <= λ <= High
	Best      float64 // where the simulated pool size equals the observation
	Found     bool    // some rate is consistent
	Curve     []CurvePoint
	Note      string

	skipped int // simulations the early stop saved
}

// CurvePoint is the simulated pool size at one rate.
type CurvePoint struct {
	Rate     float64
	Mean, SD float64 // over replications
}

// Diagnosis is the inferred load behind an observed pool.
type Diagnosis struct {
	Pool     scenarios.Pool
	Obs      Observation
	Opt      DiagnoseOptions // with defaults filled in
	Periodic RateRange
	Poisson  RateRange
	// Issues are observations the pool's rules cannot produce (a sign that
	// the configuration is not what the JVM runs).
	Issues []string
	// Explanation explains the pool at the best periodic estimate.
	Explanation *Explanation
	// Simulations is how many simulations the diagnosis ran: every
	// replication of every candidate rate, and the explanation's (its run
	// and its what-ifs). Skipped is how many grid rates the early stop
	// left out (times their replications: Simulations saved). Wall is how
	// long Diagnose took.
	Simulations int
	Skipped     int
	Wall        time.Duration

	sims atomic.Int64
}

// Diagnose infers, by simulation, the steady request rates that leave a pool
// configured as pool with the observed number of workers, Since after a peak
// of Peak workers, for periodic and for Poisson arrivals.
func Diagnose(ctx context.Context, pool scenarios.Pool, obs Observation, opt DiagnoseOptions) (*Diagnosis, error) {
	start := time.Now()
	c := pool.Config
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if obs.Total <= 0 {
		obs.Total = obs.IdleTimed + obs.IdleUntimed + obs.Busy
	}
	if obs.Total <= 0 {
		return nil, fmt.Errorf("explain: diagnose: the observation has no workers")
	}
	if opt.Wakeup != nil && !opt.Wakeup.Calibrated {
		return nil, fmt.Errorf("explain: diagnose: DiagnoseOptions.Wakeup: only scenarios.CalibratedWakeup() (or nil) is supported")
	}
	if opt.Since <= 0 {
		opt.Since = time.Hour
	}
	if opt.Replications <= 0 {
		opt.Replications = 8
	}
	if opt.Seed == 0 {
		opt.Seed = 1
	}
	if opt.Peak <= 0 {
		opt.Peak = c.Max
		if obs.MaxNumber > 0 && obs.MaxNumber < c.Max {
			opt.Peak = obs.MaxNumber
		}
		if opt.Peak > 100000 {
			opt.Peak = 100000
		}
	}
	opt.Peak = max(opt.Peak, obs.Total)
	d := &Diagnosis{Pool: pool, Obs: obs, Opt: opt}
	d.checkRules()
	k := c.KeepAlive.Seconds()
	if k <= 0 {
		return nil, fmt.Errorf("explain: diagnose: keepAlive is 0, so idle workers above core exit at once and the pool size says nothing about the load")
	}
	// A first guess of the rate, for the service default and the search range.
	guess := float64(obs.Total) / k
	if opt.Service <= 0 {
		opt.Service = 5 * time.Millisecond
		if obs.Busy > 0 {
			opt.Service = time.Duration(float64(obs.Busy) / guess * 1e9)
		}
		d.Opt.Service = opt.Service
	}
	// The two searches are independent (their own rates and seeds): they
	// run at the same time, which fills the processors that the periodic
	// search, one run per rate, leaves idle.
	err := inParallel(2, func(k int) (err error) {
		if k == 0 {
			d.Periodic, err = d.search(ctx, "constant", guess)
		} else {
			d.Poisson, err = d.search(ctx, "poisson", guess)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	d.Skipped = d.Periodic.skipped + d.Poisson.skipped
	best := d.Periodic
	if !best.Found {
		best = d.Poisson
	}
	if best.Found && best.Best > 0 {
		sc := d.scenario(best.Process, best.Best, opt.Seed)
		if d.Explanation, err = Explain(ctx, sc, Options{}); err != nil {
			return nil, err
		}
		d.sims.Add(int64(d.Explanation.Simulations))
	}
	d.Simulations = int(d.sims.Load())
	d.Wall = time.Since(start)
	return d, nil
}

// checkRules notes observations the pool's rules cannot produce.
func (d *Diagnosis) checkRules() {
	c, o := d.Pool.Config, d.Obs
	if o.Total > c.Max {
		d.Issues = append(d.Issues, fmt.Sprintf("%d workers exceed max (%d): the JVM does not run this configuration (R10)", o.Total, c.Max))
	}
	if o.Total < c.Core && !c.CoreTimeOut && c.Flavor == model.Tomcat {
		d.Issues = append(d.Issues, fmt.Sprintf("%d workers are fewer than core (%d), which Tomcat prestarts (R65) and never times out without allowCoreThreadTimeOut: check minSpareThreads", o.Total, c.Core))
	}
	if o.IdleTimed > 0 && o.Total <= c.Core && !c.CoreTimeOut && o.IdleUntimed == 0 {
		d.Issues = append(d.Issues, fmt.Sprintf("all idle workers are TIMED_WAITING although the pool (%d) is not above core (%d): either core is smaller than configured, core threads may time out, or the pool has just fallen to core (R60)", o.Total, c.Core))
	}
	if o.IdleUntimed > 0 && o.Total > c.Core+1 && !c.CoreTimeOut {
		d.Issues = append(d.Issues, fmt.Sprintf("%d idle workers wait in take() (WAITING) while the pool (%d) is above core (%d): possible only for workers that started waiting before the pool grew (R16); otherwise core is larger than configured", o.IdleUntimed, o.Total, c.Core))
	}
}

// scenario builds the experiment for one candidate rate: a burst that grows
// the pool to the peak, then steady traffic for Since.
func (d *Diagnosis) scenario(process string, rate float64, seed uint64) *scenarios.Scenario {
	burst := growBurst(d.Pool.Config, d.Opt.Peak)
	svc := workloads.ServiceSpec{Dist: "constant", Mean: d.Opt.Service}
	if process == "poisson" {
		svc = workloads.ServiceSpec{Dist: "exponential", Mean: d.Opt.Service}
	}
	grow := growPhase
	sample := d.Opt.Since / 200
	if sample <= 0 {
		sample = time.Millisecond
	}
	return &scenarios.Scenario{
		Host:        scenarios.Host{Wakeup: d.wakeup()},
		Name:        "diagnose",
		Description: fmt.Sprintf("%s traffic at %.4g/s, %v after a peak of %d workers", trafficName(process), rate, d.Opt.Since, d.Opt.Peak),
		Seed:        seed,
		Duration:    grow + d.Opt.Since,
		Warmup:      grow + d.Opt.Since/2,
		Sample:      sample,
		Pool:        d.Pool,
		Workload: workloads.Spec{Phases: []workloads.Phase{
			{Duration: grow, Arrivals: workloads.ArrivalSpec{Process: "burst", Count: burst}, Service: workloads.ServiceSpec{Dist: "constant", Mean: grow / 2}},
			{Arrivals: workloads.ArrivalSpec{Process: process, Rate: rate}, Service: svc},
		}},
		WorkloadForm: "phases",
		Text:         diagnoseText(d, process, rate),
	}
}

// wakeup is the hand-off timing the candidates are simulated with (see
// DiagnoseOptions.Wakeup).
func (d *Diagnosis) wakeup() *scenarios.Wakeup {
	if f := d.Pool.Config.Flavor; f == model.Jetty || f == model.Scheduled {
		return nil
	}
	return d.Opt.Wakeup
}

// diagnoseText is the YAML of a diagnosis experiment, so that explain's
// what-ifs can re-parse it with overrides.
func diagnoseText(d *Diagnosis, process string, rate float64) []byte {
	dist := "constant, value"
	if process == "poisson" {
		dist = "exponential, mean"
	}
	sample := d.Opt.Since / 200
	if sample <= 0 {
		sample = time.Millisecond
	}
	return []byte(fmt.Sprintf(`name: diagnose
description: %s traffic at %.6g/s, %v after a peak of %d workers
duration: %v
warmup: %v
sample: %v%s
pool: %s
workload:
  phases:
    - {duration: %v, arrivals: {process: burst, count: %d}, service: {dist: constant, value: 5ms}}
    - {arrivals: {process: %s, rate: %.6g}, service: {dist: %s: %v}}
`, trafficName(process), rate, d.Opt.Since, d.Opt.Peak, growPhase+d.Opt.Since, growPhase+d.Opt.Since/2, sample, hostYAML(d.wakeup()),
		poolYAML(d.Pool), growPhase, growBurst(d.Pool.Config, d.Opt.Peak), process, rate, dist, d.Opt.Service))
}

// finalSize simulates one candidate and returns the pool size at the end.
func (d *Diagnosis) finalSize(ctx context.Context, process string, rate float64, seed uint64) (float64, error) {
	sc := d.scenario(process, rate, seed)
	d.sims.Add(1)
	res, err := runSim(ctx, sc, sim.Options{})
	if err != nil {
		return 0, err
	}
	return float64(res.Summary.FinalPoolSize), nil
}

// point simulates a rate with its replications (in parallel).
func (d *Diagnosis) point(ctx context.Context, process string, rate float64) (CurvePoint, error) {
	ps, err := d.points(ctx, process, []float64{rate})
	if err != nil {
		return CurvePoint{}, err
	}
	return ps[0], nil
}

// points simulates rates with their replications, all in parallel.
func (d *Diagnosis) points(ctx context.Context, process string, rates []float64) ([]CurvePoint, error) {
	n := d.Opt.Replications
	if process == "constant" {
		n = 1 // periodic traffic is deterministic
	}
	xs := make([]float64, n*len(rates))
	err := inParallel(len(xs), func(k int) (err error) {
		// Seeds depend only on the replication, so every rate sees the
		// same random streams (common random numbers): the comparison
		// between candidates is not blurred by the seeds, and a rate's
		// figures do not depend on which other rates were simulated.
		i := k % n
		xs[k], err = d.finalSize(ctx, process, rates[k/n], d.Opt.Seed+uint64(i))
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]CurvePoint, len(rates))
	for j, r := range rates {
		p := CurvePoint{Rate: r}
		p.Mean, p.SD = stat.MeanStdDev(xs[j*n:(j+1)*n], nil)
		if n == 1 {
			p.SD = 0
		}
		out[j] = p
	}
	return out, nil
}

// consistent: the observed count is a plausible draw at this rate — within
// two standard deviations of the replications' mean, plus half a worker for
// the count's discreteness.
func (d *Diagnosis) consistent(p CurvePoint) bool {
	return math.Abs(p.Mean-float64(d.Obs.Total)) <= 2*p.SD+0.5
}

// search scans a log grid of rates around the guess, then refines the edges
// of the consistent range by bisection.
func (d *Diagnosis) search(ctx context.Context, process string, guess float64) (RateRange, error) {
	rr := RateRange{Process: process}
	const points = 25
	lo, hi := guess/8, guess*4
	rates := make([]float64, points)
	for i := range rates {
		rates[i] = lo * math.Pow(hi/lo, float64(i)/float64(points-1))
	}
	var err error
	if rates, rr.Curve, err = d.grid(ctx, process, rates, guess); err != nil {
		return rr, err
	}
	rr.skipped = (points - len(rates)) * d.replications(process)
	first, last := -1, -1
	for i, p := range rr.Curve {
		if d.consistent(p) {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		// The pool size grows with the rate; a narrow consistent range (a
		// step of periodic traffic) can fall between two grid points.
		// Bisect the bracket around the observation to find a point in it.
		target := float64(d.Obs.Total)
		for i := 1; i < len(rates) && first < 0; i++ {
			a, b := rates[i-1], rates[i]
			if !(rr.Curve[i-1].Mean < target && rr.Curve[i].Mean > target) {
				continue
			}
			for j := 0; j < 40; j++ {
				mid := math.Sqrt(a * b)
				p, err := d.point(ctx, process, mid)
				if err != nil {
					return rr, err
				}
				rr.Curve = append(rr.Curve, p)
				if d.consistent(p) {
					rates = append(rates[:i], append([]float64{mid}, rates[i:]...)...)
					curve := append([]CurvePoint(nil), rr.Curve[:i]...)
					curve = append(curve, p)
					rr.Curve = append(curve, rr.Curve[i:len(rr.Curve)-1]...)
					first, last = i, i
					break
				}
				if p.Mean < target {
					a = mid
				} else {
					b = mid
				}
			}
		}
	}
	if first < 0 {
		rr.Note = d.noMatch(rr.Curve)
		return rr, nil
	}
	rr.Found = true
	// The two edges are independent: they are bisected at the same time
	// (each keeps its own points, appended low then high as one after the
	// other would, so the curve and the answer do not depend on the order
	// the runs end in).
	var edges [2][]CurvePoint
	edge := func(k int, in, out float64) (float64, error) {
		for i := 0; i < 12; i++ {
			mid := math.Sqrt(in * out)
			p, err := d.point(ctx, process, mid)
			if err != nil {
				return 0, err
			}
			edges[k] = append(edges[k], p)
			if d.consistent(p) {
				in = mid
			} else {
				out = mid
			}
		}
		return in, nil
	}
	rr.Low, rr.High = rates[first], rates[last]
	if first == 0 {
		rr.Note = fmt.Sprintf("any rate below %.3g/s also fits: the pool cannot shrink below core (%d)", rates[0], d.Pool.Core)
		rr.Low = 0
	}
	err = inParallel(2, func(k int) (err error) {
		switch {
		case k == 0 && first > 0:
			rr.Low, err = edge(0, rates[first], rates[first-1])
		case k == 1 && last < len(rates)-1:
			rr.High, err = edge(1, rates[last], rates[last+1])
		}
		return err
	})
	if err != nil {
		return rr, err
	}
	rr.Curve = append(append(rr.Curve, edges[0]...), edges[1]...)
	sort.Slice(rr.Curve, func(i, j int) bool { return rr.Curve[i].Rate < rr.Curve[j].Rate })
	if process == "constant" && rr.Low > 0 {
		rr.Best = math.Sqrt(rr.Low * rr.High) // a step: every rate inside fits equally
	} else {
		rr.Best = d.crossing(rr.Curve, rr.Low, rr.High)
	}
	return rr, nil
}

// replications is how many seeds one candidate rate of process runs.
func (d *Diagnosis) replications(process string) int {
	if process == "constant" {
		return 1
	}
	return d.Opt.Replications
}

// grid simulates the rates of the search grid (ascending) and returns those
// it simulated, with their points, in grid order: every rate with FullGrid,
// else a contiguous run of them. The scan starts at the rate nearest the
// guess and walks outward, one rate up and one down at a time (both
// simulated at once), and stops walking in a direction when stopsAt says
// the rates beyond cannot fit. Which rates run depends only on the
// results, never on the number of processors. If no rate fits, the rest of
// the grid is simulated too, so that the search for a narrow step and the
// note about the simulated range see what the full grid gives.
func (d *Diagnosis) grid(ctx context.Context, process string, rates []float64, guess float64) ([]float64, []CurvePoint, error) {
	if d.Opt.FullGrid {
		curve, err := d.points(ctx, process, rates)
		return rates, curve, err
	}
	curve := make([]*CurvePoint, len(rates))
	start := 0
	for i, r := range rates {
		if math.Abs(math.Log(r/guess)) < math.Abs(math.Log(rates[start]/guess)) {
			start = i
		}
	}
	first, err := d.points(ctx, process, rates[start:start+1])
	if err != nil {
		return nil, nil, err
	}
	curve[start] = &first[0]
	lo, hi := start-1, start+1 // the next rates down and up
	down, up := lo >= 0, hi < len(rates)
	for up || down {
		var batch []int
		if up {
			batch = append(batch, hi)
		}
		if down {
			batch = append(batch, lo)
		}
		rs := make([]float64, len(batch))
		for j, i := range batch {
			rs[j] = rates[i]
		}
		ps, err := d.points(ctx, process, rs)
		if err != nil {
			return nil, nil, err
		}
		for j, i := range batch {
			curve[i] = &ps[j]
		}
		if up {
			hi++
			up = hi < len(rates) && !d.stopsAt(curve[hi-1], curve[hi-2], +1)
		}
		if down {
			lo--
			down = lo >= 0 && !d.stopsAt(curve[lo+1], curve[lo+2], -1)
		}
	}
	found := false
	for _, p := range curve {
		found = found || (p != nil && d.consistent(*p))
	}
	if !found {
		var rest []float64
		var at []int
		for i, p := range curve {
			if p == nil {
				rest, at = append(rest, rates[i]), append(at, i)
			}
		}
		ps, err := d.points(ctx, process, rest)
		if err != nil {
			return nil, nil, err
		}
		for j, i := range at {
			curve[i] = &ps[j]
		}
	}
	var rs []float64
	var out []CurvePoint
	for i, p := range curve {
		if p != nil {
			rs, out = append(rs, rates[i]), append(out, *p)
		}
	}
	return rs, out, nil
}

// stopsAt: the scan walking in direction dir (+1 up, −1 down) may stop
// after p, whose neighbour towards the start is q: both are decisively
// inconsistent on the side the walk moves away to — the mean beyond the
// observation by twice the consistency margin (2 SD + ½ worker, see
// consistent) — and p is no closer to the observation than q. The final
// pool size grows with the rate (a worker survives its turn iff N/λ − S <
// K, R78), so the rates further out leave the pool further still from the
// observation and cannot fit.
func (d *Diagnosis) stopsAt(p, q *CurvePoint, dir int) bool {
	target := float64(d.Obs.Total)
	away := func(c *CurvePoint) float64 { return float64(dir) * (c.Mean - target) }
	decisive := func(c *CurvePoint) bool { return away(c) > 2*(2*c.SD+0.5) }
	return decisive(p) && decisive(q) && away(p) >= away(q)
}

// crossing interpolates (in log rate) where the mean curve reaches the
// observed count within [low, high].
func (d *Diagnosis) crossing(curve []CurvePoint, low, high float64) float64 {
	target := float64(d.Obs.Total)
	for i := 1; i < len(curve); i++ {
		a, b := curve[i-1], curve[i]
		if a.Mean <= target && target <= b.Mean && b.Mean > a.Mean {
			f := (target - a.Mean) / (b.Mean - a.Mean)
			r := math.Exp(math.Log(a.Rate) + f*(math.Log(b.Rate)-math.Log(a.Rate)))
			if r >= low && r <= high {
				return r
			}
		}
	}
	if low > 0 {
		return math.Sqrt(low * high)
	}
	return high / 2
}

func (d *Diagnosis) noMatch(curve []CurvePoint) string {
	minM, maxM := math.Inf(1), math.Inf(-1)
	for _, p := range curve {
		minM, maxM = math.Min(minM, p.Mean), math.Max(maxM, p.Mean)
	}
	return fmt.Sprintf("no rate between %.3g/s and %.3g/s leaves %d workers (the simulated pool ranged %.0f–%.0f)",
		curve[0].Rate, curve[len(curve)-1].Rate, d.Obs.Total, minM, maxM)
}

// Text renders the diagnosis.
func (d *Diagnosis) Text() string {
	var b strings.Builder
	c, o := d.Pool.Config, d.Obs
	fmt.Fprintf(&b, "Observed (%s): %d workers — %d busy, %d idle TIMED_WAITING, %d idle WAITING", o.Source, o.Total, o.Busy, o.IdleTimed, o.IdleUntimed)
	if o.MaxNumber > 0 {
		fmt.Fprintf(&b, "; worker numbers up to %d", o.MaxNumber)
	}
	b.WriteString(".\n")
	fmt.Fprintf(&b, "Pool: %s, core %d, max %s, keepAlive %v, %v hand-off.\n", d.Pool.Preset, c.Core, model.SizeString(c.Max), c.KeepAlive, c.HandOff())
	timing := "a zero-latency hand-off (R47; --wakeup calibrated for a real machine's)"
	if w := d.wakeup(); w != nil {
		dist, _ := workloads.NewDistribution(w.Latency, workloads.NewStream(0, "text"))
		timing = fmt.Sprintf("the hand-off timing measured on a real machine (--wakeup: a wake-up latency of %v on average, p50 %v; R111–R124)",
			time.Duration(dist.Mean()*1e9).Round(time.Microsecond), median(w.Latency))
	}
	b.WriteString(wrap(fmt.Sprintf("Assumed: the pool peaked at %d workers (--peak), then saw steady traffic for %v (--since), tasks of about %v (--service), %s. Each candidate rate was simulated from that state; the observation fits a rate when it lies within two standard deviations (over %d seeds) of the simulated pool size, plus half a worker.",
		d.Opt.Peak, d.Opt.Since, d.Opt.Service, timing, d.Opt.Replications), 100, ""))
	b.WriteString(wrap(d.simulatedText(), 100, ""))
	b.WriteString("\nRequest rates consistent with the observation:\n")
	for _, rr := range []RateRange{d.Periodic, d.Poisson} {
		label := map[string]string{"constant": "periodic traffic (health checks, probes)", "poisson": "random (Poisson) traffic"}[rr.Process]
		if !rr.Found {
			b.WriteString(wrap(fmt.Sprintf("- %s: none; %s.", label, rr.Note), 100, "  "))
			continue
		}
		line := fmt.Sprintf("- %s: %s to %s requests/s, best fit %s/s", label, rateText(rr.Low), rateText(rr.High), rateText(rr.Best))
		if rr.Process == "constant" && c.KeepAlive > 0 && d.Opt.Service > 0 {
			n := o.Total
			k := (c.KeepAlive + d.Opt.Service).Seconds()
			line += fmt.Sprintf(" (the formula N = ⌈λ(K+S)⌉ − 1 gives %s–%s/s, R78)", rateText(float64(n)/k), rateText(float64(n+1)/k))
		}
		if rr.Note != "" {
			line += "; " + rr.Note
		}
		b.WriteString(wrap(line+".", 100, "  "))
	}
	if o.Busy > 0 && d.Periodic.Found {
		b.WriteString(wrap(fmt.Sprintf("With %d busy workers at that rate, the mean service time is about %v (busy/λ, from a single dump: rough).",
			o.Busy, time.Duration(float64(o.Busy)/d.Periodic.Best*1e9).Round(time.Millisecond)), 100, ""))
	}
	b.WriteString("\n")
	verdict, _ := d.verdict()
	if len(d.Issues) > 0 {
		b.WriteString("Verdict: " + verdict + ":\n")
		for _, is := range d.Issues {
			b.WriteString(wrap("- "+is+".", 100, "  "))
		}
	} else {
		b.WriteString(wrap("Verdict: "+verdict+".", 100, ""))
	}
	if d.Explanation != nil {
		fmt.Fprintf(&b, "\nExplanation at the best fit (%s):\n\n", d.Explanation.Scenario.Description)
		b.WriteString(d.Explanation.Text())
	}
	return b.String()
}

// simulatedText says how many simulations the diagnosis ran (its time goes
// to stderr: the text is the same for the same inputs).
func (d *Diagnosis) simulatedText() string {
	t := fmt.Sprintf("Simulated: %d runs", d.Simulations)
	if d.Skipped > 0 {
		t += fmt.Sprintf("; the scan of candidate rates stopped once the band was bracketed, skipping %d (--full-grid runs them)", d.Skipped)
	}
	return t + "."
}

// verdict is the diagnosis in one sentence, and whether the pool behaves
// as designed.
func (d *Diagnosis) verdict() (string, bool) {
	c, o := d.Pool.Config, d.Obs
	switch {
	case len(d.Issues) > 0:
		return "the observation does NOT fit this configuration", false
	case d.Periodic.Found || d.Poisson.Found:
		verdict := fmt.Sprintf("the pool is behaving as designed. %d idle workers are what a %v hand-off keeps alive under the rates above", o.IdleTimed+o.IdleUntimed, c.HandOff())
		if c.HandOff() == model.FIFO {
			verdict += fmt.Sprintf(": each idle worker gets a task about every N/λ, which stays under keepAlive (%v), so none times out (R54, R78). It is not a leak", c.KeepAlive)
		}
		return verdict, true
	}
	return "no steady rate reproduces the observation under these assumptions; try another --since or --peak, or check the configuration", false
}

// inParallel calls fn(0) … fn(n−1), as many at once as there are
// processors (independent runs: the only parallelism, STYLE.md), and
// returns the first error in index order.
func inParallel(n int, fn func(i int) error) error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			errs[i] = fn(i)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func trafficName(process string) string {
	if process == "constant" {
		return "periodic"
	}
	return "Poisson"
}

func rateText(r float64) string {
	switch {
	case r == 0:
		return "0"
	case r < 0.1:
		return fmt.Sprintf("%.3g", r)
	}
	return trim(fmt.Sprintf("%.3f", r))
}

// hostYAML is the host block of a diagnosis experiment: the calibrated
// hand-off timing, or nothing.
func hostYAML(w *scenarios.Wakeup) string {
	if w == nil {
		return ""
	}
	return "\nhost: {wakeup: calibrated}"
}

// median is the 0.5 point of a quantiles law (0 if it has none).
func median(s workloads.ServiceSpec) time.Duration {
	for _, p := range s.Points {
		if p.Q == 0.5 {
			return p.Value
		}
	}
	return 0
}
