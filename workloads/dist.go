package workloads

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	"gonum.org/v1/gonum/stat/distuv"
)

// ServiceSpec describes a service-time distribution. Times are durations;
// dimensionless shape parameters are floats. Which fields apply depends on
// Dist (see DistNames and the README).
type ServiceSpec struct {
	Dist  string        // constant | exponential | uniform | lognormal | gamma | pareto | weibull | empirical | quantiles
	Mean  time.Duration // constant (its value), exponential, lognormal, gamma, pareto, weibull
	CV    float64       // lognormal, gamma, weibull: coefficient of variation (stddev / mean)
	Min   time.Duration // uniform
	Max   time.Duration // uniform
	Alpha float64       // pareto tail index (> 1 for a finite mean)
	// Samples are the empirical distribution's values in seconds, already
	// read from their CSV column by the scenario loader.
	Samples []float64
	// Points are a quantiles law's points (quantile, value), from 0 to 1.
	Points []QuantilePoint
}

// DistNames lists the service distributions by scenario name.
func DistNames() []string {
	return []string{"constant", "exponential", "uniform", "lognormal", "gamma", "pareto", "weibull", "empirical", "quantiles"}
}

// Distribution draws service times.
type Distribution interface {
	// Sample draws one service time (never negative).
	Sample() time.Duration
	// Mean and Variance are the exact moments in seconds and seconds²
	// (+Inf when infinite), used by closed-form checks and explanations.
	Mean() float64
	Variance() float64
	// String describes the distribution and its parameters.
	String() string
}

// A Quantiler is a law with an inverse distribution function: Quantile(u)
// is the value below which a share u in [0, 1) of its draws fall. Drawing
// Quantile(u) of a uniform u is drawing the law; two laws drawn at the same
// u are coupled, the larger draw of one going with the larger of the other
// (the host's wake-up latency and its race window, host.wakeup.race). Every
// law NewDistribution builds is one.
type Quantiler interface {
	Quantile(u float64) time.Duration
}

// ParamError is a distribution parameter that has no distribution.
type ParamError struct {
	Field, Msg, Allowed string
}

func (e *ParamError) Error() string {
	return fmt.Sprintf("workloads: %s: %s (%s)", e.Field, e.Msg, e.Allowed)
}

