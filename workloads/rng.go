package workloads

import (
	"hash/fnv"
	"math/rand/v2"
)

// Stream purposes. Each gets an independent generator derived from the
// scenario seed.
const (
	StreamArrivals   = "arrivals"
	StreamService    = "service"
	StreamFailures   = "failures"
	StreamPriorities = "priorities"
	StreamCPU        = "cpu" // the CPU part of a split service law
)

// NewStream returns the seeded source for one purpose. The same seed and
// purpose always give the same sequence, on every machine (PCG is defined
// by math/rand/v2 bit for bit).
func NewStream(seed uint64, purpose string) *rand.PCG {
	h := fnv.New64a()
	h.Write([]byte(purpose))
	return rand.NewPCG(splitmix(seed), splitmix(h.Sum64()^seed))
}

// splitmix is SplitMix64's finaliser: it spreads nearby seeds (1, 2, 3…)
// over the whole state space.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
