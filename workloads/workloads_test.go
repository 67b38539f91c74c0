package workloads

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/poolsim/poolsim/internal/inputerr"
)

// TestDistributionMoments draws n samples from each law and checks the
// sample mean against the exact mean. Tolerance: 5 standard errors
// (sqrt(variance/n)); with a fixed seed the test is deterministic, and a
// correct sampler fails it with probability < 1e-6.
func TestDistributionMoments(t *testing.T) {
	const n = 200000
	tests := []struct {
		spec ServiceSpec
		mean float64 // seconds
		cv   float64
	}{
		// constant: no spread at all.
		{ServiceSpec{Dist: "constant", Mean: 30 * time.Millisecond}, 0.030, 0},
		// exponential: cv is 1 by definition.
		{ServiceSpec{Dist: "exponential", Mean: 50 * time.Millisecond}, 0.050, 1},
		// uniform(10ms, 30ms): mean 20ms, sd (20ms)/sqrt(12).
		{ServiceSpec{Dist: "uniform", Min: 10 * time.Millisecond, Max: 30 * time.Millisecond}, 0.020, (0.020 / math.Sqrt(12)) / 0.020},
		// lognormal parameterised by mean and cv.
		{ServiceSpec{Dist: "lognormal", Mean: 200 * time.Millisecond, CV: 1.5}, 0.200, 1.5},
		// gamma parameterised by mean and cv (shape 1/cv²).
		{ServiceSpec{Dist: "gamma", Mean: 100 * time.Millisecond, CV: 0.5}, 0.100, 0.5},
		// pareto with alpha 3: finite variance, cv = 1/sqrt(alpha(alpha-2)).
		{ServiceSpec{Dist: "pareto", Mean: 100 * time.Millisecond, Alpha: 3}, 0.100, 1 / math.Sqrt(3)},
		// weibull parameterised by mean and cv.
		{ServiceSpec{Dist: "weibull", Mean: 80 * time.Millisecond, CV: 0.7}, 0.080, 0.7},
		// empirical: bootstrap of three values.
		{ServiceSpec{Dist: "empirical", Samples: []float64{0.01, 0.02, 0.06}}, 0.030, math.Sqrt((0.0004+0.0001+0.0009)/3) / 0.030},
	}
	for _, tt := range tests {
		d, err := NewDistribution(tt.spec, NewStream(7, StreamService))
		if err != nil {
			t.Fatalf("%s: %v", tt.spec.Dist, err)
		}
		if math.Abs(d.Mean()-tt.mean) > 1e-12 {
			t.Errorf("%s: Mean() = %v, want %v", d, d.Mean(), tt.mean)
		}
		if got := math.Sqrt(d.Variance()) / d.Mean(); math.Abs(got-tt.cv) > 1e-6 {
			t.Errorf("%s: cv from Variance() = %v, want %v", d, got, tt.cv)
		}
		var sum float64
		for i := 0; i < n; i++ {
			x := d.Sample()
			if x < 0 {
				t.Fatalf("%s: negative sample %v", d, x)
			}
			sum += x.Seconds()
		}
		se := math.Sqrt(d.Variance() / n)
		if got := sum / n; math.Abs(got-tt.mean) > 5*se+1e-9 {
			t.Errorf("%s: sample mean %v, want %v ± %v (5 SE)", d, got, tt.mean, 5*se)
		}
	}
}

func TestDistributionParamErrors(t *testing.T) {
	tests := []struct {
		spec  ServiceSpec
		field string
	}{
		{ServiceSpec{Dist: "exponential"}, "mean"},                                     // no mean
		{ServiceSpec{Dist: "lognormal", Mean: time.Second, CV: 0}, "cv"},               // cv 0 has no lognormal
		{ServiceSpec{Dist: "gamma", Mean: time.Second, CV: -1}, "cv"},                  // negative cv
		{ServiceSpec{Dist: "pareto", Mean: time.Second, Alpha: 1}, "alpha"},            // infinite mean
		{ServiceSpec{Dist: "uniform", Min: time.Second, Max: time.Millisecond}, "max"}, // min > max
		{ServiceSpec{Dist: "empirical"}, "file"},                                       // no samples
		{ServiceSpec{Dist: "normal", Mean: time.Second}, "dist"},                       // unknown law
		{ServiceSpec{Dist: "weibull", Mean: time.Second, CV: 1e-4}, "cv"},              // cv too small to reach
	}
	for _, tt := range tests {
		_, err := NewDistribution(tt.spec, NewStream(1, StreamService))
		pe, ok := err.(*ParamError)
		if !ok || pe.Field != tt.field {
			t.Errorf("%+v: got %v, want a ParamError on %q", tt.spec, err, tt.field)
		}
	}
}

