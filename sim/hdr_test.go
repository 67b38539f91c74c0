package sim

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// TestDurHistMatchesHDR: durHist gives, for every quantile the outputs use
// and many more, exactly the value hdrhistogram-go gives for the same
// recorded values — the library poolsim used before, with the same geometry
// (1 ns to 1e17 ns, 3 significant digits) — on samples from 0 to beyond the
// highest trackable value and below 0 (clamped: durHist.normalize), with
// many ties (a bucket counting past its byte: durHist.wraps), a handful of
// values, and after a reset.
func TestDurHistMatchesHDR(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	qs := append([]float64{0, 0.001, 0.5, 99.999, 100, 150, -5}, CDFQuantiles...)
	for range 200 {
		qs = append(qs, rng.Float64()*100)
	}
	samplers := map[string]func() time.Duration{
		"exponential 100ms": func() time.Duration { return time.Duration(rng.ExpFloat64() * 1e8) },
		"lognormal wide":    func() time.Duration { return time.Duration(math.Exp(rng.NormFloat64()*6 + 10)) },
		"small integers":    func() time.Duration { return time.Duration(rng.IntN(3000)) },
		"mostly zero":       func() time.Duration { return time.Duration(rng.IntN(4)) * time.Millisecond / 3 },
		"huge":              func() time.Duration { return time.Duration(rng.Int64N(math.MaxInt64)) },
		"one value":         func() time.Duration { return 42 * time.Millisecond }, // its bucket's byte wraps hundreds of times
		"negative and huge": func() time.Duration {
			return [...]time.Duration{-1, math.MinInt64, math.MaxInt64, time.Duration(hdrHighest), time.Duration(hdrHighest) + 1, 3}[rng.IntN(6)]
		},
	}
	for name, draw := range samplers {
		for _, n := range []int{1, 2, 7, 1000, 100_000} {
			ref := hdr.New(1, hdrHighest, 3)
			got := newDurHist()
			for round := range 2 { // the second round checks reset
				for range n {
					d := draw()
					_ = ref.RecordValue(clampHDR(d))
					got.record(d)
				}
				for _, q := range qs {
					if w, g := ref.ValueAtQuantile(q), got.valueAtPercentile(q); w != g {
						t.Fatalf("%s, n=%d, round %d: quantile %v: durHist %d, hdrhistogram-go %d", name, n, round, q, g, w)
					}
				}
				// All at once, in one pass (cdf): the same values.
				sorted := slices.Sorted(slices.Values(qs))
				vals := make([]int64, len(sorted))
				got.valuesAtPercentiles(sorted, vals)
				for j, q := range sorted {
					if w := ref.ValueAtQuantile(q); vals[j] != w {
						t.Fatalf("%s, n=%d, round %d: quantile %v in one pass: durHist %d, hdrhistogram-go %d", name, n, round, q, vals[j], w)
					}
				}
				ref.Reset()
				got.reset()
			}
		}
	}
	if got := newDurHist(); got.valueAtPercentile(50) != 0 {
		t.Errorf("empty histogram: %d, want 0", got.valueAtPercentile(50))
	}
}

// clampHDR is the value hdrhistogram-go is given for d: durHist counts a
// negative value as 0, one beyond hdrHighest as hdrHighest.
func clampHDR(d time.Duration) int64 {
	return min(max(int64(d), 0), hdrHighest)
}

// TestDurHistReadMidRun: quantiles read while values still come (a Result
// taken before the run ends) normalize the histogram, and the values
// recorded after count as if none had been read.
func TestDurHistReadMidRun(t *testing.T) {
	ref, got := hdr.New(1, hdrHighest, 3), newDurHist()
	for round, vals := range [][]time.Duration{{-5, 7, math.MaxInt64, 300}, {math.MaxInt64, -1, 2 * time.Second}, {time.Duration(hdrHighest) + 9, 0}} {
		for _, d := range vals {
			_ = ref.RecordValue(clampHDR(d))
			got.record(d)
		}
		for _, q := range []float64{0, 10, 30, 50, 70, 90, 100} {
			if w, g := ref.ValueAtQuantile(q), got.valueAtPercentile(q); w != g {
				t.Errorf("round %d, quantile %v: durHist %d, hdrhistogram-go %d", round, q, g, w)
			}
		}
	}
}

// TestDurHistWholeWraps: a bucket whose count is a multiple of 256 has a
// zero byte in counts; the quantiles still find it at either end of the
// range (durHist.span looks in wraps too).
func TestDurHistWholeWraps(t *testing.T) {
	ref, got := hdr.New(1, hdrHighest, 3), newDurHist()
	for _, v := range []struct {
		d time.Duration
		n int
	}{{5, 512}, {time.Millisecond, 3}, {time.Second, 256}} {
		for range v.n {
			_ = ref.RecordValue(clampHDR(v.d))
			got.record(v.d)
		}
	}
	for _, q := range []float64{0, 1, 50, 66, 67, 99, 100} {
		if w, g := ref.ValueAtQuantile(q), got.valueAtPercentile(q); w != g {
			t.Errorf("quantile %v: durHist %d, hdrhistogram-go %d", q, g, w)
		}
	}
}
