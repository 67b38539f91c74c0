package accesslog

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// sdfItem is one piece of a compiled java.text.SimpleDateFormat pattern: a
// run of one pattern letter, or literal text.
type sdfItem struct {
	letter  byte // 0 for literal text
	count   int
	literal string
}

// sdfFormat is a compiled SimpleDateFormat pattern that can read back what
// Tomcat wrote with it (English locale).
type sdfFormat struct {
	items    []sdfItem
	hasDate  bool // year, month and day are all present: the time is absolute
	hasMilli bool
	hasZone  bool
}

// sdfLetters are SimpleDateFormat's pattern letters.
const sdfLetters = "GyYMLwWDdFEuaHkKhmsSzZX"

// compileSDF compiles a SimpleDateFormat pattern as Tomcat uses it in
// %{format}t. Milliseconds: Tomcat replaces each 'S' by its own digits
// (DateAndTimeElement.tidyFormat): "SSS" is the zero-padded milliseconds,
// "S" the unpadded number; other runs of S print oddly and are refused.
func compileSDF(p string) (*sdfFormat, error) {
	f := &sdfFormat{}
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			f.items = append(f.items, sdfItem{literal: lit.String()})
			lit.Reset()
		}
	}
	var y, m, d bool
	for i := 0; i < len(p); {
		c := p[i]
		switch {
		case c == '\'':
			// Quoted text; '' is a quote.
			if i+1 < len(p) && p[i+1] == '\'' {
				lit.WriteByte('\'')
				i += 2
				continue
			}
			j := i + 1
			for j < len(p) {
				if p[j] == '\'' {
					if j+1 < len(p) && p[j+1] == '\'' {
						lit.WriteByte('\'')
						j += 2
						continue
					}
					break
				}
				lit.WriteByte(p[j])
				j++
			}
			if j >= len(p) {
				return nil, errors.New("unterminated quote in date format")
			}
			i = j + 1
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			if strings.IndexByte(sdfLetters, c) < 0 {
				return nil, fmt.Errorf("%q is not a SimpleDateFormat pattern letter (Java would throw IllegalArgumentException)", c)
			}
			j := i
			for j < len(p) && p[j] == c {
				j++
			}
			n := j - i
			flush()
			switch c {
			case 'S':
				if n != 1 && n != 3 {
					return nil, fmt.Errorf("%q: Tomcat prints a run of %d S as the milliseconds repeated; only S and SSS can be read back", p[i:j], n)
				}
				f.hasMilli = true
			case 'y', 'Y', 'u':
				if c != 'u' {
					y = true
				}
			case 'M', 'L':
				m = true
			case 'd':
				d = true
			case 'z', 'Z', 'X':
				f.hasZone = true
			}
			f.items = append(f.items, sdfItem{letter: c, count: n})
			i = j
		default:
			lit.WriteByte(c)
			i++
		}
	}
	flush()
	f.hasDate = y && m && d
	return f, nil
}

var (
	monthsLong  = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	monthsShort = []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
	daysLong    = []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
	daysShort   = []string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}
)

// numeric reports whether an item is printed as a number.
func (it sdfItem) numeric() bool {
	switch it.letter {
	case 0, 'G', 'E', 'a', 'z', 'Z', 'X':
		return false
	case 'M', 'L':
		return it.count <= 2
	}
	return true
}

// matchText finds which of names s starts with (ignoring case, longest
// first), returning its index and length.
func matchText(s string, names ...[]string) (int, int) {
	best, bestLen := -1, 0
	for _, list := range names {
		for i, n := range list {
			if len(n) > bestLen && len(s) >= len(n) && strings.EqualFold(s[:len(n)], n) {
				best, bestLen = i, len(n)
			}
		}
	}
	return best, bestLen
}

