package sweep

import (
	"strings"
	"testing"

	"github.com/poolsim/poolsim/internal/inputerr"
	"github.com/poolsim/poolsim/scenarios"
)

func texts(p Param) string {
	out := make([]string, len(p.Values))
	for i, v := range p.Values {
		out[i] = v.Text
	}
	return strings.Join(out, ",")
}

func canons(p Param) string {
	out := make([]string, len(p.Values))
	for i, v := range p.Values {
		out[i] = v.Canon
	}
	return strings.Join(out, ",")
}

func TestParseParamExpansion(t *testing.T) {
	tests := []struct {
		flag   string
		key    string
		kind   Kind
		texts  string
		canons string // "" = same as texts
		note   string // substring of the note; "" = no note
	}{
		// A list of integers, in the order written.
		{"pool.max=8,16,32", "pool.max", Integer, "8,16,32", "", ""},
		// A linear range of an integer key: exact here (step 90).
		{"pool.max=10:1000:12", "pool.max", Integer, "10,100,190,280,370,460,550,640,730,820,910,1000", "", ""},
		// The log range: rounded to integers, and the note says so.
		{"pool.max=10:1000:12:log", "pool.max", Integer, "10,15,23,35,53,81,123,187,285,433,658,1000", "", "rounded to integers: 12 values"},
		// More points than integers: rounded, duplicates dropped, counted.
		{"pool.max=1:5:12", "pool.max", Integer, "1,2,3,4,5", "", "7 duplicate values dropped"},
		// Ranges may run downwards; the order is kept.
		{"pool.max=100:10:4", "pool.max", Integer, "100,70,40,10", "", ""},
		// Integer keys accept unbounded (Integer.MAX_VALUE) in lists.
		{"pool.max=50,unbounded", "pool.max", Integer, "50,unbounded", "", ""},
		// Underscores in integers, as the scenario loader reads them.
		{"pool.queue.capacity=1_000,2_000", "pool.queue.capacity", Integer, "1_000,2_000", "1000,2000", ""},
		// Durations keep their units; canonical values are seconds.
		{"pool.keepAlive=10s,30s,1m", "pool.keepAlive", Duration, "10s,30s,1m", "10,30,60", ""},
		// A linear duration range in seconds; ends as written.
		{"pool.keepAlive=10s:60s:6", "pool.keepAlive", Duration, "10s,20s,30s,40s,50s,60s", "10,20,30,40,50,60", ""},
		// A log duration range: each point in the largest of s, ms, µs that keeps it >= 1.
		{"pool.keepAlive=100ms:10s:5:log", "pool.keepAlive", Duration, "100ms,316.2ms,1s,3.162s,10s", "0.1,0.3162,1,3.162,10", ""},
		// Microseconds, written as Go prints them.
		{"workload.service.mean=10us:1ms:3:log", "workload.service.mean", Duration, "10us,100µs,1ms", "1e-05,0.0001,0.001", ""},
		// A plain number with durations reads as seconds (CONTRACT.md §1).
		{"pool.keepAlive=0,30s", "pool.keepAlive", Duration, "0,30s", "0,30", ""},
		// The rate range: points keep the /s unit, 4 significant digits.
		{"workload.arrivals.rate=10/s:1000/s:5:log", "workload.arrivals.rate", Rate, "10/s,31.62/s,100/s,316.2/s,1000/s", "10,31.62,100,316.2,1000", ""},
		// Rates per minute stay per minute; canonical values are per second.
		{"workload.arrivals.rate=60/min:600/min:3", "workload.arrivals.rate", Rate, "60/min,330/min,600/min", "1,5.5,10", ""},
		// Plain numbers for a non-integer key, 4 significant digits.
		{"workload.failure=0:0.1:4", "workload.failure", Number, "0,0.03333,0.06667,0.1", "", ""},
		// Names are text, passed as written.
		{"pool.queue.type=linked,array,synchronous", "pool.queue.type", Text, "linked,array,synchronous", "", ""},
		// YAML blocks with commas inside braces are one value each.
		{"pool.queue={type: array, capacity: 50},{type: linked}", "pool.queue", Text, "{type: array, capacity: 50},{type: linked}", "", ""},
		// List indexes written [i] are normalised to .i, as --set takes both.
		{"workload.phases[0].arrivals.rate=1,2", "workload.phases.0.arrivals.rate", Number, "1,2", "", ""},
		// One value is a one-point parameter.
		{"pool.core=4", "pool.core", Integer, "4", "", ""},
	}
	for _, tc := range tests {
		p, err := ParseParam(tc.flag)
		if err != nil {
			t.Errorf("ParseParam(%q): %v", tc.flag, err)
			continue
		}
		want := tc.canons
		if want == "" {
			want = tc.texts
		}
		if p.Key != tc.key || p.Kind != tc.kind || texts(p) != tc.texts || canons(p) != want {
			t.Errorf("ParseParam(%q) = key %s kind %v values %s canon %s; want %s %v %s %s", tc.flag, p.Key, p.Kind, texts(p), canons(p), tc.key, tc.kind, tc.texts, want)
		}
		if (tc.note == "") != (p.Note == "") || !strings.Contains(p.Note, tc.note) {
			t.Errorf("ParseParam(%q) note %q; want one containing %q", tc.flag, p.Note, tc.note)
		}
	}
}

