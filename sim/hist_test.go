package sim

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"
)

// TestIntervalHist compares the interval histogram's quantiles with exact
// order statistics: exact up to smallN values, within the bucket width
// (1/64 relative) beyond, and never above the maximum.
func TestIntervalHist(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var h intervalHist
	for _, n := range []int{1, 5, smallN, smallN + 1, 1000, 50000} {
		for trial := 0; trial < 3; trial++ {
			h.reset()
			xs := make([]time.Duration, n)
			for i := range xs {
				switch rng.IntN(4) {
				case 0:
					xs[i] = 0 // zero waits are common
				case 1:
					xs[i] = time.Duration(rng.IntN(100)) // tiny, exact buckets
				default:
					xs[i] = time.Duration(rng.ExpFloat64() * 1e8)
				}
				h.record(xs[i])
			}
			slices.Sort(xs)
			for _, q := range []float64{0.01, 0.5, 0.9, 0.99, 1} {
				rank := int(math.Ceil(q * float64(n)))
				want := xs[max(rank, 1)-1].Seconds()
				got := h.quantile(q)
				tol := 0.0
				if n > smallN {
					tol = want/64 + 1e-9
				}
				if math.Abs(got-want) > tol || got > xs[n-1].Seconds() {
					t.Errorf("n=%d q=%v: got %v, want %v ± %v", n, q, got, want, tol)
				}
			}
			var sum float64
			for _, x := range xs {
				sum += float64(x)
			}
			if m := h.mean(); math.Abs(m-sum/float64(n)/1e9) > 1e-12 {
				t.Errorf("n=%d: mean %v, want %v", n, m, sum/float64(n)/1e9)
			}
		}
	}
	h.reset()
	h.record(-time.Second) // counts as 0
	h.record(0)
	if q, m := h.quantile(1), h.mean(); q != 0 || m != 0 {
		t.Errorf("negative values: quantile %v, mean %v, want 0 and 0", q, m)
	}
	h.reset()
	if !math.IsNaN(h.quantile(0.5)) || !math.IsNaN(h.mean()) {
		t.Error("an empty interval must give NaN (an empty cell), not a number")
	}
}

