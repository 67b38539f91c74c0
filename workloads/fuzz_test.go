package workloads

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/poolsim/poolsim/internal/inputerr"
)

// fuzzArrivals bounds how many arrivals one fuzz input may draw.
const fuzzArrivals = 2000

// FuzzReadTrace: any bytes as a trace give arrivals in order or an input
// error with the file's name, never a panic (issue 6). Seeded with the
// shapes of real traces: a header in any order, optional columns, a BOM,
// CRLF line ends, comments.
func FuzzReadTrace(f *testing.F) {
	for _, s := range []string{
		"arrival_s,service_s\n0,1\n0.5,0.25\n2,0.5\n",
		"service_s,arrival_s,priority,fail\n1,0,3,1\n2,0,-1,0\n0.001,7.5,2147483647,true\n",
		"\ufeffarrival_s,service_s\r\n0,1\r\n1,2\r\n",
		"# recorded on host a\narrival_s, service_s\n0, 1\n# gap\n3, 0.2\n",
		"arrival_s,service_s,fail\n0,1,\n1,1,yes\n",
		"arrival_s,service_s\n2,1\n1,1\n",          // out of order
		"arrival_s,service_s\n-1,1\n",              // negative
		"arrival_s,service_s\n1e300,1\n",           // beyond the clock
		"arrival_s,servce_s\n0,1\n",                // misspelt column
		"arrival_s,service_s\n\"0\n\",1\n",         // quoted newline
		"arrival_s,service_s\n0,1,2\n",             // extra field
		"arrival_s,service_s\n",                    // no tasks
		"",                                         // empty
		"\x00\x01\x02\xff\xfe binary \x00\x00\x00", // junk
	} {
		f.Add([]byte(s), 0.0)
	}
	f.Add([]byte("arrival_s,service_s\n0,1\n1,1\n2,1\n"), 0.5)
	f.Fuzz(func(t *testing.T, data []byte, failure float64) {
		if !(failure >= 0 && failure <= 1) {
			failure = 0
		}
		src, err := ReadTrace(bytes.NewReader(data), "f.csv", failure, 1)
		if err != nil {
			checkTraceError(t, err)
			return
		}
		defer src.Close()
		var last time.Duration
		for i := 0; i < fuzzArrivals; i++ {
			a, ok := src.Next()
			if !ok {
				break
			}
			if a.At < last || a.At < 0 || a.Service < 0 {
				t.Fatalf("arrival %d: at %v (previous %v), service %v", i, a.At, last, a.Service)
			}
			last = a.At
		}
		if err := src.Err(); err != nil {
			checkTraceError(t, err)
			if _, ok := src.Next(); ok {
				t.Fatal("Next returned an arrival after an error")
			}
		}
	})
}

func checkTraceError(t *testing.T, err error) {
	t.Helper()
	var ie *inputerr.Error
	if !errors.As(err, &ie) {
		t.Fatalf("%T is not an input error: %v", err, err)
	}
	if ie.File != "f.csv" || ie.Msg == "" {
		t.Fatalf("error does not name the file or says nothing: %#v", ie)
	}
}

