package workloads

import (
	"math"
	"strings"
	"testing"
	"time"
)

// splitSpec is one phase of Poisson arrivals with a split service law.
func splitSpec(sp *ServiceSplit) Spec {
	return Spec{Phases: []Phase{{Arrivals: ArrivalSpec{Process: "poisson", Rate: 100}, Split: sp}}}
}

// TestSplitService: a split law's task carries its CPU part, its slices and
// a total service time of CPU + blocking; the parts' sample means agree with
// their laws within 5 standard errors (fixed seed: deterministic).
func TestSplitService(t *testing.T) {
	const n = 100000
	src, err := New(splitSpec(&ServiceSplit{
		CPU:      &ServiceSpec{Dist: "exponential", Mean: 2 * time.Millisecond},
		Blocking: &ServiceSpec{Dist: "lognormal", Mean: 40 * time.Millisecond, CV: 1},
		Slices:   3,
	}), 11)
	if err != nil {
		t.Fatal(err)
	}
	ss := src.(SplitSource)
	if !ss.HasSplits() {
		t.Fatal("a split workload says it has no splits")
	}
	var cpu, block float64
	for i := 0; i < n; i++ {
		a, ok := src.Next()
		sp := ss.LastSplit()
		if !ok || sp.Slices != 3 || sp.CPU < 0 || a.Service < sp.CPU {
			t.Fatalf("arrival %d: %+v with split %+v: want 3 slices and a CPU part within the service time", i, a, sp)
		}
		cpu += sp.CPU.Seconds()
		block += (a.Service - sp.CPU).Seconds()
	}
	tests := []struct {
		name     string
		sum      float64 // the sample's sum, seconds
		mean, sd float64 // the law's, seconds
	}{
		// CPU part: exponential, sd = mean.
		{"cpu", cpu, 0.002, 0.002},
		// Blocking part: lognormal cv 1, sd = mean.
		{"blocking", block, 0.040, 0.040},
	}
	for _, tt := range tests {
		got := tt.sum / n
		if se := tt.sd / math.Sqrt(n); math.Abs(got-tt.mean) > 5*se {
			t.Errorf("%s part: sample mean %v, want %v ± %v (5 standard errors)", tt.name, got, tt.mean, 5*se)
		}
	}
}

// TestSplitBlockingOnlyDrawsLikePlain: the blocking part draws from the
// service stream, so a split with only a blocking part gives exactly the
// service times of the same plain law, and arrivals are unchanged.
func TestSplitBlockingOnlyDrawsLikePlain(t *testing.T) {
	law := ServiceSpec{Dist: "gamma", Mean: 30 * time.Millisecond, CV: 0.7}
	plain, err := New(Spec{Phases: []Phase{{Arrivals: ArrivalSpec{Process: "poisson", Rate: 50}, Service: law}}}, 3)
	if err != nil {
		t.Fatal(err)
	}
	split, err := New(Spec{Phases: []Phase{{Arrivals: ArrivalSpec{Process: "poisson", Rate: 50}, Split: &ServiceSplit{Blocking: &law}}}}, 3)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 1000; i++ {
		a, _ := plain.Next()
		b, _ := split.Next()
		if sp := split.(SplitSource).LastSplit(); a != b || sp != (Split{Slices: 1}) {
			t.Fatalf("arrival %d: plain %+v, split %+v (%+v)", i, a, b, sp)
		}
	}
	if plain.(SplitSource).HasSplits() || plain.(SplitSource).LastSplit() != (Split{}) {
		t.Error("a plain workload reports splits")
	}
}

// TestSplitErrors: a split names its faulty field.
func TestSplitErrors(t *testing.T) {
	exp := &ServiceSpec{Dist: "exponential", Mean: time.Millisecond}
	tests := []struct {
		sp   ServiceSplit
		want string // the field the error names
	}{
		// Neither part: no service at all.
		{ServiceSplit{}, "phases[0].service.cpu"},
		// Slices beyond the bound.
		{ServiceSplit{CPU: exp, Slices: MaxSlices + 1}, "phases[0].service.slices"},
		// A bad law inside the CPU part.
		{ServiceSplit{CPU: &ServiceSpec{Dist: "exponential"}}, "phases[0].service.cpu.mean"},
		// A bad law inside the blocking part.
		{ServiceSplit{CPU: exp, Blocking: &ServiceSpec{Dist: "lognormal", Mean: time.Millisecond}}, "phases[0].service.blocking.cv"},
	}
	for _, tt := range tests {
		_, err := New(splitSpec(&tt.sp), 1)
		pe, ok := err.(*ParamError)
		if !ok || pe.Field != tt.want {
			t.Errorf("%+v: got %v, want an error on %s", tt.sp, err, tt.want)
		}
	}
	d := Distributions(mustNew(t, splitSpec(&ServiceSplit{CPU: exp, Blocking: exp})))
	if len(d) != 1 || math.Abs(d[0].Mean()-0.002) > 1e-15 || !strings.Contains(d[0].String(), "cpu") {
		t.Errorf("Distributions of a split = %v, want cpu + blocking with mean 2ms", d)
	}
}

func mustNew(t *testing.T, sp Spec) Source {
	t.Helper()
	s, err := New(sp, 1)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestTraceCPU: a trace's optional cpu_s column is the CPU part of the
// task, run first; it cannot exceed service_s.
func TestTraceCPU(t *testing.T) {
	s, err := ReadTrace(strings.NewReader("arrival_s,service_s,cpu_s\n0,0.5,0.1\n1,0.2,0\n"), "t.csv", 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		a  Arrival
		sp Split
	}{
		{Arrival{Service: 500 * time.Millisecond}, Split{CPU: 100 * time.Millisecond, Slices: 1}},
		{Arrival{At: time.Second, Service: 200 * time.Millisecond}, Split{Slices: 1}},
	}
	for i, w := range want {
		a, ok := s.Next()
		if sp := s.(SplitSource).LastSplit(); !ok || a != w.a || sp != w.sp {
			t.Errorf("row %d: got %+v %+v, want %+v %+v", i+1, a, sp, w.a, w.sp)
		}
	}
	s, err = ReadTrace(strings.NewReader("arrival_s,service_s,cpu_s\n0,0.5,0.6\n"), "t.csv", 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Next(); ok || s.Err() == nil || !strings.Contains(s.Err().Error(), "t.csv:2:7: cpu_s: must be a number of seconds between 0 and service_s") {
		t.Errorf("cpu_s above service_s: got error %v", s.Err())
	}
}
