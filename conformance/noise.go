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
	for _, f := range sampleFields {
		fs := FieldSpread{Field: f.name}
		for k := range first.Samples {
			lo, hi := math.Inf(1), math.Inf(-1)
			for i, r := range rs {
				if r.Samples[k].TMs != first.Samples[k].TMs {
					return Noise{}, fmt.Errorf("conformance: measure noise: run %d sample %d is at %d ms, run 1's at %d ms",
						i+1, k+1, r.Samples[k].TMs, first.Samples[k].TMs)
				}
				v := f.get(r.Samples[k])
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
			if hi-lo > fs.MaxRange {
				fs.MaxRange, fs.AtMs = hi-lo, first.Samples[k].TMs
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
