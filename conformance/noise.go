package conformance

import (
	"fmt"
	"math"
	"strings"
)

// FieldSpread is the run-to-run spread of one sample column: the largest max−min across runs
// at any one sample time, and the first time where it occurred.
type FieldSpread struct {
	Field    string
	MaxRange float64
	AtMs     int64
}

// Noise summarises how much repeated runs of one script on the real pool differ. Comparison
// tests derive their tolerances from it rather than guessing.
type Noise struct {
	Runs int
	// Fields has one entry per sample column, in output order.
	Fields []FieldSpread
	// TaskStartRangeMs is the largest max−min of one task's start time across runs, and
	// TaskStartID that task; likewise for end times. Only tasks that ran in every run count.
	TaskStartRangeMs float64
	TaskStartID      int
	TaskEndRangeMs   float64
	TaskEndID        int
	// WorkerMismatches counts tasks whose worker index differs between runs.
	WorkerMismatches int
	// MaxLatenessMs is the largest harness lateness of any run.
	MaxLatenessMs float64
}

// sampleFields lists the sample columns MeasureNoise compares.
var sampleFields = []struct {
	name string
	get  func(Sample) float64
}{
	{"pool_size", func(s Sample) float64 { return float64(s.PoolSize) }},
	{"busy", func(s Sample) float64 { return float64(s.Busy) }},
	{"idle_timed", func(s Sample) float64 { return float64(s.IdleTimed) }},
	{"idle_untimed", func(s Sample) float64 { return float64(s.IdleUntimed) }},
	{"queue_len", func(s Sample) float64 { return float64(s.QueueLen) }},
	{"completed", func(s Sample) float64 { return float64(s.Completed) }},
	{"rejected", func(s Sample) float64 { return float64(s.Rejected) }},
	{"largest", func(s Sample) float64 { return float64(s.Largest) }},
}

// SampleEnvelope is the smallest and largest value of every sample column at one sample
// time across runs: a real pool's range, which a simulated value can be held against.
type SampleEnvelope struct {
	TMs      int64
	Min, Max Sample // field by field; LateMs too
}

// Envelope returns, per sample time, the field-by-field minimum and maximum over the runs,
// which must share their sample times.
func Envelope(rs []*Result) ([]SampleEnvelope, error) {
	if len(rs) == 0 {
		return nil, fmt.Errorf("conformance: envelope: no runs")
	}
	first := rs[0]
	out := make([]SampleEnvelope, len(first.Samples))
	for k, s := range first.Samples {
		out[k] = SampleEnvelope{TMs: s.TMs, Min: s, Max: s}
	}
	for i, r := range rs[1:] {
		if len(r.Samples) != len(first.Samples) {
			return nil, fmt.Errorf("conformance: envelope: run %d has %d samples, run 1 has %d", i+2, len(r.Samples), len(first.Samples))
		}
		for k, s := range r.Samples {
			if s.TMs != first.Samples[k].TMs {
				return nil, fmt.Errorf("conformance: envelope: run %d sample %d is at %d ms, run 1's at %d ms", i+2, k+1, s.TMs, first.Samples[k].TMs)
			}
			e := &out[k]
			e.Min, e.Max = minSample(e.Min, s), maxSample(e.Max, s)
		}
	}
	return out, nil
}

func minSample(a, b Sample) Sample {
	return combine(a, b, func(x, y int64) int64 { return min(x, y) }, math.Min)
}
func maxSample(a, b Sample) Sample {
	return combine(a, b, func(x, y int64) int64 { return max(x, y) }, math.Max)
}

// combine applies f to every integer field of a and b and g to LateMs.
func combine(a, b Sample, f func(x, y int64) int64, g func(x, y float64) float64) Sample {
	i := func(x, y int) int { return int(f(int64(x), int64(y))) }
	return Sample{
		TMs:            a.TMs,
		PoolSize:       i(a.PoolSize, b.PoolSize),
		Busy:           i(a.Busy, b.Busy),
		IdleTimed:      i(a.IdleTimed, b.IdleTimed),
		IdleUntimed:    i(a.IdleUntimed, b.IdleUntimed),
		QueueLen:       i(a.QueueLen, b.QueueLen),
		Completed:      f(a.Completed, b.Completed),
		Rejected:       f(a.Rejected, b.Rejected),
		Largest:        i(a.Largest, b.Largest),
		BusyCounter:    i(a.BusyCounter, b.BusyCounter),
		Active:         i(a.Active, b.Active),
		Other:          i(a.Other, b.Other),
		SubmittedCount: i(a.SubmittedCount, b.SubmittedCount),
		LateMs:         g(a.LateMs, b.LateMs),
	}
}

