package metrics

import (
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/poolsim/poolsim/internal/inputerr"
)

// Confidence is the coverage of every rate band (two-sided).
const Confidence = 0.95

// Band is a range of request rates, per second, and the best estimate in it.
type Band struct {
	Low  float64 `json:"low"`
	High float64 `json:"high"`
	Best float64 `json:"best"`
}

// Contains reports whether r lies in the band.
func (b Band) Contains(r float64) bool { return r >= b.Low && r <= b.High }

// Segment is a stretch of steady traffic.
type Segment struct {
	From, To time.Duration // since the first sample
	// Count is what the rate is estimated from: completed tasks (from the
	// counter), or the sum of the busy samples (from the busy gauge).
	Count float64
	// Arrivals are the tasks submitted in the segment: completions
	// corrected by the change of busy + queued between its ends (tasks
	// rejected are invisible, R179).
	Arrivals float64
	Poisson  Band // random arrivals: an exact Poisson interval (Garwood)
	Periodic Band // periodic arrivals: the count is exact to ±2 (one per end, one in flight)
	Service  time.Duration
	// ServiceFrom says where Service came from: "given", "segment" (mean
	// busy / rate in this segment, R180), "window" (the same over the whole
	// window, when this segment shows too few busy workers) or "assumed".
	ServiceFrom string
	// ServiceRelSE is the relative standard error of an estimated Service:
	// the busy samples are Poisson counts (scrapes further apart than a
	// task), so their sum n has relative error 1/√n. 0 when given.
	ServiceRelSE float64
}

// Traffic is the arrival rate over time inferred from a pool's series.
type Traffic struct {
	// From names the series the rate comes from.
	From     string
	Segments []Segment
	Resets   []time.Time // counter resets (restarts) seen
	// Service is the mean service time over the window (R180), or the one
	// given.
	Service time.Duration
	Notes   []string
}

// TrafficOptions are the assumptions of Infer.
type TrafficOptions struct {
	// Service is the mean service time; 0 = estimated from busy / rate
	// (Little, R180). Required without a completed-tasks counter.
	Service time.Duration
}

// minBusyForService is the number of busy workers (summed over a segment's
// samples) below which a segment's own service estimate is too noisy, and
// the window's is used (Poisson counts: 20 gives ±45 %).
const minBusyForService = 20

// DefaultService is assumed when nothing shows a task running.
const DefaultService = 5 * time.Millisecond

// Infer estimates the arrival rate over time: from the completed-tasks
// counter where the pool has one, else from the busy gauge and a service
// time (λ = busy/S, R180). The stretch is cut into segments of steady
// traffic (see segment).
func Infer(p *Pool, o *Observed, opt TrafficOptions) (*Traffic, error) {
	if len(o.T) < 2 {
		return nil, inputerr.New(p.File, 0, 0, p.Series[Size].ID(), fmt.Sprintf("%d sample: a timeline needs at least two", len(o.T)), "several scrapes over the time to diagnose")
	}
	if c := p.Series[Completed]; c != nil {
		return inferFromCounter(p, o, c, opt)
	}
	if p.Series[Busy] == nil {
		return nil, inputerr.New(p.File, 0, 0, p.ID(), "neither a completed-tasks counter nor a busy gauge: the traffic cannot be inferred", "executor_completed_tasks_total or a busy series (R180)")
	}
	if opt.Service <= 0 {
		return nil, inputerr.New(p.File, 0, 0, p.Series[Busy].ID(), "no completed-tasks counter, so the rate comes from busy / service time, and the service time is unknown", "give --service, e.g. --service 120ms; Tomcat exports no counter, R173")
	}
	return inferFromBusy(p, o, opt)
}

// interval is one observation for segmentation: count ~ Poisson(λ·exposure).
type interval struct {
	from, to time.Duration
	count    float64
	exposure float64
}

