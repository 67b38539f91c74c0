package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Seconds formats a time in seconds for a reader: "0", "850 µs", "243 ms",
// "1.25 s", "39 min 48 s", "2 h 5 min"; "n/a" when undefined (NaN).
// Below two minutes it keeps three significant digits; above, whole
// seconds (minutes above two hours).
func Seconds(x float64) string {
	switch {
	case math.IsNaN(x):
		return "n/a"
	case math.IsInf(x, 0):
		return "∞"
	case x == 0:
		return "0"
	case x < 0:
		return "−" + Seconds(-x)
	case x < 1e-3:
		return sig(x*1e6, 3) + " µs"
	case x < 1:
		return sig(x*1e3, 3) + " ms"
	case x < 120:
		return sig(x, 3) + " s"
	}
	d := time.Duration(math.Round(x)) * time.Second
	h, m, s := int(d/time.Hour), int(d%time.Hour/time.Minute), int(d%time.Minute/time.Second)
	switch {
	case h == 0 && s == 0:
		return fmt.Sprintf("%d min", m)
	case h == 0:
		return fmt.Sprintf("%d min %d s", m, s)
	case h >= 2 || m == 0:
		m = int(math.Round(float64(d%time.Hour) / float64(time.Minute)))
		if m == 60 {
			h, m = h+1, 0
		}
		if m == 0 {
			return fmt.Sprintf("%d h", h)
		}
		return fmt.Sprintf("%d h %d min", h, m)
	}
	return fmt.Sprintf("%d h %d min %d s", h, m, s)
}

// Count formats a whole number with thousands separators: 912,154.
func Count(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "−" + b.String()
	}
	return b.String()
}

// Number formats a mean or a ratio for a reader: whole numbers with
// separators, others with three significant digits (0.0123, 19.9, 120;
// two below 0.01: 0.0083); "n/a" when undefined.
func Number(x float64) string {
	switch {
	case math.IsNaN(x):
		return "n/a"
	case math.IsInf(x, 0):
		return "∞"
	case x == math.Trunc(x) && math.Abs(x) < 1e15:
		return Count(int64(x))
	case math.Abs(x) >= 1000:
		return Count(int64(math.Round(x)))
	case math.Abs(x) >= 0.01:
		return sig(x, 3)
	}
	return sig(x, 2)
}

// Percent formats a fraction (0.25) as a percentage ("25 %").
func Percent(x float64) string {
	if math.IsNaN(x) {
		return "n/a"
	}
	return Number(100*x) + " %"
}

// Bytes formats a byte count in KiB, MiB or GiB.
func Bytes(n float64) string {
	switch {
	case math.IsNaN(n):
		return "n/a"
	case n < 1<<10:
		return Number(n) + " B"
	case n < 1<<20:
		return sig(n/(1<<10), 3) + " KiB"
	case n < 1<<30:
		return sig(n/(1<<20), 3) + " MiB"
	}
	return sig(n/(1<<30), 3) + " GiB"
}

// sig prints x with n significant digits, without exponent or trailing
// zeros (n ≤ 4 keeps numbers from 1e-4 to 1e4 readable).
func sig(x float64, n int) string {
	if x == 0 {
		return "0"
	}
	digits := n - 1 - int(math.Floor(math.Log10(math.Abs(x))))
	if digits < 0 {
		p := math.Pow(10, float64(-digits))
		return strconv.FormatFloat(math.Round(x/p)*p, 'f', 0, 64)
	}
	s := strconv.FormatFloat(x, 'f', digits, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}
