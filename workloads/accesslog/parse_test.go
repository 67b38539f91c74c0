package accesslog

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/poolsim/poolsim/internal/inputerr"
)

// one parses a single line and returns its record.
func one(t *testing.T, pattern, line string, opt Options) (Record, *Parser) {
	t.Helper()
	opt.Pattern = pattern
	p, err := Parse(strings.NewReader(line+"\n"), "a.log", opt)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	r, ok := p.Next()
	if !ok {
		t.Fatalf("no record: err %v stats %+v", p.Err(), p.Stats())
	}
	return r, p
}

// Two lines: the first fixes the origin, the second's Arrival is checked.
func second(t *testing.T, pattern, l1, l2 string, opt Options) Record {
	t.Helper()
	opt.Pattern = pattern
	p, err := Parse(strings.NewReader(l1+"\n"+l2+"\n"), "a.log", opt)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if _, ok := p.Next(); !ok {
		t.Fatalf("line 1: %v %+v", p.Err(), p.Stats())
	}
	r, ok := p.Next()
	if !ok {
		t.Fatalf("line 2: %v %+v", p.Err(), p.Stats())
	}
	return r
}

func TestDurationFields(t *testing.T) {
	for _, tc := range []struct {
		name    string
		pattern string
		value   string
		unit    DUnit
		want    time.Duration
		res     time.Duration
	}{
		{"D micros", "%t %D", "1234567", DMicros, 1234567 * time.Microsecond, time.Microsecond},              // Tomcat 10+
		{"D millis", "%t %D", "1234", DMillis, 1234 * time.Millisecond, time.Millisecond},                    // Tomcat 9-
		{"T whole seconds", "%t %T", "3", DUnset, 3 * time.Second, time.Second},                              // Tomcat 10+ %T
		{"T seconds.millis", "%t %T", "3.042", DUnset, 3042 * time.Millisecond, time.Second},                 // Tomcat 9 %T
		{"s T", "%t %{s}T", "2", DUnset, 2 * time.Second, time.Second},                                       // %{s}T = %T
		{"unknown unit T", "%t %{minutes}T", "2", DUnset, 2 * time.Second, time.Second},                      // unknown unit: seconds, as Tomcat
		{"ns", "%t %{ns}T", "1234567891", DUnset, 1234567891, time.Nanosecond},                               // nanoseconds
		{"us", "%t %{us}T", "1500", DUnset, 1500 * time.Microsecond, time.Microsecond},                       // microseconds
		{"ms", "%t %{ms}T", "1500", DUnset, 1500 * time.Millisecond, time.Millisecond},                       // milliseconds
		{"fracsec", "%t %{fracsec}T", "0.007", DUnset, 7 * time.Millisecond, time.Millisecond},               // fractional seconds
		{"finest wins", "%t %T %{us}T", "0 2500", DUnset, 2500 * time.Microsecond, time.Microsecond},         // %{us}T beats %T
		{"explicit beats unset D", "%t %D %{ms}T", "2500 2", DUnset, 2 * time.Millisecond, time.Millisecond}, // no unit needed
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, p := one(t, tc.pattern, "[10/Oct/2000:13:55:36 -0700] "+tc.value, Options{DurationUnit: tc.unit})
			if r.Service != tc.want || p.Resolution().Service != tc.res {
				t.Errorf("service %s res %s, want %s %s", r.Service, p.Resolution().Service, tc.want, tc.res)
			}
		})
	}
}

