package accesslog

import (
	"strings"
	"testing"
	"time"
)

// A line that can be split in very many ways costs work proportional to
// its length, not combinatorial: each of these lines must be refused (or
// read) quickly. The bound is generous: a quadratic or exponential matcher
// takes minutes on them.
func TestHostileLinesStayLinear(t *testing.T) {
	for _, tc := range []struct {
		name, pattern, line string
	}{
		{"many text fields", `%h %h %h %h %h %h %h %h %h %h %t %D`, strings.Repeat("a ", 100000)},
		{"escaped fields", `"%{a}i" "%{b}i" "%{c}i" "%{d}i" %t %D`, strings.Repeat(`"x" `, 50000)},
		{"unquoted requests", `%r %r %r %r %t %D`, strings.Repeat("GET / ", 50000)},
		{"query", `%U%q %U%q %U%q %t %D`, strings.Repeat("/a?b ", 50000)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			p, err := Parse(strings.NewReader(tc.line+"\n"), "h.log", Options{Pattern: tc.pattern, DurationUnit: DMicros, MaxBadFraction: 1})
			if err != nil {
				t.Fatal(err)
			}
			for {
				if _, ok := p.Next(); !ok {
					break
				}
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("%d-byte line took %s", len(tc.line), d)
			}
			if st := p.Stats(); st.Bad != 1 {
				t.Errorf("stats %+v", st)
			}
		})
	}
}