// parse reads s, which must be exactly what the format printed. It returns
// the time and whether it carries milliseconds.
func (f *sdfFormat) parse(s string, loc *time.Location) (time.Time, error) {
	year, month, day := 1970, 1, 1
	hour, minute, sec, milli := 0, 0, 0, 0
	pm, hasAMPM, hour12 := false, false, false
	zone := loc
	pos := 0
	for k, it := range f.items {
		rest := s[pos:]
		if it.letter == 0 {
			if !strings.HasPrefix(rest, it.literal) {
				return time.Time{}, fmt.Errorf("expected %q at %q", it.literal, clip(rest))
			}
			pos += len(it.literal)
			continue
		}
		if it.numeric() {
			// Abutting numeric fields have fixed widths (SimpleDateFormat
			// parse rule); otherwise read all digits.
			width := 0
			if k+1 < len(f.items) && f.items[k+1].numeric() {
				width = it.count
			}
			if it.letter == 'S' && it.count == 3 {
				width = 3
			}
			n, used, err := readInt(rest, width)
			if err != nil {
				return time.Time{}, fmt.Errorf("%s: %v", strings.Repeat(string(it.letter), it.count), err)
			}
			pos += used
			switch it.letter {
			case 'y', 'Y':
				if it.count == 2 && used == 2 {
					n += 2000
				}
				year = n
			case 'M', 'L':
				month = n
			case 'd':
				day = n
			case 'H':
				hour = n
			case 'k':
				hour = n % 24
			case 'K':
				hour, hour12 = n, true
			case 'h':
				hour, hour12 = n%12, true
			case 'm':
				minute = n
			case 's':
				sec = n
			case 'S':
				milli = n
			}
			continue
		}
		switch it.letter {
		case 'M', 'L':
			i, n := matchText(rest, monthsLong, monthsShort)
			if i < 0 {
				return time.Time{}, fmt.Errorf("no English month name at %q", clip(rest))
			}
			month, pos = i+1, pos+n
		case 'E':
			i, n := matchText(rest, daysLong, daysShort)
			if i < 0 {
				return time.Time{}, fmt.Errorf("no English day name at %q", clip(rest))
			}
			pos += n
		case 'a':
			i, n := matchText(rest, []string{"AM", "PM"})
			if i < 0 {
				return time.Time{}, fmt.Errorf("no AM/PM at %q", clip(rest))
			}
			pm, hasAMPM, pos = i == 1, true, pos+n
		case 'G':
			i, n := matchText(rest, []string{"AD", "BC"})
			if i != 0 {
				return time.Time{}, fmt.Errorf("no era AD at %q", clip(rest))
			}
			pos += n
		case 'Z', 'X':
			z, n, err := readOffset(rest, it.letter, it.count)
			if err != nil {
				return time.Time{}, err
			}
			zone, pos = z, pos+n
		case 'z':
			z, n := readZoneName(rest, loc)
			zone, pos = z, pos+n
		}
	}
	if pos != len(s) {
		return time.Time{}, fmt.Errorf("unexpected %q after the timestamp", clip(s[pos:]))
	}
	if hour12 && hasAMPM && pm {
		hour += 12
	}
	if month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || sec > 60 || milli > 999 {
		return time.Time{}, errors.New("field out of range")
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, milli*int(time.Millisecond), zone)
	if t.Day() != day {
		return time.Time{}, errors.New("no such day in that month")
	}
	return t, nil
}

// readInt reads an optionally signed decimal; width > 0 reads exactly that
// many digits.
func readInt(s string, width int) (n, used int, err error) {
	i := 0
	neg := false
	if width == 0 && i < len(s) && s[i] == '-' {
		neg, i = true, 1
	}
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' && (width == 0 || i-start < width) && i-start < 10 {
		n = n*10 + int(s[i]-'0')
		i++
	}
	if i == start || (width > 0 && i-start != width) {
		return 0, 0, fmt.Errorf("expected %s digits at %q", digitsWord(width), clip(s))
	}
	if neg {
		n = -n
	}
	return n, i, nil
}

func digitsWord(w int) string {
	if w == 0 {
		return "some"
	}
	return fmt.Sprint(w)
}

// readOffset reads an RFC 822 (Z: +0200) or ISO 8601 (X: Z, +02, +0200,
// +02:00) zone offset.
func readOffset(s string, letter byte, count int) (*time.Location, int, error) {
	if letter == 'X' && strings.HasPrefix(s, "Z") {
		return time.UTC, 1, nil
	}
	if len(s) < 3 || (s[0] != '+' && s[0] != '-') {
		return nil, 0, fmt.Errorf("no zone offset at %q", clip(s))
	}
	digits := func(a string) (int, bool) {
		if len(a) != 2 || a[0] < '0' || a[0] > '9' || a[1] < '0' || a[1] > '9' {
			return 0, false
		}
		return int(a[0]-'0')*10 + int(a[1]-'0'), true
	}
	h, ok := digits(s[1:3])
	if !ok {
		return nil, 0, fmt.Errorf("no zone offset at %q", clip(s))
	}
	n, m := 3, 0
	switch {
	case letter == 'X' && count == 1:
	case letter == 'X' && count >= 3:
		if len(s) < 6 || s[3] != ':' {
			return nil, 0, fmt.Errorf("no zone offset ±hh:mm at %q", clip(s))
		}
		if m, ok = digits(s[4:6]); !ok {
			return nil, 0, fmt.Errorf("no zone offset ±hh:mm at %q", clip(s))
		}
		n = 6
	default:
		if len(s) < 5 {
			return nil, 0, fmt.Errorf("no zone offset ±hhmm at %q", clip(s))
		}
		if m, ok = digits(s[3:5]); !ok {
			return nil, 0, fmt.Errorf("no zone offset ±hhmm at %q", clip(s))
		}
		n = 5
	}
	off := (h*60 + m) * 60
	if s[0] == '-' {
		off = -off
	}
	return time.FixedZone("", off), n, nil
}

// readZoneName reads a general time zone as SimpleDateFormat prints it:
// "GMT+02:00" style offsets are exact; abbreviations such as "CET" are
// ambiguous, so they are skipped and the caller's location is used.
func readZoneName(s string, loc *time.Location) (*time.Location, int) {
	if strings.HasPrefix(s, "GMT") && len(s) >= 9 && (s[3] == '+' || s[3] == '-') && s[6] == ':' {
		if z, n, err := readOffset(s[3:], 'X', 3); err == nil {
			return z, 3 + n
		}
	}
	n := 0
	for n < len(s) && (s[n] >= 'A' && s[n] <= 'Z' || s[n] >= 'a' && s[n] <= 'z') {
		n++
	}
	switch s[:n] {
	case "GMT", "UTC", "Z":
		return time.UTC, n
	}
	return loc, n
}

// clip shortens text for messages.
func clip(s string) string {
	const max = 40
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}
