package accesslog

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// sample is a committed log with the requests that produced it.
type sample struct {
	file    string // under testdata, without extension: .log and .truth
	pattern string
	opt     Options
	tomcat  bool // written by Tomcat 10.1.52's AccessLogValve (GenAccessLog)
	seed    uint64
}

var samples = []sample{
	// Tomcat 10.1: %D in microseconds, arrival = CLF end − %D.
	{"tomcat10-common-D", `%h %l %u %t "%r" %s %b %D`, Options{DurationUnit: DMicros}, true, 101},
	// Spring Boot 3 (embedded Tomcat 10.1), server.tomcat.accesslog.pattern with %D and %T.
	{"springboot-D-T", `%h %l %u %t "%r" %s %b %D %T`, Options{DurationUnit: DMicros}, true, 102},
	// Begin time in milliseconds and an explicit-unit duration.
	{"begin-msec-ms", `%{begin:msec}t %a "%r" %s %b %{ms}T "%{User-Agent}i"`, Options{}, true, 103},
	// Tomcat 9: %D in milliseconds and %T as seconds.millis, written by
	// tomcat9Line (Tomcat 9 is not installed here; its ElapsedTimeElement
	// writes time in ms for %D and s.mmm for %T).
	{"tomcat9-common-D-T", `%h %l %u %t "%r" %s %b %D %T`, Options{DurationUnit: DMillis}, false, 104},
}

// tomcat9Line formats a request as Tomcat 9's valve does for the pattern
// `%h %l %u %t "%r" %s %b %D %T`: the CLF time of the request's end (local
// zone UTC here), %D in whole milliseconds, %T as seconds.millis.
func tomcat9Line(r request) string {
	end := time.Unix(0, r.end()).UTC()
	ms := r.elapsed / 1e6
	b := "-"
	if r.bytes > 0 {
		b = fmt.Sprint(r.bytes)
	}
	return fmt.Sprintf(`%s - - [%s] "%s %s HTTP/1.1" %d %s %d %d.%03d`, r.addr, end.Format("02/Jan/2006:15:04:05 -0700"),
		r.method, r.uri, r.status, b, ms, ms/1000, ms%1000)
}