func inferFromCounter(p *Pool, o *Observed, c *Series, opt TrafficOptions) (*Traffic, error) {
	tr := &Traffic{From: c.ID()}
	var ivs []interval
	for _, inc := range Increases(c) {
		if inc.Reset {
			tr.Resets = append(tr.Resets, inc.To)
		}
		ivs = append(ivs, interval{from: inc.From.Sub(o.Start), to: inc.To.Sub(o.Start), count: inc.Delta, exposure: inc.To.Sub(inc.From).Seconds()})
	}
	if len(ivs) == 0 {
		return nil, inputerr.New(p.File, 0, 0, c.ID(), "fewer than two usable samples of the counter", "several scrapes")
	}
	if len(tr.Resets) > 0 {
		tr.Notes = append(tr.Notes, fmt.Sprintf("the counter was reset %d times (restarts); each increase across a reset counts from zero, as rate() does, so the tasks completed before it in that interval are missed", len(tr.Resets)))
	}
	inflight := func(t time.Duration) float64 {
		i := nearest(o.T, t)
		v := 0.0
		for _, x := range []float64{o.Busy[i], o.Queue[i]} {
			if !math.IsNaN(x) {
				v += x
			}
		}
		return v
	}
	for _, sg := range segment(ivs) {
		s := Segment{From: sg.from, To: sg.to, Count: sg.count}
		s.Arrivals = math.Max(0, sg.count+inflight(sg.to)-inflight(sg.from))
		s.Poisson = poissonBand(s.Arrivals, sg.exposure)
		s.Periodic = Band{Low: math.Max(0, s.Arrivals-2) / sg.exposure, High: (s.Arrivals + 2) / sg.exposure, Best: s.Arrivals / sg.exposure}
		tr.Segments = append(tr.Segments, s)
	}
	tr.serviceFromBusy(o, opt)
	return tr, nil
}

func inferFromBusy(p *Pool, o *Observed, opt TrafficOptions) (*Traffic, error) {
	tr := &Traffic{From: p.Series[Busy].ID() + " / service", Service: opt.Service}
	var ivs []interval
	for i := 0; i+1 < len(o.T); i++ {
		if math.IsNaN(o.Busy[i]) {
			continue
		}
		ivs = append(ivs, interval{from: o.T[i], to: o.T[i+1], count: o.Busy[i], exposure: opt.Service.Seconds()})
	}
	if len(ivs) == 0 {
		return nil, inputerr.New(p.File, 0, 0, p.Series[Busy].ID(), "no usable busy sample", "non-negative counts")
	}
	for _, sg := range segment(ivs) {
		s := Segment{From: sg.from, To: sg.to, Count: sg.count, Arrivals: math.NaN(), Service: opt.Service, ServiceFrom: "given"}
		// Busy samples of an M/G/∞ stretch are Poisson(λS) each (taken
		// further apart than S); so is their sum over the segment.
		s.Poisson = poissonBand(sg.count, sg.exposure)
		s.Periodic = s.Poisson
		tr.Segments = append(tr.Segments, s)
	}
	tr.Notes = append(tr.Notes, "without a completed-tasks counter the rate is busy / service time (R180): it scales with the service time given, and periodic and random arrivals cannot be told apart (both bands are the Poisson one)")
	return tr, nil
}

// serviceFromBusy sets each segment's service time: given, else the busy
// time in the segment over the tasks completed in it (Little's law in its
// sample-path form, R180: ∫busy dt = the service of the tasks that ran,
// which stays right across a change of rate, where mean busy / mean rate
// does not), when the segment saw at least minBusyForService busy workers;
// else the same over the whole window; else DefaultService.
func (tr *Traffic) serviceFromBusy(o *Observed, opt TrafficOptions) {
	if opt.Service > 0 {
		tr.Service = opt.Service
		for i := range tr.Segments {
			tr.Segments[i].Service, tr.Segments[i].ServiceFrom = opt.Service, "given"
		}
		return
	}
	// Per segment: the busy samples' sum, and the busy time (trapezoids
	// between consecutive samples, each credited to the segment of its
	// start).
	seen := make([]float64, len(tr.Segments))
	busyTime := make([]float64, len(tr.Segments))
	for i := 0; i+1 < len(o.T); i++ {
		a, b := o.Busy[i], o.Busy[i+1]
		if math.IsNaN(a) || math.IsNaN(b) {
			continue
		}
		k := tr.SegmentAt(o.T[i])
		seen[k] += a
		busyTime[k] += (a + b) / 2 * (o.T[i+1] - o.T[i]).Seconds()
	}
	var allSeen, allTime, allCount float64
	for k, s := range tr.Segments {
		allSeen, allTime, allCount = allSeen+seen[k], allTime+busyTime[k], allCount+s.Count
	}
	tr.Service = DefaultService
	from := "assumed"
	if allSeen > 0 && allCount > 0 {
		tr.Service, from = time.Duration(allTime/allCount*1e9), "window"
	} else {
		tr.Notes = append(tr.Notes, fmt.Sprintf("no busy worker was ever seen, so the service time is assumed (%v); give --service", DefaultService))
	}
	for k := range tr.Segments {
		s := &tr.Segments[k]
		s.Service, s.ServiceFrom = tr.Service, from
		if allSeen > 0 {
			s.ServiceRelSE = 1 / math.Sqrt(allSeen)
		}
		if seen[k] >= minBusyForService && s.Count > 0 {
			s.Service, s.ServiceFrom, s.ServiceRelSE = time.Duration(busyTime[k]/s.Count*1e9), "segment", 1/math.Sqrt(seen[k])
		}
	}
}