func TestTimestampFields(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		pattern string
		l1, l2  string
		loc     *time.Location
		want    time.Duration // Arrival of the second line
		res     time.Duration
	}{
		// %t is the end: arrival = end − duration.
		{"clf end", "%t %{ms}T", "[10/Oct/2000:13:55:36 -0700] 0", "[10/Oct/2000:13:55:40 -0700] 1000", nil, 3 * time.Second, time.Second},
		// Offsets are honoured.
		{"clf zones", "%t %{ms}T", "[10/Oct/2000:13:55:36 -0700] 0", "[10/Oct/2000:22:55:36 +0200] 0", nil, 0, time.Second},
		// Across a month boundary.
		{"clf month", "%t %{ms}T", "[31/Jan/2024:23:59:59 +0000] 0", "[01/Feb/2024:00:00:01 +0000] 0", nil, 2 * time.Second, time.Second},
		// begin: is the start itself.
		{"begin clf", "%{begin}t %{ms}T", "[10/Oct/2000:13:55:36 +0000] 500", "[10/Oct/2000:13:55:37 +0000] 9000", nil, time.Second, time.Second},
		// end: explicitly.
		{"end clf", "%{end}t %{ms}T", "[10/Oct/2000:13:55:36 +0000] 0", "[10/Oct/2000:13:55:37 +0000] 500", nil, 500 * time.Millisecond, time.Second},
		// Epoch seconds.
		{"sec", "%{sec}t %{ms}T", "1700000000 0", "1700000005 2000", nil, 3 * time.Second, time.Second},
		// Epoch milliseconds, begin.
		{"begin msec", "%{begin:msec}t %{ms}T", "1700000000000 10", "1700000000250 7000", nil, 250 * time.Millisecond, time.Millisecond},
		// Seconds plus msec_frac make milliseconds.
		{"sec + frac", "%{sec}t.%{msec_frac}t %{ms}T", "1700000000.000 0", "1700000001.042 42", nil, time.Second, time.Millisecond},
		// CLF plus msec_frac.
		{"clf + frac", "%t %{msec_frac}t %{ms}T", "[10/Oct/2000:13:55:36 +0000] 000 0", "[10/Oct/2000:13:55:36 +0000] 250 0", nil, 250 * time.Millisecond, time.Millisecond},
		// SimpleDateFormat with milliseconds and zone.
		{"sdf", "%{yyyy-MM-dd HH:mm:ss.SSS Z}t %{ms}T", "2024-03-01 12:00:00.000 +0100 0", "2024-03-01 12:00:01.500 +0100 0", nil, 1500 * time.Millisecond, time.Millisecond},
		// SimpleDateFormat without zone: Options.Location, across the DST change (02:00 → 03:00 CET→CEST).
		{"sdf dst", "%{yyyy-MM-dd HH:mm:ss}t %{ms}T", "2024-03-31 01:59:59 0", "2024-03-31 03:00:00 0", berlin, time.Second, time.Second},
		// Text months, 12-hour clock, quoted literal, ISO zone.
		{"sdf text", "%{dd MMM yyyy hh:mm:ss a 'at' XXX}t %{ms}T", "01 Mar 2024 11:59:59 AM at +00:00 0", "01 Mar 2024 12:00:00 PM at +00:00 0", nil, time.Second, time.Second},
		// Full month names and days.
		{"sdf long", "%{EEEE, MMMM d, yyyy HH:mm:ss}t %{ms}T", "Friday, March 1, 2024 10:00:00 0", "Friday, March 1, 2024 10:00:10 0", nil, 10 * time.Second, time.Second},
		// Abutting numeric fields are fixed width.
		{"sdf compact", "%{yyyyMMddHHmmssSSS}t %{ms}T", "20240301100000000 0", "20240301100000123 0", nil, 123 * time.Millisecond, time.Millisecond},
		// Unpadded single S (Tomcat writes the bare millisecond number).
		{"sdf S", "%{yyyy-MM-dd HH:mm:ss.S}t %{ms}T", "2024-03-01 10:00:00.0 0", "2024-03-01 10:00:00.7 0", nil, 7 * time.Millisecond, time.Millisecond},
		// A begin msec beats an end CLF for the arrival (finer).
		{"begin beats end", "%t %{begin:msec}t %{ms}T", "[10/Oct/2000:13:55:36 +0000] 971186136000 0", "[10/Oct/2000:13:55:39 +0000] 971186136123 3000", nil, 123 * time.Millisecond, time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := second(t, tc.pattern, tc.l1, tc.l2, Options{Location: tc.loc})
			if r.Arrival != tc.want {
				t.Errorf("arrival %s, want %s", r.Arrival, tc.want)
			}
			_, p := one(t, tc.pattern, tc.l1, Options{Location: tc.loc})
			if p.Resolution().Arrival != tc.res {
				t.Errorf("arrival resolution %s, want %s", p.Resolution().Arrival, tc.res)
			}
		})
	}
}

