package accesslog

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/poolsim/poolsim/internal/inputerr"
)

// FuzzParse feeds arbitrary patterns and logs. Whatever the input: no
// panic; errors are input errors or accesslog errors; Lines = Parsed + Bad
// + Blank; records come in increasing line order with non-negative service
// times; and the two-pass sort returns the same records in arrival order.
func FuzzParse(f *testing.F) {
	for _, s := range samples {
		b, err := os.ReadFile("testdata/" + s.file + ".log")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(s.pattern, uint8(s.opt.DurationUnit), string(b[:min(len(b), 2000)]))
	}
	b, err := os.ReadFile("testdata/bad-lines.log")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(samples[0].pattern, uint8(DMicros), string(b))
	f.Add(`%{yyyy-MM-dd'T'HH:mm:ss.SSSXXX}t %m %U%q "%{User-Agent}i" %{ns}T`, uint8(0), "2024-01-01T00:00:00.000Z GET /a?b \"x\\\"y\" 5\n")
	f.Fuzz(func(t *testing.T, pattern string, unit uint8, log string) {
		opt := Options{Pattern: pattern, DurationUnit: DUnit(unit % 3), MaxBadFraction: 1}
		p, err := Parse(strings.NewReader(log), "f.log", opt)
		if err != nil {
			var ie *inputerr.Error
			if !errors.As(err, &ie) && !strings.HasPrefix(err.Error(), "accesslog: ") {
				t.Fatalf("unexpected error type: %v", err)
			}
			return
		}
		var recs []Record
		for {
			r, ok := p.Next()
			if !ok {
				break
			}
			if r.Service < 0 {
				t.Fatalf("negative service %s", r.Service)
			}
			if len(recs) > 0 && r.Line <= recs[len(recs)-1].Line {
				t.Fatalf("line %d after %d", r.Line, recs[len(recs)-1].Line)
			}
			recs = append(recs, r)
		}
		st := p.Stats()
		if p.Err() == nil && st.Lines != st.Parsed+st.Bad+st.Blank {
			t.Fatalf("stats do not add up: %+v", st)
		}
		if st.Parsed != len(recs) {
			t.Fatalf("%d records, Parsed %d", len(recs), st.Parsed)
		}
		if p.Err() != nil {
			return
		}
		w, _, err := RequiredWindow(strings.NewReader(log), "f.log", opt)
		if err != nil {
			t.Fatalf("second pass failed where the first did not: %v", err)
		}
		p2, _ := Parse(strings.NewReader(log), "f.log", opt)
		s := Sorted(p2, w)
		n := 0
		var last Record
		for {
			r, ok := s.Next()
			if !ok {
				break
			}
			if n > 0 && r.Arrival < last.Arrival {
				t.Fatalf("sorted out of order: %+v after %+v", r, last)
			}
			last = r
			n++
		}
		if s.Err() != nil || n != len(recs) {
			t.Fatalf("sorted %d of %d records: %v", n, len(recs), s.Err())
		}
	})
}
