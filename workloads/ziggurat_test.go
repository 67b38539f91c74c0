package workloads

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestExpFloat64MatchesRand: the copied ziggurat draws what math/rand/v2's
// Rand.ExpFloat64 draws from the same stream, value for value and leaving
// the stream in the same place — through the rare paths too (the base
// strip and the wedges take about 1.2% of draws, so 10^6 draws take each
// thousands of times).
func TestExpFloat64MatchesRand(t *testing.T) {
	for _, seed := range []uint64{1, 2, 42} {
		ours, theirs := NewStream(seed, StreamArrivals), rand.New(NewStream(seed, StreamArrivals))
		for i := range 1_000_000 {
			if a, b := expFloat64(ours), theirs.ExpFloat64(); a != b {
				t.Fatalf("seed %d draw %d: expFloat64 %v, rand.ExpFloat64 %v", seed, i, a, b)
			}
		}
		if a, b := ours.Uint64(), theirs.Uint64(); a != b {
			t.Fatalf("seed %d: the streams part after the draws: %x vs %x", seed, a, b)
		}
	}
}

// TestNormFloat64MatchesRand: the copied normal ziggurat draws what
// math/rand/v2's Rand.NormFloat64 draws from the same stream, value for
// value, through its base strip and wedges too (about 1% of draws).
func TestNormFloat64MatchesRand(t *testing.T) {
	for _, seed := range []uint64{1, 2, 42} {
		ours, theirs := NewStream(seed, StreamService), rand.New(NewStream(seed, StreamService))
		for i := range 1_000_000 {
			if a, b := normFloat64(ours), theirs.NormFloat64(); a != b {
				t.Fatalf("seed %d draw %d: normFloat64 %v, rand.NormFloat64 %v", seed, i, a, b)
			}
		}
		if a, b := ours.Uint64(), theirs.Uint64(); a != b {
			t.Fatalf("seed %d: the streams part after the draws: %x vs %x", seed, a, b)
		}
	}
}

// TestLogNormalMatchesGonum: a lognormal service law on a stream draws the
// durations gonum's distuv.LogNormal draws from the same stream.
func TestLogNormalMatchesGonum(t *testing.T) {
	for _, cv := range []float64{0.3, 1, 1.5, 4} {
		spec := ServiceSpec{Dist: "lognormal", Mean: 40 * time.Millisecond, CV: cv}
		d, err := NewDistribution(spec, NewStream(9, StreamService))
		if err != nil {
			t.Fatal(err)
		}
		if d.(*rander).logNormal == nil {
			t.Fatal("a lognormal law on a stream is drawn through gonum")
		}
		ref, err := NewDistribution(spec, rand.Source(struct{ rand.Source }{NewStream(9, StreamService)}))
		if err != nil {
			t.Fatal(err)
		}
		if ref.(*rander).logNormal != nil {
			t.Fatal("the reference is not gonum's")
		}
		for i := range 200_000 {
			if a, b := d.Sample(), ref.Sample(); a != b {
				t.Fatalf("cv %v, draw %d: %v, gonum %v", cv, i, a, b)
			}
		}
	}
}