// Every range point must be exactly the value the scenario loader reads
// from its text: what the outputs print is what was simulated.
func TestRangeTextsReadBackExactly(t *testing.T) {
	for _, flag := range []string{
		"pool.keepAlive=1ms:1h:40:log",
		"pool.keepAlive=1.5s:97s:23",
		"workload.arrivals.rate=0.5/h:7000/h:31:log",
		"workload.service.mean=3us:2s:50:log",
	} {
		p, err := ParseParam(flag)
		if err != nil {
			t.Fatalf("%s: %v", flag, err)
		}
		for _, v := range p.Values {
			var got float64
			switch p.Kind {
			case Duration:
				d, err := scenarios.ParseDuration(v.Text)
				if err != nil {
					t.Fatalf("%s: %q does not parse: %v", flag, v.Text, err)
				}
				got = d.Seconds()
			case Rate:
				if got, err = scenarios.ParseRate(v.Text); err != nil {
					t.Fatalf("%s: %q does not parse: %v", flag, v.Text, err)
				}
			}
			if canonFloat(got) != v.Canon {
				t.Errorf("%s: %q reads as %v, canonical %s", flag, v.Text, got, v.Canon)
			}
		}
	}
}

func TestParseParamErrors(t *testing.T) {
	tests := []struct {
		flag, want string
	}{
		{"pool.max", "expected KEY=VALUES"},                                    // no =
		{"=1,2", "expected KEY=VALUES"},                                        // no key
		{"pool.max=", "no values"},                                             // no values
		{"pool max=1", "not a scenario key"},                                   // a space in the key
		{"pool.max=8.5", `pool.max takes integers, not "8.5"`},                 // an integer key
		{"pool.max=1:10:1", "a range needs 2 to 100000 points"},                // too few points
		{"pool.max=1:10:100001", "a range needs 2 to 100000 points"},           // too many
		{"pool.max=0:10:3:log", "a log range needs both ends > 0"},             // log from 0
		{"pool.keepAlive=10s:60:3", "the same kind of value"},                  // units on one end only
		{"workload.arrivals.rate=10/s:600/min:3", "the same unit"},             // rate units differ
		{"pool.max=8,8", `"8" is listed twice`},                                // duplicate
		{"pool.keepAlive=60,1m", `"60" and "1m" are the same value`},           // duplicate in another unit
		{"pool.queue.type=a:b:3", "a range needs numbers, durations or rates"}, // text range
		{"pool.max=5:5:3", "the range's ends are equal"},                       // empty range
		{"pool.max=1:unbounded:3", "not \"unbounded\""},                        // unbounded in a range
		{"pool.queue={type: array, capacity: 5", "unbalanced"},                 // broken YAML block
		{"pool.max=1,,2", "empty value"},                                       // empty item
		{"workload.failure=1:NaN:3", "not a finite number"},                    // NaN end
	}
	for _, tc := range tests {
		_, err := ParseParam(tc.flag)
		if err == nil {
			t.Errorf("ParseParam(%q) succeeded; want an error with %q", tc.flag, tc.want)
			continue
		}
		if !inputerr.Is(err) || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "--param ") {
			t.Errorf("ParseParam(%q) = %v; want an input error naming --param with %q", tc.flag, err, tc.want)
		}
	}
}