// Other fields are only matched, but each must accept what Tomcat writes
// and refuse what it cannot write, so that lines split at the right places.
func TestOtherFields(t *testing.T) {
	for _, tc := range []struct {
		name    string
		pattern string
		line    string
		ok      bool
	}{
		{"common", "common", `127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326`, false},                       // no duration: refused at Parse
		{"common+D", `%h %l %u %t "%r" %s %b %D`, `127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326 7`, true}, // classic
		{"bytes dash", `%t %b %D`, `[10/Oct/2000:13:55:36 -0700] - 7`, true},                                                                       // %b writes - for zero
		{"bytes word", `%t %b %D`, `[10/Oct/2000:13:55:36 -0700] lots 7`, false},                                                                   // not a number
		{"status dash", `%t %s %D`, `[10/Oct/2000:13:55:36 -0700] - 7`, true},                                                                      // no response
		{"request dash", `%t "%r" %D`, `[10/Oct/2000:13:55:36 -0700] "-" 7`, true},                                                                 // no request line
		{"request bad", `%t %r %s %D`, `[10/Oct/2000:13:55:36 -0700] GET 200 7`, false},                                                            // not METHOD URI
		{"unquoted request", `%t %r %s %D`, `[10/Oct/2000:13:55:36 -0700] GET /a?b=c HTTP/1.1 200 7`, true},                                        // backtracking over spaces
		{"escaped header", `%t "%{User-Agent}i" %D`, `[10/Oct/2000:13:55:36 -0700] "say \"hi\" \\ bye" 7`, true},                                   // \" inside quotes
		{"escaped ends", `%t "%{X}i" %D`, `[10/Oct/2000:13:55:36 -0700] "ends \" 7`, false},                                                        // an escaped quote cannot close
		{"U q", `%t %m %U%q %D`, `[10/Oct/2000:13:55:36 -0700] GET /a/b?x=1&y=2 7`, true},                                                          // %U%q adjacent
		{"U q empty", `%t %m %U%q %D`, `[10/Oct/2000:13:55:36 -0700] GET /a/b 7`, true},                                                            // empty %q
		{"conn status", `%t %X %D`, `[10/Oct/2000:13:55:36 -0700] + 7`, true},                                                                      // + - X
		{"conn status bad", `%t %X %D`, `[10/Oct/2000:13:55:36 -0700] ok 7`, false},                                                                // not a status
		{"ports", `%t %p %{remote}p %D`, `[10/Oct/2000:13:55:36 -0700] 8080 51234 7`, true},                                                        // local and remote port
		{"unknown code", `%t %Z %D`, `[10/Oct/2000:13:55:36 -0700] ???Z??? 7`, true},                                                               // Tomcat writes ???Z???
		{"unknown named", `%t %{x}Z %D`, `[10/Oct/2000:13:55:36 -0700] ??? 7`, true},                                                               // and ??? with a name
		{"percent", `%t 100%% %D`, `[10/Oct/2000:13:55:36 -0700] 100???%??? 7`, true},                                                              // %% is not an escape in Tomcat
		{"trailing text", `%t %D ms`, `[10/Oct/2000:13:55:36 -0700] 7 ms`, true},                                                                   // literal after the last field
		{"extra text", `%t %D`, `[10/Oct/2000:13:55:36 -0700] 7 extra`, false},                                                                     // more than the pattern
		{"thread", `%t [%I] %D`, `[10/Oct/2000:13:55:36 -0700] [http-nio-8080-exec-12] 7`, true},                                                   // %I thread name
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Parse(strings.NewReader(tc.line+"\n"), "a.log", Options{Pattern: tc.pattern, DurationUnit: DMicros, MaxBadFraction: 1})
			if err != nil {
				if tc.ok {
					t.Fatalf("Parse: %v", err)
				}
				return
			}
			_, ok := p.Next()
			if ok != tc.ok {
				t.Errorf("matched %v, want %v (stats %+v)", ok, tc.ok, p.Stats())
			}
		})
	}
}

