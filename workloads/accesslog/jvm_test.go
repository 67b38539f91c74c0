package accesslog

import (
	"strings"
	"testing"
	"time"
)

// TestAgainstTomcatValve is the differential test: Tomcat's own
// AccessLogValve (libtomcat10-java 10.1.52) writes the log for 400 known
// requests, in completion order with write-order noise, and the parser must
// read back every service time and arrival within its stated resolution.
// Each row is a pattern style found in real deployments.
func TestAgainstTomcatValve(t *testing.T) {
	cp := needTomcat(t)
	reqs := genRequests(7, 400, 40, 2*time.Millisecond)
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		pattern string
		opt     Options
	}{
		// common + %D: arrival = CLF end second − %D (µs in Tomcat 10).
		{"common+D", `%h %l %u %t "%r" %s %b %D`, Options{DurationUnit: DMicros}},
		// combined with an escaped User-Agent (quotes and backslashes) and %T.
		{"combined+T", `%h %l %u %t "%r" %s %b "%{Referer}i" "%{User-Agent}i" %T`, Options{}},
		// Spring Boot users' "(%D ms)" label on Tomcat 10: the unit is µs regardless.
		{"spring label", `%t %a "%r" %s (%D ms)`, Options{DurationUnit: DMicros}},
		// Begin timestamp in ms and explicit units: no %D unit needed.
		{"begin msec", `%{begin:msec}t %a "%r" %s %{ms}T`, Options{}},
		// Nanoseconds and the end time in seconds plus msec_frac.
		{"ns + frac", `%{end:sec}t.%{end:msec_frac}t %{ns}T %m %U%q %s`, Options{}},
		// A SimpleDateFormat with milliseconds and zone, at the start.
		{"sdf begin", `[%{begin:yyyy-MM-dd'T'HH:mm:ss.SSSZ}t] "%r" %s %b %{us}T %I`, Options{}},
		// A SimpleDateFormat without zone: Options.Location says Berlin.
		{"sdf no zone", `%{yyyy-MM-dd HH:mm:ss}t %h "%r" %{fracsec}T`, Options{Location: berlin}},
		// Unquoted request line (backtracking) and both %D and %T (cross-checked).
		{"unquoted r", `%t %a %r %s (%D) %T`, Options{DurationUnit: DMicros}},
		// Commit time as the service time, when explicitly allowed; arrivals from the begin time.
		{"commit", `%h %{begin:msec}t "%r" %s %F`, Options{UseCommitTime: true, MaxBadFraction: 0.05}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := tomcatLog(t, cp, tc.pattern, "Europe/Berlin", reqs)
			opt := tc.opt
			opt.Pattern = tc.pattern
			truth := reqs
			if opt.UseCommitTime {
				// Uncommitted responses log "-" for %F: bad lines, counted.
				st := checkAgainstTruth(t, tc.name, log, opt, truth)
				want := 0
				for _, r := range reqs {
					if r.commit < 0 {
						want++
					}
				}
				if st.Bad != want || st.Parsed != len(reqs)-want {
					t.Errorf("stats %+v, want %d bad", st, want)
				}
				return
			}
			st := checkAgainstTruth(t, tc.name, log, opt, truth)
			if st.Parsed != len(reqs) || st.Bad != 0 {
				t.Errorf("stats %+v; first bad: %v", st, st.BadExamples)
			}
		})
	}
	// The wrong %D unit is detected when %T is also logged.
	t.Run("wrong unit detected", func(t *testing.T) {
		pattern := `%t "%r" %s %D %T`
		log := tomcatLog(t, cp, pattern, "UTC", reqs)
		p, err := Parse(strings.NewReader(log), "wrong.log", Options{Pattern: pattern, DurationUnit: DMillis})
		if err != nil {
			t.Fatal(err)
		}
		for {
			if _, ok := p.Next(); !ok {
				break
			}
		}
		if p.Err() == nil || !strings.Contains(p.Err().Error(), "DurationUnit") {
			t.Errorf("wrong %%D unit not detected: %v", p.Err())
		}
	})
}

// TestSortedAgainstTomcatValve: Tomcat writes in completion order; the
// two-pass sorter must give the arrival order of the truth exactly where
// the log's resolution can tell requests apart.
func TestSortedAgainstTomcatValve(t *testing.T) {
	cp := needTomcat(t)
	reqs := genRequests(11, 600, 60, time.Millisecond)
	pattern := `%{begin:msec}t "%r" %s %{us}T`
	log := tomcatLog(t, cp, pattern, "UTC", reqs)
	w, st, err := RequiredWindow(strings.NewReader(log), "l", Options{Pattern: pattern})
	if err != nil || st.Parsed != len(reqs) {
		t.Fatalf("window %s stats %+v err %v", w, st, err)
	}
	p, err := Parse(strings.NewReader(log), "l", Options{Pattern: pattern})
	if err != nil {
		t.Fatal(err)
	}
	s := Sorted(p, w)
	var prev Record
	n := 0
	for {
		r, ok := s.Next()
		if !ok {
			break
		}
		if n > 0 && r.Arrival < prev.Arrival {
			t.Fatalf("line %d at %s after line %d at %s", r.Line, r.Arrival, prev.Line, prev.Arrival)
		}
		// The truth's start, truncated to the log's millisecond, orders the same way.
		if n > 0 && reqs[r.Line-1].start/1e6 < reqs[prev.Line-1].start/1e6 {
			t.Fatalf("truth disagrees at line %d", r.Line)
		}
		prev = r
		n++
	}
	if s.Err() != nil || n != len(reqs) {
		t.Fatalf("%d records, err %v", n, s.Err())
	}
}