// TestHistIndex: the branch-free bucket index is the geometry's (values
// below 64 exact, then 64 buckets per power of two, the index 64·(e+1)
// plus the 6 bits below the leading one for 2^(e+6) ≤ v < 2^(e+7)), at
// every bucket boundary up to 2^62 and at random values, and histValue
// falls in the bucket it names.
func TestHistIndex(t *testing.T) {
	ref := func(v uint64) int { // the geometry, written the long way
		if v < 64 {
			return int(v)
		}
		e := bits.Len64(v) - 7
		return (e+1)*64 + int((v>>uint(e))&63)
	}
	check := func(v uint64) {
		if got, want := histIndex(time.Duration(v)), ref(v); got != want {
			t.Fatalf("histIndex(%d) = %d, want %d", v, got, want)
		}
	}
	for v := uint64(0); v < 1<<12; v++ {
		check(v)
	}
	for e := 6; e < 62; e++ {
		for s := uint64(64); s < 128; s++ {
			lo := s << uint(e-6)
			check(lo)
			check(lo - 1)
			check(lo + 1)
			if m := histValue(ref(lo)); ref(uint64(m)) != ref(lo) {
				t.Fatalf("histValue(%d) = %d lies outside its bucket", ref(lo), m)
			}
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 100000 {
		check(rng.Uint64() >> uint(rng.IntN(63)+1))
	}
}

func TestAppendSeconds(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0"},
		{1360 * time.Millisecond, "1.36"}, // float formatting gives 1.3599999999999999
		{time.Nanosecond, "0.000000001"},
		{90 * time.Minute, "5400"},
		{-1500 * time.Millisecond, "-1.5"},
		{time.Duration(1<<63 - 1), "9223372036.854775807"},
	}
	for _, tt := range tests {
		if got := string(appendSeconds(nil, tt.d)); got != tt.want {
			t.Errorf("appendSeconds(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

// TestAppendFastPathsAreStrconv: the shortcuts of appendFloat (zero) and
// appendInt (one digit) write what strconv writes, on their edges and on
// random values.
func TestAppendFastPathsAreStrconv(t *testing.T) {
	floats := []float64{0, math.Copysign(0, -1), 5e-324, 1e-9, 0.5, 1, 9, 10, -1, 1e21, math.MaxFloat64}
	ints := []int64{0, 1, 9, 10, 11, 99, -1, -9, -10, math.MinInt64, math.MaxInt64}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 10000 {
		floats = append(floats, rng.NormFloat64()*math.Pow(10, float64(rng.IntN(20)-10)))
		ints = append(ints, rng.Int64N(40)-20)
	}
	for _, x := range floats {
		if got, want := string(appendFloat(nil, x)), strconv.FormatFloat(x, 'f', -1, 64); got != want {
			t.Errorf("appendFloat(%v) = %q, strconv gives %q", x, got, want)
		}
	}
	for _, v := range ints {
		if got, want := string(appendInt(nil, v)), strconv.FormatInt(v, 10); got != want {
			t.Errorf("appendInt(%d) = %q, strconv gives %q", v, got, want)
		}
	}
}

// TestAppendDurSecondsIsAppendFloat: a duration formatted from its digits
// is the shortest decimal of its Seconds(), byte for byte, for random
// durations of every magnitude up to a century and at the edges of the
// digit path (1e15 ns, 2^53 ns, negative values, a power of ten's
// neighbours).
func TestAppendDurSecondsIsAppendFloat(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	check := func(d time.Duration) {
		t.Helper()
		if got, want := string(appendDurSeconds(nil, d)), string(appendFloat(nil, d.Seconds())); got != want {
			t.Fatalf("%d ns: %q, appendFloat(Seconds()) %q", int64(d), got, want)
		}
	}
	digits := 0
	for i := 0; i < 1_000_000; i++ {
		d := time.Duration(r.Int64N(int64(100 * 365 * 24 * time.Hour)))
		d >>= r.UintN(64) // every magnitude, down to 0
		check(d)
		if d < 1e15 && d.Seconds() == float64(d)/1e9 {
			digits++
		}
	}
	if digits < 700_000 { // about 83 % are below 1e15 ns, nearly all of them on it
		t.Errorf("only %d of a million durations took the digit path", digits)
	}
	for _, d := range []time.Duration{0, 1, 9, 10, 999_999_999, time.Second, time.Second + 1, 1e15 - 1, 1e15, 1e15 + 1,
		1<<53 - 1, 1 << 53, 1<<53 + 1, -1, -time.Second, math.MaxInt64, math.MinInt64} {
		check(d)
	}
	for p := time.Duration(1); p < 1e18; p *= 10 {
		check(p - 1)
		check(p)
		check(p + 1)
	}
}

// TestIntervalQuantileFromTheTop: the quantile found from the maximum
// down is the bucket the count from the bottom reaches — the lowest whose
// count and those below reach the rank — for every rank of random
// intervals, and a reset, which stops at the maximum's power of two,
// leaves every count at zero.
func TestIntervalQuantileFromTheTop(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var h intervalHist
	for trial := 0; trial < 300; trial++ {
		n := smallN + 1 + rng.IntN(400)
		scale := math.Pow(10, float64(rng.IntN(12)))
		for range n {
			switch rng.IntN(3) {
			case 0:
				h.record(0)
			default:
				h.record(time.Duration(rng.ExpFloat64() * scale))
			}
		}
		for rank := 1; rank <= n; rank++ {
			q := float64(rank) / float64(n)
			if r := uint64(math.Ceil(q * float64(n))); r != uint64(rank) {
				continue // q does not name this rank exactly in floating point
			}
			var c uint64
			want := h.max
			for i := range h.counts {
				if c += uint64(h.counts[i]); c >= uint64(rank) {
					want = min(histValue(i), h.max)
					break
				}
			}
			if got := h.quantileDur(q); got != want {
				t.Fatalf("trial %d, n=%d, rank %d: %v from the top, %v from the bottom", trial, n, rank, got, want)
			}
		}
		h.reset()
		for i, c := range h.counts {
			if c != 0 {
				t.Fatalf("trial %d: bucket %d holds %d after the reset", trial, i, c)
			}
		}
		if h.coarse != [64]uint32{} {
			t.Fatalf("trial %d: the coarse counts hold %v after the reset", trial, h.coarse)
		}
	}
}
