package metrics

import (
	"fmt"
	"math"
	"sort"
	"time"
)

// Observed is a pool's gauges on one time grid: the pool-size series'
// sample times. A value another series lacks near a time is NaN.
type Observed struct {
	Start    time.Time
	T        []time.Duration // since Start
	Size     []float64
	Busy     []float64
	Queue    []float64
	Max      []float64
	Interval time.Duration // the median time between samples
}

// Timeline puts the pool's gauges on the pool-size series' grid: each other
// series contributes its sample nearest in time, within half an interval.
// Values that cannot be right (negative, NaN) become NaN (see Implausible).
func (p *Pool) Timeline() *Observed {
	size := p.Series[Size]
	o := &Observed{Start: size.Points[0].T, Interval: Interval(size)}
	for _, pt := range size.Points {
		o.T = append(o.T, pt.T.Sub(o.Start))
	}
	o.Size = p.column(Size, size, o.Interval)
	o.Busy = p.column(Busy, size, o.Interval)
	o.Queue = p.column(Queue, size, o.Interval)
	o.Max = p.column(Max, size, o.Interval)
	if p.Family == Jetty && p.Series[Busy] == nil && p.Series[Idle] != nil {
		idle := p.column(Idle, size, o.Interval)
		for i := range o.Busy {
			o.Busy[i] = o.Size[i] - idle[i]
		}
	}
	return o
}

func (p *Pool) column(r Role, grid *Series, interval time.Duration) []float64 {
	out := make([]float64, len(grid.Points))
	s := p.Series[r]
	for i, g := range grid.Points {
		out[i] = math.NaN()
		if s == nil {
			continue
		}
		if v, ok := s.At(g.T, interval/2); ok && v >= 0 && !math.IsInf(v, 0) {
			out[i] = v
		}
	}
	return out
}

// At is the value of the sample nearest to t within tol.
func (s *Series) At(t time.Time, tol time.Duration) (float64, bool) {
	i := sort.Search(len(s.Points), func(i int) bool { return !s.Points[i].T.Before(t) })
	best, bestD := math.NaN(), time.Duration(math.MaxInt64)
	for _, j := range []int{i - 1, i} {
		if j < 0 || j >= len(s.Points) {
			continue
		}
		d := s.Points[j].T.Sub(t).Abs()
		if d < bestD {
			best, bestD = s.Points[j].V, d
		}
	}
	if bestD > tol {
		return math.NaN(), false
	}
	return best, !math.IsNaN(best)
}

// Interval is the median time between a series' samples (0 with fewer than
// two).
func Interval(s *Series) time.Duration {
	if len(s.Points) < 2 {
		return 0
	}
	d := make([]time.Duration, 0, len(s.Points)-1)
	for i := 1; i < len(s.Points); i++ {
		d = append(d, s.Points[i].T.Sub(s.Points[i-1].T))
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[len(d)/2]
}

// Gap is a stretch of a series longer than its usual interval: missed
// scrapes, or a restart.
type Gap struct {
	From, To time.Time
	Missing  int // scrapes the usual interval would have taken in between
}

func (g Gap) String() string {
	return fmt.Sprintf("no sample for %v from %s (%d scrapes missing)", g.To.Sub(g.From), g.From.UTC().Format(time.RFC3339), g.Missing)
}

// Gaps lists the intervals of s longer than 1.5 times its median interval.
func Gaps(s *Series) []Gap {
	iv := Interval(s)
	if iv <= 0 {
		return nil
	}
	var out []Gap
	for i := 1; i < len(s.Points); i++ {
		d := s.Points[i].T.Sub(s.Points[i-1].T)
		if d*2 > iv*3 {
			out = append(out, Gap{From: s.Points[i-1].T, To: s.Points[i].T, Missing: int(math.Round(float64(d)/float64(iv))) - 1})
		}
	}
	return out
}

// Increase is a counter's growth between two samples.
type Increase struct {
	From, To time.Time
	Delta    float64
	// Reset: the counter fell (the JVM restarted), so Delta is the value
	// after the reset, counted from zero as Prometheus's rate() does.
	Reset bool
}

// Increases turns a counter's samples into increases, resets handled.
// Samples that are NaN or infinite are skipped.
func Increases(s *Series) []Increase {
	var out []Increase
	var prev *Point
	for i := range s.Points {
		p := &s.Points[i]
		if math.IsNaN(p.V) || math.IsInf(p.V, 0) {
			continue
		}
		if prev != nil {
			inc := Increase{From: prev.T, To: p.T, Delta: p.V - prev.V}
			if p.V < prev.V {
				inc.Delta, inc.Reset = p.V, true
			}
			out = append(out, inc)
		}
		prev = p
	}
	return out
}

// Problem is a gauge value that cannot be right, with how often it occurred.
type Problem struct {
	Series string
	First  time.Time
	Value  float64
	Count  int
	Why    string
}

func (p Problem) String() string {
	n := ""
	if p.Count > 1 {
		n = fmt.Sprintf(" (%d samples, first", p.Count)
	} else {
		n = " ("
	}
	return fmt.Sprintf("%s = %g: %s%s at %s)", p.Series, p.Value, p.Why, n, p.First.UTC().Format(time.RFC3339))
}

// Implausible flags the pool's samples that cannot be right: NaN or
// infinite values; negative ones (Tomcat and Jetty export −1 when the
// executor is not a ThreadPoolExecutor, e.g. virtual threads, and −2 with
// none, R173, R175); busy above the pool size; the pool above its max; a
// counter that fell (a restart, counted as a reset).
func Implausible(p *Pool) []Problem {
	var out []Problem
	idx := map[string]int{}
	note := func(s *Series, t time.Time, v float64, why string) {
		k := s.ID() + "\x00" + why
		if i, ok := idx[k]; ok {
			out[i].Count++
			return
		}
		idx[k] = len(out)
		out = append(out, Problem{Series: s.ID(), First: t, Value: v, Count: 1, Why: why})
	}
	roles := []Role{Size, Busy, Queue, Completed, Max, Core, Remaining, Idle}
	for _, r := range roles {
		s := p.Series[r]
		if s == nil {
			continue
		}
		for i, pt := range s.Points {
			switch {
			case math.IsNaN(pt.V) || math.IsInf(pt.V, 0):
				note(s, pt.T, pt.V, "not a number")
			case pt.V == -1 && (r == Size || r == Busy):
				note(s, pt.T, pt.V, "−1: the exporter cannot read this pool (not a ThreadPoolExecutor, e.g. virtual threads, R173, R175)")
			case pt.V == -2 && p.Family == Tomcat:
				note(s, pt.T, pt.V, "−2: the connector has no executor (R173)")
			case pt.V < 0:
				note(s, pt.T, pt.V, "negative")
			case r == Completed && i > 0 && pt.V < s.Points[i-1].V:
				note(s, pt.T, pt.V, "the counter fell: a restart (counted as a reset)")
			}
		}
	}
	size, busy, mx := p.Series[Size], p.Series[Busy], p.Series[Max]
	iv := Interval(size)
	for _, pt := range size.Points {
		if busy != nil {
			if b, ok := busy.At(pt.T, iv/2); ok && b > pt.V && pt.V >= 0 {
				note(busy, pt.T, b, fmt.Sprintf("busy above the pool size (%g)", pt.V))
			}
		}
		if mx != nil {
			if m, ok := mx.At(pt.T, iv/2); ok && m > 0 && pt.V > m {
				note(size, pt.T, pt.V, fmt.Sprintf("above max (%g)", m))
			}
		}
	}
	return out
}