// The table of integer keys must agree with the scenario loader: each
// rejects 1.5 as "not an integer", and keys not in it accept 1.5.
func TestIntegerKeysMatchLoader(t *testing.T) {
	phases := []byte(`duration: 10m
pool: {preset: jdk, core: 2, max: 4, queue: {type: priority}}
workload:
  phases:
    - duration: 1m
      arrivals: {process: burst, count: 3}
      service: {dist: constant, value: 1s}
      priority: {min: 0, max: 3}
    - arrivals: {process: poisson, rate: 2}
      service: {dist: uniform, min: 1s, max: 2s}
events:
  - at: 5m
    set: {core: 2, max: 4, keepAlive: 10s}
limits: {maxThreads: 10, maxQueued: 100}
`)
	top := []byte(`duration: 10m
pool: {preset: jdk, core: 2, max: 4, queue: {type: priority}}
workload:
  arrivals: {process: burst, count: 3}
  service: {dist: constant, value: 1s}
  priority: {min: 0, max: 3}
`)
	tests := []struct {
		key     string
		doc     []byte
		integer bool
	}{
		{"version", top, true},                             // scenario version
		{"seed", top, true},                                // the seed
		{"pool.core", top, true},                           // corePoolSize
		{"pool.max", top, true},                            // maximumPoolSize
		{"pool.queue.capacity", phases, true},              // queue bound
		{"limits.maxThreads", phases, true},                // OS thread limit
		{"limits.maxQueued", phases, true},                 // queue stop
		{"workload.arrivals.count", top, true},             // burst size
		{"workload.phases.0.arrivals.count", phases, true}, // burst size in a phase
		{"workload.priority.min", top, true},               // priorities
		{"workload.priority.max", top, true},               //
		{"workload.phases.0.priority.min", phases, true},   // priorities in a phase
		{"workload.phases.0.priority.max", phases, true},   //
		{"events.0.set.core", phases, true},                // setCorePoolSize
		{"events.0.set.max", phases, true},                 // setMaximumPoolSize
		{"pool.keepAlive", top, false},                     // a duration
		{"duration", top, false},                           // a duration
		{"workload.failure", top, false},                   // a probability
		{"workload.phases.1.arrivals.rate", phases, false}, // a rate
		{"workload.phases.1.service.max", phases, false},   // a duration named max
		{"events.0.set.keepAlive", phases, false},          // a duration in an event
		{"workload.phases.0.service.value", phases, false}, // a duration
	}
	for _, tc := range tests {
		if got := IntegerKey(tc.key); got != tc.integer {
			t.Errorf("IntegerKey(%q) = %v; want %v", tc.key, got, tc.integer)
		}
		_, err := scenarios.Parse(tc.doc, "s.yaml", []string{tc.key + "=1.5"})
		loaderInt := err != nil && strings.Contains(err.Error(), "not an integer")
		if loaderInt != tc.integer {
			t.Errorf("the loader with %s=1.5 gives %v; the table says integer=%v", tc.key, err, tc.integer)
		}
	}
}

func TestSplitList(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"a,b", []string{"a", "b"}},                                 // plain
		{" a , b ", []string{"a", "b"}},                             // spaces trimmed
		{"{a: 1, b: 2},[1, 2]", []string{"{a: 1, b: 2}", "[1, 2]"}}, // brackets hold commas
		{`'x,y',"z,w"`, []string{`'x,y'`, `"z,w"`}},                 // quotes hold commas
	}
	for _, tc := range tests {
		got, err := splitList(tc.in)
		if err != nil || strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("splitList(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}
