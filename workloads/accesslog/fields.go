package accesslog

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// This file reads the values of the fields a Record is built from back
// into times: duration fields, the CLF timestamp, sec/msec and
// SimpleDateFormat timestamps, and Tomcat's escaping.

// parseDuration reads a duration field.
func parseDuration(e element, v string, unit DUnit) (time.Duration, error) {
	scale := time.Second
	switch e.dur {
	case duNanos:
		scale = time.Nanosecond
	case duMicros:
		scale = time.Microsecond
	case duMillis:
		scale = time.Millisecond
	case duD:
		scale = time.Millisecond
		if unit == DMicros {
			scale = time.Microsecond
		}
	}
	intPart, frac, hasFrac := strings.Cut(v, ".")
	if !isDigits(intPart) || (hasFrac && (!isDigits(frac) || scale != time.Second)) {
		return 0, fmt.Errorf("%q is not a %s duration", clip(v), e.code)
	}
	n, err := strconv.ParseInt(intPart, 10, 64)
	if err != nil || n > math.MaxInt64/int64(scale) {
		return 0, fmt.Errorf("%q is too large for a %s duration", clip(v), e.code)
	}
	d := time.Duration(n) * scale
	if hasFrac {
		// Tomcat 9 wrote %T as seconds.millis; %{fracsec}T does so too.
		if len(frac) > 9 {
			frac = frac[:9]
		}
		f, _ := strconv.ParseInt((frac + "000000000")[:9], 10, 64)
		d += time.Duration(f)
	}
	return d, nil
}

// clfMonths maps CLF month abbreviations (Locale.US).
var clfMonths = map[string]time.Month{"Jan": 1, "Feb": 2, "Mar": 3, "Apr": 4, "May": 5, "Jun": 6, "Jul": 7, "Aug": 8, "Sep": 9, "Oct": 10, "Nov": 11, "Dec": 12}

// zoneCache holds the fixed zones of CLF offsets seen, so that parsing a
// line does not allocate one.
type zoneCache map[int]*time.Location

// get returns the fixed zone of offset off seconds east of UTC.
func (z zoneCache) get(off int) *time.Location {
	if l, ok := z[off]; ok {
		return l
	}
	l := time.FixedZone("", off)
	if len(z) < 64 {
		z[off] = l
	}
	return l
}

// parseCLF reads "[10/Oct/2000:13:55:36 -0700]".
func parseCLF(v string, zones zoneCache) (time.Time, error) {
	if len(v) != 28 || v[0] != '[' || v[27] != ']' || v[3] != '/' || v[7] != '/' || v[12] != ':' || v[15] != ':' || v[18] != ':' || v[21] != ' ' {
		return time.Time{}, badCLF(v)
	}
	num := func(s string) int {
		n := 0
		for i := 0; i < len(s); i++ {
			if s[i] < '0' || s[i] > '9' {
				return -1
			}
			n = n*10 + int(s[i]-'0')
		}
		return n
	}
	day, year, hour, minute, sec := num(v[1:3]), num(v[8:12]), num(v[13:15]), num(v[16:18]), num(v[19:21])
	month, ok := clfMonths[v[4:7]]
	oh, om := num(v[23:25]), num(v[25:27])
	if !ok || day < 1 || day > 31 || year < 0 || hour < 0 || hour > 23 || minute < 0 || minute > 59 || sec < 0 || sec > 60 || oh < 0 || om < 0 || (v[22] != '+' && v[22] != '-') {
		return time.Time{}, badCLF(v)
	}
	off := (oh*60 + om) * 60
	if v[22] == '-' {
		off = -off
	}
	t := time.Date(year, month, day, hour, minute, sec, 0, zones.get(off))
	if t.Day() != day {
		return time.Time{}, badCLF(v)
	}
	return t, nil
}

// badCLF is the error of a value that is not a CLF timestamp.
func badCLF(v string) error {
	return fmt.Errorf("%q is not a [dd/MMM/yyyy:HH:mm:ss Z] timestamp", clip(v))
}

// parseTime reads an absolute timestamp field (not msec_frac).
func (p *Parser) parseTime(e element, v string) (time.Time, error) {
	switch e.tt {
	case ttCLF:
		return parseCLF(v, p.zones)
	case ttSec, ttMsec:
		if !isDigits(v) || len(v) > 16 {
			return time.Time{}, fmt.Errorf("%q is not a number for %s", clip(v), e.code)
		}
		n, _ := strconv.ParseInt(v, 10, 64)
		if e.tt == ttSec {
			return time.Unix(n, 0), nil
		}
		return time.UnixMilli(n), nil
	}
	if e.escaped {
		v = unescape(v)
	}
	t, err := e.sdf.parse(v, p.opt.Location)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s: %v", e.code, err)
	}
	return t, nil
}

// unescape reverses escapeAndAppend for a field that was escaped.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if i+4 < len(s) {
				if n, err := strconv.ParseUint(s[i+1:i+5], 16, 16); err == nil {
					b.WriteRune(rune(n))
					i += 4
					continue
				}
			}
			b.WriteString(`\u`)
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}