// NewDistribution builds spec's distribution drawing from src.
func NewDistribution(spec ServiceSpec, src rand.Source) (Distribution, error) {
	mean := spec.Mean.Seconds()
	needMean := func() error {
		if spec.Mean <= 0 {
			return &ParamError{"mean", fmt.Sprintf("must be > 0, got %v", spec.Mean), "a positive duration such as 50ms"}
		}
		return nil
	}
	needCV := func() error {
		if !(spec.CV > 0) || math.IsInf(spec.CV, 0) {
			return &ParamError{"cv", fmt.Sprintf("must be > 0, got %v", spec.CV), "cv = stddev/mean > 0; use exponential for cv 1 or constant for cv 0"}
		}
		return nil
	}
	switch spec.Dist {
	case "constant":
		if spec.Mean < 0 {
			return nil, &ParamError{"mean", fmt.Sprintf("must be >= 0, got %v", spec.Mean), "a duration"}
		}
		return constantDist{spec.Mean}, nil
	case "exponential":
		if err := needMean(); err != nil {
			return nil, err
		}
		d := &expDist{name: fmt.Sprintf("exponential(mean=%v)", spec.Mean), rng: rand.New(src), rate: 1 / mean, mean: mean}
		d.pcg, _ = src.(*rand.PCG)
		return d, nil
	case "uniform":
		if spec.Min < 0 || spec.Max < spec.Min {
			return nil, &ParamError{"max", fmt.Sprintf("need 0 <= min <= max, got min %v max %v", spec.Min, spec.Max), "0 <= min <= max"}
		}
		lo, hi := spec.Min.Seconds(), spec.Max.Seconds()
		if lo == hi {
			return constantDist{spec.Min}, nil
		}
		return &rander{name: fmt.Sprintf("uniform(min=%v, max=%v)", spec.Min, spec.Max), r: distuv.Uniform{Min: lo, Max: hi, Src: src},
			mean: (lo + hi) / 2, variance: (hi - lo) * (hi - lo) / 12}, nil
	case "lognormal":
		if err := needMean(); err != nil {
			return nil, err
		}
		if err := needCV(); err != nil {
			return nil, err
		}
		s2 := math.Log1p(spec.CV * spec.CV)
		ln := distuv.LogNormal{Mu: math.Log(mean) - s2/2, Sigma: math.Sqrt(s2), Src: src}
		r := &rander{name: fmt.Sprintf("lognormal(mean=%v, cv=%g)", spec.Mean, spec.CV),
			r: ln, mean: mean, variance: (spec.CV * mean) * (spec.CV * mean)}
		if pcg, ok := src.(*rand.PCG); ok {
			r.logNormal = &logNormal{pcg, ln.Mu, ln.Sigma}
		}
		return r, nil
	case "gamma":
		if err := needMean(); err != nil {
			return nil, err
		}
		if err := needCV(); err != nil {
			return nil, err
		}
		k := 1 / (spec.CV * spec.CV)
		return &rander{name: fmt.Sprintf("gamma(mean=%v, cv=%g)", spec.Mean, spec.CV),
			r:    distuv.Gamma{Alpha: k, Beta: k / mean, Src: src},
			mean: mean, variance: (spec.CV * mean) * (spec.CV * mean)}, nil
	case "pareto":
		if err := needMean(); err != nil {
			return nil, err
		}
		if !(spec.Alpha > 1) || math.IsInf(spec.Alpha, 0) {
			return nil, &ParamError{"alpha", fmt.Sprintf("must be > 1 for a finite mean, got %v", spec.Alpha), "alpha > 1; alpha > 2 for a finite variance"}
		}
		xm := mean * (spec.Alpha - 1) / spec.Alpha
		v := math.Inf(1)
		if spec.Alpha > 2 {
			v = xm * xm * spec.Alpha / ((spec.Alpha - 1) * (spec.Alpha - 1) * (spec.Alpha - 2))
		}
		return &rander{name: fmt.Sprintf("pareto(mean=%v, alpha=%g)", spec.Mean, spec.Alpha),
			r: distuv.Pareto{Xm: xm, Alpha: spec.Alpha, Src: src}, mean: mean, variance: v}, nil
	case "weibull":
		if err := needMean(); err != nil {
			return nil, err
		}
		if err := needCV(); err != nil {
			return nil, err
		}
		k, err := weibullShape(spec.CV)
		if err != nil {
			return nil, err
		}
		g1, _ := math.Lgamma(1 + 1/k)
		lambda := mean / math.Exp(g1)
		return &rander{name: fmt.Sprintf("weibull(mean=%v, cv=%g)", spec.Mean, spec.CV),
			r:    distuv.Weibull{K: k, Lambda: lambda, Src: src},
			mean: mean, variance: (spec.CV * mean) * (spec.CV * mean)}, nil
	case "empirical":
		if len(spec.Samples) == 0 {
			return nil, &ParamError{"file", "no samples", "a CSV column of service times in seconds"}
		}
		return newEmpirical(spec.Samples, src)
	case "quantiles":
		return newQuantiles(spec.Points, src)
	}
	return nil, &ParamError{"dist", fmt.Sprintf("unknown distribution %q", spec.Dist), "one of " + strings.Join(DistNames(), ", ")}
}