// FuzzDistribution: parameters either build a distribution whose draws are
// finite durations >= 0, or are refused with a ParamError naming the field.
func FuzzDistribution(f *testing.F) {
	for _, d := range DistNames() {
		f.Add(d, int64(50*time.Millisecond), 1.5, 2.5, int64(0), int64(time.Second), uint64(1))
	}
	f.Add("lognormal", int64(1), 1e300, 0.0, int64(0), int64(0), uint64(2))
	f.Add("pareto", int64(math.MaxInt64), 0.0, 1.0000001, int64(0), int64(0), uint64(3))
	f.Add("gamma", int64(time.Hour), 1e-300, 0.0, int64(0), int64(0), uint64(4))
	f.Add("weibull", int64(time.Second), 3e5, 0.0, int64(0), int64(0), uint64(5))
	f.Add("uniform", int64(0), 0.0, 0.0, int64(math.MaxInt64-1), int64(math.MaxInt64), uint64(6))
	f.Fuzz(func(t *testing.T, dist string, mean int64, cv, alpha float64, lo, hi int64, seed uint64) {
		spec := ServiceSpec{Dist: dist, Mean: time.Duration(mean), CV: cv, Alpha: alpha, Min: time.Duration(lo), Max: time.Duration(hi)}
		if dist == "empirical" {
			spec.Samples = []float64{cv, alpha, float64(mean) / 1e9}
		}
		d, err := NewDistribution(spec, NewStream(seed, StreamService))
		if err != nil {
			var pe *ParamError
			if !errors.As(err, &pe) || pe.Field == "" || pe.Msg == "" {
				t.Fatalf("%T is not a ParamError naming a field: %v", err, err)
			}
			return
		}
		for i := 0; i < 200; i++ {
			if x := d.Sample(); x < 0 {
				t.Fatalf("%v drew %v", d, x)
			}
		}
		if m := d.Mean(); math.IsNaN(m) || m < 0 {
			t.Fatalf("%v has mean %v", d, m)
		}
	})
}

// FuzzPhases: arrival processes with any parameters produce arrivals in
// time order, each drawn in bounded work, or a ParamError.
func FuzzPhases(f *testing.F) {
	f.Add("poisson", 300.0, int64(0), int64(0), 0, int64(0), int64(0), int64(time.Minute))
	f.Add("constant", 2.0, int64(0), int64(0), 0, int64(0), int64(0), int64(0))
	f.Add("onoff", 50.0, int64(time.Second), int64(2*time.Second), 0, int64(0), int64(0), int64(time.Hour))
	f.Add("onoff", 1.0, int64(1), int64(time.Hour), 0, int64(0), int64(0), int64(0))
	f.Add("burst", 0.0, int64(0), int64(0), 100, int64(time.Second), int64(time.Minute), int64(0))
	f.Add("burst", 0.0, int64(0), int64(0), 3, int64(0), int64(1), int64(10))
	f.Add("poisson", 1e300, int64(0), int64(0), 0, int64(0), int64(0), int64(0))
	f.Fuzz(func(t *testing.T, process string, rate float64, on, off int64, count int, at, every, dur int64) {
		ph := Phase{
			Duration: time.Duration(dur),
			Arrivals: ArrivalSpec{Process: process, Rate: rate, On: time.Duration(on), Off: time.Duration(off), Count: count, At: time.Duration(at), Every: time.Duration(every)},
			Service:  ServiceSpec{Dist: "constant", Mean: time.Millisecond},
		}
		phases := []Phase{ph}
		if ph.Duration > 0 { // a second phase follows the fuzzed one
			phases = append(phases, Phase{Arrivals: ArrivalSpec{Process: "constant", Rate: 1}, Service: ph.Service})
		}
		src, err := New(Spec{Phases: phases}, 1)
		if err != nil {
			var pe *ParamError
			if !errors.As(err, &pe) || pe.Field == "" {
				t.Fatalf("%T is not a ParamError naming a field: %v", err, err)
			}
			return
		}
		defer src.Close()
		var last time.Duration
		for i := 0; i < fuzzArrivals; i++ {
			a, ok := src.Next()
			if !ok {
				break
			}
			if a.At < last || a.At < 0 {
				t.Fatalf("%+v: arrival %d at %v after %v", ph.Arrivals, i, a.At, last)
			}
			last = a.At
		}
	})
}

