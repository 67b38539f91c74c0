package importconf

import (
	"errors"
	"fmt"
	"math"
	"net"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/poolsim/poolsim/internal/lazyre"
)

// javaInt parses like java.lang.Integer.valueOf(String), which Tomcat's
// IntrospectionUtils.setProperty uses for int attributes: an optional sign,
// decimal digits, no spaces, within the int range.
func javaInt(s string) (int, error) {
	if s == "" {
		return 0, errors.New("empty")
	}
	digits := s
	if digits[0] == '+' || digits[0] == '-' {
		digits = digits[1:]
	}
	if digits == "" {
		return 0, errors.New("no digits")
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, errors.New("not a decimal integer")
		}
	}
	v, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return 0, errors.New("out of the int range")
	}
	return int(v), nil
}

// javaBool is java.lang.Boolean.valueOf(String): "true" in any case is true,
// anything else false. Tomcat uses it for boolean attributes, so it never
// fails.
func javaBool(s string) bool { return strings.EqualFold(s, "true") }

// springInt parses like Spring's StringToNumberConverterFactory
// (NumberUtils.parseNumber): all whitespace removed, then a hexadecimal
// "0x…", "0X…" or "#…" (optionally negative) through Integer.decode, else
// Integer.valueOf.
func springInt(s string) (int, error) {
	t := strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\t', '\n', '\r', '\f', '\v':
			return -1
		}
		return r
	}, s)
	if t == "" {
		return 0, errors.New("empty")
	}
	body, neg := t, false
	if strings.HasPrefix(body, "-") {
		body, neg = body[1:], true
	}
	var hex string
	switch {
	case strings.HasPrefix(body, "0x"), strings.HasPrefix(body, "0X"):
		hex = body[2:]
	case strings.HasPrefix(body, "#"):
		hex = body[1:]
	default:
		return javaInt(t)
	}
	if hex == "" {
		return 0, errors.New("no hexadecimal digits")
	}
	for i := 0; i < len(hex); i++ {
		c := hex[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return 0, errors.New("not a hexadecimal integer")
		}
	}
	v, err := strconv.ParseInt(hex, 16, 64)
	if err != nil {
		return 0, errors.New("out of the int range")
	}
	if neg {
		v = -v
	}
	if v < math.MinInt32 || v > math.MaxInt32 {
		return 0, errors.New("out of the int range")
	}
	return int(v), nil
}

// springBool is Spring's StringToBooleanConverter: true/on/yes/1 and
// false/off/no/0, ignoring case and surrounding spaces.
func springBool(s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "on", "yes", "1":
		return true, nil
	case "false", "off", "no", "0":
		return false, nil
	}
	return false, errors.New("not a boolean")
}

var (
	simpleDuration = lazyre.New(`^([+-]?\d+)([a-zA-Z]{0,2})$`)
	isoDuration    = lazyre.New(`(?i)^([-+]?)P(?:([-+]?[0-9]+)D)?(T(?:([-+]?[0-9]+)H)?(?:([-+]?[0-9]+)M)?(?:([-+]?[0-9]+)(?:[.,]([0-9]{0,9}))?S)?)?$`)
)

// springDuration parses like Spring Boot's DurationStyle.detectAndParse:
// "10s", "500ms", "2m" (units ns, us, ms, s, m, h, d in any case), a plain
// number in the property's default unit (milliseconds unless the property
// says otherwise with @DurationUnit), or ISO-8601 as java.time.Duration.parse
// reads it ("PT1M", "P1D", "PT0.5S").
func springDuration(s string, plainUnit time.Duration) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if m := simpleDuration.FindStringSubmatch(s); m != nil {
		n, err := strconv.ParseInt(m[1], 10, 64)
		if err != nil {
			return 0, errors.New("number out of range")
		}
		unit := plainUnit
		if m[2] != "" {
			switch strings.ToLower(m[2]) {
			case "ns":
				unit = time.Nanosecond
			case "us":
				unit = time.Microsecond
			case "ms":
				unit = time.Millisecond
			case "s":
				unit = time.Second
			case "m":
				unit = time.Minute
			case "h":
				unit = time.Hour
			case "d":
				unit = 24 * time.Hour
			default:
				return 0, errors.New("unknown unit " + strconv.Quote(m[2]))
			}
		}
		return mulDuration(n, unit)
	}
	if len(s) > 0 && (s[0] == 'P' || s[0] == 'p' || len(s) > 1 && (s[0] == '+' || s[0] == '-') && (s[1] == 'P' || s[1] == 'p')) {
		return isoParse(s)
	}
	return 0, errors.New("not a duration")
}