func TestPatternErrors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opt     Options
		key     string
		message string
	}{
		{"no duration", Options{Pattern: "common"}, "pattern", "no request duration"},                                      // common has none
		{"D without unit", Options{Pattern: "%t %D"}, "%D", "depends on the Tomcat version"},                               // no silent default
		{"no time", Options{Pattern: `"%r" %D`, DurationUnit: DMicros}, "pattern", "no date and time"},                     // no timestamp
		{"time without date", Options{Pattern: `%{HH:mm:ss}t %D`, DurationUnit: DMicros}, "pattern", "no date and time"},   // not absolute
		{"adjacent", Options{Pattern: `%t %D%T`, DurationUnit: DMicros}, "pattern", "cannot be told apart"},                // %D%T ambiguous
		{"bad sdf letter", Options{Pattern: `%{yyyy-MM-dd Q}t %D`, DurationUnit: DMicros}, "pattern", "pattern letter"},    // Java would throw
		{"SS", Options{Pattern: `%{HH:mm:ss.SS}t %D`, DurationUnit: DMicros}, "pattern", "only S and SSS"},                 // Tomcat repeats the millis
		{"commit without begin", Options{Pattern: `%t %F`, UseCommitTime: true}, "%F", "begin timestamp"},                  // end − %F is not the start
		{"bad fraction", Options{Pattern: `%t %{ms}T`, MaxBadFraction: 2}, "", "MaxBadFraction"},                           // out of range
		{"unterminated quote", Options{Pattern: `%{yyyy 'x}t %D`, DurationUnit: DMicros}, "pattern", "unterminated quote"}, // SimpleDateFormat
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(""), "a.log", tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.message) {
				t.Fatalf("error %v, want one about %q", err, tc.message)
			}
			var ie *inputerr.Error
			if tc.key != "" && (!errors.As(err, &ie) || ie.Key != tc.key) {
				t.Errorf("error %v: want an input error with key %q", err, tc.key)
			}
		})
	}
}

func TestBadLines(t *testing.T) {
	log := strings.Join([]string{
		`[10/Oct/2000:13:55:36 +0000] "GET / HTTP/1.1" 200 15`, // 1 good
		``, // 2 blank
		`[10/Oct/2000:13:55:36 +0000] "GET / HTTP/1.1" 200 fast`, // 3 bad %D
		`garbage`, // 4 bad
		`[10/Oct/2000:13:55:37 +0000] "GET /x HTTP/1.1" 200 20`, // 5 good
		`[10/Oct/2000:13:55:3`,                                         // 6 truncated (killed writer)
		`[31/Feb/2000:13:55:37 +0000] "GET /x HTTP/1.1" 200 20`,        // 7 no such date
		`[10/Oct/2000:13:55:37 +0000] "GET /y HTTP/1.1" 200 25` + "\r", // 8 good, CRLF
	}, "\n") + "\n"
	opt := Options{Pattern: `%t "%r" %s %D`, DurationUnit: DMillis, MaxBadFraction: 0.6, MaxBadExamples: 2}
	p, err := Parse(strings.NewReader(log), "app.log", opt)
	if err != nil {
		t.Fatal(err)
	}
	var lines []int
	for {
		r, ok := p.Next()
		if !ok {
			break
		}
		lines = append(lines, r.Line)
	}
	if p.Err() != nil {
		t.Fatal(p.Err())
	}
	st := p.Stats()
	if st.Lines != 8 || st.Parsed != 3 || st.Bad != 4 || st.Blank != 1 || len(st.BadExamples) != 2 {
		t.Fatalf("stats %+v", st)
	}
	if len(lines) != 3 || lines[0] != 1 || lines[1] != 5 || lines[2] != 8 {
		t.Errorf("records from lines %v", lines)
	}
	first := st.BadExamples[0]
	if first.Line != 3 || first.Key != "%D" || first.Col != 51 || !strings.Contains(first.Error(), "app.log:3:51: %D:") {
		t.Errorf("first bad line reported as %q (line %d col %d key %q)", first.Error(), first.Line, first.Col, first.Key)
	}
	// 5 bad of 8 non-blank lines is more than 60%: an error naming the first.
	p, _ = Parse(strings.NewReader(log+"junk\n"), "app.log", opt)
	for {
		if _, ok := p.Next(); !ok {
			break
		}
	}
	if err := p.Err(); err == nil || !strings.Contains(err.Error(), "5 of 8 lines") || !strings.HasPrefix(err.Error(), "app.log:3:51: %D:") {
		t.Errorf("budget error %v", err)
	}
	// MaxBadFraction 0 refuses any bad line.
	opt.MaxBadFraction = 0
	p, _ = Parse(strings.NewReader(log), "app.log", opt)
	for {
		if _, ok := p.Next(); !ok {
			break
		}
	}
	if p.Err() == nil {
		t.Error("a bad line was tolerated with MaxBadFraction 0")
	}
}