func drain(t *testing.T, s Source, max int) []Arrival {
	t.Helper()
	var out []Arrival
	for len(out) < max {
		a, ok := s.Next()
		if !ok {
			break
		}
		out = append(out, a)
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestStreamsAreIndependent: the arrival times depend only on the seed and
// the arrival spec, never on the service law or failure rate (STYLE.md:
// one seeded source per purpose).
func TestStreamsAreIndependent(t *testing.T) {
	mk := func(svc ServiceSpec, failure float64) []Arrival {
		s, err := New(Spec{Phases: []Phase{{Arrivals: ArrivalSpec{Process: "poisson", Rate: 100}, Service: svc}}, Failure: failure}, 42)
		if err != nil {
			t.Fatal(err)
		}
		return drain(t, s, 1000)
	}
	a := mk(ServiceSpec{Dist: "exponential", Mean: time.Millisecond}, 0)
	b := mk(ServiceSpec{Dist: "lognormal", Mean: time.Second, CV: 2}, 0.3)
	for i := range a {
		if a[i].At != b[i].At {
			t.Fatalf("arrival %d: %v vs %v: the service law changed the arrivals", i, a[i].At, b[i].At)
		}
	}
	c := mk(ServiceSpec{Dist: "exponential", Mean: time.Millisecond}, 0)
	for i := range a {
		if a[i] != c[i] {
			t.Fatalf("arrival %d differs between identical runs", i)
		}
	}
}

func TestPoissonRate(t *testing.T) {
	// 100/s for 1000 s: N ~ Poisson(1e5), sd 316; allow 5 sd.
	s, _ := New(Spec{Phases: []Phase{{Duration: 1000 * time.Second, Arrivals: ArrivalSpec{Process: "poisson", Rate: 100},
		Service: ServiceSpec{Dist: "constant"}}}}, 3)
	n := len(drain(t, s, 1<<30))
	if math.Abs(float64(n)-1e5) > 5*math.Sqrt(1e5) {
		t.Errorf("got %d arrivals in 1000s at 100/s", n)
	}
}

func TestPhasesConstantBurstOnOff(t *testing.T) {
	s, err := New(Spec{Phases: []Phase{
		// 2/s for 2s: exactly 0, 0.5, 1, 1.5.
		{Duration: 2 * time.Second, Arrivals: ArrivalSpec{Process: "constant", Rate: 2}, Service: ServiceSpec{Dist: "constant", Mean: time.Millisecond}},
		// 3 tasks at 2.5s, then every 1s, for 2s: at 2.5 and 3.5.
		{Duration: 2 * time.Second, Arrivals: ArrivalSpec{Process: "burst", Count: 3, At: 500 * time.Millisecond, Every: time.Second}, Service: ServiceSpec{Dist: "constant", Mean: time.Millisecond}},
		// quiet for the rest.
		{Arrivals: ArrivalSpec{Process: "poisson", Rate: 0}, Service: ServiceSpec{Dist: "constant"}},
	}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range drain(t, s, 100) {
		got = append(got, a.At.String())
	}
	want := "0s 500ms 1s 1.5s 2.5s 2.5s 2.5s 3.5s 3.5s 3.5s"
	if strings.Join(got, " ") != want {
		t.Errorf("got %v, want %v", got, want)
	}

	// onoff: on 1s / off 3s at 1000/s: every arrival falls in an on period
	// and about a quarter of the time carries traffic.
	s, _ = New(Spec{Phases: []Phase{{Duration: 400 * time.Second, Arrivals: ArrivalSpec{Process: "onoff", Rate: 1000, On: time.Second, Off: 3 * time.Second},
		Service: ServiceSpec{Dist: "constant"}}}}, 5)
	arr := drain(t, s, 1<<30)
	for _, a := range arr {
		if a.At%(4*time.Second) >= time.Second {
			t.Fatalf("arrival at %v falls in an off period", a.At)
		}
	}
	if n := float64(len(arr)); math.Abs(n-1e5) > 5*math.Sqrt(1e5) {
		t.Errorf("onoff: %v arrivals, want about 100000", n)
	}
}

func TestFailureAndPriority(t *testing.T) {
	s, _ := New(Spec{Phases: []Phase{{Arrivals: ArrivalSpec{Process: "constant", Rate: 1000}, Service: ServiceSpec{Dist: "constant"},
		Priority: PrioritySpec{Min: 1, Max: 3}}}, Failure: 0.1}, 9)
	const n = 100000
	fails := 0
	seen := map[int32]int{}
	for _, a := range drain(t, s, n) {
		if a.Fails {
			fails++
		}
		seen[a.Priority]++
	}
	// Binomial(n, 0.1): sd = sqrt(n·0.1·0.9) ≈ 95; allow 5 sd.
	if math.Abs(float64(fails)-0.1*n) > 5*math.Sqrt(n*0.09) {
		t.Errorf("%d failures in %d tasks at p=0.1", fails, n)
	}
	if len(seen) != 3 || seen[1] == 0 || seen[2] == 0 || seen[3] == 0 {
		t.Errorf("priorities %v, want 1..3", seen)
	}
}

func TestTrace(t *testing.T) {
	in := "arrival_s,service_s,priority,fail\n0,0.5,1,0\n0.25,1.5,2,1\n# a comment\n1,0.001,0,\n"
	s, err := ReadTrace(strings.NewReader(in), "t.csv", 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	got := drain(t, s, 10)
	want := []Arrival{{0, 500 * time.Millisecond, 1, false}, {250 * time.Millisecond, 1500 * time.Millisecond, 2, true}, {time.Second, time.Millisecond, 0, false}}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}

// TestTraceErrors: every bad trace gets file, line, column and key.
func TestTraceErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", "t.csv:1: empty trace"},
		{"unknown column", "arrival_s,service,fail\n", `t.csv:1:11: header: unknown column "service"; did you mean "service_s"?`},
		{"missing column", "arrival_s\n0\n", "t.csv:1: service_s: required column missing"},
		{"duplicate column", "arrival_s,service_s,arrival_s\n", "t.csv:1:21: arrival_s: column appears twice"},
		{"not a number", "arrival_s,service_s\n0,1\nx,1\n", `t.csv:3:1: arrival_s: must be a number of seconds >= 0, got "x"`},
		{"negative time", "arrival_s,service_s\n-1,1\n", `t.csv:2:1: arrival_s: must be a number of seconds >= 0, got "-1"`},
		{"unsorted", "arrival_s,service_s\n2,1\n1,1\n", `t.csv:3:1: arrival_s: out of order: before the previous row's 2s, got "1"`},
		{"negative service", "arrival_s,service_s\n0,-3\n", `t.csv:2:3: service_s: must be a number of seconds >= 0, got "-3"`},
		{"NaN service", "arrival_s,service_s\n0,NaN\n", `t.csv:2:3: service_s: must be a number of seconds >= 0, got "NaN"`},
		{"bad fail", "arrival_s,service_s,fail\n0,1,maybe\n", `t.csv:2:5: fail: must be 0 or 1, got "maybe"`},
		{"bad priority", "arrival_s,service_s,priority\n0,1,high\n", `t.csv:2:5: priority: must be an integer, got "high"`},
		{"no rows", "arrival_s,service_s\n", "t.csv: trace has a header but no tasks"},
		{"ragged row", "arrival_s,service_s\n0,1,2\n", "t.csv:2:1: malformed CSV: wrong number of fields"},
		{"binary junk", "\x00\x01\x02\xff\xfe", `t.csv:1:1: header: unknown column`},
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
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want prefix %q", tt.name, err, tt.want)
		}
		if err != nil && !inputerr.Is(err) {
			t.Errorf("%s: %T is not an input error", tt.name, err)
		}
	}
}

func BenchmarkPoissonExponential(b *testing.B) {
	s, _ := New(Spec{Phases: []Phase{{Arrivals: ArrivalSpec{Process: "poisson", Rate: 1000}, Service: ServiceSpec{Dist: "exponential", Mean: time.Millisecond}}}}, 1)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		s.Next()
	}
}

// BenchmarkPoissonLognormal is Next on the bench cases' other common
// workload: Poisson arrivals, lognormal service (tomcat-121, production-day,
// sweep-ci-tomcat).
func BenchmarkPoissonLognormal(b *testing.B) {
	s, _ := New(Spec{Phases: []Phase{{Arrivals: ArrivalSpec{Process: "poisson", Rate: 1000}, Service: ServiceSpec{Dist: "lognormal", Mean: 40 * time.Millisecond, CV: 1.5}}}}, 1)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		s.Next()
	}
}

func BenchmarkLognormal(b *testing.B) {
	d, _ := NewDistribution(ServiceSpec{Dist: "lognormal", Mean: time.Millisecond, CV: 1}, NewStream(1, StreamService))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		d.Sample()
	}
}