// MeasureNoise compares runs of the same script. They must have the same sample times and
// the same tasks.
func MeasureNoise(rs []*Result) (Noise, error) {
	if len(rs) == 0 {
		return Noise{}, fmt.Errorf("conformance: measure noise: no runs")
	}
	n := Noise{Runs: len(rs)}
	first := rs[0]
	for i, r := range rs {
		if len(r.Samples) != len(first.Samples) || len(r.Tasks) != len(first.Tasks) {
			return Noise{}, fmt.Errorf("conformance: measure noise: run %d has %d samples and %d tasks, run 1 has %d and %d",
				i+1, len(r.Samples), len(r.Tasks), len(first.Samples), len(first.Tasks))
		}
		n.MaxLatenessMs = math.Max(n.MaxLatenessMs, r.MaxLatenessMs)
	}
	env, err := Envelope(rs)
	if err != nil {
		return Noise{}, fmt.Errorf("conformance: measure noise: %w", err)
	}
	for _, f := range sampleFields {
		fs := FieldSpread{Field: f.name}
		for _, e := range env {
			if d := f.get(e.Max) - f.get(e.Min); d > fs.MaxRange {
				fs.MaxRange, fs.AtMs = d, e.TMs
			}
		}
		n.Fields = append(n.Fields, fs)
	}
	for k, t0 := range first.Tasks {
		loS, hiS := math.Inf(1), math.Inf(-1)
		loE, hiE := math.Inf(1), math.Inf(-1)
		ranAll := true
		for i, r := range rs {
			t := r.Tasks[k]
			if t.ID != t0.ID {
				return Noise{}, fmt.Errorf("conformance: measure noise: run %d task %d has id %d, run 1's has id %d", i+1, k+1, t.ID, t0.ID)
			}
			if t.Worker != t0.Worker {
				n.WorkerMismatches++
			}
			if math.IsNaN(t.StartMs) || math.IsNaN(t.EndMs) {
				ranAll = false
				continue
			}
			loS, hiS = math.Min(loS, t.StartMs), math.Max(hiS, t.StartMs)
			loE, hiE = math.Min(loE, t.EndMs), math.Max(hiE, t.EndMs)
		}
		if !ranAll {
			continue
		}
		if hiS-loS > n.TaskStartRangeMs {
			n.TaskStartRangeMs, n.TaskStartID = hiS-loS, t0.ID
		}
		if hiE-loE > n.TaskEndRangeMs {
			n.TaskEndRangeMs, n.TaskEndID = hiE-loE, t0.ID
		}
	}
	return n, nil
}

// String prints the noise as a few lines for test logs and reports.
func (n Noise) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d runs; max lateness %.1f ms\n", n.Runs, n.MaxLatenessMs)
	for _, f := range n.Fields {
		fmt.Fprintf(&b, "  %-12s max spread %g (at %d ms)\n", f.Field, f.MaxRange, f.AtMs)
	}
	fmt.Fprintf(&b, "  task start   max spread %.1f ms (task %d)\n", n.TaskStartRangeMs, n.TaskStartID)
	fmt.Fprintf(&b, "  task end     max spread %.1f ms (task %d)\n", n.TaskEndRangeMs, n.TaskEndID)
	fmt.Fprintf(&b, "  worker index differs between runs for %d task-runs\n", n.WorkerMismatches)
	return b.String()
}

// resourceFields lists the resource sample columns that are compared and measured.
var resourceFields = []struct {
	name string
	get  func(ResourceSample) int
}{
	{"total", func(s ResourceSample) int { return s.Total }},
	{"active", func(s ResourceSample) int { return s.Active }},
	{"idle", func(s ResourceSample) int { return s.Idle }},
	{"waiting", func(s ResourceSample) int { return s.Waiting }},
}

// ResourceEnvelope is, at one sample time of a resource script, each column's smallest and
// largest value across runs, in resourceFields order: total, active, idle, waiting.
type ResourceEnvelope struct {
	TMs      int64
	Min, Max [4]int
}

