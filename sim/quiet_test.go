package sim

import (
	"context"
	"fmt"
	"runtime"
	"testing"
)

// quietRun runs sc with quiet timers passed over (the default) and
// returns its outputs and how many it passed over.
func quietRun(t *testing.T, yaml string) (outputs, int64) {
	t.Helper()
	sc := parse(t, yaml)
	e, err := NewEngine(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	return runAll(t, sc, false), e.quietSkipped
}

// elasticTwoHours is issue 19's elastic Tomcat pool (scripts/bench/elastic-tomcat.yaml) for two
// hours: threads come and go all the time, and most keepAlive timers are quiet.
const elasticTwoHours = `
name: elastic
seed: 3
duration: 2h
warmup: 5m
sample: 10s
pool: {preset: tomcat, core: 4, max: 16, keepAlive: 1s}
workload:
  arrivals: {process: poisson, rate: 6.4/s}
  service: {dist: exponential, mean: 1s}
`

// TestQuietTimersSameBits: passing over the keepAlive timers that change
// nothing (nextEvent, skipQuietTimers) leaves every output the same to the
// byte — summary.json's means are sums of products in event order — as the
// run that steps every timer (CheckInvariants turns the skipping off).
// In the second scenario about 60 threads are busy for 24 h: 60 × 8.64e13
// ns ≈ 5.2e15 count × nanoseconds, past 2^52 (4.5e15), so
// recorder.mergeExact lets the skipping run while the pool is small and
// the day young, and stops it after: the bits must hold either way.
func TestQuietTimersSameBits(t *testing.T) {
	for _, tc := range []struct{ name, yaml string }{
		{"elastic", elasticTwoHours},
		{"past 2^52", `
name: wide
seed: 4
duration: 24h
warmup: 10m
sample: 1m
pool: {preset: tomcat, core: 20, max: 200, keepAlive: 1s}
workload:
  arrivals: {process: poisson, rate: 2/s}
  service: {dist: exponential, mean: 30s}
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			quiet, skipped := quietRun(t, tc.yaml)
			if skipped == 0 {
				t.Fatal("no quiet timer was passed over: the test tests nothing")
			}
			stepped := runAll(t, parse(t, tc.yaml), true)
			if quiet.summary != stepped.summary {
				t.Errorf("summary.json differs with quiet timers passed over (%d of them):\n%s\nstepped:\n%s", skipped, quiet.summary, stepped.summary)
			}
			if quiet.timeline != stepped.timeline {
				t.Errorf("timeline.csv differs with quiet timers passed over (%d of them)", skipped)
			}
		})
	}
}

// TestMergeExact: the integrals may be cut at fewer instants only while
// each would stay below 2^52 up to the end.
func TestMergeExact(t *testing.T) {
	r := &recorder{poolSize: 10, eager: true}
	if !r.mergeExact(1 << 40) {
		t.Error("10 threads × 2^40 ns is far below 2^52: mergeExact said no")
	}
	if r.mergeExact(1 << 49) {
		t.Error("10 threads × 2^49 ns passes 2^52: mergeExact said yes")
	}
	r = &recorder{queueLen: 1, areaQueue: 1 << 52, eager: true}
	if r.mergeExact(1) {
		t.Error("an integral already at 2^52: mergeExact said yes")
	}
}

// TestDrawAheadSameOutputs: a run whose arrivals are drawn ahead on another
// processor (workloads.DrawAhead, with GOMAXPROCS above 1) writes the same
// bytes as the run that draws them as it goes (GOMAXPROCS 1); closing the
// engine stops the source.
func TestDrawAheadSameOutputs(t *testing.T) {
	sc := parse(t, elasticTwoHours)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	serial := runAll(t, sc, false)
	runtime.GOMAXPROCS(2)
	e, err := NewEngine(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprintf("%T", e.src); got != "*workloads.aheadSource" {
		t.Fatalf("the engine's source is a %s, not drawn ahead: the test tests nothing", got)
	}
	e.Close()
	if a, ok := e.src.Next(); ok {
		t.Fatalf("the source hands out %+v after the engine's Close", a)
	}
	ahead := runAll(t, sc, false)
	if serial.summary != ahead.summary || serial.timeline != ahead.timeline || serial.snapshots != ahead.snapshots {
		t.Error("the outputs differ with the arrivals drawn ahead")
	}
}
