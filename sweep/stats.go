package sweep

import (
	"math"
	"reflect"
	"strings"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/poolsim/poolsim/sim"
)

// Confidence is the level of the confidence intervals a sweep reports.
const Confidence = 0.95

// metricField is one numeric field of sim.Summary.
type metricField struct {
	name  string // its JSON name, e.g. wait_p99_s
	index int    // its field index in sim.Summary
}

// summaryMetrics lists sim.Summary's numeric fields in declaration order,
// without the seed (it differs per replication by design).
func summaryMetrics() []metricField {
	t := reflect.TypeOf(sim.Summary{})
	var out []metricField
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || name == "seed" {
			continue
		}
		switch f.Type.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
			reflect.Float32, reflect.Float64:
			out = append(out, metricField{name, i})
		}
	}
	return out
}

// Metrics returns the names of the metrics a sweep averages: every numeric
// field of summary.json (CONTRACT.md §2) but the seed, in summary.json's
// order.
func Metrics() []string {
	fs := summaryMetrics()
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.name
	}
	return out
}

// metricValues extracts the metrics from a run's summary (NaN where the
// summary says null).
func metricValues(fields []metricField, s *sim.Summary) []float64 {
	v := reflect.ValueOf(s).Elem()
	out := make([]float64, len(fields))
	for i, f := range fields {
		fv := v.Field(f.index)
		switch fv.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			out[i] = float64(fv.Int())
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			out[i] = float64(fv.Uint())
		default:
			out[i] = fv.Float()
		}
	}
	return out
}

// MeanHalfWidth returns the mean of xs and the half-width of its 95%
// confidence interval, t(0.975, n−1)·s/√n with s the sample standard
// deviation (Student t, for independent replications). The half-width is
// NaN ("no interval") for fewer than two values; both are NaN when any
// value is NaN (a statistic undefined in some replication is undefined
// for the point).
func MeanHalfWidth(xs []float64) (mean, hw float64) {
	if len(xs) == 0 {
		return math.NaN(), math.NaN()
	}
	for _, x := range xs {
		if math.IsNaN(x) {
			return math.NaN(), math.NaN()
		}
	}
	if len(xs) == 1 {
		return xs[0], math.NaN()
	}
	m, sd := stat.MeanStdDev(xs, nil)
	n := float64(len(xs))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}.Quantile(1 - (1-Confidence)/2)
	return m, t * sd / math.Sqrt(n)
}

// relativeHalfWidth is hw/|mean|: 0 when the interval is a single point
// (hw 0), +Inf when the mean is 0 but the values vary, NaN when undefined.
func relativeHalfWidth(mean, hw float64) float64 {
	switch {
	case math.IsNaN(mean) || math.IsNaN(hw):
		return math.NaN()
	case hw == 0:
		return 0
	case mean == 0:
		return math.Inf(1)
	}
	return hw / math.Abs(mean)
}