// isoParse mirrors java.time.Duration.parse.
func isoParse(s string) (time.Duration, error) {
	m := isoDuration.FindStringSubmatch(s)
	if m == nil || (m[2] == "" && m[3] == "") || strings.EqualFold(m[3], "T") {
		return 0, errors.New("not an ISO-8601 duration")
	}
	var total time.Duration
	add := func(num string, unit time.Duration) error {
		if num == "" {
			return nil
		}
		n, err := strconv.ParseInt(num, 10, 64)
		if err != nil {
			return errors.New("number out of range")
		}
		d, err := mulDuration(n, unit)
		if err != nil {
			return err
		}
		if (d > 0 && total > math.MaxInt64-d) || (d < 0 && total < math.MinInt64-d) {
			return errors.New("duration out of range")
		}
		total += d
		return nil
	}
	for _, p := range []struct {
		num  string
		unit time.Duration
	}{{m[2], 24 * time.Hour}, {m[4], time.Hour}, {m[5], time.Minute}, {m[6], time.Second}} {
		if err := add(p.num, p.unit); err != nil {
			return 0, err
		}
	}
	if m[7] != "" {
		frac := (m[7] + "000000000")[:9]
		n, _ := strconv.ParseInt(frac, 10, 64)
		if strings.HasPrefix(m[6], "-") {
			n = -n
		}
		total += time.Duration(n)
	}
	if m[1] == "-" {
		total = -total
	}
	return total, nil
}

func mulDuration(n int64, unit time.Duration) (time.Duration, error) {
	if n != 0 && (n > math.MaxInt64/int64(unit) || n < math.MinInt64/int64(unit)) {
		return 0, errors.New("duration out of range")
	}
	return time.Duration(n) * unit, nil
}

// parseVersion reads "10.1.52", "9.0", "3.3.0-M1" into three numbers; missing
// parts are 0. ok is false when the string does not start with a number.
func parseVersion(s string) (v [3]int, ok bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return v, false
	}
	for i := 0; i < 3 && s != ""; i++ {
		j := 0
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == 0 {
			return v, i > 0
		}
		n, err := strconv.Atoi(s[:j])
		if err != nil {
			return v, false
		}
		v[i] = n
		s = s[j:]
		if !strings.HasPrefix(s, ".") {
			return v, true
		}
		s = s[1:]
	}
	return v, true
}

// versionAtLeast reports whether v >= w.
func versionAtLeast(v, w [3]int) bool {
	for i := range v {
		if v[i] != w[i] {
			return v[i] > w[i]
		}
	}
	return true
}

// formatInt prints an int the way the documentation does: Integer.MAX_VALUE
// by name.
func formatInt(n int) string {
	if n == Unbounded {
		return "Integer.MAX_VALUE"
	}
	return strconv.Itoa(n)
}

// clipLen bounds how much of a user's value an error message repeats.
const clipLen = 60

// clip shortens s to clipLen characters for messages.
func clip(s string) string {
	if utf8.RuneCountInString(s) <= clipLen {
		return s
	}
	return string([]rune(s)[:clipLen]) + "…"
}

// quote is strconv.Quote of clip(s).
func quote(s string) string { return strconv.Quote(clip(s)) }

// javaHostAddress is what InetAddress.getByName(s).getHostAddress() prints
// for an IP literal: IPv4 dotted, IPv4-mapped IPv6 as IPv4, other IPv6 as
// eight lower-case hex groups without zero compression (plus %scope). A
// host name would be resolved by Tomcat; it is kept as written, with a note.
func javaHostAddress(s string) (string, string) {
	host, zone := s, ""
	if i := strings.IndexByte(s, '%'); i >= 0 {
		host, zone = s[:i], s[i:]
	}
	h := strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	ip := net.ParseIP(h)
	if ip == nil {
		return s, fmt.Sprintf("address %q is a host name: Tomcat resolves it and puts the IP address in the connector and thread names", s)
	}
	if v4 := ip.To4(); v4 != nil {
		return v4.String(), ""
	}
	var b strings.Builder
	for i := 0; i < 16; i += 2 {
		if i > 0 {
			b.WriteByte(':')
		}
		b.WriteString(strconv.FormatUint(uint64(ip[i])<<8|uint64(ip[i+1]), 16))
	}
	return b.String() + zone, ""
}
