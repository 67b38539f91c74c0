package sweep

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// cpuSeconds is the process's user+sys CPU time so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return (time.Duration(ru.Utime.Nano()) + time.Duration(ru.Stime.Nano())).Seconds()
}

// benchScenario is issue 5's benchmark scenario: a Tomcat pool for 10
// minutes at 100 requests/s (about 60,000 tasks per run).
const benchScenario = `name: bench-tomcat-10m
seed: 1
duration: 10m
warmup: 1m
sample: 10s
pool:
  preset: tomcat
  core: 10
  max: 200
  keepAlive: 60s
workload:
  arrivals: {process: poisson, rate: 100/s}
  service: {dist: lognormal, mean: 100ms, cv: 1.0}
`

// BenchmarkSweep1000 runs a 1,000-point sweep (pool.max 20…119 ×
// keepAlive 1 s…10 s, one replication each) of benchScenario with 1 and 2
// jobs, in memory and saving every point to a directory. It reports
// points/s and the process's peak RSS; run it alone, one iteration each:
//
//	go test ./sweep -run '^$' -bench Sweep1000 -benchtime 1x -benchmem
func BenchmarkSweep1000(b *testing.B) {
	path := filepath.Join(b.TempDir(), "bench.yaml")
	if err := os.WriteFile(path, []byte(benchScenario), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		jobs int
		save bool
	}{{1, false}, {2, false}, {2, true}} {
		name := fmt.Sprintf("jobs=%d", tc.jobs)
		if tc.save {
			name += "/save"
		}
		b.Run(name, func(b *testing.B) {
			s, err := New(Config{Path: path, Params: mustParams(b, "pool.max=20:119:100", "pool.keepAlive=1s:10s:10"), Replications: 1, Version: "bench"})
			if err != nil {
				b.Fatal(err)
			}
			if s.Grid().Len() != 1000 {
				b.Fatalf("%d points", s.Grid().Len())
			}
			b.ReportAllocs()
			points := 0
			cpu0 := cpuSeconds()
			for b.Loop() {
				opt := RunOptions{Jobs: tc.jobs}
				if tc.save {
					opt.Dir = b.TempDir()
				}
				o, err := s.Run(context.Background(), opt)
				if err != nil {
					b.Fatal(err)
				}
				points += len(o.Results.Rows)
			}
			b.ReportMetric(float64(points)/b.Elapsed().Seconds(), "points/s")
			// CPU time per point (user+sys of the whole process): on a
			// machine shared with other work, wall-clock speed-ups are
			// noisy; CPU per point shows whether parallel runs cost more.
			cpu := cpuSeconds() - cpu0
			b.ReportMetric(cpu/float64(points)*1e3, "cpu_ms/point")
			// Cores the process got: points/s = cores_used / cpu per point,
			// so a speed-up splits into the CPU the OS granted (other
			// work on the machine takes its share) and the CPU a point
			// costs (the sweep's own parallel overhead).
			b.ReportMetric(cpu/b.Elapsed().Seconds(), "cores_used")
			var ru syscall.Rusage
			if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
				b.ReportMetric(float64(ru.Maxrss)/1024, "maxRSS_MB")
			}
		})
	}
}
