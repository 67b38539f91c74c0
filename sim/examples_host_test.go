package sim

import (
	"reflect"
	"testing"
	"time"

	"github.com/poolsim/poolsim/scenarios"
)

func loadExample(t *testing.T, name string, sets ...string) *scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.Load("../scenarios/examples/"+name, sets)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestThreadPerTaskPair: the bundled pair reproduces the seed's comparison
// (shared/seeds/003) from its own parameters: n tasks of s at once, thread
// starts of ts. A thread per task ends the last one at n·ts + s (the
// submitter starts the threads one after another); one pooled thread at
// ts + n·s.
func TestThreadPerTaskPair(t *testing.T) {
	tpt, pot := loadExample(t, "thread-per-task.yaml"), loadExample(t, "pool-of-tasks.yaml")
	if tpt.Host != pot.Host || len(tpt.Workload.Phases) != 1 || len(pot.Workload.Phases) != 1 ||
		!reflect.DeepEqual(tpt.Workload, pot.Workload) {
		t.Fatal("the pair must differ only in the pool")
	}
	ph := tpt.Workload.Phases[0]
	n, s, ts := time.Duration(ph.Arrivals.Count), ph.Service.Mean, tpt.Host.ThreadStart
	a := runAll(t, tpt, false).res.Summary
	b := runAll(t, pot, false).res.Summary
	tests := []struct {
		name      string
		got, want float64
	}{
		// Every task ran.
		{"thread-per-task completed", float64(a.Completed), float64(n)},
		{"pool completed", float64(b.Completed), float64(n)},
		// A thread per task; one thread in all.
		{"thread-per-task threads_created", float64(a.ThreadsCreated), float64(n)},
		{"pool threads_created", float64(b.ThreadsCreated), 1},
		// The submitter paid every start.
		{"thread-per-task thread_start_submitter_s", float64(a.ThreadStartSubmitter), (n * ts).Seconds()},
		// The makespans.
		{"thread-per-task last_task_end_s", float64(a.LastTaskEnd), (n*ts + s).Seconds()},
		{"pool last_task_end_s", float64(b.LastTaskEnd), (ts + n*s).Seconds()},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %v, want %v", tt.name, tt.got, tt.want)
		}
	}
	t.Logf("thread per task: %.3g s; pool: %.3g s; ratio %.0f (the seed: 23.6 s against 47 ms)", float64(a.LastTaskEnd), float64(b.LastTaskEnd), float64(a.LastTaskEnd/b.LastTaskEnd))
}

// TestCPUSizingExample holds the README's conclusions about the bundled
// sizing scenario (5 minutes instead of 10, one seed): the classic rule's
// 134 threads cannot keep up at 80% CPU; the scenario's 150 threads give a
// p99 response within 2% of what 300 threads give; 300 threads never make a
// task wait for a thread.
func TestCPUSizingExample(t *testing.T) {
	if testing.Short() {
		t.Skip("three 5-minute runs of 1 million tasks (-short)")
	}
	run := func(core string) Summary {
		return runAll(t, loadExample(t, "cpu-sizing.yaml", "duration=5m", "pool.core="+core), false).res.Summary
	}
	rule, chosen, many := run("134"), run("150"), run("300")
	t.Logf("134 threads: wait mean %.3g s, p99 response %.3g s; 150: p99 %.4g s; 300: p99 %.4g s, busy mean %.4g",
		float64(rule.WaitMean), float64(rule.ResponseP99), float64(chosen.ResponseP99), float64(many.ResponseP99), float64(many.BusyMean))
	if rule.WaitMean < 1 {
		t.Errorf("134 threads: mean wait %v s; want a queue that grows (> 1 s)", rule.WaitMean)
	}
	if many.WaitMax != 0 || many.BusyMean <= 134 {
		t.Errorf("300 threads: max wait %v s, busy mean %v; want no wait and more than 134 busy threads on average", many.WaitMax, many.BusyMean)
	}
	if d := float64(chosen.ResponseP99/many.ResponseP99) - 1; d > 0.02 {
		t.Errorf("150 threads: p99 response %v s is %.1f%% above 300 threads' %v s; want within 2%%", chosen.ResponseP99, 100*d, many.ResponseP99)
	}
}
