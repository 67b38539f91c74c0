package scenarios

import (
	"regexp"
	"testing"
)

// rateRE is the expression splitRate is written from: how rates were
// parsed before (issue 19).
var rateRE = regexp.MustCompile(`^\s*([0-9.eE+-]+)\s*(?:/\s*(s|sec|second|m|min|minute|h|hour))?\s*$`)

// TestSplitRateIsTheRegexp checks splitRate against rateRE on every string
// of up to four characters from an alphabet of the expression's own
// characters (its spacing, \v which \s does not match, number characters,
// the slash, unit letters, one other letter and a non-ASCII byte), and on
// the forms scenarios and sweeps write.
func TestSplitRateIsTheRegexp(t *testing.T) {
	alphabet := []byte(" \t\v\n1.e+/smhcx\xc3")
	cases := []string{
		"64/s", "64", "1e3/min", " 2.5 / hour ", "1/sec", "1/second", "1/minute", "3/h", "\t7\n",
		"1/min", "1/hour", "1/hours", "1/se", "1/secx", "1/mi n", "1/ min ", "1/", "/s", "1/ss", "1/S", "1/ms", "1 2/s", "1/s/s", "-1/s", "1e/s", "+/m", "1/s x", "1/\vs", "", " ",
	}
	var gen func(prefix []byte, n int)
	gen = func(prefix []byte, n int) {
		cases = append(cases, string(prefix))
		if n == 0 {
			return
		}
		for _, c := range alphabet {
			gen(append(prefix, c), n-1)
		}
	}
	gen(nil, 4)
	for _, s := range cases {
		num, unit, ok := splitRate(s)
		m := rateRE.FindStringSubmatch(s)
		if ok != (m != nil) || ok && (num != m[1] || unit != m[2]) {
			t.Fatalf("splitRate(%q) = %q, %q, %v; the expression gives %q", s, num, unit, ok, m)
		}
	}
}
