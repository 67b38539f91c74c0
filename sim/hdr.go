package sim

import (
	"encoding/binary"
	"math"
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
// in the hot path; what only the reads need, where the counts begin and
// end, is found when reading.
//
// Geometry: values below 2048 have their own bucket; above, each power of
// two from 2^11 up is split into 1024 buckets. The flat index of v is
// (k+1)·1024 + (v >> k) − 1024 with k = bits.Len64(v|2047) − 11.
//
// The counts are 8 bits wide, so that the buckets a run's values fall in
// stay in the cache: a run spans some ten powers of two, 80 KB of int64
// counters but 10 KB of bytes, and the increment was the hottest
// instruction of the event loop (an L1 miss for half the values of the
// example M/M/8 run). A bucket's multiples of 2^8 are kept apart, in wraps,
// touched once every 256 values of the bucket: its count is
// wraps[i]·2^8 + counts[i].
//
// record does not clamp: a value beyond hdrHighest, or below 0, falls in
// an index of its own past hdrCounts (hdrIndex of its 64 bits, unsigned),
// and normalize moves those counts to the bucket the value is clamped to
// before the quantiles are read. Every index of 64 bits is below 2^16,
// the arrays' length, so that record needs no bounds check either.
type durHist struct {
	counts  [1 << 16]uint8
	wraps   [1 << 16]uint64
	total   int64
	wrapped uint64 // bit b: a bucket among the 1024 from b·1024 (a power of two) has wrapped
	// The reads' view, found by the first read (normalize, span) and kept
	// while no value is recorded: a run's summary reads each histogram
	// several times, and each finding scans the 64 KB of counts. read is
	// the total it was found at (-1: none).
	read           int64
	readLo, readHi int
}

const (
	hdrSubBits  = 10              // log2 of the buckets per power of two
	hdrHalf     = 1 << hdrSubBits // 1024
	hdrHighest  = int64(1e17)     // nanoseconds, ~3.2 years; larger values are clamped
	hdrBuckets  = 47              // powers of two above 2^11 needed to cover hdrHighest
	hdrCounts   = (hdrBuckets + 1) * hdrHalf
	hdrMaskBits = hdrSubBits + 1 // values below 2^11 are exact
)

func newDurHist() *durHist { return &durHist{read: -1} }

// hdrIndex is the flat counts index of v >= 0: below hdrCounts up to
// hdrHighest, below 2^16 for any v taken as unsigned.
func hdrIndex(v int64) int {
	k := bits.Len64(uint64(v)|(1<<hdrMaskBits-1)) - hdrMaskBits
	return (k+1)<<hdrSubBits + int(uint64(v)>>uint(k)) - hdrHalf
}

// Where record counts the values it does not clamp: those beyond
// hdrHighest fall from hdrIndex(hdrHighest)+1 up to hdrNegative, the
// negative ones (above 2^63 unsigned) from there on, below hdrLimit.
var (
	hdrTop      = hdrIndex(hdrHighest)
	hdrNegative = hdrIndex(math.MinInt64)
	hdrLimit    = hdrIndex(-1) + 1 // a multiple of 8: bytes are scanned 8 at a time
)

// normalize moves the counts of the values record did not clamp to the
// buckets they are clamped to: 0 for the negative ones, hdrHighest's for
// those beyond. It changes no quantile: the histogram is the one of the
// clamped values either way.
func (h *durHist) normalize() {
	for i := hdrTop + 1; i < hdrLimit; i++ {
		if i%8 == 0 && binary.LittleEndian.Uint64(h.counts[i:]) == 0 && h.wrapped>>(i>>hdrSubBits)&1 == 0 {
			i += 7 // eight empty buckets (the common case: all of them)
			continue
		}
		c := h.count(i)
		if c == 0 {
			continue
		}
		h.counts[i], h.wraps[i] = 0, 0
		to := hdrTop
		if i >= hdrNegative {
			to = 0
		}
		c += h.count(to)
		h.counts[to], h.wraps[to] = uint8(c), uint64(c>>8)
		if c > math.MaxUint8 {
			h.wrapped |= 1 << (to >> hdrSubBits)
		}
	}
}

// record counts d (negative counts as 0, beyond hdrHighest as hdrHighest,
// once normalized). It inlines where a task's wait or response is recorded.
func (h *durHist) record(d time.Duration) {
	i := hdrIndex(int64(d)) & (len(h.counts) - 1) // the mask changes no index
	h.counts[i]++
	if h.counts[i] == 0 { // it wrapped
		h.wraps[i]++
		h.wrapped |= 1 << (i >> hdrSubBits)
	}
	h.total++
}

// count is bucket i's count.
func (h *durHist) count(i int) int64 {
	return int64(h.wraps[i])<<8 | int64(h.counts[i])
}

// reset empties the histogram: the counts (64 KB), and the wraps of the
// powers of two where a bucket wrapped.
func (h *durHist) reset() {
	clear(h.counts[:])
	for u := h.wrapped; u != 0; u &= u - 1 {
		b := bits.TrailingZeros64(u) << hdrSubBits
		clear(h.wraps[b : b+hdrHalf])
	}
	h.total, h.wrapped, h.read = 0, 0, -1
}

// span is the range of the buckets counted: lo > hi when empty.
func (h *durHist) span() (lo, hi int) {
	lo, hi = hdrLimit, -1
	for w := 0; w < hdrLimit; w += 8 {
		if x := binary.LittleEndian.Uint64(h.counts[w:]); x != 0 {
			lo = min(lo, w+bits.TrailingZeros64(x)/8)
			hi = max(hi, w+7-bits.LeadingZeros64(x)/8)
		}
	}
	for u := h.wrapped; u != 0; u &= u - 1 { // a count of 256·k has a zero byte
		b := bits.TrailingZeros64(u) << hdrSubBits
		for i := b; i < b+hdrHalf; i++ {
			if h.wraps[i] != 0 {
				lo, hi = min(lo, i), max(hi, i)
			}
		}
	}
	return lo, hi
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
	if h.read != h.total { // values were recorded since the last read
		h.normalize()
		h.readLo, h.readHi = h.span()
		h.read = h.total
	}
	lo, hi := h.readLo, h.readHi
	i, c := lo, int64(0) // counts[lo..i] sum to c
	if i <= hi {
		c = h.count(i)
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
		for c < want && i < hi {
			i++
			c += h.count(i)
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