// weibullShape finds the shape k whose coefficient of variation is cv, by
// bisection on cv(k) = sqrt(Γ(1+2/k)/Γ(1+1/k)² − 1), which decreases in k.
func weibullShape(cv float64) (float64, error) {
	cvOf := func(k float64) float64 {
		a, _ := math.Lgamma(1 + 2/k)
		b, _ := math.Lgamma(1 + 1/k)
		return math.Sqrt(math.Exp(a-2*b) - 1)
	}
	lo, hi := 0.05, 500.0
	if cv > cvOf(lo) || cv < cvOf(hi) {
		return 0, &ParamError{"cv", fmt.Sprintf("%g is outside what a Weibull law reaches here", cv), fmt.Sprintf("%.3g < cv < %.3g", cvOf(hi), cvOf(lo))}
	}
	for i := 0; i < 200; i++ {
		mid := (lo + hi) / 2
		if cvOf(mid) > cv {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2, nil
}

// MaxSeconds is the longest time a workload holds: 100 years. Drawn times
// are clamped to it; read ones (traces, samples) beyond it are errors.
const MaxSeconds = 100 * 365 * 24 * 3600

// seconds converts a drawn value to a duration, rounding to the nanosecond
// and clamping to [0, 100 years] so a heavy tail cannot overflow the clock.
func seconds(x float64) time.Duration {
	switch {
	case !(x > 0):
		return 0
	case x > MaxSeconds:
		return MaxSeconds * time.Second
	}
	return roundNanos(x * 1e9)
}

// roundNanos is time.Duration(math.Round(y)) for 0 ≤ y < 2^63 (seconds'
// range: y ≤ MaxSeconds·1e9 ≈ 3.2e18), in a handful of instructions and
// without a branch on the fraction: it is as random as the draws, and a
// branch on it is mispredicted half the time. It is exact, not an
// approximation:
//   - n = int64(y) truncates y toward zero, and y < 2^63 fits;
//   - float64(n) is exact: trunc(y) needs no more significant bits than y;
//   - f = y − float64(n) is exact: for y < 1, n = 0 and f = y; for y ≥ 1,
//     y/2 ≤ n ≤ y, and Sterbenz's lemma makes the difference exact;
//   - so f is y's fraction, in [0, 1), and math.Round (half away from
//     zero, y ≥ 0) is n+1 exactly when f ≥ 0.5, else n.
//
// The compiler turns the condition into a SETcc, not a jump.
// TestRoundNanosIsMathRound checks the edges and millions of random values.
func roundNanos(y float64) time.Duration {
	n := int64(y)
	if y-float64(n) >= 0.5 {
		n++
	}
	return time.Duration(n)
}

type constantDist struct{ d time.Duration }

func (c constantDist) Sample() time.Duration          { return c.d }
func (c constantDist) Mean() float64                  { return c.d.Seconds() }
func (c constantDist) Variance() float64              { return 0 }
func (c constantDist) String() string                 { return fmt.Sprintf("constant(%v)", c.d) }
func (c constantDist) Quantile(float64) time.Duration { return c.d }

// expDist is the exponential law, drawn as gonum's distuv.Exponential
// draws it — ExpFloat64 of the stream over the rate — without going through
// two interfaces per draw: the same values, on every task's path.
type expDist struct {
	name       string
	rng        *rand.Rand
	pcg        *rand.PCG // rng's source when it is a stream (NewStream): drawn directly
	rate, mean float64
}

func (e *expDist) Sample() time.Duration {
	if e.pcg != nil {
		return seconds(expFloat64(e.pcg) / e.rate)
	}
	return seconds(e.rng.ExpFloat64() / e.rate)
}
func (e *expDist) Quantile(u float64) time.Duration { return seconds(-math.Log1p(-u) / e.rate) }
func (e *expDist) Mean() float64                    { return e.mean }
func (e *expDist) Variance() float64                { return e.mean * e.mean }
func (e *expDist) String() string                   { return e.name }

// rander adapts a gonum distribution.
type rander struct {
	name           string
	r              distuv.Rander
	mean, variance float64
	// logNormal, when set, is r drawn without gonum's interfaces: a
	// lognormal law on a stream (NewStream).
	logNormal *logNormal
}

// logNormal is a distuv.LogNormal with a PCG stream for its source.
type logNormal struct {
	pcg       *rand.PCG
	mu, sigma float64
}

// sample is distuv.LogNormal.Rand — exp(N(0,1)·σ + μ) — with the normal
// drawn from the same stream by the same ziggurat.
func (l *logNormal) sample() time.Duration {
	return seconds(math.Exp(normFloat64(l.pcg)*l.sigma + l.mu))
}

func (r *rander) Sample() time.Duration {
	if l := r.logNormal; l != nil {
		return l.sample()
	}
	return seconds(r.r.Rand())
}

// Quantile is the gonum law's own quantile function (every law rander
// wraps has one).
func (r *rander) Quantile(u float64) time.Duration {
	return seconds(r.r.(interface{ Quantile(float64) float64 }).Quantile(u))
}
func (r *rander) Mean() float64     { return r.mean }
func (r *rander) Variance() float64 { return r.variance }
func (r *rander) String() string    { return r.name }

// empirical draws uniformly from recorded samples (a bootstrap of the
// recorded service times).
type empirical struct {
	samples        []time.Duration
	rng            *rand.Rand
	mean, variance float64
	n              int
	median         time.Duration
	sorted         []time.Duration
}

func newEmpirical(xs []float64, src rand.Source) (*empirical, error) {
	e := &empirical{rng: rand.New(src), n: len(xs)}
	var sum, sum2 float64
	for i, x := range xs {
		if !(x >= 0) || math.IsInf(x, 0) {
			return nil, &ParamError{"samples", fmt.Sprintf("sample %d is %v", i+1, x), "finite service times >= 0 in seconds"}
		}
		e.samples = append(e.samples, seconds(x))
		sum += x
		sum2 += x * x
	}
	n := float64(len(xs))
	e.mean = sum / n
	e.variance = math.Max(0, sum2/n-e.mean*e.mean)
	sorted := append([]time.Duration(nil), e.samples...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	e.median = sorted[len(sorted)/2]
	e.sorted = sorted
	return e, nil
}

func (e *empirical) Sample() time.Duration { return e.samples[e.rng.IntN(len(e.samples))] }
func (e *empirical) Mean() float64         { return e.mean }

// Quantile is the sample at rank u·n: the draws are the samples, each
// as likely.
func (e *empirical) Quantile(u float64) time.Duration {
	return e.sorted[min(int(u*float64(len(e.sorted))), len(e.sorted)-1)]
}
func (e *empirical) Variance() float64 { return e.variance }
func (e *empirical) String() string {
	return fmt.Sprintf("empirical(%d samples, mean=%v, median=%v)", e.n, seconds(e.mean), e.median)
}