// TestArrivalsBoundedAndInOrder pins what FuzzPhases found: arrival times
// never overflow the clock (they used to wrap to negative times), and an
// on/off process with nearly empty on periods draws each arrival in bounded
// work.
func TestArrivalsBoundedAndInOrder(t *testing.T) {
	tests := []struct {
		name string
		a    ArrivalSpec
	}{
		// 1 ns on, 1 h off at 1/s: ~1e9 empty cycles per arrival; the old
		// loop stepped through them and wrapped past the end of the clock.
		{"onoff, tiny on periods", ArrivalSpec{Process: "onoff", Rate: 1, On: 1, Off: time.Hour}},
		// on + off overflows the clock: one on period, then nothing.
		{"onoff, cycle beyond the clock", ArrivalSpec{Process: "onoff", Rate: 1, On: time.Second, Off: time.Duration(math.MaxInt64 - 10)}},
		// One arrival every 30 years: k/rate leaves int64 after ten.
		{"constant, rate 1e-9/s", ArrivalSpec{Process: "constant", Rate: 1e-9}},
		// Exponential gaps of ~30 years (clamped to 100): the sum wraps.
		{"poisson, rate 1e-9/s", ArrivalSpec{Process: "poisson", Rate: 1e-9}},
		// A burst every 100 years: the fourth would wrap.
		{"burst every 100 years", ArrivalSpec{Process: "burst", Count: 2, Every: 100 * 365 * 24 * time.Hour}},
	}
	for _, tt := range tests {
		src, err := New(Spec{Phases: []Phase{{Arrivals: tt.a, Service: ServiceSpec{Dist: "constant", Mean: 1}}}}, 1)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		var last time.Duration
		n := 0
		for ; n < 1000; n++ {
			a, ok := src.Next()
			if !ok {
				break
			}
			if a.At < last {
				t.Errorf("%s: arrival %d at %v, before %v", tt.name, n, a.At, last)
				break
			}
			last = a.At
		}
		if n == 1000 {
			t.Errorf("%s: still drawing arrivals after %v", tt.name, last)
		}
	}
}

// TestTraceBounds pins the trace reader's limits: a row cannot hold more
// than textlimit.MaxLine bytes (an endless line used to be read into memory
// whole), and times beyond 100 years are errors, no longer silently clamped.
func TestTraceBounds(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		// A header without a line end that never stops: /dev/zero as a trace.
		{"endless header", strings.Repeat("a", 2<<20), "t.csv:1: line longer than 1048576 bytes (a CSV trace: one short row per task)"},
		// A long header: the message quotes a clipped column name.
		{"long column name", strings.Repeat("a", 100) + "\n", `t.csv:1:1: header: unknown column "` + strings.Repeat("a", 40) + `…" (columns:`},
		// A row of 2 MiB after a good one.
		{"endless row", "arrival_s,service_s\n0,1\n" + strings.Repeat("1", 2<<20) + "\n", "t.csv:3: line longer than 1048576 bytes"},
		// 1e300 s used to become 100 years without a word.
		{"arrival beyond 100 years", "arrival_s,service_s\n1e300,1\n", `t.csv:2:1: arrival_s: is more than 100 years, got "1e300" (seconds from the start of the run, at most 3153600000)`},
		{"service beyond 100 years", "arrival_s,service_s\n0,3153600001\n", `t.csv:2:3: service_s: is more than 100 years, got "3153600001" (seconds, at most 3153600000)`},
	}
	for _, tt := range tests {
		s, err := ReadTrace(strings.NewReader(tt.in), "t.csv", 0, 1)
		if err == nil {
			for {
				if _, ok := s.Next(); !ok {
					break
				}
			}
			err = s.Err()
		}
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) || !inputerr.Is(err) {
			t.Errorf("%s: got %v, want %q", tt.name, err, tt.want)
		}
	}
	// 100 years exactly is accepted.
	s, err := ReadTrace(strings.NewReader("arrival_s,service_s\n3153600000,3153600000\n"), "t.csv", 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if a, ok := s.Next(); !ok || a.At != 3153600000*time.Second {
		t.Errorf("100 years: %v %v %v", a, ok, s.Err())
	}
}