func writeTruth(t *testing.T, path string, reqs []request) {
	var b strings.Builder
	b.WriteString("# startEpochNanos elapsedNanos commitNanos status bytes method uri remoteAddr userAgent; line i describes log line i\n")
	for _, r := range reqs {
		b.WriteString(r.spec())
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSamples reads every committed sample log and checks each record
// against its truth file; with -regen it first rewrites them.
func TestSamples(t *testing.T) {
	for _, s := range samples {
		t.Run(s.file, func(t *testing.T) {
			logPath, truthPath := "testdata/"+s.file+".log", "testdata/"+s.file+".truth"
			if *regen {
				reqs := genRequests(s.seed, 300, 30, 2*time.Millisecond)
				var log string
				if s.tomcat {
					log = tomcatLog(t, needTomcat(t), s.pattern, "Europe/Berlin", reqs)
				} else {
					var b strings.Builder
					for _, r := range reqs {
						b.WriteString(tomcat9Line(r))
						b.WriteByte('\n')
					}
					log = b.String()
				}
				if err := os.WriteFile(logPath, []byte(log), 0o644); err != nil {
					t.Fatal(err)
				}
				writeTruth(t, truthPath, reqs)
			}
			b, err := os.ReadFile(logPath)
			if err != nil {
				t.Fatal(err)
			}
			truth := readRequests(t, truthPath)
			opt := s.opt
			opt.Pattern = s.pattern
			st := checkAgainstTruth(t, s.file, string(b), opt, truth)
			if st.Parsed != len(truth) || st.Bad != 0 {
				t.Errorf("stats %+v", st)
			}
		})
	}
}

// TestSamplesAreTomcatOutput re-runs Tomcat's valve on the truth files and
// compares with the committed logs byte for byte: the samples are what
// Tomcat 10.1 writes, not what poolsim thinks it writes.
func TestSamplesAreTomcatOutput(t *testing.T) {
	cp := needTomcat(t)
	for _, s := range samples {
		if !s.tomcat {
			continue
		}
		truth := readRequests(t, "testdata/"+s.file+".truth")
		want, err := os.ReadFile("testdata/" + s.file + ".log")
		if err != nil {
			t.Fatal(err)
		}
		if got := tomcatLog(t, cp, s.pattern, "Europe/Berlin", truth); got != string(want) {
			t.Errorf("%s: Tomcat's valve writes something else now (another libtomcat10-java version?)", s.file)
		}
	}
}

// TestSampleOutOfOrder: the samples are in completion order, so arrivals
// come out of order from Parse and in order from OpenSorted, which must
// return every request exactly once.
func TestSampleOutOfOrder(t *testing.T) {
	s := samples[0]
	opt := s.opt
	opt.Pattern = s.pattern
	f, err := os.Open("testdata/" + s.file + ".log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := Parse(f, s.file, opt)
	if err != nil {
		t.Fatal(err)
	}
	inversions := 0
	var prev Record
	for n := 0; ; n++ {
		r, ok := p.Next()
		if !ok {
			break
		}
		if n > 0 && r.Arrival < prev.Arrival {
			inversions++
		}
		prev = r
	}
	if inversions == 0 {
		t.Fatalf("sample has no out-of-order arrivals: it tests nothing")
	}
	sorted, err := OpenSorted("testdata/"+s.file+".log", opt)
	if err != nil {
		t.Fatal(err)
	}
	defer sorted.Close()
	seen := map[int]bool{}
	var last Record
	for n := 0; ; n++ {
		r, ok := sorted.Next()
		if !ok {
			break
		}
		if n == 0 && r.Arrival != 0 {
			t.Errorf("first sorted arrival %s, want 0", r.Arrival)
		}
		if n > 0 && (r.Arrival < last.Arrival || (r.Arrival == last.Arrival && r.Line < last.Line)) {
			t.Fatalf("line %d (%s) after line %d (%s)", r.Line, r.Arrival, last.Line, last.Arrival)
		}
		if seen[r.Line] {
			t.Fatalf("line %d twice", r.Line)
		}
		seen[r.Line] = true
		last = r
	}
	if sorted.Err() != nil || len(seen) != 300 {
		t.Fatalf("%d records, err %v", len(seen), sorted.Err())
	}
	t.Logf("%d inversions in file order; the sorter held at most %d of 300 records", inversions, sorted.MaxHeld())
}

// TestBadLinesSample: the hand-damaged sample (testdata/README.md) gives
// 18 records, 3 bad lines at 5, 15 and 19, and 1 blank line.
func TestBadLinesSample(t *testing.T) {
	b, err := os.ReadFile("testdata/bad-lines.log")
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Pattern: samples[0].pattern, DurationUnit: DMicros, MaxBadFraction: 0.2}
	p, err := Parse(strings.NewReader(string(b)), "bad-lines.log", opt)
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, ok := p.Next(); !ok {
			break
		}
	}
	st := p.Stats()
	var lines []int
	for _, e := range st.BadExamples {
		lines = append(lines, e.Line)
	}
	if p.Err() != nil || st.Lines != 22 || st.Parsed != 18 || st.Bad != 3 || st.Blank != 1 || fmt.Sprint(lines) != "[5 15 19]" {
		t.Errorf("err %v stats %+v bad lines %v", p.Err(), st, lines)
	}
	for _, e := range st.BadExamples {
		t.Logf("%s", &e)
	}
}

// TestTomcat9SampleWrongUnit: reading Tomcat 9's milliseconds as
// microseconds is caught by the %T cross-check on the first line.
func TestTomcat9SampleWrongUnit(t *testing.T) {
	b, err := os.ReadFile("testdata/tomcat9-common-D-T.log")
	if err != nil {
		t.Fatal(err)
	}
	p, err := Parse(strings.NewReader(string(b)), "t9.log", Options{Pattern: samples[3].pattern, DurationUnit: DMicros})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		if _, ok := p.Next(); !ok {
			break
		}
		n++
	}
	if n != 0 || p.Err() == nil || !strings.Contains(p.Err().Error(), "t9.log:1: DurationUnit:") {
		t.Errorf("%d records, err %v", n, p.Err())
	}
}
