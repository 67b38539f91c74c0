package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// dayScenario is a day of production traffic on Spring Boot's Tomcat:
// 20 req/s at night rising to 500 at the daily peak, about 17 million
// requests of 40 ms (lognormal, cv 1.5), the timeline sampled every second.
const dayScenario = `
name: production-day
duration: 24h
sample: 1s
pool: {preset: tomcat}
workload:
  phases:
    - {duration: 6h, arrivals: {process: poisson, rate: 20}, service: {dist: lognormal, mean: 40ms, cv: 1.5}}
    - {duration: 3h, arrivals: {process: poisson, rate: 150}, service: {dist: lognormal, mean: 40ms, cv: 1.5}}
    - {duration: 3h, arrivals: {process: poisson, rate: 400}, service: {dist: lognormal, mean: 40ms, cv: 1.5}}
    - {duration: 2h, arrivals: {process: poisson, rate: 500}, service: {dist: lognormal, mean: 40ms, cv: 1.5}}
    - {duration: 4h, arrivals: {process: poisson, rate: 350}, service: {dist: lognormal, mean: 40ms, cv: 1.5}}
    - {duration: 3h, arrivals: {process: poisson, rate: 200}, service: {dist: lognormal, mean: 40ms, cv: 1.5}}
    - {arrivals: {process: poisson, rate: 60}, service: {dist: lognormal, mean: 40ms, cv: 1.5}}
`

// BenchmarkProductionDay is "poolsim run --plots" on a day of traffic, as a
// user runs it: the whole command, writing timeline.csv (86,400 rows),
// summary.json, perf.json and the PNGs. One op is one simulated day; the
// metrics are wall seconds per simulated day, simulated tasks per second,
// and the process's peak RSS as perf.json reports it.
//
//	go test ./cmd/poolsim -run '^$' -bench ProductionDay -benchtime 3x -benchmem
func BenchmarkProductionDay(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "day.yaml")
	if err := os.WriteFile(path, []byte(dayScenario), 0o644); err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	var tasks int64
	var rss float64
	b.ReportAllocs()
	start := time.Now()
	for b.Loop() {
		var stdout, stderr bytes.Buffer
		if code := runMain(context.Background(), []string{"poolsim", "run", path, "--out", out, "--plots"}, &stdout, &stderr); code != 0 {
			b.Fatalf("exit %d: %s", code, stderr.String())
		}
		data, err := os.ReadFile(filepath.Join(out, "summary.json"))
		if err != nil {
			b.Fatal(err)
		}
		var s struct {
			Submitted int64 `json:"submitted"`
		}
		if err := json.Unmarshal(data, &s); err != nil {
			b.Fatal(err)
		}
		tasks += s.Submitted
		if data, err = os.ReadFile(filepath.Join(out, "perf.json")); err != nil {
			b.Fatal(err)
		}
		var p struct {
			PeakRSS float64 `json:"peak_rss_bytes"`
		}
		if err := json.Unmarshal(data, &p); err != nil {
			b.Fatal(err)
		}
		rss = max(rss, p.PeakRSS)
	}
	wall := time.Since(start).Seconds()
	b.ReportMetric(wall/float64(b.N), "s/day")
	b.ReportMetric(float64(tasks)/wall, "tasks/s")
	b.ReportMetric(float64(tasks)/float64(b.N), "tasks/day")
	b.ReportMetric(rss/(1<<20), "peakRSS_MB")
}
