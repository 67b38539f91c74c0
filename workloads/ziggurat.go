package workloads

import (
	"math"
	"math/rand/v2"
)

// Exponential and normal variates by Marsaglia and Tsang's ziggurat ("The
// Ziggurat Method for Generating Random Variables", J. Stat. Software 5(8),
// 2000), drawn so that each value equals what rand.New(src).ExpFloat64()
// and NormFloat64() return for the same stream — the same words of the
// stream consumed in the same order, the same tables (built below from the
// paper's construction, and equal to math/rand/v2's bit for bit) — while
// calling (*rand.PCG).Uint64 directly instead of through rand.Rand's
// Source interface: the hot path of every Poisson arrival and exponential
// or lognormal service time. TestExpFloat64MatchesRand and
// TestNormFloat64MatchesRand hold the equality draw for draw.

// The rightmost edges of the two ziggurats (the paper's r) and the area
// of each of their layers (v).
const (
	zigRe = 7.69711747013104972
	zigVe = 3.949659822581572e-3
	zigRn = 3.442619855899
	zigVn = 9.91256303526217e-3
)

// The layers: k, the integer threshold under which a point is inside;
// w, the scale from the random integer to x; f, the density at the layer's
// edge. 256 layers for the exponential, 128 for the normal.
var (
	zigKe        [256]uint32
	zigWe, zigFe [256]float32
	zigKn        [128]uint32
	zigWn, zigFn [128]float32
)

func init() {
	// The exponential, on 32-bit integers (the paper's setup for REXP).
	const m2 = 1 << 32
	d, prev := zigRe, zigRe
	q := zigVe / math.Exp(-d)
	zigKe[0], zigWe[0], zigFe[0] = uint32(d/q*m2), float32(q/m2), 1
	zigWe[255], zigFe[255] = float32(d/m2), float32(math.Exp(-d))
	for i := 254; i >= 1; i-- {
		d = -math.Log(zigVe/d + math.Exp(-d))
		zigKe[i+1] = uint32(d / prev * m2)
		prev = d
		zigFe[i], zigWe[i] = float32(math.Exp(-d)), float32(d/m2)
	}
	// The normal, on 31-bit magnitudes (RNOR).
	const m1 = 1 << 31
	d, prev = zigRn, zigRn
	q = zigVn / math.Exp(-.5*d*d)
	zigKn[0], zigWn[0], zigFn[0] = uint32(d/q*m1), float32(q/m1), 1
	zigWn[127], zigFn[127] = float32(d/m1), float32(math.Exp(-.5*d*d))
	for i := 126; i >= 1; i-- {
		d = math.Sqrt(-2 * math.Log(zigVn/d+math.Exp(-.5*d*d)))
		zigKn[i+1] = uint32(d / prev * m1)
		prev = d
		zigFn[i], zigWn[i] = float32(math.Exp(-.5*d*d)), float32(d/m1)
	}
}

// expFloat64 is an exponential variate of rate 1 from src: one word picks
// a layer (its bits 32–39) and a point in it (its low 32 bits); inside the
// layer's rectangle — about 99% of draws — the point is the value.
func expFloat64(src *rand.PCG) float64 {
	for {
		x, layer, ok := expTry(src.Uint64())
		if ok {
			return x
		}
		if x, ok := expTail(src, layer, x); ok {
			return x
		}
	}
}

// expTry is expFloat64's first step on the word u: its layer, its point
// x, and whether x is inside the layer's rectangle (then x is the value).
// A loop that draws many variates calls it (it inlines, where expFloat64
// does not without a profile saying the call is hot) and expRetry when
// it is not inside.
func expTry(u uint64) (x float64, layer uint8, ok bool) {
	j, layer := uint32(u), uint8(u>>32)
	return float64(j) * float64(zigWe[layer]), layer, j < zigKe[layer]
}

// expRetry finishes an expFloat64 whose first word expTry did not accept:
// the tail or the wedge test, then, if that rejects too, expFloat64 again.
//
//go:noinline
func expRetry(src *rand.PCG, layer uint8, x float64) float64 {
	if x, ok := expTail(src, layer, x); ok {
		return x
	}
	return expFloat64(src)
}

// expTail is the rare path, out of line so that expFloat64 inlines: the
// base layer's tail beyond r, or the wedge test under the density.
//
//go:noinline
func expTail(src *rand.PCG, layer uint8, x float64) (float64, bool) {
	if layer == 0 {
		return zigRe - math.Log(pcgFloat64(src)), true
	}
	return x, zigFe[layer]+float32(pcgFloat64(src))*(zigFe[layer-1]-zigFe[layer]) < float32(math.Exp(-x))
}

// normFloat64 is a standard normal variate from src: the low 32 bits are a
// signed point, bits 32–38 the layer.
func normFloat64(src *rand.PCG) float64 {
	for {
		x, j, layer, ok := normTry(src.Uint64())
		if ok {
			return x
		}
		if x, ok := normTail(src, j, layer, x); ok {
			return x
		}
	}
}

// normTry is normFloat64's first step on the word u, as expTry is
// expFloat64's.
func normTry(u uint64) (x float64, j int32, layer uint64, ok bool) {
	j, layer = int32(u), u>>32&0x7F
	return float64(j) * float64(zigWn[layer]), j, layer, magnitude(j) < zigKn[layer]
}

// normRetry finishes a normFloat64 whose first word normTry did not
// accept, as expRetry does.
//
//go:noinline
func normRetry(src *rand.PCG, j int32, layer uint64, x float64) float64 {
	if x, ok := normTail(src, j, layer, x); ok {
		return x
	}
	return normFloat64(src)
}

// normTail is normFloat64's rare path: Marsaglia's tail method beyond r
// for the base layer, else the wedge test.
//
//go:noinline
func normTail(src *rand.PCG, j int32, layer uint64, x float64) (float64, bool) {
	if layer != 0 {
		return x, zigFn[layer]+float32(pcgFloat64(src))*(zigFn[layer-1]-zigFn[layer]) < float32(math.Exp(-.5*x*x))
	}
	for {
		x = -math.Log(pcgFloat64(src)) * (1 / zigRn) // the reciprocal, as rand does: the same rounding
		if y := -math.Log(pcgFloat64(src)); y+y >= x*x {
			break
		}
	}
	if j > 0 {
		return zigRn + x, true
	}
	return -zigRn - x, true
}

// magnitude is |j| as an unsigned number (|MinInt32| included).
func magnitude(j int32) uint32 {
	if j < 0 {
		return uint32(-j)
	}
	return uint32(j)
}

// pcgFloat64 is a uniform variate in [0, 1) from src's next word, as
// rand.Rand's Float64 makes it: its low 53 bits over 2^53.
func pcgFloat64(src *rand.PCG) float64 { return float64(src.Uint64()<<11>>11) / (1 << 53) }