func TestLongLineAndEarlyAbort(t *testing.T) {
	long := `[10/Oct/2000:13:55:36 +0000] ` + strings.Repeat("x", 200) + ` 5`
	good := `[10/Oct/2000:13:55:36 +0000] a 5`
	p, err := Parse(strings.NewReader(good+"\n"+long+"\n"+good), "a.log", Options{Pattern: `%t %U %D`, DurationUnit: DMillis, MaxLineBytes: 100, MaxBadFraction: 1})
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
	if st := p.Stats(); n != 2 || st.Bad != 1 || !strings.Contains(st.BadExamples[0].Msg, "longer than 100") {
		t.Errorf("%d records, stats %+v", n, st)
	}
	// The wrong pattern: stop after 1000 failing lines instead of reading a day of logs.
	lines := strings.Repeat(good+"\n", 5000)
	p, _ = Parse(strings.NewReader(lines), "a.log", Options{Pattern: `%{begin:msec}t %D`, DurationUnit: DMillis})
	for {
		if _, ok := p.Next(); !ok {
			break
		}
	}
	if st := p.Stats(); p.Err() == nil || st.Lines != earlyAbort {
		t.Errorf("stopped after %d lines, err %v", st.Lines, p.Err())
	}
}

func TestCompilePattern(t *testing.T) {
	// Each row: pattern and the sequence of element codes/literals Tomcat's
	// createLogElements would build.
	for _, tc := range []struct{ pattern, want string }{
		{"common", `%h| |%l| |%u| |%t| "|%r|" |%s| |%b`}, // alias
		{"%{User-Agent}i", `%{User-Agent}i`},             // named
		{"%{unclosed", `???{???unclosed`},                // no }: ???{??? then literal
		{"%{x}", `???{???x}`},                            // } is last: same
		{"a%", `a`},                                      // trailing % writes nothing
		{"%Q", `???Q???`},                                // unknown code
		{"%{begin:msec}t%{end:msec_frac}t", `%{begin:msec}t|%{end:msec_frac}t`}, // prefixes
		{"%D%%", `%D|???%???`}, // %% is an unknown code
	} {
		elems, err := compilePattern(tc.pattern)
		if err != nil {
			t.Fatalf("%q: %v", tc.pattern, err)
		}
		var parts []string
		for _, e := range elems {
			if e.kind == kLiteral {
				parts = append(parts, e.literal)
			} else {
				parts = append(parts, e.code)
			}
		}
		if got := strings.Join(parts, "|"); got != tc.want {
			t.Errorf("compile %q = %q, want %q", tc.pattern, got, tc.want)
		}
	}
}

func TestParseDUnit(t *testing.T) {
	for in, want := range map[string]DUnit{"us": DMicros, "tomcat10": DMicros, "MS": DMillis, "tomcat9": DMillis} {
		if got, err := ParseDUnit(in); err != nil || got != want {
			t.Errorf("ParseDUnit(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseDUnit("seconds"); err == nil {
		t.Error("ParseDUnit accepted seconds")
	}
}
