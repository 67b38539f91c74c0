package workloads

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// TestRoundNanosIsMathRound: seconds' rounding equals math.Round on its
// whole range (0 ≤ y ≤ MaxSeconds·1e9 < 2^63), bit for bit: at the edges
// where a cheaper rounding usually goes wrong (the halves and their
// neighbours, 0.49999999999999994 whose y+0.5 rounds up to 1, the binades
// where the ulp reaches 0.5, 1 and 2, the top of the range), and at
// millions of random values spread over every binade.
func TestRoundNanosIsMathRound(t *testing.T) {
	check := func(y float64) {
		t.Helper()
		if got, want := roundNanos(y), time.Duration(math.Round(y)); got != want {
			t.Fatalf("roundNanos(%v = %#x) = %d, math.Round %d", y, math.Float64bits(y), got, want)
		}
	}
	top := float64(MaxSeconds) * 1e9
	edges := []float64{0, math.SmallestNonzeroFloat64, 1e-300, 0.25, 0.5, 0.75, 1, 1.5, 2.5, 3.5,
		0.49999999999999994, 1 << 51, 1<<51 + 0.5, 1<<52 - 0.5, 1 << 52, 1<<52 + 1, 1 << 53, 1<<53 + 2,
		1e15 + 0.5, 1e18, top, math.Nextafter(1<<63, 0)}
	for _, y := range edges {
		for _, z := range []float64{y, math.Nextafter(y, 0), math.Nextafter(y, math.Inf(1))} {
			if z < 1<<63 {
				check(z)
			}
		}
	}
	// Every half k+0.5 and its neighbours, for small k and around each power of two.
	for k := 0.0; k < 1<<16; k++ {
		h := k + 0.5
		check(h)
		check(math.Nextafter(h, 0))
		check(math.Nextafter(h, math.Inf(1)))
	}
	for e := 1; e < 63; e++ {
		p := math.Ldexp(1, e)
		for d := -3.0; d <= 3; d += 0.25 {
			if y := p + d; y >= 0 && y < 1<<63 {
				check(y)
				check(math.Nextafter(y, 0))
				check(math.Nextafter(y, math.Inf(1)))
			}
		}
	}
	// Random values: uniform bit patterns over [2^-1074, 2^63), so that every
	// binade gets as many as any other, and uniform values on the range.
	r := rand.New(rand.NewPCG(1, 2))
	for range 3_000_000 {
		y := math.Float64frombits(r.Uint64N(math.Float64bits(1 << 63)))
		check(y)
		check(r.Float64() * top)
	}
}

// TestSecondsClamps: seconds rounds to the nanosecond and clamps to
// [0, MaxSeconds], NaN and negatives to 0.
func TestSecondsClamps(t *testing.T) {
	for _, c := range []struct {
		x    float64
		want time.Duration
	}{
		{math.NaN(), 0}, {math.Inf(-1), 0}, {-1, 0}, {0, 0}, {4e-10, 0}, {5e-10, 1}, {1.5e-9, 2}, {0.1, 100 * time.Millisecond},
		{MaxSeconds, MaxSeconds * time.Second}, {MaxSeconds * 2, MaxSeconds * time.Second}, {math.Inf(1), MaxSeconds * time.Second},
	} {
		if got := seconds(c.x); got != c.want {
			t.Errorf("seconds(%v) = %d, want %d", c.x, got, c.want)
		}
	}
}
