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

func histIndex(d time.Duration) int {
	v := uint64(d)
	if v < 1<<subBits {
		return int(v)
	}
	e := bits.Len64(v) - 1 - subBits // exponent above the sub-bucket range
	return (e+1)<<subBits | int((v>>uint(e))&(1<<subBits-1))
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
			h.spill()
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

// spill moves the exactly kept values into the counts, when the interval's
// smallN+1st value comes: from then on it counts. Kept out of line so that
// count, on every task's path, inlines into record.
//
//go:noinline
func (h *intervalHist) spill() {
	i := histIndex(h.small[0])
	h.lo, h.hi, h.touched = i, i, true
	for _, v := range h.small {
		h.count(v)
	}
}

// count adds d to its bucket; the range [lo, hi] is set (spill).
func (h *intervalHist) count(d time.Duration) {
	i := histIndex(d)
	if i < h.lo {
		h.lo = i
	} else if i > h.hi {
		h.hi = i
	}
	h.counts[i]++
	h.coarse[i>>subBits]++
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
