package sim

import (
	"math"
	"math/bits"
	"slices"
	"time"
)

// intervalHist is a small log-linear histogram of durations for one
// timeline interval: 64 sub-buckets per power of two (relative error below
// 1.6%). Quantiles find their power of two in coarse, the counts by power,
// and resets clear only the powers counted, so both cost in proportion to
// the spread of the interval's values rather than to the histogram's size.
// Whole-run statistics use HDR histograms instead.
//
// A value costs a few increments: a timeline row reads the histogram once
// per interval, in which hundreds of values may have been recorded, so
// what only the reads need (where the counts begin and end) is found when
// reading.
type intervalHist struct {
	// The first smallN values are also kept exactly: quantiles of a small
	// interval are exact order statistics. record writes every value at
	// n mod smallN, without a branch; past smallN values, small is not
	// read.
	small  [smallN]time.Duration
	sorted bool
	counts [64 * 64]uint32
	coarse [64]uint32 // counts per power of two (64 fine buckets each)
	n      uint64
	sum    float64 // nanoseconds
	max    time.Duration
}

const (
	subBits = 6
	smallN  = 16
)

// histIndex is the bucket of d >= 0: d itself below 2^(subBits+1), then
// 64 buckets per power of two, bucket (e+1)·64 + (d>>e) − 64 = e·64 + (d>>e)
// for the power 2^(e+subBits+1) ≤ d. Without a branch: the OR makes the exponent
// 0 below 2^(subBits+1) (hdrIndex does the same).
func histIndex(d time.Duration) int {
	v := uint64(d)
	e := bits.Len64(v|(1<<(subBits+1)-1)) - (subBits + 1) // exponent above the sub-bucket range
	return e<<subBits + int(v>>uint(e))
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

// record adds d (a negative one as 0) to the interval. It inlines where a
// task's wait or response is recorded (hence the branch-free forms).
func (h *intervalHist) record(d time.Duration) {
	d &^= d >> 63 // max(d, 0)
	h.small[h.n%smallN] = d
	i := histIndex(d)
	h.counts[i]++
	h.coarse[i>>subBits]++
	h.n++
	h.sum += float64(d)
	h.max = max(h.max, d)
}

// quantile returns the q-quantile (0 < q <= 1) in seconds, NaN when empty.
func (h *intervalHist) quantile(q float64) float64 {
	if h.n == 0 {
		return math.NaN()
	}
	return h.quantileDur(q).Seconds()
}

// quantileDur is the q-quantile (0 < q <= 1) of a histogram that is not
// empty: an exact order statistic of a small interval, else the midpoint of
// the bucket holding it, never above the maximum.
func (h *intervalHist) quantileDur(q float64) time.Duration {
	rank := uint64(math.Ceil(q * float64(h.n)))
	if rank < 1 {
		rank = 1
	}
	if h.n <= smallN {
		if !h.sorted {
			slices.Sort(h.small[:h.n])
			h.sorted = true
		}
		return h.small[rank-1]
	}
	// Find the power of two holding the rank, then the bucket within it,
	// from the top: the maximum's bucket is the highest counted, and the
	// quantiles asked for (the median and above) are nearer the top. The
	// bucket is the highest whose count and those above it reach the rank
	// from the top, n−rank+1: the lowest whose count and those below reach
	// rank.
	top := h.n - rank + 1
	var c uint64
	last := histIndex(h.max)
	blk := last >> subBits
	for ; blk > 0; blk-- {
		if c+uint64(h.coarse[blk]) >= top {
			break
		}
		c += uint64(h.coarse[blk])
	}
	for i := min(last, (blk+1)<<subBits-1); i >= 0; i-- {
		c += uint64(h.counts[i])
		if c >= top {
			return min(histValue(i), h.max)
		}
	}
	return 0 // not reached: the counts sum to n
}

func (h *intervalHist) mean() float64 {
	if h.n == 0 {
		return math.NaN()
	}
	return h.sum / float64(h.n) / 1e9
}

// reset empties the histogram: the powers of two counted, up to the
// maximum's (record clamps a negative value to 0: no value is above it).
func (h *intervalHist) reset() {
	for b := range histIndex(h.max)>>subBits + 1 {
		if h.coarse[b] != 0 {
			clear(h.counts[b<<subBits : (b+1)<<subBits])
			h.coarse[b] = 0
		}
	}
	h.sorted, h.n, h.sum, h.max = false, 0, 0, 0
}