// ResourceEnvelopes returns the envelope of the runs' resource samples at each sample time;
// the runs must share their sample times.
func ResourceEnvelopes(rs []*Result) ([]ResourceEnvelope, error) {
	if len(rs) == 0 {
		return nil, fmt.Errorf("conformance: resource envelope: no runs")
	}
	first := rs[0].ResourceSamples
	out := make([]ResourceEnvelope, len(first))
	for i, r := range rs {
		if len(r.ResourceSamples) != len(first) {
			return nil, fmt.Errorf("conformance: resource envelope: run %d has %d samples, run 1 has %d", i+1, len(r.ResourceSamples), len(first))
		}
		for k, s := range r.ResourceSamples {
			if s.TMs != first[k].TMs {
				return nil, fmt.Errorf("conformance: resource envelope: run %d sample %d is at %d ms, run 1's at %d ms", i+1, k+1, s.TMs, first[k].TMs)
			}
			e := &out[k]
			e.TMs = s.TMs
			for f, fd := range resourceFields {
				v := fd.get(s)
				if i == 0 || v < e.Min[f] {
					e.Min[f] = v
				}
				if i == 0 || v > e.Max[f] {
					e.Max[f] = v
				}
			}
		}
	}
	return out, nil
}

// ResourceNoise summarises how much repeated runs of one resource script differ.
type ResourceNoise struct {
	Runs int
	// Fields has one entry per resource sample column (total, active, idle, waiting).
	Fields []FieldSpread
	// BorrowRangeMs is the largest max−min, across runs, of one borrow's got or failed time,
	// and BorrowID that borrow; only borrows that got or failed in every run count.
	BorrowRangeMs float64
	BorrowID      int
	// ConnRangeMs is the largest max−min of one connection's open or close time, and
	// ConnUnit that connection; only times seen in every run, after t=0, count.
	ConnRangeMs float64
	ConnUnit    int
	// UnitMismatches counts borrows whose connection differs between runs.
	UnitMismatches int
	MaxLatenessMs  float64
}

// MeasureResourceNoise compares runs of the same resource script, which must have the same
// sample times and borrows.
func MeasureResourceNoise(rs []*Result) (ResourceNoise, error) {
	n := ResourceNoise{Runs: len(rs)}
	env, err := ResourceEnvelopes(rs)
	if err != nil {
		return n, fmt.Errorf("conformance: measure resource noise: %w", err)
	}
	for f, fd := range resourceFields {
		fs := FieldSpread{Field: fd.name}
		for _, e := range env {
			if d := float64(e.Max[f] - e.Min[f]); d > fs.MaxRange {
				fs.MaxRange, fs.AtMs = d, e.TMs
			}
		}
		n.Fields = append(n.Fields, fs)
	}
	first := rs[0]
	spread := func(get func(*Result) float64) float64 {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, r := range rs {
			v := get(r)
			if math.IsNaN(v) {
				return 0
			}
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		return hi - lo
	}
	for k, b0 := range first.Borrows {
		for _, r := range rs {
			if len(r.Borrows) != len(first.Borrows) || r.Borrows[k].ID != b0.ID {
				return n, fmt.Errorf("conformance: measure resource noise: the runs' borrows differ")
			}
			if r.Borrows[k].Unit != b0.Unit {
				n.UnitMismatches++
			}
		}
		for _, get := range []func(*Result) float64{
			func(r *Result) float64 { return r.Borrows[k].GotMs },
			func(r *Result) float64 { return r.Borrows[k].FailedMs },
		} {
			if d := spread(get); d > n.BorrowRangeMs {
				n.BorrowRangeMs, n.BorrowID = d, b0.ID
			}
		}
	}
	for _, c0 := range first.Connections {
		for _, get := range []func(Connection) float64{
			func(c Connection) float64 { return c.OpenedMs },
			func(c Connection) float64 { return c.ClosedMs },
		} {
			d := spread(func(r *Result) float64 {
				c, ok := r.Connection(c0.Unit)
				if !ok || get(c) < 0 {
					return math.NaN()
				}
				return get(c)
			})
			if d > n.ConnRangeMs {
				n.ConnRangeMs, n.ConnUnit = d, c0.Unit
			}
		}
	}
	for _, r := range rs {
		n.MaxLatenessMs = math.Max(n.MaxLatenessMs, r.MaxLatenessMs)
	}
	return n, nil
}

// String prints the noise on one line for test logs and reports.
func (n ResourceNoise) String() string {
	var fs []string
	for _, f := range n.Fields {
		fs = append(fs, fmt.Sprintf("%s %g", f.Field, f.MaxRange))
	}
	return fmt.Sprintf("%d runs: sample spread %s; got/failed times within %.1f ms (borrow %d); connection open/close within %.1f ms (#%d); %d connection differences; max lateness %.1f ms",
		n.Runs, strings.Join(fs, ", "), n.BorrowRangeMs, n.BorrowID, n.ConnRangeMs, n.ConnUnit, n.UnitMismatches, n.MaxLatenessMs)
}
