package main

import (
	"math"
	"runtime/debug"
	"testing"
)

// TestTuneGCLeavesUserChoice: GOGC or GOMEMLIMIT in the environment keeps
// Go's own settings; without them the command collects less often.
func TestTuneGCLeavesUserChoice(t *testing.T) {
	old := debug.SetGCPercent(100)
	oldLimit := debug.SetMemoryLimit(math.MaxInt64)
	defer func() { debug.SetGCPercent(old); debug.SetMemoryLimit(oldLimit) }()
	for _, env := range []map[string]string{{"GOGC": "100"}, {"GOMEMLIMIT": "1GiB"}} {
		if tuneGC(func(k string) string { return env[k] }) {
			t.Errorf("tuneGC changed the settings with %v set", env)
		}
		if got := debug.SetGCPercent(100); got != 100 {
			t.Errorf("with %v set, GC percent %d, want 100 (untouched)", env, got)
		}
	}
	if !tuneGC(func(string) string { return "" }) {
		t.Fatal("tuneGC changed nothing with neither GOGC nor GOMEMLIMIT set")
	}
	if got := debug.SetGCPercent(100); got != gcPercent {
		t.Errorf("GC percent %d, want %d", got, gcPercent)
	}
	if got := debug.SetMemoryLimit(-1); got != memoryLimit {
		t.Errorf("memory limit %d, want %d", got, memoryLimit)
	}
}
