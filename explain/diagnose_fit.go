package explain

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/poolsim/poolsim/internal/lazyre"
	scraped "github.com/poolsim/poolsim/metrics"
	"github.com/poolsim/poolsim/model"
	"github.com/poolsim/poolsim/scenarios"
)

// poolYAML is a scenario's pool block, in flow style, for a configuration
// built in code (diagnose's experiments, a fitted scenario).
func poolYAML(p scenarios.Pool) string {
	c := p.Config
	preset := p.Preset
	if preset == "" {
		preset = "jdk"
		if c.Flavor == model.Tomcat {
			preset = "tomcat"
		}
	}
	queue := fmt.Sprintf("{type: %s, capacity: %s", c.Queue, model.SizeString(c.QueueCapacity))
	switch c.Queue {
	case model.Synchronous:
		queue = fmt.Sprintf("{type: synchronous, fair: %v", c.Fair)
	case model.Array:
		queue += fmt.Sprintf(", fair: %v", c.Fair)
	}
	switch c.HandOffOverride {
	case model.ForceFIFO:
		queue += ", handOff: fifo"
	case model.ForceLIFO:
		queue += ", handOff: lifo"
	}
	queue += "}"
	prestart := ""
	if c.Flavor != model.Tomcat {
		prestart = fmt.Sprintf(", prestart: %v", c.Prestart)
	}
	return fmt.Sprintf("{preset: %s, core: %d, max: %s, keepAlive: %v, allowCoreThreadTimeOut: %v%s, queue: %s, rejection: %s}",
		preset, c.Core, model.SizeString(c.Max), c.KeepAlive, c.CoreTimeOut, prestart, queue, c.Rejection)
}

// growBurst is how many tasks, released at once, grow a pool configured as
// c to n workers: n, plus a bounded JDK queue's capacity, which must fill
// before the JDK pool grows past core (R6).
func growBurst(c model.Config, n int) int {
	if c.Flavor == model.JDK && c.Queue != model.Synchronous && c.QueueCapacity != model.Unbounded {
		return n + c.QueueCapacity
	}
	return n
}

// growPhase is the head of a fitted or diagnostic workload: a burst that
// grows the pool to n workers in its first 10 ms (tasks of 5 ms).
const growPhase = 10 * time.Millisecond

// fitTraffic is one realisation of the fitted traffic: a rate and a mean
// service time per segment.
type fitTraffic struct {
	rates   []float64
	service []time.Duration
}

// bestTraffic is the segments' best estimates (periodic or Poisson).
func (md *MetricsDiagnosis) bestTraffic() fitTraffic {
	var f fitTraffic
	for _, s := range md.Traffic.Segments {
		r := s.Poisson.Best
		if md.Opt.Arrivals == "constant" {
			r = s.Periodic.Best
		}
		f.rates = append(f.rates, r)
		f.service = append(f.service, s.Service)
	}
	return f
}

// drawTraffic draws each segment's rate from its posterior (Poisson counts,
// Jeffreys prior: Gamma(count + ½, exposure)) and its estimated service
// time from its standard error (log-normal), so that the replications'
// spread holds the uncertainty of both as well as the traffic's
// randomness. Periodic traffic is counted exactly (±2): its best rates are
// used.
func (md *MetricsDiagnosis) drawTraffic(seed uint64) fitTraffic {
	f := md.bestTraffic()
	src := rand.NewPCG(seed, 0x6d657472696373) // "metrics"
	for i, s := range md.Traffic.Segments {
		if s.ServiceRelSE > 0 {
			f.service[i] = time.Duration(float64(s.Service) * math.Exp(distuv.Normal{Mu: 0, Sigma: s.ServiceRelSE, Src: src}.Rand()))
		}
		if md.Opt.Arrivals == "constant" || s.Poisson.Best <= 0 {
			continue
		}
		count := s.Arrivals
		if math.IsNaN(count) {
			count = s.Count
		}
		exposure := count / s.Poisson.Best
		f.rates[i] = distuv.Gamma{Alpha: count + 0.5, Beta: exposure, Src: src}.Rand()
	}
	return f
}

var unsafeName = lazyre.New(`[^A-Za-z0-9._-]+`)

// ScenarioYAML is a scenario reproducing the observed traffic at rates:
// the pool as configured, a burst growing it to the first observed size,
// then one phase per segment of steady traffic. Every other command (run,
// sweep, report, explain) can run it.
func (md *MetricsDiagnosis) ScenarioYAML() []byte {
	return md.scenarioText(md.bestTraffic(), md.Opt.Seed)
}

