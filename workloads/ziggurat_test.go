package workloads

import (
	"math/rand/v2"
	"testing"
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
