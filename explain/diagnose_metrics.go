package explain

import (
	"context"
	"fmt"
	"math"
	"sort"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/poolsim/poolsim/internal/inputerr"
	scraped "github.com/poolsim/poolsim/metrics"
	"github.com/poolsim/poolsim/scenarios"
	"github.com/poolsim/poolsim/sim"
)

// MetricsOptions are the assumptions of DiagnoseMetrics.
type MetricsOptions struct {
	// Service is the mean service time; 0 = busy / rate (R180).
	Service time.Duration
	// ServiceDist is the service law of the re-simulation: exponential
	// (default) or constant. The busy count of many servers hardly depends
	// on it (M/G/∞ insensitivity); queues above max do.
	ServiceDist string
	// Arrivals is the arrival process of the re-simulation: poisson
	// (default) or constant (periodic).
	Arrivals string
	// Replications of the re-simulation (default 8), each with its own
	// seed and its rates and service times drawn from their uncertainty.
	Replications int
	Seed         uint64
}

// RunSpread is a statistic over the replications.
type RunSpread struct {
	Mean float64 `json:"mean"`
	SD   float64 `json:"sd"`
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
}

func spreadOf(xs []float64) RunSpread {
	var ok []float64
	for _, x := range xs {
		if !math.IsNaN(x) {
			ok = append(ok, x)
		}
	}
	if len(ok) == 0 {
		return RunSpread{math.NaN(), math.NaN(), math.NaN(), math.NaN()}
	}
	s := RunSpread{Min: ok[0], Max: ok[0]}
	s.Mean, s.SD = stat.MeanStdDev(ok, nil)
	if len(ok) == 1 {
		s.SD = 0
	}
	for _, x := range ok {
		s.Min, s.Max = math.Min(s.Min, x), math.Max(s.Max, x)
	}
	return s
}

// Within reports whether x is a plausible draw: within two standard
// deviations of the mean, plus half a unit for counts.
func (s RunSpread) Within(x float64) bool { return math.Abs(x-s.Mean) <= 2*s.SD+0.5 }

// ScrapeCompare is one scrape: what was observed and what the replications
// show at the same instant (R178: sampled, never averaged).
type ScrapeCompare struct {
	T                             time.Duration
	Size, Busy, Queue             float64 // observed; NaN when not exported
	SimSize, SimBusy, SimQueue    RunSpread
	PeakSize, PeakBusy, PeakQueue RunSpread // the simulated maxima until the next scrape
}

// Hidden is what the gauges cannot show (R179), from the re-simulation.
type Hidden struct {
	Rejected                   RunSpread
	WaitP50, WaitP99, WaitMax  RunSpread // seconds, over the whole window
	PeakSize, PeakBusy         RunSpread // the true maxima
	PeakQueue                  RunSpread
	ScrapedSize, ScrapedBusy   RunSpread // the maxima the scrapes show
	ScrapedQueue               RunSpread
	Bursts                     RunSpread // scrape intervals in which the pool or queue rose above both ends and fell back
	LongestBurst               RunSpread // seconds above the highest scraped busy count, the longest episode
	TimedWaitingUpperBound     float64
	TimedWaitingUpperBoundFrom string
}

// Artefact is what scrapes every Every would have shown of the
// re-simulation, against the truth.
type Artefact struct {
	Every                          time.Duration
	SeenSize, SeenBusy, SeenQueue  float64 // the highest value scrapes show (mean over replications)
	TrueSize, TrueBusy, TrueQueue  float64 // the true maxima (mean over replications)
	MissedSize, MissedBusy, Missed bool
}

// MetricsDiagnosis is diagnose --metrics: the traffic inferred from a pool's
// exported series, re-simulated on the configured pool and compared scrape
// by scrape.
type MetricsDiagnosis struct {
	Pool     scenarios.Pool
	Metrics  *scraped.Pool
	Obs      *scraped.Observed
	Traffic  *scraped.Traffic
	Opt      MetricsOptions
	Gaps     []scraped.Gap
	Problems []scraped.Problem
	Notes    []string
	Issues   []string // where the metrics contradict the configuration
	Compare  []ScrapeCompare
	// Agree counts the scrapes whose observed pool size is a plausible
	// draw of the re-simulation (RunSpread.Within).
	Agree, Compared int
	// End is the simulated pool size over the last scrapes (the plateau),
	// EndObserved the observed one.
	End         RunSpread
	EndObserved float64
	EndScrapes  int
	Hidden      Hidden
	Artefacts   []Artefact
	Verdict     string
	AsDesigned  bool
	// Simulations is how many simulations the diagnosis ran (one per
	// replication), Wall how long DiagnoseMetrics took.
	Simulations int
	Wall        time.Duration
}

// DiagnoseMetrics infers the traffic from a pool's series (FitMetrics),
// re-simulates the observed window on the configured pool, and compares
// them.
func DiagnoseMetrics(ctx context.Context, pool scenarios.Pool, set *scraped.Set, mp *scraped.Pool, opt MetricsOptions) (*MetricsDiagnosis, error) {
	start := time.Now()
	md, err := FitMetrics(pool, set, mp, opt)
	if err != nil {
		return nil, err
	}
	runs, err := md.replicate(ctx)
	if err != nil {
		return nil, err
	}
	md.Simulations, md.Wall = len(runs), time.Since(start)
	md.compare(runs)
	md.hidden(runs)
	md.artefacts(runs)
	md.verdict()
	return md, nil
}