func (md *MetricsDiagnosis) scenarioText(f fitTraffic, seed uint64) []byte {
	o, tr := md.Obs, md.Traffic
	var b strings.Builder
	window := md.window()
	fmt.Fprintf(&b, "# Fitted by poolsim diagnose --metrics from %s, pool %s:\n", md.Metrics.File, md.Metrics.ID())
	fmt.Fprintf(&b, "# the arrival rate from %s in %d segments of steady traffic\n", tr.From, len(tr.Segments))
	fmt.Fprintf(&b, "# (%s arrivals), the service time from busy time / completions (R180), and a burst\n", trafficName(md.Opt.Arrivals))
	fmt.Fprintf(&b, "# at t=0 that grows the pool to its first observed size (%d).\n", md.firstSize())
	fmt.Fprintf(&b, "name: fit-%s\n", strings.Trim(unsafeName.ReplaceAllString(md.Metrics.Name(), "-"), "-"))
	fmt.Fprintf(&b, "description: traffic fitted to %s from %s\n", md.Metrics.ID(), o.Start.UTC().Format(time.RFC3339))
	fmt.Fprintf(&b, "seed: %d\nduration: %v\nsample: %v\n", seed, window, md.sampleInterval())
	fmt.Fprintf(&b, "pool: %s\n", poolYAML(md.Pool))
	b.WriteString("workload:\n  phases:\n")
	fmt.Fprintf(&b, "    - {duration: %v, arrivals: {process: burst, count: %d}, service: {dist: constant, value: 5ms}}\n",
		growPhase, growBurst(md.Pool.Config, md.firstSize()))
	at := growPhase
	for i, s := range tr.Segments {
		end := s.To
		if i == len(tr.Segments)-1 {
			end = window
		}
		d := end - at
		if d <= 0 {
			continue
		}
		arr := fmt.Sprintf("{process: %s, rate: %s}", md.Opt.Arrivals, fmtRate(f.rates[i]))
		if f.rates[i] <= 0 {
			arr = "{process: burst, count: 0}"
		}
		svc := fmt.Sprintf("{dist: %s, mean: %v}", md.Opt.ServiceDist, max(f.service[i].Round(time.Microsecond), time.Microsecond))
		if md.Opt.ServiceDist == "constant" {
			svc = fmt.Sprintf("{dist: constant, value: %v}", max(f.service[i].Round(time.Microsecond), time.Microsecond))
		}
		fmt.Fprintf(&b, "    - {duration: %v, arrivals: %s, service: %s}   # %s–%s: %s/s (%s–%s)\n",
			d.Round(time.Millisecond), arr, svc, secs(s.From), secs(s.To), rateText(s.Poisson.Best), rateText(s.Poisson.Low), rateText(s.Poisson.High))
		at = end
	}
	return []byte(b.String())
}

// window is the simulated stretch: from the first sample to the last.
func (md *MetricsDiagnosis) window() time.Duration {
	return md.Obs.T[len(md.Obs.T)-1].Round(time.Millisecond)
}

// sampleInterval is the re-simulation's timeline resolution: a tenth of the
// scrape interval, at most 20 000 samples, at least 1 ms.
func (md *MetricsDiagnosis) sampleInterval() time.Duration {
	s := md.Obs.Interval / 10
	s = max(s, md.window()/20000, time.Millisecond)
	return s.Round(time.Millisecond)
}

func (md *MetricsDiagnosis) firstSize() int {
	for _, v := range md.Obs.Size {
		if !math.IsNaN(v) {
			return int(v)
		}
	}
	return 0
}

func fmtRate(r float64) string { return trim(fmt.Sprintf("%.6g", r)) }

func secs(d time.Duration) string { return trim(fmt.Sprintf("%.1f", d.Seconds())) + "s" }

// checkConfig notes where the metrics contradict the configuration: a pool
// above the configured max, an exported max or core that differs from it.
func (md *MetricsDiagnosis) checkConfig() {
	c, o := md.Pool.Config, md.Obs
	if m := maxOf(o.Size); m > float64(c.Max) {
		md.Issues = append(md.Issues, fmt.Sprintf("the pool reached %g workers, above the configured max (%s): the JVM does not run this configuration (R10)", m, model.SizeString(c.Max)))
	}
	if s := md.Metrics.Series[scraped.Max]; s != nil {
		if v := s.Points[len(s.Points)-1].V; v > 0 && v != float64(c.Max) && !(c.Max == model.Unbounded && v >= math.MaxInt32) {
			md.Issues = append(md.Issues, fmt.Sprintf("%s reports max %g, the configuration says %s", s.ID(), v, model.SizeString(c.Max)))
		}
	}
	if s := md.Metrics.Series[scraped.Core]; s != nil {
		if v := s.Points[len(s.Points)-1].V; v >= 0 && v != float64(c.Core) {
			md.Issues = append(md.Issues, fmt.Sprintf("%s reports core %g, the configuration says %d", s.ID(), v, c.Core))
		}
	}
}

func maxOf(xs []float64) float64 {
	m := math.Inf(-1)
	for _, x := range xs {
		if !math.IsNaN(x) {
			m = math.Max(m, x)
		}
	}
	return m
}
