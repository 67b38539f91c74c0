package sim

import (
	"math"
	"math/bits"
	"time"
)

// intervalHist is a small log-linear histogram of durations for one
// timeline interval: 64 sub-buckets per power of two (relative error below
// 1.6%), and it remembers which buckets it touched, so quantiles and resets
// cost in proportion to the spread of the interval's values rather than to
// the histogram's size. Whole-run statistics use HDR histograms instead.
type intervalHist struct {
	counts  [64 * 64]uint32
	lo, hi  int
	n       uint64
	sum     float64 // seconds
	max     time.Duration
	touched bool
}

const subBits = 6

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
	if d < 0 {
		d = 0
	}
	i := histIndex(d)
	if !h.touched {
		h.lo, h.hi, h.touched = i, i, true
	} else if i < h.lo {
		h.lo = i
	} else if i > h.hi {
		h.hi = i
	}
	h.counts[i]++
	h.n++
	h.sum += d.Seconds()
	if d > h.max {
		h.max = d
	}
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
	var c uint64
	for i := h.lo; i <= h.hi; i++ {
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
	return h.sum / float64(h.n)
}

func (h *intervalHist) reset() {
	if h.touched {
		clear(h.counts[h.lo : h.hi+1])
	}
	h.touched, h.n, h.sum, h.max = false, 0, 0, 0
}