// FitMetrics infers the traffic from a pool's series, without simulating:
// enough for ScenarioYAML.
func FitMetrics(pool scenarios.Pool, set *scraped.Set, mp *scraped.Pool, opt MetricsOptions) (*MetricsDiagnosis, error) {
	if err := pool.Config.Validate(); err != nil {
		return nil, err
	}
	opt = opt.withDefaults()
	md := &MetricsDiagnosis{Pool: pool, Metrics: mp, Opt: opt, Obs: mp.Timeline()}
	md.Notes = append(md.Notes, set.Notes...)
	md.Gaps = scraped.Gaps(mp.Series[scraped.Size])
	md.Problems = scraped.Implausible(mp)
	if md.Obs.Interval <= 0 || md.window() <= 0 {
		return nil, inputerr.New(mp.File, 0, 0, mp.Series[scraped.Size].ID(), "fewer than two samples in time", "several scrapes over the time to diagnose")
	}
	var err error
	if md.Traffic, err = scraped.Infer(mp, md.Obs, scraped.TrafficOptions{Service: opt.Service}); err != nil {
		return nil, err
	}
	md.Notes = append(md.Notes, md.Traffic.Notes...)
	md.checkConfig()
	return md, nil
}

func (o MetricsOptions) withDefaults() MetricsOptions {
	if o.ServiceDist == "" {
		o.ServiceDist = "exponential"
	}
	if o.Arrivals == "" {
		o.Arrivals = "poisson"
	}
	if o.Replications <= 0 {
		o.Replications = 8
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	return o
}

// simRun is one replication's fine timeline and summary.
type simRun struct {
	t                 []time.Duration
	size, busy, queue []int
	summary           sim.Summary
}

// replicate runs the fitted scenario Replications times, in parallel, each
// with its own seed and rates drawn from their uncertainty.
func (md *MetricsDiagnosis) replicate(ctx context.Context) ([]*simRun, error) {
	runs := make([]*simRun, md.Opt.Replications)
	err := inParallel(len(runs), func(i int) (err error) {
		seed := md.Opt.Seed + uint64(i)
		runs[i], err = md.simulate(ctx, md.scenarioText(md.drawTraffic(seed), seed), nil)
		return err
	})
	return runs, err
}

func (md *MetricsDiagnosis) simulate(ctx context.Context, text []byte, sets []string) (*simRun, error) {
	sc, err := scenarios.Parse(text, "fitted scenario", sets)
	if err != nil {
		return nil, fmt.Errorf("explain: diagnose: the fitted scenario does not load: %w", err)
	}
	r := &simRun{}
	res, err := runSim(ctx, sc, sim.Options{OnSample: func(s sim.Sample) {
		r.t = append(r.t, s.T)
		r.size = append(r.size, s.PoolSize)
		r.busy = append(r.busy, s.Busy)
		r.queue = append(r.queue, s.Queue)
	}})
	if err != nil {
		return nil, err
	}
	r.summary = res.Summary
	return r, nil
}

// at is the index of the last sample at or before t.
func (r *simRun) at(t time.Duration) int {
	i := sort.Search(len(r.t), func(i int) bool { return r.t[i] > t })
	return max(i-1, 0)
}

// peak is the maximum of xs over the samples after t0 up to t1.
func (r *simRun) peak(xs []int, t0, t1 time.Duration) float64 {
	m := math.Inf(-1)
	for i := r.at(t0); i < len(r.t) && r.t[i] <= t1; i++ {
		m = math.Max(m, float64(xs[i]))
	}
	return m
}

// compare samples every replication at the observed scrape times.
func (md *MetricsDiagnosis) compare(runs []*simRun) {
	o := md.Obs
	for k, t := range o.T {
		next := md.window()
		if k+1 < len(o.T) {
			next = o.T[k+1]
		}
		c := ScrapeCompare{T: t, Size: o.Size[k], Busy: o.Busy[k], Queue: o.Queue[k]}
		var size, busy, queue, ps, pb, pq []float64
		for _, r := range runs {
			// At t=0 the burst that grows the pool is still running: compare
			// at the first sample after it.
			i := r.at(max(t, growPhase, md.sampleInterval()))
			size = append(size, float64(r.size[i]))
			busy = append(busy, float64(r.busy[i]))
			queue = append(queue, float64(r.queue[i]))
			ps = append(ps, r.peak(r.size, t, next))
			pb = append(pb, r.peak(r.busy, t, next))
			pq = append(pq, r.peak(r.queue, t, next))
		}
		c.SimSize, c.SimBusy, c.SimQueue = spreadOf(size), spreadOf(busy), spreadOf(queue)
		c.PeakSize, c.PeakBusy, c.PeakQueue = spreadOf(ps), spreadOf(pb), spreadOf(pq)
		if !math.IsNaN(c.Size) {
			md.Compared++
			if c.SimSize.Within(c.Size) {
				md.Agree++
			}
		}
		md.Compare = append(md.Compare, c)
	}
	// The end: the last scrapes of the last segment, at most 5.
	last := md.Traffic.Last()
	var ends, obs []float64
	for k := len(md.Compare) - 1; k >= 0 && len(obs) < 5; k-- {
		c := md.Compare[k]
		if c.T < last.From {
			break
		}
		if math.IsNaN(c.Size) {
			continue
		}
		obs = append(obs, c.Size)
		for _, r := range runs {
			ends = append(ends, float64(r.size[r.at(c.T)]))
		}
	}
	if len(obs) == 0 {
		c := md.Compare[len(md.Compare)-1]
		obs, ends = []float64{c.Size}, []float64{c.SimSize.Mean}
	}
	md.End, md.EndObserved, md.EndScrapes = spreadOf(ends), stat.Mean(obs, nil), len(obs)
}
