package sim

import (
	"math"
	"math/bits"
	"slices"
	"time"
)

// intervalHist is a small log-linear histogram of durations for one
// timeline interval: 64 sub-buckets per power of two (relative error below
// 1.6%), and it remembers which buckets it touched, so quantiles and resets
// cost in proportion to the spread of the interval's values rather than to
// the histogram's size. Whole-run statistics use HDR histograms instead.
type intervalHist struct {
	// The first smallN values are kept exactly: quantiles of a small
	// interval are exact order statistics. Beyond that the histogram counts.
	small   [smallN]time.Duration
	sorted  bool
	counts  [64 * 64]uint32
	coarse  [64]uint32 // counts per power of two (64 fine buckets each)
	lo, hi  int
	n       uint64
	sum     float64 // nanoseconds
	max     time.Duration
	touched bool
}

const (
	subBits = 6
	smallN  = 16
)

// histIndex is the bucket of d >= 0: d itself below 2^(subBits+1), then
// 64 buckets per power of two, bucket (e+1)·64 + (d>>e) − 64 for the
// power 2^(e+subBits+1) ≤ d. Without a branch: the OR makes the exponent
// 0 below 2^(subBits+1) (hdrIndex does the same).
func histIndex(d time.Duration) int {
	v := uint64(d)
	e := bits.Len64(v|(1<<(subBits+1)-1)) - (subBits + 1) // exponent above the sub-bucket range
	return (e+1)<<subBits + int(v>>uint(e)) - 1<<subBits
}

// histValue is the midpoint of bucket i.
func histValue(i int) time.Duration {
	if i < 1<<subBits {
		return time.Duration(i)
	}
	e := i>>subBits - 1
	m := uint64(i&(1<<subBits-1)) | 1<<subBits
	return time.Duration(m<<uint(e) + (1<<uint(e))/2)
}

func (h *intervalHist) record(d time.Duration) {
	d = max(d, 0)
	if h.n >= smallN {
		if h.n == smallN {
			// The interval's smallN+1st value: the exactly kept values
			// move into the counts; from then on it counts. Written out
			// here, not called, so that record needs no stack frame.
			i := histIndex(h.small[0])
			h.lo, h.hi, h.touched = i, i, true
			for _, v := range &h.small {
				h.count(v)
			}
		}
		h.count(d)
	} else {
		h.small[h.n] = d
	}
	h.n++
	h.sum += float64(d)
	if d > h.max {
		h.max = d
	}
}

// count adds d to its bucket; the range [lo, hi] is set (record).
func (h *intervalHist) count(d time.Duration) {
	i := histIndex(d)
	if i < h.lo {
		h.lo = i
	} else if i > h.hi {
		h.hi = i
	}
	// histIndex is below 58·64 (d < 2^63): the masks change no index and
	// spare record its bounds checks, and so its stack frame.
	h.counts[i&(len(h.counts)-1)]++
	h.coarse[i>>subBits&(len(h.coarse)-1)]++
}

// quantile returns the q-quantile (0 < q <= 1) in seconds, NaN when empty.
func (h *intervalHist) quantile(q float64) float64 {
	if h.n == 0 {
		return math.NaN()
	}
	rank := uint64(math.Ceil(q * float64(h.n)))
	if rank < 1 {
		rank = 1
	}
	if h.n <= smallN {
		if !h.sorted {
			slices.Sort(h.small[:h.n])
			h.sorted = true
		}
		return h.small[rank-1].Seconds()
	}
	// Find the power of two holding the rank, then the bucket within it.
	var c uint64
	blk := h.lo >> subBits
	for ; blk < h.hi>>subBits; blk++ {
		if c+uint64(h.coarse[blk]) >= rank {
			break
		}
		c += uint64(h.coarse[blk])
	}
	for i := max(h.lo, blk<<subBits); i <= h.hi; i++ {
		c += uint64(h.counts[i])
		if c >= rank {
			v := histValue(i)
			if v > h.max {
				v = h.max
			}
			return v.Seconds()
		}
	}
	return h.max.Seconds()
}

func (h *intervalHist) mean() float64 {
	if h.n == 0 {
		return math.NaN()
	}
	return h.sum / float64(h.n) / 1e9
}

func (h *intervalHist) reset() {
	if h.touched {
		clear(h.counts[h.lo : h.hi+1])
		clear(h.coarse[h.lo>>subBits : h.hi>>subBits+1])
	}
	h.touched, h.sorted, h.n, h.sum, h.max = false, false, 0, 0, 0
}
