package sim

import (
	"math/bits"
	"time"
)

// durHist is the whole run's histogram of wait or response times: the
// geometry of an HDR histogram of nanoseconds from 1 to 1e17 (about three
// years) with 3 significant digits — relative error at most 1/2048 = 0.05 %,
// a zero kept exactly — and HDR's quantile rule, so that its quantiles are
// those of github.com/HdrHistogram/hdrhistogram-go for the same values
// (hdr_test.go checks this against the library). It is specialised to that
// one geometry: recording a value is a few shifts and an increment, inlined
// in the hot path, and it remembers the range of buckets it touched, so a
// reset costs what the run used rather than 384 KB.
//
// Geometry: values below 2048 have their own bucket; above, each power of
// two from 2^11 up is split into 1024 buckets. The flat index of v is
// (k+1)·1024 + (v >> k) − 1024 with k = bits.Len64(v|2047) − 11.
type durHist struct {
	counts [hdrCounts]int64
	total  int64
	lo, hi int // the touched index range; lo > hi when empty
}

const (
	hdrSubBits  = 10              // log2 of the buckets per power of two
	hdrHalf     = 1 << hdrSubBits // 1024
	hdrHighest  = int64(1e17)     // nanoseconds, ~3.2 years; larger values are clamped
	hdrBuckets  = 47              // powers of two above 2^11 needed to cover hdrHighest
	hdrCounts   = (hdrBuckets + 1) * hdrHalf
	hdrMaskBits = hdrSubBits + 1 // values below 2^11 are exact
)

func newDurHist() *durHist { return &durHist{lo: hdrCounts, hi: -1} }

// hdrIndex is the flat counts index of v >= 0.
func hdrIndex(v int64) int {
	k := bits.Len64(uint64(v)|(1<<hdrMaskBits-1)) - hdrMaskBits
	return (k+1)<<hdrSubBits + int(v>>uint(k)) - hdrHalf
}

// record counts d (negative counts as 0, beyond hdrHighest as hdrHighest).
// It inlines where a task's wait or response is recorded.
func (h *durHist) record(d time.Duration) {
	i := hdrIndex(clampHDR(d))
	h.counts[i]++
	h.total++
	if i < h.lo {
		h.lo = i
	}
	if i > h.hi {
		h.hi = i
	}
}

// reset empties the histogram, clearing only what was touched.
func (h *durHist) reset() {
	if h.lo <= h.hi {
		clear(h.counts[h.lo : h.hi+1])
	}
	h.total, h.lo, h.hi = 0, hdrCounts, -1
}

// bucketOf splits a flat index into its power of two k and sub-bucket s:
// the bucket holds the values s<<k … (s+1)<<k − 1.
func bucketOf(i int) (k uint, s int64) {
	b := i>>hdrSubBits - 1
	s = int64(i&(hdrHalf-1) + hdrHalf)
	if b < 0 {
		return 0, s - hdrHalf
	}
	return uint(b), s
}

// valueAtPercentile is HDR's ValueAtPercentile: the highest value
// equivalent to the one at rank ⌊p/100·total + 0.5⌋ (at least 1, at most
// total) — the lowest equivalent one for p = 0 — and 0 when empty.
func (h *durHist) valueAtPercentile(p float64) int64 {
	var v [1]int64
	h.valuesAtPercentiles([]float64{p}, v[:])
	return v[0]
}

// valuesAtPercentiles sets out[j] to valueAtPercentile(ps[j]), ps in
// ascending order, in one pass over the counts: the ranks ascend with the
// percentiles, so each search goes on from where the last one stopped.
func (h *durHist) valuesAtPercentiles(ps []float64, out []int64) {
	i, c := h.lo, int64(0) // counts[lo..i] sum to c
	if i <= h.hi {
		c = h.counts[i]
	}
	for j, p := range ps {
		out[j] = 0
		if h.total == 0 {
			continue
		}
		p = min(max(p, 0), 100)
		rank := p/100*float64(h.total) + 0.5
		var want int64
		switch {
		case !(rank >= 1):
			want = 1
		case rank >= float64(h.total):
			want = h.total
		default:
			want = int64(rank)
		}
		for c < want && i < h.hi {
			i++
			c += h.counts[i]
		}
		if c >= want {
			k, s := bucketOf(i)
			if p == 0 {
				out[j] = s << k
			} else {
				out[j] = (s+1)<<k - 1
			}
		}
	}
}

func clampHDR(d time.Duration) int64 {
	if uint64(d) <= uint64(hdrHighest) { // the common case, one comparison
		return int64(d)
	}
	if d < 0 {
		return 0
	}
	return hdrHighest
}