// SegmentAt is the index of the segment holding t (the last one past the
// end).
func (tr *Traffic) SegmentAt(t time.Duration) int {
	for i, s := range tr.Segments {
		if t < s.To {
			return i
		}
	}
	return len(tr.Segments) - 1
}

// Last is the segment at the end of the window: the traffic now.
func (tr *Traffic) Last() Segment { return tr.Segments[len(tr.Segments)-1] }

func nearest(ts []time.Duration, t time.Duration) int {
	best := 0
	for i, x := range ts {
		if (x - t).Abs() < (ts[best] - t).Abs() {
			best = i
		}
	}
	return best
}

// poissonBand is the exact (Garwood) interval for a Poisson rate from count
// events over exposure seconds, at Confidence; Best is count/exposure.
func poissonBand(count, exposure float64) Band {
	a := (1 - Confidence) / 2
	b := Band{Best: count / exposure}
	if count > 0 {
		b.Low = distuv.Gamma{Alpha: count, Beta: 1}.Quantile(a) / exposure
	}
	b.High = distuv.Gamma{Alpha: count + 1, Beta: 1}.Quantile(1-a) / exposure
	return b
}

// segment cuts the intervals into stretches of steady traffic by binary
// segmentation: a stretch is split where the Poisson likelihood ratio of
// two rates against one is largest, while twice its log exceeds
// splitThreshold(n) and both parts keep at least minSegment intervals.
func segment(ivs []interval) []interval {
	var out []interval
	var rec func(a, b, depth int)
	rec = func(a, b, depth int) {
		if k, ok := bestSplit(ivs[a:b], len(ivs)); ok && depth < 12 {
			rec(a, a+k, depth+1)
			rec(a+k, b, depth+1)
			return
		}
		s := interval{from: ivs[a].from, to: ivs[b-1].to}
		for _, iv := range ivs[a:b] {
			s.count += iv.count
			s.exposure += iv.exposure
		}
		out = append(out, s)
	}
	rec(0, len(ivs), 0)
	return out
}

// minSegment is the fewest intervals a segment holds.
const minSegment = 3

// splitThreshold is what twice the log-likelihood ratio of a split must
// exceed: the χ²(1) quantile at 0.999 (10.83), raised like BIC for long
// series so that n intervals do not produce spurious changes by chance.
func splitThreshold(n int) float64 { return math.Max(10.83, 3*math.Log(float64(n))) }

func bestSplit(ivs []interval, n int) (int, bool) {
	if len(ivs) < 2*minSegment {
		return 0, false
	}
	var c, e float64
	for _, iv := range ivs {
		c += iv.count
		e += iv.exposure
	}
	ll := func(c, e float64) float64 {
		if c <= 0 || e <= 0 {
			return 0
		}
		return c * math.Log(c/e)
	}
	whole := ll(c, e)
	best, bestK := 0.0, 0
	var c1, e1 float64
	for k := 1; k < len(ivs); k++ {
		c1 += ivs[k-1].count
		e1 += ivs[k-1].exposure
		if k < minSegment || len(ivs)-k < minSegment {
			continue
		}
		if g := ll(c1, e1) + ll(c-c1, e-e1) - whole; g > best {
			best, bestK = g, k
		}
	}
	return bestK, 2*best > splitThreshold(n)
}
