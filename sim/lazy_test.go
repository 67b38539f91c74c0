package sim

import (
	"bytes"
	"context"
	"testing"
	"time"
)

// lazyRun runs sc with the recorder's lazy bound set by set (nil: as
// newRecorder chose it) and returns summary.json and timeline.csv.
func lazyRun(t *testing.T, yaml string, set func(r *recorder)) (summary, timeline string) {
	t.Helper()
	var tl, sum bytes.Buffer
	e, err := NewEngine(parse(t, yaml), Options{Timeline: &tl})
	if err != nil {
		t.Fatal(err)
	}
	if set != nil {
		set(e.rec)
	}
	res, err := e.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&sum, res.Summary); err != nil {
		t.Fatal(err)
	}
	return sum.String(), tl.String()
}

// TestLazyIntegralsSameBits: the state integrals kept lazily (integrated
// when a count changes) give summary.json and timeline.csv the same to the
// byte as the eager ones (integrated at every event, the recorder's only
// way before), and so does a run that switches from lazy to eager midway,
// when a count reaches the bound (lazyBound; here a bound of 2 or 8,
// below what the pools reach, so that the switch happens at some event of
// the run rather than never). The scenarios cover a warmup, a queue that
// grows and drains, keepAlive expiries, a run stopped early
// (limits.maxQueued), a CPU limit (host.go) and a resource (resources.go).
func TestLazyIntegralsSameBits(t *testing.T) {
	for _, tc := range []struct{ name, yaml string }{
		{"elastic", `
name: elastic
seed: 3
duration: 20m
warmup: 2m
sample: 10s
pool: {preset: tomcat, core: 4, max: 16, keepAlive: 1s}
workload:
  arrivals: {process: poisson, rate: 6.4/s}
  service: {dist: exponential, mean: 1s}
`},
		{"queue", `
name: queue
seed: 5
duration: 10m
warmup: 1m
sample: 5s
pool: {preset: fixed, core: 8}
workload:
  phases:
    - {duration: 3m, arrivals: {process: poisson, rate: 100}, service: {dist: lognormal, mean: 100ms, cv: 2}}
    - {arrivals: {process: onoff, rate: 5, on: 10s, off: 20s}, service: {dist: gamma, mean: 30ms, cv: 0.5}}
`},
		{"stopped early", `
name: stopped
seed: 6
duration: 1h
warmup: 30s
sample: 5s
pool: {preset: fixed, core: 2}
workload:
  arrivals: {process: poisson, rate: 50}
  service: {dist: exponential, mean: 100ms}
limits:
  maxQueued: 2000
`},
		{"cpu", `
name: cpu
seed: 7
duration: 5m
warmup: 30s
sample: 5s
host: {cpus: 2}
pool: {preset: tomcat, core: 4, max: 20, keepAlive: 5s}
workload:
  arrivals: {process: poisson, rate: 30}
  service: {dist: exponential, mean: 100ms}
`},
		{"resource", `
name: resource
seed: 8
duration: 5m
warmup: 30s
sample: 5s
pool: {preset: fixed, core: 10}
resources:
  db: {type: hikari, maximumPoolSize: 3, connectionTimeout: 1s}
workload:
  arrivals: {process: poisson, rate: 40}
  service:
    steps:
      - compute: {dist: exponential, mean: 2ms}
      - hold: db
        for: {dist: exponential, mean: 50ms}
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sum, tl := lazyRun(t, tc.yaml, nil)
			for _, v := range []struct {
				how string
				set func(r *recorder)
			}{
				{"eager from the start", func(r *recorder) { r.toEager() }},
				{"lazy up to a count of 2", func(r *recorder) { r.lazy = 2 }},
				{"lazy up to a count of 8", func(r *recorder) { r.lazy = 8 }},
			} {
				var rec *recorder
				s, l := lazyRun(t, tc.yaml, func(r *recorder) { v.set(r); rec = r })
				if !rec.eager {
					t.Errorf("%s: the run never switched to the eager integrals", v.how)
				}
				if s != sum {
					t.Errorf("%s: summary.json differs:\n%s\nlazy:\n%s", v.how, s, sum)
				}
				if l != tl {
					t.Errorf("%s: timeline.csv differs", v.how)
				}
			}
		})
	}
}

// TestLazyBound: the bound is the largest power of two 2^m with
// (2^m − 1)·span < 2^52, so that every count below it keeps each lazy
// integral an exact float64 integer.
func TestLazyBound(t *testing.T) {
	for _, tc := range []struct {
		span time.Duration
		want uint
	}{
		{0, 1 << 62},               // no steady state: nothing is integrated
		{-time.Second, 1 << 62},    // a warmup past the end: likewise
		{1 << 40, 1 << 12},         // 4095·2^40 < 2^52 ≤ 8191·2^40
		{1<<40 + 1, 1 << 12},       // just past: 4095·(2^40+1) < 2^52 still
		{1 << 52, 1},               // 1·2^52 is not below 2^52: no count may be lazy
		{24 * time.Hour, 32},       // 31·8.64e13 = 2.7e15 < 4.5e15 ≤ 63·8.64e13
		{time.Hour, 1024},          // 1023·3.6e12 = 3.7e15 < 4.5e15 ≤ 2047·3.6e12
		{time.Minute, 1 << 16},     // 65535·6e10 = 3.9e15 < 4.5e15
		{time.Nanosecond, 1 << 52}, // (2^52 − 1)·1 < 2^52
	} {
		got := lazyBound(tc.span)
		if got != tc.want {
			t.Errorf("lazyBound(%v) = %d, want %d", tc.span, got, tc.want)
		}
		if got > 1 && got < 1<<62 && float64(got-1)*float64(tc.span) >= 1<<52 {
			t.Errorf("lazyBound(%v) = %d: (bound − 1)·span reaches 2^52", tc.span, got)
		}
	}
}
